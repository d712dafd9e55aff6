package las

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

// encode writes c with variant and reads it back.
func encode(t *testing.T, c *core.Cloud, variant string) ([]byte, *core.Cloud) {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, c, variant); err != nil {
		t.Fatalf("encode: %v", err)
	}
	back, err := Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return buf.Bytes(), back
}

// captureWarnings collects the writer's warnings for the test's duration.
func captureWarnings(t *testing.T) *[]string {
	var got []string
	old := WarningHandler
	WarningHandler = func(m string) { got = append(got, m) }
	t.Cleanup(func() { WarningHandler = old })
	return &got
}

func ebVLRs(info *Info) []VLR {
	var out []VLR
	for _, v := range info.VLRs {
		if v.Is(userSpec, recExtraBytes) {
			out = append(out, v)
		}
	}
	return out
}

// TestUpgradeWithExtraBytes adds an attribute to a LAS 1.2 cloud: the
// default write moves to LAS 1.4 with the same point format, the standard
// part of every record unchanged and one Extra Bytes VLR; an explicit
// "1.2" stays 1.2.
func TestUpgradeWithExtraBytes(t *testing.T) {
	src := randomCloud(t, 7, 500, true, formatColumns(3))
	orig, c := encode(t, src, "1.2")
	cid := core.NewAttribute(core.DimClusterID, core.Int64, c.Len())
	for i := range c.Len() {
		cid.SetFloat64(i, float64(i%17-1))
	}
	c.Attrs = append(c.Attrs, cid)
	out, back := encode(t, c, "")
	info := InfoOf(&back.Meta)
	if v := info.Header.Version(); v != "1.4" || info.Header.pointFormat() != 3 || info.Header.RecordLength != 34+8 {
		t.Fatalf("got LAS %s format %d length %d, want 1.4 format 3 length 42", v, info.Header.pointFormat(), info.Header.RecordLength)
	}
	if n := len(ebVLRs(info)); n != 1 {
		t.Fatalf("got %d Extra Bytes VLRs, want 1", n)
	}
	_, _, _, _, _, a := rawRecords(t, orig)
	_, _, _, _, _, b := rawRecords(t, out)
	for i := range c.Len() {
		if !bytes.Equal(a[i*34:(i+1)*34], b[i*42:i*42+34]) {
			t.Fatalf("point %d: standard record bytes changed", i)
		}
	}
	sameCloud(t, "upgraded", back, c)
	if info.Header.Count != 500 || info.Header.LegacyCount != 500 {
		t.Errorf("got counts %d (legacy %d), want 500 both for format 3", info.Header.Count, info.Header.LegacyCount)
	}

	out12, back12 := encode(t, c, "1.2")
	if out12[25] != 2 {
		t.Errorf("explicit 1.2: got LAS 1.%d", out12[25])
	}
	sameCloud(t, "explicit 1.2", back12, c)
}

// TestExtraBytesEdit keeps a source's descriptors verbatim, appends new
// ones, and drops removed ones, always as one Extra Bytes VLR.
func TestExtraBytesEdit(t *testing.T) {
	c := decodeShared(t, "pdal/las/extrabytes.las")
	orig := ebVLRs(InfoOf(&c.Meta))[0].Data
	nx := core.NewAttribute(core.DimNormalX, core.Float32, c.Len())
	for i := range c.Len() {
		nx.SetFloat64(i, float64(i)/7)
	}
	c.Attrs = append(c.Attrs, nx)
	_, back := encode(t, c, "")
	ebs := ebVLRs(InfoOf(&back.Meta))
	if len(ebs) != 1 || len(ebs[0].Data) != len(orig)+descriptorSize || !bytes.Equal(ebs[0].Data[:len(orig)], orig) {
		t.Fatalf("got %d Extra Bytes VLRs (first %d bytes), want one of %d starting with the source's", len(ebs), len(ebs[0].Data), len(orig)+descriptorSize)
	}
	sameCloud(t, "added NormalX", back, c)

	c.RemoveAttr("Time")
	c.RemoveAttr(core.DimNormalX)
	_, back = encode(t, c, "")
	info := InfoOf(&back.Meta)
	if got, want := int(info.Header.RecordLength), 61-8; got != want {
		t.Errorf("without Time: record length %d, want %d", got, want)
	}
	if back.Attr("Time") != nil {
		t.Errorf("Time came back after removal")
	}
	sameCloud(t, "removed Time", back, c)
}

