package pcd

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/pctk/pctk/io/internal/codectest"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// organized is a 2x2 organised ascii cloud with a NaN point, a packed rgb
// of which one colour is a NaN float, a COUNT 3 field, every TYPE/SIZE and
// PCL's names.
const organized = `# .PCD v0.7 - Point Cloud Data file format
# scanned by hand
VERSION 0.7
FIELDS x y z rgb normal_x intensity curvature h i1 i2 i4 i8 u2 u8 f8
SIZE 4 4 4 4 4 4 4 4 1 2 4 8 2 8 8
TYPE F F F F F F F F I I I I U U F
COUNT 1 1 1 1 1 1 1 3 1 1 1 1 1 1 1
WIDTH 2
HEIGHT 2
VIEWPOINT 1 2 3 0.5 0.5 0.5 0.5
POINTS 4
DATA ascii
0.1 0.2 0.3 4278255360 1 7 0.25 1 2 3 -128 -32768 -2147483648 -9223372036854775808 65535 18446744073709551615 1e300
nan nan nan 4294967295 nan 0 0 0 0 0 0 0 0 0 0 0 -inf
1 2 3 4.808e+06 0 0 0 0 0 0 127 32767 2147483647 9223372036854775807 0 0 5e-324
4,5,6,0,0,0,0,0,0,0,0,0,0,0,0,0,0
`

func decodeString(t *testing.T, s string) *core.Cloud { return codecUnderTest.DecodeString(t, s) }

func TestOrganized(t *testing.T) {
	c := decodeString(t, organized)
	want := "[Red:uint8 Green:uint8 Blue:uint8 NormalX:float32 Intensity:float32 Curvature:float32 h_0:float32 h_1:float32 h_2:float32 i1:int8 i2:int16 i4:int32 i8:int64 u2:uint16 u8:uint64 f8:float64]"
	if got := fmt.Sprint(attrNames(c)); got != want {
		t.Fatalf("attributes\n got %s\nwant %s", got, want)
	}
	h := c.Meta.Extra["pcd"].(*Header)
	if h.Width != 2 || h.Height != 2 || h.Viewpoint != [7]float64{1, 2, 3, 0.5, 0.5, 0.5, 0.5} {
		t.Errorf("got %dx%d viewpoint %v, want 2x2 [1 2 3 0.5 0.5 0.5 0.5]", h.Width, h.Height, h.Viewpoint)
	}
	if !math.IsNaN(c.X[1]) || c.X[0] != float64(float32(0.1)) {
		t.Errorf("X = %v, want [float32(0.1) NaN ...]", c.X)
	}
	if fmt.Sprint(c.Meta.Comments) != "[scanned by hand]" {
		t.Errorf("comments = %q", c.Meta.Comments)
	}
	// 4278255360 is 0xff00ff00: padding 255, red 0, green 255, blue 0.
	// 4294967295 (all ones) is a NaN as a float.
	// 4.808e+06 is an old-style float-written colour: its float32 bits.
	// The padding bytes (255, 255, 0x4a, 0) go to no column; the header
	// keeps the first point's.
	old := math.Float32bits(4.808e6)
	if f := h.Fields[3]; f.Pad != 255 {
		t.Errorf("rgb pad %d, want the first point's 255", f.Pad)
	}
	for _, k := range []struct {
		name string
		i    int
		want float64
	}{
		{"Red", 0, 0}, {"Green", 0, 255}, {"Blue", 0, 0},
		{"Red", 1, 255}, {"Blue", 1, 255},
		{"Red", 2, float64(old >> 16 & 255)}, {"Blue", 2, float64(old & 255)},
		{"h_1", 0, 2}, {"i1", 0, -128}, {"i8", 2, math.MaxInt64}, {"u8", 0, math.MaxUint64}, {"f8", 2, 5e-324},
		{"Intensity", 0, 7}, {"Curvature", 0, 0.25},
	} {
		if got := c.Attr(k.name).Float64(k.i); got != k.want {
			t.Errorf("%s[%d] = %v, want %v", k.name, k.i, got, k.want)
		}
	}
	if got := c.Attr("i8").Int64(0); got != math.MinInt64 {
		t.Errorf("i8[0] = %d, want MinInt64", got)
	}
	for _, v := range variants {
		if msg := codecUnderTest.RoundTrip(c, v, v != "ascii"); msg != "" {
			t.Error(msg)
		}
		var buf bytes.Buffer
		if err := Encode(&buf, c, v); err != nil {
			t.Fatal(err)
		}
		if v == "ascii" && !strings.Contains(buf.String(), "\nFIELDS x y z rgb normal_x intensity curvature h i1 i2 i4 i8 u2 u8 f8\nSIZE 4 4 4 4 4 4 4 4 1 2 4 8 2 8 8\nTYPE F F F F F F F F I I I I U U F\nCOUNT 1 1 1 1 1 1 1 3 1 1 1 1 1 1 1\nWIDTH 2\nHEIGHT 2\nVIEWPOINT 1 2 3 0.5 0.5 0.5 0.5\nPOINTS 4\nDATA ascii\n0.1 0.2 0.3 4278255360 ") {
			t.Errorf("ascii output header differs:\n%s", buf.String())
		}
	}
	// A subset is no longer organised.
	var buf bytes.Buffer
	if err := Encode(&buf, c.Select([]int{0, 2, 3}), "ascii"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\nWIDTH 3\nHEIGHT 1\n") {
		t.Errorf("subset header:\n%s", buf.String())
	}
}

