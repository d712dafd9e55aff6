package laz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lasFile is what the tests need of a LAS or LAZ file.
type lasFile struct {
	data   []byte
	layout Layout // VLR nil for LAS
	format uint8
}

// readLAS parses the header and VLRs of a LAS/LAZ file in memory.
func readLAS(t testing.TB, path string) *lasFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parseLAS(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

func parseLAS(b []byte) (*lasFile, error) {
	if len(b) < 227 || string(b[:4]) != "LASF" {
		return nil, errors.New("not LAS")
	}
	f := &lasFile{data: b, format: b[104] & 0x3F}
	l := &f.layout
	l.Start = int64(binary.LittleEndian.Uint32(b[96:]))
	l.RecLen = int(binary.LittleEndian.Uint16(b[105:]))
	l.Count = uint64(binary.LittleEndian.Uint32(b[107:]))
	l.Size = int64(len(b))
	l.End = l.Size
	if b[25] >= 4 && len(b) >= 375 {
		if c := binary.LittleEndian.Uint64(b[247:]); c != 0 {
			l.Count = c
		}
		if n := binary.LittleEndian.Uint32(b[243:]); n > 0 {
			l.End = int64(binary.LittleEndian.Uint64(b[235:]))
		}
	}
	pos := int(binary.LittleEndian.Uint16(b[94:]))
	for range binary.LittleEndian.Uint32(b[100:]) {
		if pos+54 > len(b) {
			return nil, errors.New("VLR past the end")
		}
		user := string(bytes.TrimRight(b[pos+2:pos+18], "\x00"))
		id := binary.LittleEndian.Uint16(b[pos+18:])
		n := int(binary.LittleEndian.Uint16(b[pos+20:]))
		if pos+54+n > len(b) {
			return nil, errors.New("VLR data past the end")
		}
		if user == VLRUserID && id == VLRRecordID {
			v, err := ParseVLR(b[pos+54 : pos+54+n])
			if err != nil {
				return nil, err
			}
			l.VLR = v
		}
		pos += 54 + n
	}
	return f, nil
}

// records returns the point records of a LAS file.
func (f *lasFile) records() []byte {
	l := &f.layout
	return f.data[l.Start : l.Start+int64(l.Count)*int64(l.RecLen)]
}

// decodeAll decodes every point of a LAZ file.
func decodeAll(f *lasFile, opt Options) ([]byte, error) {
	rd, err := NewReader(bytes.NewReader(f.data), f.layout, opt)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var out []byte
	for {
		recs, _, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, recs...)
	}
}

// shared returns the path of a file under ../shared/data, skipping the
// test when that folder is absent.
func shared(t testing.TB, rel string) string {
	p := filepath.Join("..", "..", "..", "..", "..", "shared", "data", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not found (../shared/data is absent in a fresh clone)", p)
	}
	return p
}

// compareRecords reports the first record that differs.
func compareRecords(t *testing.T, name string, got, want []byte, recLen int) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d records, want %d", name, len(got)/recLen, len(want)/recLen)
	}
	for i := 0; i+recLen <= min(len(got), len(want)); i += recLen {
		if !bytes.Equal(got[i:i+recLen], want[i:i+recLen]) {
			t.Errorf("%s: record %d is\n% x, want\n% x", name, i/recLen, got[i:i+recLen], want[i:i+recLen])
			return
		}
	}
}

