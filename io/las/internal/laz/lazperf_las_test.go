package laz_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/las/internal/laz"
)

// records returns the point records of an uncompressed LAS file.
func records(b []byte) (format uint8, recLen int, recs []byte) {
	le := binary.LittleEndian
	start := int(le.Uint32(b[96:]))
	recLen = int(le.Uint16(b[105:]))
	n := int(le.Uint32(b[107:]))
	if b[25] >= 4 {
		n = int(le.Uint64(b[247:]))
	}
	return b[104] & 0x3F, recLen, b[start : start+n*recLen]
}

// TestLazPerfThroughLAS writes LAZ through io/las (las.EncodeLAZ) from
// real LAS files and random records of point formats 0-3 and 6-8, with and
// without extra bytes, and expects laz-perf 0.0.7 to decode exactly the
// records io/las writes as LAS from the same cloud.
func TestLazPerfThroughLAS(t *testing.T) {
	laz.RequireLazPerf(t)
	type source struct {
		name string
		las  []byte
	}
	var sources []source
	for _, f := range []uint8{0, 1, 2, 3, 6, 7, 8} {
		sources = append(sources, source{fmt.Sprintf("random-format%d-extra5", f), laz.RandomLAS(uint64(f), f, 5, 5000)})
	}
	shared := filepath.Join("..", "..", "..", "..", "..", "shared", "data")
	for _, rel := range []string{"las/lion_takanawa/r0.las", "pdal/las/autzen_trim.las", "pdal/las/extrabytes.las",
		"pdal/las/simple.las", "pdal/las/test1_4.las", "pdal/las/4_6_crop.las"} {
		if b, err := os.ReadFile(filepath.Join(shared, rel)); err == nil {
			sources = append(sources, source{filepath.Base(rel), b})
		}
	}
	var paths, names []string
	var wants [][]byte
	var recLens []int
	for _, s := range sources {
		c, err := las.Decode(bytes.NewReader(s.las))
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		var z, l bytes.Buffer
		if err := las.EncodeLAZ(&z, c, ""); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if err := las.Encode(&l, c, ""); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		f, recLen, want := records(l.Bytes())
		if inF, inLen, _ := records(s.las); f != inF || recLen != inLen {
			t.Fatalf("%s: io/las wrote point format %d with %d-byte records from format %d with %d", s.name, f, recLen, inF, inLen)
		}
		path := filepath.Join(t.TempDir(), "x.laz")
		if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths, names = append(paths, path), append(names, s.name)
		wants, recLens = append(wants, want), append(recLens, recLen)
	}
	for i, got := range laz.LazPerfRecords(t, paths) {
		want, recLen := wants[i], recLens[i]
		if len(got) != len(want) {
			t.Errorf("%s: laz-perf decodes %d bytes of records, io/las wrote %d", names[i], len(got), len(want))
			continue
		}
		for k := 0; k < len(want); k += recLen {
			if !bytes.Equal(got[k:k+recLen], want[k:k+recLen]) {
				t.Errorf("%s: record %d: laz-perf\n% x, written\n% x", names[i], k/recLen, got[k:k+recLen], want[k:k+recLen])
				break
			}
		}
	}
}