// TestFromElsewhere writes a cloud that did not come from PCD: PDAL names
// go out under PCL's names, uint8 colour packs into rgb, and coordinates
// that are not float32 values are written as F 8.
func TestFromElsewhere(t *testing.T) {
	c := core.New(2)
	c.X[0], c.Y[1] = 0.1, 4320978.61
	for _, s := range []struct {
		name string
		t    core.Type
	}{{core.DimNormalX, core.Float32}, {core.DimRed, core.Uint8}, {core.DimGreen, core.Uint8}, {core.DimBlue, core.Uint8}, {core.DimClusterID, core.Int64}, {"odd name", core.Uint16}} {
		a, _ := c.AddAttr(s.name, s.t)
		a.SetFloat64(0, 200)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, c, "ascii"); err != nil {
		t.Fatal(err)
	}
	wantHead := "FIELDS x y z normal_x rgb ClusterID odd_name\nSIZE 8 8 8 4 4 8 2\nTYPE F F F F F I U\nCOUNT 1 1 1 1 1 1 1\nWIDTH 2\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 2\nDATA ascii\n"
	if !strings.Contains(buf.String(), wantHead) {
		t.Errorf("got\n%s\nwant a header with\n%s", buf.String(), wantHead)
	}
	d := decodeString(t, buf.String())
	want := "[NormalX:float32 Red:uint8 Green:uint8 Blue:uint8 ClusterID:int64 odd_name:uint16]"
	if got := fmt.Sprint(attrNames(d)); got != want {
		t.Errorf("read back %s, want %s", got, want)
	}
	if pad := d.Meta.Extra["pcd"].(*Header).Fields[4].Pad; d.Y[1] != 4320978.61 || d.Attr(core.DimRed).Float64(0) != 200 || pad != 255 {
		t.Errorf("read back Y[1]=%v Red[0]=%v rgb pad %d, want 4320978.61 200 255", d.Y[1], d.Attr(core.DimRed).Float64(0), pad)
	}
	// float32 coordinates are written as F 4, as PCL's point types expect.
	c.X[0], c.Y[1] = 0.5, 3
	buf.Reset()
	if err := Encode(&buf, c, "binary"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\nSIZE 4 4 4 4 4 8 2\n") {
		t.Errorf("float32 coordinates: header\n%s", buf.String()[:200])
	}
}

const xyzHeader = "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH %d\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS %d\nDATA %s\n"

