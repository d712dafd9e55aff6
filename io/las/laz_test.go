package las

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/las/internal/laz"
	"github.com/pctk/pctk/io/pcio"
)

// lazTwins pairs the LAZ files of ../shared/data with their LAS twins.
func lazTwins(t *testing.T) [][2]string {
	var pairs [][2]string
	for _, z := range sharedFiles(t, "laz/lion_takanawa/*.laz") {
		name := strings.TrimSuffix(filepath.Base(z), ".laz") + ".las"
		pairs = append(pairs, [2]string{z, filepath.Join(sharedData, "las", "lion_takanawa", name)})
	}
	base := filepath.Join(sharedData, "pdal", "laszip", "basefile.las")
	for _, z := range []string{"laszip/laszip-generated.laz", "laszip/laszip-generated_with2bytespadding.laz", "laszip/liblas-generated.laz", "laz/simple.laz", "laz/simple-laszip-compressor-version-1.2r0.laz"} {
		pairs = append(pairs, [2]string{filepath.Join(sharedData, "pdal", z), base})
	}
	return append(pairs, [2]string{filepath.Join(sharedData, "pdal", "laz", "autzen_trim.laz"), filepath.Join(sharedData, "pdal", "las", "autzen_trim.las")})
}

// TestLAZTwins decodes every shared LAZ file with a LAS twin, from a file
// and from a stream, and checks every point against the twin's records.
func TestLAZTwins(t *testing.T) {
	for _, p := range lazTwins(t) {
		zb, err := os.ReadFile(p[0])
		if err != nil {
			t.Fatal(err)
		}
		sb := mustRead(t, p[1])
		name := filepath.Base(p[0])
		for _, r := range []io.Reader{bytes.NewReader(zb), bytes.NewBuffer(zb)} {
			c, err := Decode(r)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if w := InfoOf(&c.Meta).Warnings; len(w) > 0 {
				t.Errorf("%s: unexpected warnings %q", name, w)
			}
			checkAgainstRaw(t, name, c, sb)
		}
	}
}