func TestLionTwins(t *testing.T) {
	dir := shared(t, "laz/lion_takanawa")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.laz"))
	total := 0
	for _, p := range paths {
		name := filepath.Base(p)
		z := readLAS(t, p)
		s := readLAS(t, filepath.Join(dir, "..", "..", "las", "lion_takanawa", name[:len(name)-1]+"s"))
		got, err := decodeAll(z, Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		compareRecords(t, name, got, s.records(), s.layout.RecLen)
		total += len(got) / s.layout.RecLen
	}
	// ../shared/README.md: the 200 nodes hold 341,989 points.
	if len(paths) != 200 || total != 341989 {
		t.Errorf("decoded %d points from %d files, want 341989 from 200", total, len(paths))
	}
}

func TestPDALTwins(t *testing.T) {
	cases := []struct{ laz, las string }{
		{"pdal/laz/autzen_trim.laz", "pdal/las/autzen_trim.las"},
		{"pdal/laszip/laszip-generated.laz", "pdal/laszip/basefile.las"},
		{"pdal/laszip/laszip-generated_with2bytespadding.laz", "pdal/laszip/basefile.las"},
		{"pdal/laszip/liblas-generated.laz", "pdal/laszip/basefile.las"},
		{"pdal/laz/simple.laz", "pdal/laszip/basefile.las"},
		{"pdal/laz/simple-laszip-compressor-version-1.2r0.laz", "pdal/laszip/basefile.las"},
	}
	for _, c := range cases {
		z := readLAS(t, shared(t, c.laz))
		s := readLAS(t, shared(t, c.las))
		for _, workers := range []int{1, 3} {
			got, err := decodeAll(z, Options{Workers: workers})
			if err != nil {
				t.Errorf("%s: %v", c.laz, err)
				continue
			}
			compareRecords(t, c.laz, got, s.records(), s.layout.RecLen)
		}
	}
}

// encodeFile compresses records as a LAZ point block: the chunk table
// offset, the chunks and the table, with offsets from start.
func encodeFile(t testing.TB, v *VLR, recs []byte, recLen int, start int64, workers int) []byte {
	t.Helper()
	out := make([]byte, 8)
	w, err := NewWriter(v, recLen, Options{Workers: workers}, func(b []byte) error {
		out = append(out, b...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(recs); i += 7000 * recLen {
		if err := w.Write(recs[i:min(len(recs), i+7000*recLen)]); err != nil {
			t.Fatal(err)
		}
	}
	chunks, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(out, uint64(start+int64(len(out))))
	return AppendTable(out, chunks, v.ChunkSize == VariableChunkSize)
}

// TestEncodeLikeLASzip re-encodes the records of LAS twins and expects the
// bytes LASzip wrote, chunk table included.
func TestEncodeLikeLASzip(t *testing.T) {
	cases := []struct{ laz, las string }{
		{"pdal/laz/autzen_trim.laz", "pdal/las/autzen_trim.las"},
		{"pdal/laz/simple.laz", "pdal/laszip/basefile.las"},
		{"laz/lion_takanawa/r0.laz", "las/lion_takanawa/r0.las"},
	}
	for _, c := range cases {
		z := readLAS(t, shared(t, c.laz))
		s := readLAS(t, shared(t, c.las))
		got := encodeFile(t, z.layout.VLR, s.records(), s.layout.RecLen, z.layout.Start, 2)
		want := z.data[z.layout.Start:z.layout.End]
		if !bytes.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: encoded %d bytes, LASzip %d; first difference at byte %d", c.laz, len(got), len(want), i)
		}
	}
}

// TestPDALMatchesLazPerf decodes every LAZ of PDAL's laz/ and laszip/
// folders with laz-perf 0.0.7 too and expects its records (the files
// whose pointwise compressor laz-perf does not read are checked against
// their LAS twin in TestPDALTwins only).
func TestPDALMatchesLazPerf(t *testing.T) {
	lazPerfDir(t)
	var paths []string
	for _, dir := range []string{"pdal/laz", "pdal/laszip"} {
		ps, _ := filepath.Glob(filepath.Join(shared(t, dir), "*.laz"))
		for _, p := range ps {
			if readLAS(t, p).layout.VLR.Compressor != CompressorPointwise {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) != 5 {
		t.Errorf("%d chunked LAZ files in PDAL's laz/ and laszip/, want 5", len(paths))
	}
	want, _ := lazPerfDecodeAll(t, paths, true, 1)
	for i, p := range paths {
		f := readLAS(t, p)
		got, err := decodeAll(f, Options{})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if len(want[i]) != int(f.layout.Count)*f.layout.RecLen {
			t.Errorf("%s: laz-perf gives %d bytes of records, want %d", p, len(want[i]), int(f.layout.Count)*f.layout.RecLen)
		}
		compareRecords(t, filepath.Base(p), got, want[i], f.layout.RecLen)
	}
}

// TestSalvage garbles one chunk of a LAZ file: without salvage the read
// fails naming the chunk and its offset; with it the other chunks' points
// come through, exactly, and a warning names the skipped chunk.
func TestSalvage(t *testing.T) {
	z := readLAS(t, shared(t, "pdal/laz/autzen_trim.laz"))
	s := readLAS(t, shared(t, "pdal/las/autzen_trim.las"))
	chunks, _, err := ChunkTable(bytes.NewReader(z.data), &z.layout)
	if err != nil || len(chunks) != 3 {
		t.Fatalf("%d chunks, %v; want 3", len(chunks), err)
	}
	bad := bytes.Clone(z.data)
	for i := chunks[1].Offset + 100; i < chunks[1].Offset+200; i++ {
		bad[i] ^= 0xa5
	}
	f := &lasFile{data: bad, layout: z.layout}
	_, err = decodeAll(f, Options{})
	var ce *ChunkError
	if !errors.As(err, &ce) || ce.Index != 1 || ce.Offset != chunks[1].Offset {
		t.Fatalf("error %v, want a ChunkError for chunk 1 at byte %d", err, chunks[1].Offset)
	}
	var warned []string
	got, err := decodeAll(f, Options{Salvage: true, Skip: func(err error) { warned = append(warned, err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	rl := s.layout.RecLen
	want := append(bytes.Clone(s.records()[:50000*rl]), s.records()[100000*rl:]...)
	compareRecords(t, "salvaged", got, want, rl)
	if len(warned) != 1 || !strings.Contains(warned[0], "chunk 1 at byte") || !strings.Contains(warned[0], "50000 points are skipped") {
		t.Errorf("warnings %q, want one naming chunk 1 and its 50000 points", warned)
	}
}