func TestBadInput(t *testing.T) {
	bin := fmt.Sprintf(xyzHeader, 3, 3, "binary") + string(make([]byte, 36))
	comp := func(csize, usize uint32, data string) string {
		return fmt.Sprintf(xyzHeader, 3, 3, "binary_compressed") + string([]byte{byte(csize), byte(csize >> 8), byte(csize >> 16), byte(csize >> 24), byte(usize), byte(usize >> 8), byte(usize >> 16), byte(usize >> 24)}) + data
	}
	cases := []codectest.BadCase{
		{Name: "empty", In: "", Want: "pcd: line 1: header ends before DATA", EOF: true},
		{Name: "not pcd", In: "ply\nformat ascii 1.0\n", Want: `line 1: not a PCD file: first line is "ply"`},
		{Name: "no DATA", In: "VERSION 0.7\nFIELDS x\nPOINTS 1\n", Want: "header ends before DATA", EOF: true},
		{Name: "no FIELDS", In: "VERSION 0.7\nPOINTS 1\nDATA ascii\n", Want: "no FIELDS before DATA"},
		{Name: "unknown type", In: "FIELDS x\nSIZE 2\nTYPE F\nPOINTS 1\nDATA ascii\n1\n", Want: `unsupported field x: TYPE 'F' with SIZE 2`, Unsupported: true},
		{Name: "unknown data", In: "FIELDS x\nPOINTS 1\nDATA binary_zstd\n", Want: `unsupported DATA encoding "binary_zstd"`, Unsupported: true},
		{Name: "size count mismatch", In: "FIELDS x y\nSIZE 4\nPOINTS 1\nDATA ascii\n", Want: "SIZE has 1 entries for 2 fields"},
		{Name: "width height points", In: "FIELDS x\nWIDTH 3\nHEIGHT 2\nPOINTS 5\nDATA ascii\n", Want: "WIDTH 3 x HEIGHT 2 is not POINTS 5"},
		{Name: "huge count", In: "FIELDS x\nCOUNT 99999999999\nPOINTS 1\nDATA ascii\n", Want: `bad COUNT value "99999999999"`},
		{Name: "duplicate field", In: "FIELDS x x y z\nPOINTS 1\nDATA ascii\n1 2 3 4\n", Want: "line 1: field x given twice"},
		{Name: "no coordinates", In: "FIELDS intensity\nPOINTS 1\nDATA ascii\n1\n", Want: "line 3: no x, y field"},
		{Name: "no y", In: "FIELDS x z\nPOINTS 1\nDATA ascii\n1 2\n", Want: "line 3: no y field"},
		{Name: "duplicate line", In: "FIELDS x\nFIELDS y\nDATA ascii\n", Want: "FIELDS given twice"},
		{Name: "unknown line", In: "VERSION 0.7\nCOLOR red\nDATA ascii\n", Want: `line 2: unknown header line "COLOR red"`},
		{Name: "truncated, size known", In: bin[:len(bin)-5], Want: "pcd: file cut short at byte offset 145: header promises 3 points, 2 present", EOF: true},
		{Name: "truncated, size unknown", In: bin[:len(bin)-5], Stream: true, Want: "pcd: file cut short at byte offset 145: header promises 3 points, 2 present", EOF: true},
		{Name: "2^40 points, size known", In: fmt.Sprintf(xyzHeader, int64(1)<<40, int64(1)<<40, "binary") + "abc", Want: "header promises 1099511627776 points, 0 present", EOF: true},
		{Name: "2^40 points, size unknown", In: fmt.Sprintf(xyzHeader, int64(1)<<40, int64(1)<<40, "binary") + string(make([]byte, 100)), Stream: true, Want: "header promises 1099511627776 points, 8 present", EOF: true},
		{Name: "ascii bad value", In: fmt.Sprintf(xyzHeader, 2, 2, "ascii") + "1 2 3\n4 x 6\n", Want: `pcd: line 12, column 2: y: bad float32 value "x"`},
		{Name: "ascii overflow", In: fmt.Sprintf(xyzHeader, 2, 2, "ascii") + "1 2 3\n4 5 1e39\n", Want: `pcd: line 12, column 3: z: out of range float32 value "1e39"`},
		{Name: "ascii short line", In: fmt.Sprintf(xyzHeader, 2, 2, "ascii") + "1 2\n4 5 6\n", Want: "pcd: line 11, column 3: 2 values, want 3"},
		{Name: "ascii short", In: fmt.Sprintf(xyzHeader, 2, 2, "ascii") + "1 2 3\n4 5\n", Stream: true, Want: "pcd: file cut short at byte offset 130 (line 13): header promises 2 points, 1 present", EOF: true},
		{Name: "compressed sizes missing", In: comp(0, 0, "")[:len(comp(0, 0, ""))-4], Stream: true, Want: "reading compressed sizes", EOF: true},
		{Name: "compressed wrong size", In: comp(4, 35, "abcd"), Want: "uncompressed size 35, want 3 points x 12 bytes"},
		{Name: "compressed too long", In: comp(400, 36, "abcd"), Want: "pcd: file cut short at byte offset 144: header promises 3 points (binary_compressed: no point is whole), 0 present", EOF: true},
		{Name: "compressed too long, stream", In: comp(400, 36, "abcd"), Stream: true, Want: "pcd: file cut short at byte offset 144: header promises 3 points (binary_compressed: no point is whole), 0 present", EOF: true},
		{Name: "compressed ratio", In: comp(0, 36, ""), Want: "more than LZF can expand 0 bytes to"},
		{Name: "compressed corrupt", In: comp(3, 36, "\x00\x01\xff"), Want: "corrupt LZF data"},
		{Name: "long line", In: "VERSION 0.7\n" + strings.Repeat("x", 2<<20), Want: "header line longer than"},
		{Name: "no points but data", In: fmt.Sprintf(xyzHeader, 0, 0, "ascii") + "1 2 3\n", Want: "the header promises no points (POINTS 0), but data follows it"},
		{Name: "no points but binary data", In: fmt.Sprintf(xyzHeader, 0, 0, "binary") + string(make([]byte, 12)), Stream: true, Want: "the header promises no points (POINTS 0), but data follows it"},
	}
	codecUnderTest.RunBad(t, "pcd: ", cases)
	if c, err := Decode(strings.NewReader(fmt.Sprintf(xyzHeader, 0, 0, "binary"))); err != nil || c.Len() != 0 {
		t.Errorf("POINTS 0 and no data: got %v, %v; want no points", c, err)
	}
}