// recordsOf returns the point records of a file read through the package:
// decompressed for LAZ.
func recordsOf(t *testing.T, b []byte) (*Info, []byte) {
	t.Helper()
	d, err := NewDecoder(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for {
		recs, _, err := d.next(1 << 20)
		if err == io.EOF {
			return d.Info(), out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recs...)
	}
}

// TestLASLAZLAS writes every shared LAS file as LAZ and back: the point
// records, VLRs and EVLRs come back byte for byte, the LAZ holds the
// LASzip VLR and the compression bit, and it is smaller than the LAS.
func TestLASLAZLAS(t *testing.T) {
	files := append(sharedFiles(t, "las/*.las"), sharedFiles(t, "pdal/las/*.las")...)
	files = append(files, sharedFiles(t, "las/lion_takanawa/r0*.las")...)
	for _, f := range files {
		orig := mustRead(t, f)
		name := filepath.Base(f)
		c, err := Decode(bytes.NewReader(orig))
		if err != nil {
			continue // the deliberately broken PDAL files
		}
		var z bytes.Buffer
		if err := EncodeLAZ(&z, c, ""); err != nil {
			t.Errorf("%s: encode LAZ: %v", name, err)
			continue
		}
		zb := z.Bytes()
		if zb[104]&0x80 == 0 || zb[104]&0x3f != orig[104]&0x3f {
			t.Errorf("%s: LAZ point format byte 0x%02x for LAS format %d", name, zb[104], orig[104])
		}
		info, recs := recordsOf(t, zb)
		if findVLR(info.VLRs, laz.VLRUserID, laz.VLRRecordID) != len(info.VLRs)-1 {
			t.Errorf("%s: the LASzip VLR is not the last VLR", name)
		}
		_, _, _, _, _, want := rawRecords(t, orig)
		if !bytes.Equal(recs, want) {
			t.Errorf("%s: LAZ records differ from the LAS ones (%d vs %d bytes)", name, len(recs), len(want))
			continue
		}
		back, err := Decode(bytes.NewReader(zb))
		if err != nil {
			t.Fatalf("%s: decode LAZ: %v", name, err)
		}
		var l bytes.Buffer
		if err := Encode(&l, back, ""); err != nil {
			t.Fatalf("%s: LAZ to LAS: %v", name, err)
		}
		// The LAS written from the LAZ is the LAS written from the LAS
		// (which is the original itself but for what the writer mends).
		var direct bytes.Buffer
		if err := Encode(&direct, c, ""); err != nil {
			t.Fatal(err)
		}
		if lb := l.Bytes(); !bytes.Equal(lb, direct.Bytes()) {
			t.Errorf("%s: LAS -> LAZ -> LAS differs from LAS -> LAS at byte %d of %d", name, firstDiff(lb, direct.Bytes()), len(lb))
		}
		if c.Len() > 1000 && len(zb) >= len(orig) {
			t.Errorf("%s: LAZ of %d bytes is not smaller than the LAS of %d", name, len(zb), len(orig))
		}
	}
}

// TestLAZStreaming writes LAZ through the streaming encoder, to a file and
// to a stream that cannot seek, and reads it back chunk by chunk.
func TestLAZStreaming(t *testing.T) {
	c := decodeShared(t, "pdal/las/autzen_trim.las")
	for _, seekable := range []bool{true, false} {
		var buf bytes.Buffer
		var w io.Writer = &buf
		var f *os.File
		if seekable {
			var err error
			f, err = os.Create(filepath.Join(t.TempDir(), "a.laz"))
			if err != nil {
				t.Fatal(err)
			}
			w = f
		}
		h := &pcio.Header{Count: int64(c.Len()), Schema: c.Attrs, Meta: c.Meta}
		e, err := NewLAZEncoder(w, h, "")
		if err != nil {
			t.Fatal(err)
		}
		for lo := 0; lo < c.Len(); lo += 30000 {
			if err := e.Write(slice(c, lo, min(lo+30000, c.Len()))); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		if seekable {
			f.Close()
			b = mustRead(t, f.Name())
		}
		d, err := NewDecoder(bytes.NewBuffer(b))
		if err != nil {
			t.Fatalf("seekable %v: %v", seekable, err)
		}
		n := 0
		for {
			part, err := d.Read(7777)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range part.Len() {
				if part.X[i] != c.X[n+i] || part.Attrs[13].Float64(i) != c.Attrs[13].Float64(n+i) {
					t.Fatalf("seekable %v: point %d differs", seekable, n+i)
				}
			}
			n += part.Len()
		}
		if n != c.Len() {
			t.Errorf("seekable %v: read %d points, wrote %d", seekable, n, c.Len())
		}
	}
}

// slice returns points lo to hi-1 of c as a cloud sharing its columns.
func slice(c *core.Cloud, lo, hi int) *core.Cloud {
	out := core.New(0)
	out.X, out.Y, out.Z = c.X[lo:hi], c.Y[lo:hi], c.Z[lo:hi]
	for _, a := range c.Attrs {
		out.Attrs = append(out.Attrs, a.Slice(lo, hi))
	}
	out.Meta = c.Meta
	return out
}

// TestLAZDamage cuts and corrupts a LAZ file: every read fails with an
// error naming the chunk and its byte offset, or (the chunk table lost)
// decodes all points with a warning; never a shorter cloud.
func TestLAZDamage(t *testing.T) {
	zb := readShared(t, filepath.Join("pdal", "laz", "autzen_trim.laz"))
	start := int(le.Uint32(zb[96:]))
	cases := []struct {
		name string
		edit func([]byte) []byte
		want string // in the error; "" for a warning and all points
	}{
		{"cut in chunk 1", func(b []byte) []byte { return b[:start+400000] }, "header promises 110000 points (number of point records, byte offset 107), 50000 present"},
		{"chunk 0 garbled", func(b []byte) []byte {
			for i := start + 5000; i < start+5100; i++ {
				b[i] ^= 0x5a
			}
			return b
		}, "chunk 0 at byte 2152"},
		{"table offset zeroed", func(b []byte) []byte { clear(b[start : start+8]); return b }, ""},
		{"table lost", func(b []byte) []byte { return b[:len(b)-20] }, ""},
	}
	for _, tc := range cases {
		b := tc.edit(bytes.Clone(zb))
		c, err := Decode(bytes.NewReader(b))
		if tc.want == "" {
			if err != nil || c.Len() != 110000 {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			if w := InfoOf(&c.Meta).Warnings; len(w) != 1 || !strings.Contains(w[0], "chunk") {
				t.Errorf("%s: warnings %q, want one about the chunk table", tc.name, w)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
		// With salvage, the damaged chunk is skipped with a warning and
		// the whole chunks are read: chunk 0 of 50,000 points garbled
		// leaves the other 60,000.
		if tc.name == "chunk 0 garbled" {
			var warned []string
			c, err := Decode(bytes.NewReader(b), pcio.ReadOptions{Salvage: true, Warn: func(err error) { warned = append(warned, err.Error()) }})
			if err != nil {
				t.Errorf("%s, salvaged: %v", tc.name, err)
			} else if c.Len() != 60000 || len(warned) != 1 || !strings.Contains(warned[0], tc.want) {
				t.Errorf("%s, salvaged: %d points, warnings %q; want 60000 points and one warning naming the chunk", tc.name, c.Len(), warned)
			}
		}
	}
}

// TestLAZCutShort cuts LAZ files of both codec families (formats 1 and
// 6, chunks of 50,000 points) inside their chunks: strictly a
// codec.ShortError naming the points promised and the whole chunks'
// points present, as for LAS; salvaged, those points and one warning.
func TestLAZCutShort(t *testing.T) {
	for _, pf := range []int{1, 6} {
		variant := map[bool]string{true: "1.2", false: "1.4"}[pf < 6]
		src := randomCloud(t, 5, 120000, pf < 6, formatColumns(pf))
		var buf bytes.Buffer
		if err := EncodeLAZ(&buf, src, variant); err != nil {
			t.Fatal(err)
		}
		zb := buf.Bytes()
		whole, err := Decode(bytes.NewReader(zb))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			cut     int
			present int
		}{{3000, 0}, {len(zb) / 2, 50000}, {len(zb) - 30, 100000}} {
			b := zb[:tc.cut]
			name := fmt.Sprintf("format %d cut at %d", pf, tc.cut)
			_, err := Decode(bytes.NewReader(b))
			want := fmt.Sprintf("las: file cut short at byte offset %d: header promises 120000 points (number of point records, byte offset %d), %d present", tc.cut, map[bool]int{true: offLegacyCount, false: offCount}[pf < 6], tc.present)
			var se *codec.ShortError
			if !errors.As(err, &se) || err.Error() != want {
				t.Errorf("%s: got %v, want %s", name, err, want)
				continue
			}
			var warns []string
			c, err := Decode(bytes.NewReader(b), pcio.ReadOptions{Salvage: true, Warn: func(err error) { warns = append(warns, err.Error()) }})
			if err != nil || c.Len() != tc.present || len(warns) != 1 || warns[0] != want {
				t.Errorf("%s: salvage gave %v, %v, warnings %q; want %d points and the error as warning", name, c, err, warns, tc.present)
				continue
			}
			for i := 0; i < c.Len(); i += 997 {
				if c.X[i] != whole.X[i] || c.Z[i] != whole.Z[i] {
					t.Fatalf("%s: salvaged point %d is (%v, %v), want (%v, %v)", name, i, c.X[i], c.Z[i], whole.X[i], whole.Z[i])
				}
			}
		}
	}
}

// TestLAZAbsurdCount gives a whole LAZ file a point count its compressed
// bytes cannot hold: the error names the header's count field, not a chunk.
func TestLAZAbsurdCount(t *testing.T) {
	var buf bytes.Buffer
	if err := EncodeLAZ(&buf, randomCloud(t, 6, 1000, true, formatColumns(1)), "1.2"); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	le.PutUint32(b[offLegacyCount:], 4000000000)
	_, err := Decode(bytes.NewReader(b))
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Field != "number of point records" || fe.Offset != offLegacyCount || !strings.Contains(err.Error(), "the header promises 4000000000 points, more than the") {
		t.Fatalf("got %v, want an error naming the number of point records at byte %d", err, offLegacyCount)
	}
}

// TestLAZEachFormat writes random clouds of every point format as LAZ
// (formats 0-5 through the pointwise codecs, 6-10 the layered ones) with
// extra bytes, and reads them back exactly.
func TestLAZEachFormat(t *testing.T) {
	for pf := range 11 {
		c, variant := formatCloud(t, pf, 3000)
		var z bytes.Buffer
		if err := EncodeLAZ(&z, c, variant); err != nil {
			t.Fatalf("format %d: %v", pf, err)
		}
		back, err := Decode(bytes.NewReader(z.Bytes()))
		if err != nil {
			t.Fatalf("format %d: %v", pf, err)
		}
		sameCloud(t, fmt.Sprintf("format %d as LAZ", pf), back, c)
		if got := InfoOf(&back.Meta).Header.PointFormat; got != uint8(pf)|0x80 {
			t.Errorf("format %d written as point format byte 0x%02x", pf, got)
		}
	}
}

// formatCloud returns a random cloud of n points with the columns of
// point format pf and an extra-bytes column, and the variant that writes
// it in that format: LAS 1.2 for formats 0-3, 1.3 for 4 and 5, 1.4 beyond.
func formatCloud(t testing.TB, pf, n int) (*core.Cloud, string) {
	variant := "1.4"
	switch {
	case pf == 4 || pf == 5:
		variant = "1.3"
	case pf < 4:
		variant = "1.2"
	}
	return randomCloud(t, uint64(pf), n, pf <= 5, append(formatColumns(pf), core.DimClusterID)), variant
}

// FuzzDecodeLAZ decodes arbitrary bytes seeded with small LAZ files of
// every pointwise and layered format: no panic, the same result from a
// file and a stream, and a re-encoding that decodes to as many points.
func FuzzDecodeLAZ(f *testing.F) {
	for pf := range 11 {
		c := randomCloud(f, uint64(pf), 40, pf <= 5, formatColumns(pf))
		var z bytes.Buffer
		if err := EncodeLAZ(&z, c, ""); err == nil {
			f.Add(z.Bytes())
		}
	}
	for _, rel := range []string{"pdal/laz/simple-laszip-compressor-version-1.2r0.laz", "pdal/laszip/laszip-generated_with2bytespadding.laz"} {
		if b, err := os.ReadFile(filepath.Join(sharedData, rel)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) { fuzzRoundTrip(t, b, EncodeLAZ) })
}

// TestDescribeLAZ shows the compression of a LAZ file in pctk info.
func TestDescribeLAZ(t *testing.T) {
	for rel, want := range map[string]string{
		"pdal/laz/autzen_trim.laz":                            "LAZ (LASzip 2.2r0), pointwise chunked, chunks of 50000 points, items POINT10 v2 (20 bytes) GPSTIME11 v2 (8 bytes) RGB12 v2 (6 bytes)",
		"pdal/laz/simple-laszip-compressor-version-1.2r0.laz": "LAZ (LASzip 1.2r0), pointwise, no chunks, items POINT10 v1 (20 bytes) GPSTIME11 v1 (8 bytes) RGB12 v1 (6 bytes)",
	} {
		c := decodeShared(t, rel)
		got := ""
		for _, f := range Describe(&c.Meta) {
			if f.Key == "compression" {
				got = f.Value
			}
		}
		if got != want {
			t.Errorf("%s: compression %q, want %q", rel, got, want)
		}
	}
}

// TestLAZEVLRsBecomeVLRs writes a LAS 1.4 source with an EVLR as LAZ 1.2,
// where the EVLR becomes a VLR after the LASzip VLR: the compressor must
// still be set up from the LASzip VLR, not from the last VLR.
func TestLAZEVLRsBecomeVLRs(t *testing.T) {
	other := newVLR("pctk_test", 7, "small record", bytes.Repeat([]byte{9}, 100))
	c := randomCloud(t, 9, 1000, true, formatColumns(1))
	c.Meta.Extra = map[string]any{MetaKey: &Info{Header: Header{VersionMajor: 1, VersionMinor: 4, PointFormat: 1, Scale: [3]float64{0.001, 0.001, 0.001}}, EVLRs: []VLR{other}}}
	var z bytes.Buffer
	if err := EncodeLAZ(&z, c, "1.2"); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(z.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	vs := InfoOf(&back.Meta).VLRs
	if i := findVLR(vs, "pctk_test", 7); i < 0 || !bytes.Equal(vs[i].Data, other.Data) {
		t.Errorf("VLRs %v lack the source's EVLR", vs)
	}
	sameCloud(t, "LAZ 1.2 from a 1.4 source with an EVLR", back, c)
}

// TestLAZEVLRs writes LAZ with EVLRs (LAS 1.3's waveform record, LAS
// 1.4's) through the whole-cloud and streaming encoders, to a file and to
// a stream: the EVLRs follow the chunk table, the header points at them,
// and readers with and without seeking find them.
func TestLAZEVLRs(t *testing.T) {
	wave := newVLR(userSpec, recWaveform, "waveform data", bytes.Repeat([]byte{1, 2, 3}, 1000))
	other := newVLR("pctk_test", 7, "big record", bytes.Repeat([]byte{9}, 70000))
	for _, tc := range []struct {
		minor uint8
		pf    int
		evlrs []VLR
	}{
		{3, 4, []VLR{wave}},
		{4, 9, []VLR{wave, other}},
		{4, 6, []VLR{other}},
	} {
		c := randomCloud(t, 9, 51000, tc.pf <= 5, formatColumns(tc.pf)) // two chunks
		c.Meta.Extra = map[string]any{MetaKey: &Info{Header: Header{VersionMajor: 1, VersionMinor: tc.minor, PointFormat: uint8(tc.pf), Scale: [3]float64{0.001, 0.001, 0.001}, Offset: [3]float64{500000, 4100000, 0}}, EVLRs: tc.evlrs}}
		var whole bytes.Buffer
		if err := EncodeLAZ(&whole, c, ""); err != nil {
			t.Fatal(err)
		}
		var streamed bytes.Buffer // cannot seek: built in memory
		h := &pcio.Header{Count: int64(c.Len()), Schema: c.Attrs, Meta: c.Meta}
		e, err := NewLAZEncoder(&streamed, h, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Write(c); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{"whole": whole.Bytes(), "streamed": streamed.Bytes()} {
			for _, r := range []io.Reader{bytes.NewReader(b), bytes.NewBuffer(b)} {
				back, err := Decode(r)
				if err != nil {
					t.Fatalf("1.%d format %d %s: %v", tc.minor, tc.pf, name, err)
				}
				info := InfoOf(&back.Meta)
				if len(info.EVLRs) != len(tc.evlrs) || !bytes.Equal(info.EVLRs[len(info.EVLRs)-1].Data, tc.evlrs[len(tc.evlrs)-1].Data) {
					t.Fatalf("1.%d format %d %s: got %d EVLRs, want %d", tc.minor, tc.pf, name, len(info.EVLRs), len(tc.evlrs))
				}
				if len(info.Warnings) > 0 {
					t.Errorf("1.%d format %d %s: warnings %q", tc.minor, tc.pf, name, info.Warnings)
				}
				sameCloud(t, fmt.Sprintf("1.%d format %d %s", tc.minor, tc.pf, name), back, c)
			}
		}
	}
}

// TestLASzipReadsPctkLAZ has LASzip's C++ (the peer testdata/laszip in
// io/las/internal/laz builds; PCTK_LASZIP_BENCH names it) decode the LAZ
// pctk writes from every shared LAS file and expects the digest of every
// field of every point that LASzip gives for the LAS itself.
func TestLASzipReadsPctkLAZ(t *testing.T) {
	bin := os.Getenv("PCTK_LASZIP_BENCH")
	if bin == "" {
		t.Skip("set PCTK_LASZIP_BENCH to LASzip's peer (io/las/internal/laz/testdata/laszip/build.sh) to run")
	}
	digest := func(path string) (string, error) {
		out, err := exec.Command(bin, "decode", path).Output()
		var r struct{ Digest string }
		if err == nil {
			err = json.Unmarshal(out, &r)
		}
		return r.Digest, err
	}
	files := append(sharedFiles(t, "las/*.las"), sharedFiles(t, "pdal/las/*.las")...)
	files = append(files, sharedFiles(t, "las/lion_takanawa/r0*.las")...)
	checked := 0
	for _, f := range files {
		want, err := digest(f)
		if err != nil {
			continue // LASzip does not read it as LAS (PDAL's broken files)
		}
		c, err := Decode(bytes.NewReader(mustRead(t, f)))
		if err != nil {
			continue
		}
		path := filepath.Join(t.TempDir(), "x.laz")
		var z bytes.Buffer
		if err := EncodeLAZ(&z, c, ""); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := digest(path)
		if err != nil || got != want {
			t.Errorf("%s: LASzip reads pctk's LAZ as %s (%v), the LAS as %s", filepath.Base(f), got, err, want)
		}
		checked++
	}
	// Random clouds of every point format, waveform packets included.
	for pf := range 11 {
		c, variant := formatCloud(t, pf, 2000)
		paths := [2]string{filepath.Join(t.TempDir(), "x.las"), filepath.Join(t.TempDir(), "x.laz")}
		for i, enc := range []func(io.Writer, *core.Cloud, string) error{Encode, EncodeLAZ} {
			var b bytes.Buffer
			if err := enc(&b, c, variant); err != nil {
				t.Fatalf("format %d: %v", pf, err)
			}
			if err := os.WriteFile(paths[i], b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := digest(paths[0])
		if err != nil {
			t.Fatalf("format %d: LASzip on the LAS: %v", pf, err)
		}
		if got, err := digest(paths[1]); err != nil || got != want {
			t.Errorf("format %d: LASzip reads pctk's LAZ as %s (%v), the LAS as %s", pf, got, err, want)
		}
		checked++
	}
	t.Logf("LASzip read %d LAZ files pctk wrote", checked)
}

// TestPctkReadsLASzipLAZ has LASzip's C++ (PCTK_LASZIP_BENCH, as above)
// compress the shared LAS files and random ones of every point format
// 0-10 (formats 6-10 with its layered v3 codecs), and expects pctk to
// decode exactly the LAS's records from each.
func TestPctkReadsLASzipLAZ(t *testing.T) {
	bin := os.Getenv("PCTK_LASZIP_BENCH")
	if bin == "" {
		t.Skip("set PCTK_LASZIP_BENCH to LASzip's peer (io/las/internal/laz/testdata/laszip/build.sh) to run")
	}
	dir := t.TempDir()
	var sources []string
	for _, f := range append(sharedFiles(t, "pdal/las/*.las"), sharedFiles(t, "las/*.las")...) {
		sources = append(sources, f)
	}
	for pf := range 11 {
		c, variant := formatCloud(t, pf, 3000)
		var b bytes.Buffer
		if err := Encode(&b, c, variant); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("random%d.las", pf))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		sources = append(sources, p)
	}
	checked := 0
	for _, f := range sources {
		z := filepath.Join(dir, "x.laz")
		if err := exec.Command(bin, "encode", f, z).Run(); err != nil {
			continue // LASzip does not read it as LAS (PDAL's broken files)
		}
		orig := mustRead(t, f)
		if _, err := Decode(bytes.NewReader(orig)); err != nil {
			continue
		}
		_, want := recordsOf(t, orig)
		info, got := recordsOf(t, mustRead(t, z))
		if !info.Header.isLAZ() {
			t.Fatalf("%s: LASzip did not compress it", f)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: pctk decodes LASzip's LAZ (%s) to other records (%d vs %d bytes)", filepath.Base(f), lazSummary(info), len(got), len(want))
		}
		checked++
	}
	t.Logf("pctk read %d LAZ files LASzip wrote", checked)
}

// TestLAZDims reads LAZ of formats 3, 7 and 8 (pointwise and layered) and
// plain LAS with pcio.ReadOptions.Dims: X, Y, Z and the named columns come
// out equal to a full read, the other columns are left out.
func TestLAZDims(t *testing.T) {
	for _, pf := range []int{3, 7, 8} {
		c, variant := formatCloud(t, pf, 5000)
		for _, enc := range []func(io.Writer, *core.Cloud, string) error{EncodeLAZ, Encode} {
			var z bytes.Buffer
			if err := enc(&z, c, variant); err != nil {
				t.Fatal(err)
			}
			full, err := Decode(bytes.NewReader(z.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			for _, dims := range [][]string{{}, {core.DimClassification}, {core.DimGpsTime, core.DimRed, core.DimClusterID}} {
				got, err := Decode(bytes.NewReader(z.Bytes()), pcio.ReadOptions{Dims: dims})
				if err != nil {
					t.Fatalf("format %d, dims %v: %v", pf, dims, err)
				}
				name := fmt.Sprintf("format %d, dims %v", pf, dims)
				if !slices.Equal(got.X, full.X) || !slices.Equal(got.Y, full.Y) || !slices.Equal(got.Z, full.Z) {
					t.Errorf("%s: coordinates differ from a full read", name)
				}
				var names []string
				for _, a := range got.Attrs {
					names = append(names, a.Name)
					if w := full.Attr(a.Name); w == nil || fmt.Sprint(w.Data) != fmt.Sprint(a.Data) {
						t.Errorf("%s: column %s differs from a full read", name, a.Name)
					}
				}
				var want []string
				for _, d := range dims {
					if full.Attr(d) != nil {
						want = append(want, d)
					}
				}
				slices.Sort(names)
				slices.Sort(want)
				if !slices.Equal(names, want) {
					t.Errorf("%s: columns %v, want %v", name, names, want)
				}
			}
		}
	}
}
