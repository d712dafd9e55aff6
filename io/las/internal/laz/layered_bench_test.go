//go:build unix

package laz

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peerRates are laz-perf's decode rates (points per second of wall and of
// CPU time) on a benchmark's file, the yardstick of pctk's runs.
type peerRates struct{ wall, cpu float64 }

// measure decodes path with laz-perf (fastest of 5) and keeps the best
// rates seen, so that measuring before and after pctk's runs evens out a
// loaded machine.
func (p *peerRates) measure(b *testing.B, path string) {
	_, res := lazPerfDecode(b, path, false, 5)
	p.wall = max(p.wall, float64(res.Points)/res.Seconds)
	p.cpu = max(p.cpu, float64(res.Points)/res.CPUSeconds)
	b.ReportMetric(p.wall/1e6, "Mpoints/s")
	b.ReportMetric(p.cpu/1e6, "Mpoints/cpu-s")
}

// report reports pctk's rates for points coded in wall and cpu time, and
// their ratios to laz-perf's when it was measured.
func (p *peerRates) report(b *testing.B, points float64, wall, cpu time.Duration) {
	b.ReportMetric(points/wall.Seconds()/1e6, "Mpoints/s")
	b.ReportMetric(points/cpu.Seconds()/1e6, "Mpoints/cpu-s")
	if p.wall > 0 {
		b.ReportMetric(points/wall.Seconds()/p.wall, "x-lazperf")
		b.ReportMetric(points/cpu.Seconds()/p.cpu, "x-lazperf-cpu")
	}
}

// format7From3 converts point format 3 records to format 7: the same
// survey's fields in the LAS 1.4 layout (returns, flags and class split as
// LAS 1.4 does, the scan angle in 0.006 degree steps).
func format7From3(src []byte, n int) []byte {
	le := binary.LittleEndian
	dst := make([]byte, n*36)
	for i := range n {
		s, d := src[i*34:(i+1)*34], dst[i*36:(i+1)*36]
		copy(d[0:14], s[0:14])
		bits, class := s[14], s[15]
		d[14] = bits&7 | (bits>>3&7)<<4
		d[15] = class>>5 | (bits>>6&1)<<6 | (bits>>7)<<7
		d[16] = class & 31
		d[17] = s[17]
		le.PutUint16(d[18:], uint16(int16(int8(s[16]))*167))
		copy(d[20:22], s[18:20])
		copy(d[22:30], s[20:28])
		copy(d[30:36], s[28:34])
	}
	return dst
}

// BenchmarkLayered measures the layered codecs on point format 7 (the
// records of PDAL's autzen_trim.las in the LAS 1.4 layout, 110,000
// points, or random records without ../shared): decoding on 1 and 2
// workers, all fields and XYZ only, and encoding, next to laz-perf
// 0.0.7's decode of the same file in the same run (when node and laz-perf
// are installed), measured before and after pctk's runs (the faster
// counts). Metrics: Mpoints/s of wall time and of CPU time (robust to a
// loaded machine), and pctk's ratios to laz-perf in both.
func BenchmarkLayered(b *testing.B) {
	var recs []byte
	if dir := sharedDir(); dir != "" {
		s := readLAS(b, filepath.Join(dir, "pdal/las/autzen_trim.las"))
		recs = format7From3(s.records(), int(s.layout.Count))
	} else {
		recs = randomRecords(rand.New(rand.NewPCG(1, 1)), 7, 36, 110000)
	}
	n := len(recs) / 36
	file := buildLAZ(b, 7, 36, recs, DefaultChunkSize)
	path := filepath.Join(b.TempDir(), "format7.laz")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := parseLAS(file)
	if err != nil {
		b.Fatal(err)
	}
	var peer peerRates
	measure := func(b *testing.B) { peer.measure(b, path) }
	b.Run("lazperf-decode", measure)
	for _, c := range []struct {
		name    string
		workers int
		sel     Selection
	}{
		{"decode-1core", 1, 0},
		{"decode-2cores", 2, 0},
		{"decode-xyz-1core", 1, SelectXYZ},
	} {
		b.Run(c.name, func(b *testing.B) {
			start, cpu := time.Now(), cpuTime()
			for range b.N {
				got, err := decodeAll(f, Options{Workers: c.workers, Select: c.sel})
				if err != nil || len(got) != len(recs) {
					b.Fatal(err, len(got))
				}
			}
			peer.report(b, float64(n)*float64(b.N), time.Since(start), cpuTime()-cpu)
		})
	}
	b.Run("encode-1core", func(b *testing.B) {
		start, cpu := time.Now(), cpuTime()
		for range b.N {
			for i := 0; i < n; i += DefaultChunkSize {
				k := min(DefaultChunkSize, n-i)
				if _, err := encodeLayeredChunk(f.layout.VLR.Items, recs[i*36:(i+k)*36], k); err != nil {
					b.Fatal(err)
				}
			}
		}
		peer.report(b, float64(n)*float64(b.N), time.Since(start), cpuTime()-cpu)
	})
	b.Run("lazperf-decode-again", measure)
}