// TestFromOtherFormat writes clouds that did not come from LAS: colour and
// GPS time choose format 3 in LAS 1.2; normals move them to 1.4 format 7.
func TestFromOtherFormat(t *testing.T) {
	c := randomCloud(t, 3, 200, true, []string{core.DimRed, core.DimGreen, core.DimBlue, core.DimGpsTime})
	c.Meta = core.Metadata{Format: "ply", Comments: []string{"from a scanner"}}
	out, back := encode(t, c, "")
	if out[25] != 2 || out[104] != 3 {
		t.Errorf("got LAS 1.%d format %d, want 1.2 format 3", out[25], out[104])
	}
	sameCloud(t, "ply to las", back, c)
	if sw := strings.TrimSpace(cString(InfoOf(&back.Meta).Header.Software[:])); sw != Software {
		t.Errorf("generating software %q, want %q", sw, Software)
	}
	c2 := randomCloud(t, 4, 200, false, []string{core.DimRed, core.DimGreen, core.DimBlue, core.DimNormalX, core.DimNormalY, core.DimNormalZ})
	out, back = encode(t, c2, "")
	if out[25] != 4 || out[104] != 7 {
		t.Errorf("with normals: got LAS 1.%d format %d, want 1.4 format 7", out[25], out[104])
	}
	sameCloud(t, "ply with normals to las", back, c2)
	// A colour column of another type (PLY uchar) is stored as its values.
	c3 := core.New(2)
	red := core.NewAttribute(core.DimRed, core.Uint8, 2)
	red.SetFloat64(1, 255)
	c3.Attrs = []*core.Attribute{red}
	_, back = encode(t, c3, "")
	if r := back.Attr(core.DimRed); r == nil || r.Float64(1) != 255 || r.Type != core.Uint16 {
		t.Errorf("uint8 Red: got %+v, want uint16 255", r)
	}
}

// TestScaleChoice checks the automatic scale and offset.
func TestScaleChoice(t *testing.T) {
	warns := captureWarnings(t)
	cases := []struct {
		name    string
		coords  []float64
		scale   float64
		maxErr  float64
		warning bool
	}{
		{"centimetre grid", []float64{635619.85, 638982.55, 636000.01}, 0.01, 0, false},
		{"millimetre grid", []float64{1.001, -2.5, 3.999}, 0.001, 0, false},
		{"float32 model", []float64{float64(float32(0.0123456)), float64(float32(-0.0456789)), float64(float32(0.0871))}, 1e-9, 5e-10, false},
		{"UTM float64", []float64{500000.123456789, 505000.987654321}, 1e-5, 5e-6, false},
		{"continental", []float64{-3e7, 3e7, 1234.56}, 0.1, 0.05, true},
	}
	for _, tc := range cases {
		*warns = nil
		c := core.New(len(tc.coords))
		copy(c.X, tc.coords)
		_, back := encode(t, c, "")
		h := InfoOf(&back.Meta).Header
		if math.Abs(h.Scale[0]-tc.scale) > tc.scale*1e-9 {
			t.Errorf("%s: got scale %g, want %g", tc.name, h.Scale[0], tc.scale)
		}
		for i, x := range back.X {
			if d := math.Abs(x - tc.coords[i]); d > tc.maxErr+1e-12*math.Abs(x) {
				t.Errorf("%s: point %d: got %.12g, want %.12g (error %g > %g)", tc.name, i, x, tc.coords[i], d, tc.maxErr)
			}
		}
		if got := len(*warns) > 0; got != tc.warning {
			t.Errorf("%s: got warnings %q, want warning %v", tc.name, *warns, tc.warning)
		}
	}
}

