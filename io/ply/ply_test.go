package ply

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pctk/pctk/io/internal/codectest"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// allTypes is an ascii PLY with every type spelling, extreme values, a
// vertex list, an element before the vertex element and a face element.
const allTypes = `ply
format ascii 1.0
comment every type
obj_info made by hand
element material 1
property uchar ambient_red
property float shine
element vertex 2
property float x
property double y
property char z
property uchar red
property uint8 green
property int8 blue
property short s
property int16 s2
property ushort us
property uint16 us2
property int i
property int32 i2
property uint u
property uint32 u2
property float32 f
property float64 d
property float nx
property list uchar int idx
property int64 big
end_header
7 0.5
0.1 0.30000000000000004 -128 255 0 -128 -32768 32767 65535 0 -2147483648 2147483647 4294967295 0 3.4028235e+38 5e-324 nan 2 -1 7 -9223372036854775808
-0.1 1e300 127 0 255 127 0 0 0 65535 0 0 0 4294967295 1e-45 -inf inf 0 9223372036854775807
element_after_vertex_is_not_here
`

func decodeString(t *testing.T, s string) *core.Cloud { return codecUnderTest.DecodeString(t, s) }

func TestAllTypes(t *testing.T) {
	c := decodeString(t, allTypes)
	if c.Len() != 2 {
		t.Fatalf("got %d points, want 2", c.Len())
	}
	if got, want := c.X[0], float64(float32(0.1)); got != want {
		t.Errorf("X[0] = %v, want %v (float32 0.1)", got, want)
	}
	if got, want := c.Y[0], 0.30000000000000004; got != want {
		t.Errorf("Y[0] = %v, want %v", got, want)
	}
	if c.Z[0] != -128 || c.Z[1] != 127 {
		t.Errorf("Z = %v, want [-128 127]", c.Z)
	}
	wantAttrs := "[Red:uint8 Green:uint8 Blue:int8 s:int16 s2:int16 us:uint16 us2:uint16 i:int32 i2:int32 u:uint32 u2:uint32 f:float32 d:float64 NormalX:float32 big:int64]"
	if got := sprintf("%v", attrNames(c)); got != wantAttrs {
		t.Fatalf("attributes\n got %s\nwant %s", got, wantAttrs)
	}
	checks := []struct {
		name string
		i    int
		want float64
	}{
		{"Red", 0, 255}, {"Blue", 0, -128}, {"s", 0, -32768}, {"us", 0, 65535}, {"i", 0, math.MinInt32},
		{"u", 0, math.MaxUint32}, {"f", 0, float64(math.MaxFloat32)}, {"d", 0, 5e-324}, {"f", 1, float64(float32(1e-45))},
		{"d", 1, math.Inf(-1)}, {"NormalX", 1, math.Inf(1)},
	}
	for _, k := range checks {
		if got := c.Attr(k.name).Float64(k.i); got != k.want {
			t.Errorf("%s[%d] = %v, want %v", k.name, k.i, got, k.want)
		}
	}
	if v := c.Attr("NormalX").Float64(0); !math.IsNaN(v) {
		t.Errorf("NormalX[0] = %v, want NaN (readers keep NaN)", v)
	}
	if got := c.Attr("big").Int64(0); got != math.MinInt64 {
		t.Errorf("big[0] = %d, want %d", got, int64(math.MinInt64))
	}
	h := c.Meta.Extra["ply"].(*Header)
	if got := sprintf("%q %q", c.Meta.Comments, h.ObjInfo); got != `["every type"] ["made by hand"]` {
		t.Errorf("comments, obj_info = %s", got)
	}
	// The vertex list: [2: -1 7] then [0].
	v := h.vertex()
	wantLists := []byte{2, 0xff, 0xff, 0xff, 0xff, 7, 0, 0, 0, 0}
	if !bytes.Equal(v.Data, wantLists) || sprintf("%v", v.ListOffsets) != "[0 9 10]" {
		t.Errorf("vertex lists = %v at %v, want %v at [0 9 10]", v.Data, v.ListOffsets, wantLists)
	}
	if m := h.Elements[0]; m.Name != "material" || !bytes.Equal(m.Data, []byte{7, 0, 0, 0, 0x3f}) {
		t.Errorf("material element = %s %v, want material [7 0 0 0 63]", m.Name, m.Data)
	}
	for _, variant := range variants {
		if msg := codecUnderTest.RoundTrip(c, variant, variant != "ascii"); msg != "" {
			t.Error(msg)
		}
	}
}