// TestOldHeaders reads PCD 0.5/0.6-style headers, which may lack COUNT,
// TYPE, SIZE, WIDTH/HEIGHT or VIEWPOINT.
func TestOldHeaders(t *testing.T) {
	for _, in := range []string{
		"# .PCD v.5 - Point Cloud Data file format\nVERSION .5\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 2\nHEIGHT 1\nPOINTS 2\nDATA ascii\n1 2 3\n4 5 6\n",
		"VERSION .6\nFIELDS x y z\nPOINTS 2\nDATA ascii\n1 2 3\n4 5 6\n",
		"COLUMNS x y z\nWIDTH 2\nDATA ascii\n1 2 3\n4 5 6\n",
	} {
		c := decodeString(t, in)
		if c.Len() != 2 || c.Z[1] != 6 || len(c.Attrs) != 0 {
			t.Errorf("got %d points, Z %v, attrs %v; want 2 points, Z[1] 6, no attributes", c.Len(), c.Z, attrNames(c))
		}
		if len(c.Meta.Comments) != 0 {
			t.Errorf("comments %q, want none (the magic line is not a comment)", c.Meta.Comments)
		}
	}
}

// TestStreaming reads in chunks and writes in chunks; the result must equal
// a whole-cloud write, for every encoding.
func TestStreaming(t *testing.T) {
	codectest.StreamVariants(t, pcioFormat(t), benchCloud(1000), variants, 77, 13)
	e, err := NewEncoder(io.Discard, &pcio.Header{Count: 2}, "binary")
	if err != nil {
		t.Fatal(err)
	}
	e.Write(core.New(1))
	if err := e.Close(); err == nil || !strings.Contains(err.Error(), "1 points written, header announced 2") {
		t.Errorf("got %v, want a count mismatch error", err)
	}
}

// pcioFormat returns the registered format, checking the registration.
func pcioFormat(t testing.TB) *pcio.Format {
	return codectest.Registered(t, codecName+"-compressed", "compressed")
}

// TestShippedSample reads the quick-start sample shipped in testdata/
// through the format registry, as pctk does, and describes it.
func TestShippedSample(t *testing.T) {
	c, f, err := pcio.ReadFile("../../testdata/lamppost.pcd")
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "pcd" || c.Len() != 1771 || len(c.Attrs) != 0 {
		t.Fatalf("got format %s, %d points, attributes %v; want pcd, 1771, none", f.Name, c.Len(), attrNames(c))
	}
	if c.X[0] != -10 || c.Z[1] != float64(float32(0.042999268)) {
		t.Errorf("first points (%v, %v, %v), (%v, %v, %v); want (-10, 0, 0), (-10.015625, 0, 0.042999268)", c.X[0], c.Y[0], c.Z[0], c.X[1], c.Y[1], c.Z[1])
	}
	got := fmt.Sprint(f.Describe(&c.Meta))
	want := "[{version 0.7} {data ascii} {fields x F4, y F4, z F4} {width x height 1771 x 1 (unorganized)} {viewpoint 0 0 0 1 0 0 0}]"
	if got != want {
		t.Errorf("Describe = %s, want %s", got, want)
	}
}
