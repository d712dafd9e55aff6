package pcd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"

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

func decodeString(t *testing.T, s string) *core.Cloud {
	t.Helper()
	c, err := Decode(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOrganized(t *testing.T) {
	c := decodeString(t, organized)
	want := "[Red:uint8 Green:uint8 Blue:uint8 Alpha:uint8 NormalX:float32 Intensity:float32 Curvature:float32 h_0:float32 h_1:float32 h_2:float32 i1:int8 i2:int16 i4:int32 i8:int64 u2:uint16 u8:uint64 f8:float64]"
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
	// 4278255360 is 0xff00ff00: alpha 255, red 0, green 255, blue 0.
	// 4294967295 (all ones) is a NaN as a float: it must survive as bits.
	// 4.808e+06 is an old-style float-written colour: its float32 bits.
	old := math.Float32bits(4.808e6)
	for _, k := range []struct {
		name string
		i    int
		want float64
	}{
		{"Alpha", 0, 255}, {"Red", 0, 0}, {"Green", 0, 255}, {"Blue", 0, 0},
		{"Alpha", 1, 255}, {"Red", 1, 255}, {"Blue", 1, 255},
		{"Alpha", 2, float64(old >> 24)}, {"Red", 2, float64(old >> 16 & 255)}, {"Blue", 2, float64(old & 255)},
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
	for _, v := range []string{"ascii", "binary", "compressed"} {
		var buf bytes.Buffer
		if err := Encode(&buf, c, v); err != nil {
			t.Fatal(err)
		}
		d, err := Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if msg := diffClouds(c, d, v != "ascii"); msg != "" {
			t.Errorf("%s: %s", v, msg)
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
	want := "[NormalX:float32 Red:uint8 Green:uint8 Blue:uint8 Alpha:uint8 ClusterID:int64 odd_name:uint16]"
	if got := fmt.Sprint(attrNames(d)); got != want {
		t.Errorf("read back %s, want %s", got, want)
	}
	if d.Y[1] != 4320978.61 || d.Attr(core.DimRed).Float64(0) != 200 || d.Attr(core.DimAlpha).Float64(0) != 255 {
		t.Errorf("read back Y[1]=%v Red[0]=%v Alpha[0]=%v, want 4320978.61 200 255", d.Y[1], d.Attr(core.DimRed).Float64(0), d.Attr(core.DimAlpha).Float64(0))
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
	cases := []struct {
		name    string
		in      string
		unknown bool
		want    string
		eof     bool
		unsupp  bool
	}{
		{name: "empty", in: "", want: "pcd: line 1: header ends before DATA", eof: true},
		{name: "not pcd", in: "ply\nformat ascii 1.0\n", want: `line 1: not a PCD file: first line is "ply"`},
		{name: "no DATA", in: "VERSION 0.7\nFIELDS x\nPOINTS 1\n", want: "header ends before DATA", eof: true},
		{name: "no FIELDS", in: "VERSION 0.7\nPOINTS 1\nDATA ascii\n", want: "no FIELDS before DATA"},
		{name: "unknown type", in: "FIELDS x\nSIZE 2\nTYPE F\nPOINTS 1\nDATA ascii\n1\n", want: `unsupported field x: TYPE 'F' with SIZE 2`, unsupp: true},
		{name: "unknown data", in: "FIELDS x\nPOINTS 1\nDATA binary_zstd\n", want: `unsupported DATA encoding "binary_zstd"`, unsupp: true},
		{name: "size count mismatch", in: "FIELDS x y\nSIZE 4\nPOINTS 1\nDATA ascii\n", want: "SIZE has 1 entries for 2 fields"},
		{name: "width height points", in: "FIELDS x\nWIDTH 3\nHEIGHT 2\nPOINTS 5\nDATA ascii\n", want: "WIDTH 3 x HEIGHT 2 is not POINTS 5"},
		{name: "huge count", in: "FIELDS x\nCOUNT 99999999999\nPOINTS 1\nDATA ascii\n", want: `bad COUNT value "99999999999"`},
		{name: "duplicate line", in: "FIELDS x\nFIELDS y\nDATA ascii\n", want: "FIELDS given twice"},
		{name: "unknown line", in: "VERSION 0.7\nCOLOR red\nDATA ascii\n", want: `line 2: unknown header line "COLOR red"`},
		{name: "truncated, size known", in: bin[:len(bin)-5], want: "header promises 3 points of at least 12 bytes each, but only 31 bytes follow"},
		{name: "truncated, size unknown", in: bin[:len(bin)-5], unknown: true, want: "pcd: offset 145: point 2 of 3", eof: true},
		{name: "2^40 points, size known", in: fmt.Sprintf(xyzHeader, int64(1)<<40, int64(1)<<40, "binary") + "abc", want: "header promises 1099511627776 points"},
		{name: "2^40 points, size unknown", in: fmt.Sprintf(xyzHeader, int64(1)<<40, int64(1)<<40, "binary") + string(make([]byte, 100)), unknown: true, want: "point 8 of 1099511627776", eof: true},
		{name: "ascii bad value", in: fmt.Sprintf(xyzHeader, 2, 2, "ascii") + "1 2 3\n4 x 6\n", want: `pcd: line 12: point 1 field y: bad value "x"`},
		{name: "ascii short", in: fmt.Sprintf(xyzHeader, 2, 2, "ascii") + "1 2 3\n4 5\n", unknown: true, want: "point 1 of 2", eof: true},
		{name: "compressed sizes missing", in: comp(0, 0, "")[:len(comp(0, 0, ""))-4], unknown: true, want: "reading compressed sizes", eof: true},
		{name: "compressed wrong size", in: comp(4, 35, "abcd"), want: "uncompressed size 35, want 3 points x 12 bytes"},
		{name: "compressed too long", in: comp(400, 36, "abcd"), want: "compressed size 400, but only 4 bytes follow"},
		{name: "compressed too long, stream", in: comp(400, 36, "abcd"), unknown: true, want: "compressed data: 4 of 400 bytes", eof: true},
		{name: "compressed ratio", in: comp(0, 36, ""), want: "more than LZF can expand 0 bytes to"},
		{name: "compressed corrupt", in: comp(3, 36, "\x00\x01\xff"), want: "corrupt LZF data"},
		{name: "long line", in: "VERSION 0.7\n" + strings.Repeat("x", 2<<20), want: "header line longer than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(tc.in)
			if tc.unknown {
				r = iotest.HalfReader(r)
			}
			c, err := Decode(r)
			if err == nil {
				t.Fatalf("got %d points and no error, want %q", c.Len(), tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "pcd: ") {
				t.Errorf("got error %q, want one containing %q", err, tc.want)
			}
			if got := errors.Is(err, io.ErrUnexpectedEOF); got != tc.eof {
				t.Errorf("errors.Is(%v, io.ErrUnexpectedEOF) = %v, want %v", err, got, tc.eof)
			}
			var fe *FormatError
			var ue *UnsupportedError
			if tc.unsupp && !errors.As(err, &ue) || !tc.unsupp && !errors.As(err, &fe) {
				t.Errorf("got error of type %T, want unsupported=%v", err, tc.unsupp)
			}
		})
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
	c := benchCloud(1000)
	for _, v := range []string{"ascii", "binary", "compressed"} {
		var want bytes.Buffer
		if err := Encode(&want, c, v); err != nil {
			t.Fatal(err)
		}
		d, err := NewDecoder(iotest.HalfReader(bytes.NewReader(want.Bytes())))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		e, err := NewEncoder(&got, d.Header(), "")
		if err != nil {
			t.Fatal(err)
		}
		chunks := 0
		for {
			ch, err := d.Read(77)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Write(ch); err != nil {
				t.Fatal(err)
			}
			chunks++
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if chunks != 13 {
			t.Errorf("%s: %d chunks, want 13", v, chunks)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: streamed copy differs (%d bytes, want %d)", v, got.Len(), want.Len())
		}
	}
	e, err := NewEncoder(io.Discard, &pcio.Header{Count: 2}, "binary")
	if err != nil {
		t.Fatal(err)
	}
	e.Write(core.New(1))
	if err := e.Close(); err == nil || !strings.Contains(err.Error(), "1 points written, header announced 2") {
		t.Errorf("got %v, want a count mismatch error", err)
	}
}