// TestBigEndianBytes checks the exact bytes of a big-endian write.
func TestBigEndianBytes(t *testing.T) {
	c := core.New(1)
	c.X[0], c.Y[0], c.Z[0] = 1.5, -2, 1e300
	a, _ := c.AddAttr(core.DimIntensity, core.Uint16)
	a.SetFloat64(0, 0x1234)
	var buf bytes.Buffer
	if err := Encode(&buf, c, "binary-be"); err != nil {
		t.Fatal(err)
	}
	header := "ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty double x\nproperty double y\nproperty double z\nproperty ushort intensity\nend_header\n"
	want := []byte(header)
	for _, f := range []float64{1.5, -2, 1e300} {
		want = binary.BigEndian.AppendUint64(want, math.Float64bits(f))
	}
	want = append(want, 0x12, 0x34)
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("got\n%q\nwant\n%q", buf.Bytes(), want)
	}
}

// TestNameMapping writes a cloud that did not come from PLY: PDAL names go
// out as PLY's usual names, other names stay, and everything reads back.
func TestNameMapping(t *testing.T) {
	c := core.New(2)
	c.X[1] = 0.1 // not a float32: x, y, z become double
	for _, s := range []struct {
		name string
		t    core.Type
	}{{core.DimRed, core.Uint8}, {core.DimNormalX, core.Float32}, {core.DimClusterID, core.Int64}, {core.DimIntensity, core.Uint16}, {"foo", core.Float64}} {
		a, _ := c.AddAttr(s.name, s.t)
		a.SetFloat64(1, -1)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, c, "ascii"); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"format ascii 1.0", "property double x", "property uchar red", "property float nx", "property int ClusterID", "property ushort intensity", "property double foo"} {
		if !strings.Contains(buf.String(), "\n"+line+"\n") {
			t.Errorf("output lacks %q:\n%s", line, buf.String())
		}
	}
	d := decodeString(t, buf.String())
	want := "[Red:uint8 NormalX:float32 ClusterID:int32 Intensity:uint16 foo:float64]"
	if got := sprintf("%v", attrNames(d)); got != want {
		t.Errorf("read back %s, want %s", got, want)
	}
	if got := d.Attr(core.DimClusterID).Int64(1); got != -1 {
		t.Errorf("ClusterID[1] = %d, want -1", got)
	}
	// A cluster id beyond int32 cannot be written to PLY: an error, not a wrap.
	c.Attr(core.DimClusterID).SetFloat64(0, 1<<40)
	if err := Encode(io.Discard, c, ""); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("got %v, want a does-not-fit error", err)
	}
}

