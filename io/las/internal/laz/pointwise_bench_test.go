//go:build unix

package laz

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkPointwise measures the pointwise codecs of formats 0-5 on
// PDAL's autzen_trim.laz (point format 3, 110,000 points, written by
// LASzip): decoding on 1 and 2 workers and encoding on 1 and 2, next to
// laz-perf 0.0.7's decode of the same file in the same run (when node and
// laz-perf are installed), and next to LASzip's C++ itself when
// PCTK_LASZIP_BENCH names the peer built by testdata/laszip/build.sh.
// Metrics: Mpoints/s of wall time and of CPU time, and pctk's ratios to
// laz-perf (x-lazperf) and LASzip (x-laszip) in both.
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
	var peer peerRates
	b.Run("lazperf-decode", func(b *testing.B) { peer.measure(b, path) })
	var lzWall, lzCPU, lzEncWall, lzEncCPU float64 // LASzip's points/s
	if bin := os.Getenv("PCTK_LASZIP_BENCH"); bin != "" {
		b.Run("laszip", func(b *testing.B) {
			for range 5 {
				var dec, enc struct{ Points, Seconds, CPUSeconds float64 }
				laszipRun(b, bin, &dec, "decode", path)
				laszipRun(b, bin, &enc, "encode", path, filepath.Join(b.TempDir(), "x.laz"))
				lzWall, lzCPU = max(lzWall, dec.Points/dec.Seconds), max(lzCPU, dec.Points/dec.CPUSeconds)
				lzEncWall, lzEncCPU = max(lzEncWall, enc.Points/enc.Seconds), max(lzEncCPU, enc.Points/enc.CPUSeconds)
			}
			b.ReportMetric(lzCPU/1e6, "Mpoints/cpu-s")
			b.ReportMetric(lzEncCPU/1e6, "enc-Mpoints/cpu-s")
		})
	}
	report := func(b *testing.B, wall, cpu time.Duration, encoding bool) {
		points := float64(n) * float64(b.N)
		peer.report(b, points, wall, cpu)
		w, c := lzWall, lzCPU
		if encoding {
			w, c = lzEncWall, lzEncCPU
		}
		if c > 0 {
			b.ReportMetric(points/wall.Seconds()/w, "x-laszip")
			b.ReportMetric(points/cpu.Seconds()/c, "x-laszip-cpu")
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
			report(b, time.Since(start), cpuTime()-cpu, false)
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
			report(b, time.Since(start), cpuTime()-cpu, true)
		})
	}
}

// laszipRun runs the LASzip peer with args and decodes its JSON report
// into res.
func laszipRun(b *testing.B, bin string, res any, args ...string) {
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		b.Fatalf("LASzip peer %v: %v", args, err)
	}
	if err := json.Unmarshal(out, res); err != nil {
		b.Fatalf("LASzip peer %v: %v in %q", args, err, out)
	}
}
