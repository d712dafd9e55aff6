//go:build unix

package laz

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkPointwise measures the pointwise codecs of formats 0-5 on
// PDAL's autzen_trim.laz (point format 3, 110,000 points, written by
// LASzip): decoding on 1 and 2 workers and encoding on 1 and 2, next to
// laz-perf 0.0.7's decode of the same file in the same run (when node and
// laz-perf are installed). Metrics: Mpoints/s of wall time and of CPU
// time, and pctk's ratios to laz-perf in both.
func BenchmarkPointwise(b *testing.B) {
	dir := sharedDir()
	if dir == "" {
		b.Skip("../shared/data is absent")
	}
	path := filepath.Join(dir, "pdal/laz/autzen_trim.laz")
	f := readLAS(b, path)
	recs, err := decodeAll(f, Options{})
	if err != nil {
		b.Fatal(err)
	}
	n := int(f.layout.Count)
	var peerWall, peerCPU float64
	b.Run("lazperf-decode", func(b *testing.B) {
		_, res := lazPerfDecode(b, path, false, 5)
		peerWall = max(peerWall, float64(res.Points)/res.Seconds)
		peerCPU = max(peerCPU, float64(res.Points)/res.CPUSeconds)
		b.ReportMetric(peerWall/1e6, "Mpoints/s")
		b.ReportMetric(peerCPU/1e6, "Mpoints/cpu-s")
	})
	report := func(b *testing.B, wall, cpu time.Duration) {
		points := float64(n) * float64(b.N)
		b.ReportMetric(points/wall.Seconds()/1e6, "Mpoints/s")
		b.ReportMetric(points/cpu.Seconds()/1e6, "Mpoints/cpu-s")
		if peerWall > 0 {
			b.ReportMetric(points/wall.Seconds()/peerWall, "x-lazperf")
			b.ReportMetric(points/cpu.Seconds()/peerCPU, "x-lazperf-cpu")
		}
	}
	for _, workers := range []int{1, 2} {
		b.Run("decode-"+itoa(workers)+"cores", func(b *testing.B) {
			b.ReportAllocs()
			start, cpu := time.Now(), cpuTime()
			for range b.N {
				got, err := decodeAll(f, Options{Workers: workers})
				if err != nil || len(got) != len(recs) {
					b.Fatal(err, len(got))
				}
			}
			report(b, time.Since(start), cpuTime()-cpu)
		})
	}
	for _, workers := range []int{1, 2} {
		b.Run("encode-"+itoa(workers)+"cores", func(b *testing.B) {
			b.ReportAllocs()
			start, cpu := time.Now(), cpuTime()
			for range b.N {
				var out bytes.Buffer
				w, err := NewWriter(f.layout.VLR, f.layout.RecLen, Options{Workers: workers}, func(p []byte) error {
					out.Write(p)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if err := w.Write(recs); err != nil {
					b.Fatal(err)
				}
				if _, err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			report(b, time.Since(start), cpuTime()-cpu)
		})
	}
}