// TestKeepsRenamedProperty checks that a column from PLY goes back under its
// own name, and that a dropped column's property disappears.
func TestKeepsRenamedProperty(t *testing.T) {
	c := decodeString(t, "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty int ClusterID\nproperty float psz\nend_header\n1 2 3 4 5 6\n")
	c.RemoveAttr("psz")
	a, _ := c.AddAttr("extra", core.Uint8)
	a.SetFloat64(0, 9)
	var buf bytes.Buffer
	if err := Encode(&buf, c, ""); err != nil {
		t.Fatal(err)
	}
	want := "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty int ClusterID\nproperty uchar extra\nend_header\n1 2 3 4 5 9\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestFacesDroppedWhenVerticesChange checks that faces, whose indices would
// point at the wrong vertices, are not written for a subset.
func TestFacesDroppedWhenVerticesChange(t *testing.T) {
	c := decodeString(t, "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nelement material 1\nproperty uchar r\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n5\n")
	var buf bytes.Buffer
	if err := Encode(&buf, c.Select([]int{0, 2}), "ascii"); err != nil {
		t.Fatal(err)
	}
	want := "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nelement material 1\nproperty uchar r\nend_header\n0 0 0\n0 1 0\n5\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

const binHeader = "ply\nformat binary_little_endian 1.0\nelement vertex %d\nproperty float x\nproperty float y\nproperty float z\nend_header\n"

func TestBadInput(t *testing.T) {
	threePoints := sprintf(binHeader, 3) + string(make([]byte, 36))
	cases := []codectest.BadCase{
		{Name: "empty", In: "", Want: "ply: line 1: reading magic", EOF: true},
		{Name: "not ply", In: "solid x\n", Want: "not a PLY file"},
		{Name: "no end_header", In: "ply\nformat ascii 1.0\nelement vertex 1\n", Want: "header ends before end_header", EOF: true},
		{Name: "no format", In: "ply\nelement vertex 0\nend_header\n", Want: "no format line"},
		{Name: "unknown type", In: "ply\nformat ascii 1.0\nelement vertex 1\nproperty float16 x\nend_header\n", Want: `line 4: unsupported property type "float16"`, Unsupported: true},
		{Name: "unknown list type", In: "ply\nformat ascii 1.0\nelement face 1\nproperty list uchar quad v\nend_header\n", Want: `unsupported property type "quad"`, Unsupported: true},
		{Name: "float list count", In: "ply\nformat ascii 1.0\nelement face 1\nproperty list float int v\nend_header\n", Want: "count type float is not an integer type"},
		{Name: "unknown encoding", In: "ply\nformat binary_middle_endian 1.0\nend_header\n", Want: "unsupported encoding", Unsupported: true},
		{Name: "duplicate property", In: "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float x\nend_header\n", Want: "property x declared twice"},
		{Name: "property first", In: "ply\nformat ascii 1.0\nproperty float x\nend_header\n", Want: "property before any element"},
		{Name: "bad count", In: "ply\nformat ascii 1.0\nelement vertex 1099511627776000000000\nend_header\n", Want: "bad count"},
		{Name: "negative count", In: "ply\nformat ascii 1.0\nelement vertex -1\nend_header\n", Want: "bad count"},
		{Name: "vertex without properties", In: "ply\nformat ascii 1.0\nelement vertex 1099511627776\nend_header\n", Want: "vertex element has no properties"},
		{Name: "truncated, size known", In: threePoints[:len(threePoints)-5], Want: "ply: file cut short at byte offset 139: header promises 3 vertices, 2 present", EOF: true},
		{Name: "truncated, size unknown", In: threePoints[:len(threePoints)-5], Stream: true, Want: "ply: file cut short at byte offset 139: header promises 3 vertices, 2 present", EOF: true},
		{Name: "2^40 points, size known", In: sprintf(binHeader, int64(1)<<40) + "abc", Want: "header promises 1099511627776 vertices, 0 present", EOF: true},
		{Name: "2^40 points, size unknown", In: sprintf(binHeader, int64(1)<<40) + string(make([]byte, 100)), Stream: true, Want: "header promises 1099511627776 vertices, 8 present", EOF: true},
		{Name: "no coordinates", In: "ply\nformat ascii 1.0\nelement vertex 1\nproperty float red\nend_header\n1\n", Want: "ply: line 5: vertex element has no x, y property"},
		{Name: "no y", In: "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float z\nend_header\n1 2\n", Want: "ply: line 6: vertex element has no y property"},
		{Name: "bad ascii value", In: "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty uchar r\nend_header\n1 0 2\n3 0 256\n", Want: `ply: line 9, column 3: r: out of range uint8 value "256"`},
		{Name: "ascii overflow", In: "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty double y\nend_header\n1 2\n3 1e400\n", Want: `ply: line 8, column 2: y: out of range float64 value "1e400"`},
		{Name: "ascii float overflow", In: "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n\n-4e38 0\n", Want: `ply: line 8, column 1: x: out of range float32 value "-4e38"`},
		{Name: "ascii short line", In: "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nend_header\n1 2\n3\n4 5\n", Want: `ply: line 8, column 2: 1 values, want 2`},
		{Name: "ascii long line", In: "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nend_header\n1 2\n2 3 4\n", Want: `ply: line 8, column 3: 3 values, want 2`},
		{Name: "ascii too few values", In: "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nend_header\n1 0\n", Stream: true, Want: "file cut short at byte offset 87 (line 8): header promises 2 vertices, 1 present", EOF: true},
		{Name: "negative list length", In: "ply\nformat ascii 1.0\nelement face 1\nproperty list char int v\nend_header\n-3 1 2 3\n", Want: "list v: negative length -3"},
		{Name: "list longer than file", In: "ply\nformat binary_little_endian 1.0\nelement face 1\nproperty list uint int v\nend_header\n\xff\xff\xff\x7f", Want: "list v: length 2147483647 exceeds the 0 bytes left"},
		{Name: "list longer than stream", In: "ply\nformat binary_little_endian 1.0\nelement face 1\nproperty list uint int v\nend_header\n\xff\xff\xff\x7f\x00\x00\x00\x00", Stream: true, Want: "element face record 0 of 1", EOF: true},
		{Name: "face truncated after vertices", In: "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nelement face 2\nproperty list uchar int v\nend_header\n1 0\n3 0 0 0\n", Stream: true, Want: "element face record 1 of 2", EOF: true},
		{Name: "long line", In: "ply\n" + strings.Repeat("x", 2<<20), Want: "header line longer than"},
		{Name: "no vertices but data", In: sprintf(binHeader, 0) + string(make([]byte, 24)), Want: "ply: offset 115: the header promises no points (element vertex 0), but data follows it"},
		{Name: "no vertices but ascii data", In: "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\nend_header\n\n1 2\n", Stream: true, Want: "the header promises no points (element vertex 0), but data follows it"},
	}
	codecUnderTest.RunBad(t, "ply: ", cases)
	// No records and nothing after the header, or only blanks: no points.
	for _, in := range []string{sprintf(binHeader, 0), "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\nend_header\n \n"} {
		if c, err := Decode(strings.NewReader(in)); err != nil || c.Len() != 0 {
			t.Errorf("%q: got %v, %v; want no points", in, c, err)
		}
	}
}

// TestStreaming reads a file in small chunks and writes it back in chunks;
// the result must equal a whole-cloud write.
func TestStreaming(t *testing.T) {
	var in strings.Builder
	in.WriteString("ply\nformat ascii 1.0\nelement material 2\nproperty float shine\nelement vertex 100\nproperty float x\nproperty float y\nproperty float z\nproperty list uchar int idx\nproperty uchar red\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0.5\n1.5\n")
	for i := range 100 {
		in.WriteString(sprintf("%d %d.25 -%d %d", i, i, i, i%3))
		for k := range i % 3 {
			in.WriteString(sprintf(" %d", k*i))
		}
		in.WriteString(sprintf(" %d\n", i*2))
	}
	in.WriteString("3 0 1 2\n")
	codectest.StreamVariants(t, pcioFormat(t), decodeString(t, in.String()), variants, 7, 15)
}

func TestEncoderCountMismatch(t *testing.T) {
	c := core.New(3)
	e, err := NewEncoder(io.Discard, &pcio.Header{Count: 4}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Write(c); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err == nil || !strings.Contains(err.Error(), "3 vertices written, header announced 4") {
		t.Errorf("got %v, want a count mismatch error", err)
	}
	if err := e.Write(core.New(2)); err == nil {
		t.Error("writing past the announced count: got no error")
	}
}

// pcioFormat returns the registered format, checking the registration.
func pcioFormat(t testing.TB) *pcio.Format {
	return codectest.Registered(t, codecName+"-binary-be", "binary-be")
}

func TestDescribe(t *testing.T) {
	c := decodeString(t, allTypes)
	got := sprintf("%v", Describe(&c.Meta)[:2])
	want := "[{encoding ascii 1.0} {element material 1: ambient_red (uchar), shine (float)}]"
	if got != want {
		t.Errorf("Describe = %s, want %s", got, want)
	}
	if last := Describe(&c.Meta)[3]; last.Value != "made by hand" {
		t.Errorf("Describe obj_info = %v, want made by hand", last)
	}
}

// TestFloatCoordinates checks that a cloud from elsewhere whose coordinates
// are all float32 values is written with float x, y, z (nothing is lost).
func TestFloatCoordinates(t *testing.T) {
	c := core.New(2)
	c.X[0], c.Y[1], c.Z[1] = 0.5, float64(float32(0.1)), math.NaN()
	var buf bytes.Buffer
	if err := Encode(&buf, c, "binary"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "property float x\nproperty float y\nproperty float z\n") {
		t.Errorf("header:\n%s", buf.String()[:100])
	}
	d := decodeString(t, buf.String())
	// A float64 NaN keeps being NaN in four bytes, not its payload.
	if msg := codectest.Diff(c, d, false); msg != "" {
		t.Error(msg)
	}
}

// TestAsciiVerticesThenFaces reads an ascii file whose vertices span many
// parallel parts and several blocks (with CRLF, blank lines and a last
// vertex line straddling a read), then faces: the vertices in order, and the
// faces from where the vertices end.
func TestAsciiVerticesThenFaces(t *testing.T) {
	const n = 300_000
	var b strings.Builder
	fmt.Fprintf(&b, "ply\nformat ascii 1.0\nelement vertex %d\nproperty double x\nproperty float y\nproperty float z\nelement face 2\nproperty list uchar int vertex_indices\nend_header\n", n)
	for i := range n {
		fmt.Fprintf(&b, "%d.25 %d 0.5", i, -i)
		if i%7 == 0 {
			b.WriteString("\r\n\n")
		} else {
			b.WriteString("\n")
		}
	}
	b.WriteString("3 0 1 2\n3 299997 299998 299999\n")
	for name, r := range map[string]io.Reader{"file": strings.NewReader(b.String()), "stream": iotest.HalfReader(strings.NewReader(b.String()))} {
		c, err := Decode(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range n {
			if c.X[i] != float64(i)+0.25 || c.Y[i] != float64(-i) || c.Z[i] != 0.5 {
				t.Fatalf("%s: vertex %d = %v %v %v", name, i, c.X[i], c.Y[i], c.Z[i])
			}
		}
		h := c.Meta.Extra["ply"].(*Header)
		var face *Element
		for _, e := range h.Elements {
			if e.Name == "face" {
				face = e
			}
		}
		// Canonical little-endian records: count byte, then int32 indices.
		if face == nil || len(face.Data) != 26 || face.Data[0] != 3 || face.Data[13] != 3 || face.Data[22] != 0xdf {
			t.Fatalf("%s: faces %+v", name, face)
		}
	}
}
