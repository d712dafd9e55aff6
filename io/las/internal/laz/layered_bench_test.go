package laz

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

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
// are installed). Metrics: Mpoints/s, and pctk's ratio to laz-perf.
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
	var peer float64 // laz-perf's points/s
	b.Run("lazperf-decode", func(b *testing.B) {
		_, res := lazPerfDecode(b, path, false, 3)
		peer = float64(res.Points) / res.Seconds
		b.ReportMetric(peer/1e6, "Mpoints/s")
	})
	report := func(b *testing.B, elapsed time.Duration) {
		rate := float64(n) * float64(b.N) / elapsed.Seconds()
		b.ReportMetric(rate/1e6, "Mpoints/s")
		if peer > 0 {
			b.ReportMetric(rate/peer, "x-lazperf")
		}
	}
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
			start := time.Now()
			for range b.N {
				got, err := decodeAll(f, Options{Workers: c.workers, Select: c.sel})
				if err != nil || len(got) != len(recs) {
					b.Fatal(err, len(got))
				}
			}
			report(b, time.Since(start))
		})
	}
	b.Run("encode-1core", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			for i := 0; i < n; i += DefaultChunkSize {
				k := min(DefaultChunkSize, n-i)
				if _, err := encodeLayeredChunk(f.layout.VLR.Items, recs[i*36:(i+k)*36], k); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b, time.Since(start))
	})
}