// TestCRSWrite writes CRS given as EPSG only, as WKT, and changed on a
// LAS source.
func TestCRSWrite(t *testing.T) {
	c := randomCloud(t, 5, 10, true, nil)
	c.Meta.CRS = core.CRS{EPSG: 32633}
	_, back := encode(t, c, "")
	if back.Meta.CRS.EPSG != 32633 {
		t.Errorf("EPSG only: got %+v, want EPSG 32633", back.Meta.CRS)
	}
	c.Meta.CRS = core.CRS{EPSG: 4326}
	_, back = encode(t, c, "")
	if back.Meta.CRS.EPSG != 4326 || back.Meta.CRS.GeoKeys[4*3+0] != codec.GeoKeyGeographicCS {
		t.Errorf("EPSG 4326: got %+v, want a GeographicTypeGeoKey 4326", back.Meta.CRS)
	}
	wkt := `GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],AUTHORITY["EPSG","4326"]]`
	c.Meta.CRS = core.CRS{WKT: wkt}
	out, back := encode(t, c, "1.4")
	if back.Meta.CRS.WKT != wkt || back.Meta.CRS.EPSG != 4326 {
		t.Errorf("WKT: got %+v", back.Meta.CRS)
	}
	if ge := le.Uint16(out[6:]); ge&(1<<4) == 0 {
		t.Errorf("LAS 1.4 with WKT: global encoding 0x%04x lacks the WKT bit", ge)
	}
	// WKT in an EVLR keeps the bit too.
	info := InfoOf(&back.Meta)
	info.EVLRs = append(info.EVLRs, info.VLRs[findVLR(info.VLRs, userProjection, recWKT)])
	info.VLRs = slices.DeleteFunc(info.VLRs, func(v VLR) bool { return v.Is(userProjection, recWKT) })
	out, evlr := encode(t, back, "")
	if ge := le.Uint16(out[6:]); ge&(1<<4) == 0 || evlr.Meta.CRS.WKT != wkt || len(InfoOf(&evlr.Meta).EVLRs) != 1 {
		t.Errorf("WKT in an EVLR: global encoding 0x%04x, CRS %+v", ge, evlr.Meta.CRS)
	}
	// Changing the CRS of a LAS cloud replaces its CRS records.
	back.Meta.CRS = core.CRS{EPSG: 26915}
	_, again := encode(t, back, "")
	if again.Meta.CRS.EPSG != 26915 || again.Meta.CRS.WKT != "" {
		t.Errorf("changed CRS: got %+v, want EPSG 26915 and no WKT", again.Meta.CRS)
	}
}

// TestWaveformAndEVLRs writes LAS 1.3 format 4 and LAS 1.4 format 9 with
// waveform data and another EVLR, and reads them back.
func TestWaveformAndEVLRs(t *testing.T) {
	wave := newVLR(userSpec, recWaveform, "waveform data", bytes.Repeat([]byte{1, 2, 3}, 1000))
	other := newVLR("pctk_test", 7, "big record", bytes.Repeat([]byte{9}, 70000))
	for _, tc := range []struct {
		minor  uint8
		pf     int
		evlrs  []VLR
		expect int
	}{
		{3, 4, []VLR{wave}, 1},
		{4, 9, []VLR{wave, other}, 2},
	} {
		c := randomCloud(t, 9, 100, tc.pf <= 5, formatColumns(tc.pf))
		c.Meta.Extra = map[string]any{MetaKey: &Info{Header: Header{VersionMajor: 1, VersionMinor: tc.minor, PointFormat: uint8(tc.pf), Scale: [3]float64{0.001, 0.001, 0.001}}, EVLRs: tc.evlrs}}
		out, back := encode(t, c, "")
		info := InfoOf(&back.Meta)
		if info.Header.VersionMinor != tc.minor || info.Header.pointFormat() != tc.pf {
			t.Fatalf("got LAS %s format %d, want 1.%d format %d", info.Header.Version(), info.Header.pointFormat(), tc.minor, tc.pf)
		}
		if len(info.EVLRs) != tc.expect || !bytes.Equal(info.EVLRs[0].Data, wave.Data) {
			t.Fatalf("1.%d: got %d EVLRs, want %d with the waveform data first", tc.minor, len(info.EVLRs), tc.expect)
		}
		if i := findVLR(info.VLRs, userSpec, recWaveform); i >= 0 {
			t.Errorf("1.%d: the waveform record is also VLR %d", tc.minor, i)
		}
		ws := int(info.Header.WaveformStart)
		if got := string(out[ws+2 : ws+2+len(userSpec)]); got != userSpec {
			t.Errorf("1.%d: start of waveform data %d points at %q, not the waveform EVLR", tc.minor, ws, got)
		}
		sameCloud(t, "waveform", back, c)
		// A plain reader (no seeking) finds the EVLRs after the points.
		d, err := NewDecoder(bytes.NewBuffer(out))
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := d.Read(33); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if len(d.Info().EVLRs) != tc.expect {
			t.Errorf("streaming 1.%d: got %d EVLRs, want %d", tc.minor, len(d.Info().EVLRs), tc.expect)
		}
	}
}

// TestStreaming writes in chunks to a file (header patched at Close) and
// to a pipe (header from the source up front), and reads in chunks.
func TestStreaming(t *testing.T) {
	c := randomCloud(t, 11, 5000, false, append(formatColumns(7), core.DimClusterID))
	whole, ref := encode(t, c, "1.4")

	// Chunked read equals the whole read.
	d, err := NewDecoder(bytes.NewBuffer(whole))
	if err != nil {
		t.Fatal(err)
	}
	got := core.New(0)
	got.Attrs = d.Header().Schema
	for _, a := range got.Attrs {
		a.Data = core.NewAttribute(a.Name, a.Type, 0).Data
	}
	for {
		ch, err := d.Read(777)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Append(ch); err != nil {
			t.Fatal(err)
		}
	}
	sameCloud(t, "chunked read", got, ref)

	write := func(w io.Writer, h *pcio.Header, ref *core.Cloud) error {
		e, err := NewEncoder(w, h, "")
		if err != nil {
			return err
		}
		for lo := 0; lo < ref.Len(); lo += 1234 {
			idx := make([]int, 0, 1234)
			for i := lo; i < min(lo+1234, ref.Len()); i++ {
				idx = append(idx, i)
			}
			if err := e.Write(ref.Select(idx)); err != nil {
				return err
			}
		}
		return e.Close()
	}
	h := &pcio.Header{Count: int64(ref.Len()), Schema: d.Header().Schema, Meta: ref.Meta}
	f, err := os.Create(filepath.Join(t.TempDir(), "s.las"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := write(f, h, ref); err != nil {
		t.Fatal(err)
	}
	fileBytes, _ := os.ReadFile(f.Name())
	var pipe bytes.Buffer
	if err := write(struct{ io.Writer }{&pipe}, h, ref); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"file": fileBytes, "pipe": pipe.Bytes()} {
		if i := firstDiff(b, whole); i >= 0 {
			// Point records and header must both match the whole write.
			t.Errorf("%s: streamed file differs from Encode's at byte %d (%d vs %d bytes)", name, i, len(b), len(whole))
		}
	}
	// Without a LAS source a pipe cannot get its bounds.
	h2 := &pcio.Header{Count: 1, Schema: nil}
	if _, err := NewEncoder(struct{ io.Writer }{&pipe}, h2, ""); err == nil || !strings.Contains(err.Error(), "bounds") {
		t.Errorf("pipe without source: got %v, want an error about bounds", err)
	}
	// Without a LAS source a file gets its scale from the first chunk.
	plain := core.New(ref.Len())
	copy(plain.X, ref.X)
	copy(plain.Y, ref.Y)
	copy(plain.Z, ref.Z)
	f2, _ := os.Create(filepath.Join(t.TempDir(), "p.las"))
	defer f2.Close()
	if err := write(f2, &pcio.Header{Count: int64(ref.Len())}, plain); err != nil {
		t.Fatal(err)
	}
	f2.Seek(0, io.SeekStart)
	back, err := Decode(f2)
	if err != nil {
		t.Fatal(err)
	}
	sameCloud(t, "streamed without source", back, plain)
	hb, _ := c.Bounds()
	bh := InfoOf(&back.Meta).Header
	for k := range 3 {
		if math.Abs(bh.Min[k]-hb.Min[k]) > 1e-9 || math.Abs(bh.Max[k]-hb.Max[k]) > 1e-9 {
			t.Errorf("patched bounds %c: got [%v, %v], want [%v, %v]", "XYZ"[k], bh.Min[k], bh.Max[k], hb.Min[k], hb.Max[k])
		}
	}
	// Counts are checked at Close.
	e, _ := NewEncoder(f2, &pcio.Header{Count: 10, Meta: ref.Meta}, "")
	if err := e.Close(); err == nil {
		t.Error("Close after 0 of 10 points: got nil error")
	}
}

// TestWriteErrors names the point and field that cannot be written.
func TestWriteErrors(t *testing.T) {
	c := randomCloud(t, 13, 10, false, nil)
	cls := core.NewAttribute(core.DimClassification, core.Uint8, 10)
	cls.SetFloat64(4, 40)
	c.Attrs = append(c.Attrs, cls)
	var buf bytes.Buffer
	if err := Encode(&buf, c, "1.2"); err == nil || !strings.Contains(err.Error(), "point 4: Classification = 40") {
		t.Errorf("class 40 in LAS 1.2: got %v, want an error naming point 4 and Classification", err)
	}
	if err := Encode(&buf, c, "1.4"); err != nil {
		t.Errorf("class 40 in LAS 1.4: %v", err)
	}
	c.X[3] = math.NaN()
	if err := Encode(&buf, c, ""); err == nil || !strings.Contains(err.Error(), "point 3") {
		t.Errorf("NaN X: got %v, want an error naming point 3", err)
	}
	if err := Encode(&buf, core.New(0), "2.0"); err == nil || !strings.Contains(err.Error(), "variant") {
		t.Errorf("variant 2.0: got %v", err)
	}
}

// firstDiff returns the first offset where a and b differ, or -1.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestCRSGroups changes one part of a CRS with GeoTIFF parameter records
// (autzen_trim.las: keys, doubles, ASCII and WKT): the other part's
// records stay as they were.
func TestCRSGroups(t *testing.T) {
	c := decodeShared(t, "pdal/las/autzen_trim.las")
	ids := func(c *core.Cloud) []uint16 {
		var out []uint16
		for _, v := range InfoOf(&c.Meta).VLRs {
			out = append(out, v.RecordID)
		}
		return out
	}
	if got := ids(c); !slices.Equal(got, []uint16{34735, 34736, 34737, 2112, 2112}) {
		t.Fatalf("autzen_trim.las VLRs %v, want 34735 34736 34737 2112 2112 (the last liblas')", got)
	}
	c.Meta.CRS.WKT = `PROJCS["changed"]`
	_, back := encode(t, c, "")
	if got := ids(back); !slices.Equal(got, []uint16{34735, 34736, 34737, 2112, 2112}) || back.Meta.CRS.WKT != `PROJCS["changed"]` {
		t.Errorf("new WKT: VLRs %v, WKT %q; want the GeoTIFF records kept and the WKT replaced", got, back.Meta.CRS.WKT)
	}
	if !slices.Equal(back.Meta.CRS.GeoKeys, c.Meta.CRS.GeoKeys) {
		t.Errorf("new WKT: GeoKeys changed")
	}
	c.Meta.CRS = core.CRS{EPSG: 2992}
	_, back = encode(t, c, "")
	if got := ids(back); !slices.Equal(got, []uint16{2112, 34735}) || back.Meta.CRS.EPSG != 2992 || back.Meta.CRS.WKT != "" {
		t.Errorf("EPSG only: VLRs %v, CRS %+v; want liblas' record and new keys for EPSG 2992", got, back.Meta.CRS)
	}
}

// TestScanAngleRank8 writes scan angles to formats 0-5's signed byte from a
// float32 column (as read from LAS) and a float64 one: both round to the
// nearest degree and refuse what does not fit, naming the point.
func TestScanAngleRank8(t *testing.T) {
	cases := []struct {
		v    float64
		want int8
		err  bool
	}{
		{0, 0, false}, {-90, -90, false}, {12.5, 13, false}, {-12.5, -13, false},
		{127.4, 127, false}, {-128.4, -128, false},
		{127.5, 0, true}, {-128.5, 0, true}, {math.NaN(), 0, true}, {math.Inf(1), 0, true},
	}
	for _, typ := range []core.Type{core.Float32, core.Float64} {
		for _, tc := range cases {
			c := core.New(3)
			a := core.NewAttribute(core.DimScanAngleRank, typ, 3)
			a.SetFloat64(2, tc.v)
			c.Attrs = append(c.Attrs, a)
			var buf bytes.Buffer
			err := Encode(&buf, c, "1.2")
			if tc.err {
				if err == nil || !strings.Contains(err.Error(), "point 2: ScanAngleRank") {
					t.Errorf("%v %v: got %v, want an error naming point 2", typ, tc.v, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v %v: %v", typ, tc.v, err)
			}
			b := buf.Bytes()
			rec := b[le.Uint32(b[offPointOffset:])+2*20:]
			if got := int8(rec[16]); got != tc.want {
				t.Errorf("%v %v: wrote %d, want %d", typ, tc.v, got, tc.want)
			}
		}
	}
}
