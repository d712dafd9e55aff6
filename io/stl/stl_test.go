package stl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	hstl "github.com/hschendel/stl"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

type tri [3][3]float32

// cube returns the 12 triangles of the unit cube, outward winding.
func cube() []tri {
	v := func(i int) [3]float32 { return [3]float32{float32(i & 1), float32(i >> 1 & 1), float32(i >> 2 & 1)} }
	quads := [6][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}
	var out []tri
	for _, q := range quads {
		out = append(out, tri{v(q[0]), v(q[1]), v(q[2])}, tri{v(q[0]), v(q[2]), v(q[3])})
	}
	return out
}

func binarySTL(header string, ts []tri) []byte {
	b := make([]byte, 80)
	copy(b, header)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ts)))
	for _, t := range ts {
		b = append(b, make([]byte, 12)...) // normal
		for _, v := range t {
			for _, f := range v {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
			}
		}
		b = append(b, 0, 0)
	}
	return b
}

func asciiSTL(name string, ts []tri) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "solid %s\n", name)
	for _, t := range ts {
		b.WriteString("facet normal 0 0 0\n outer loop\n")
		for _, v := range t {
			fmt.Fprintf(&b, "  vertex %g %g %g\n", v[0], v[1], v[2])
		}
		b.WriteString(" endloop\nendfacet\n")
	}
	fmt.Fprintf(&b, "endsolid %s\n", name)
	return []byte(b.String())
}

func TestDecodeVertices(t *testing.T) {
	for name, data := range map[string][]byte{
		"binary":             binarySTL("cube", cube()),
		"ascii":              asciiSTL("cube", cube()),
		"binary named solid": binarySTL("solid cube", cube()),
	} {
		c, err := Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.Len() != 8 {
			t.Errorf("%s: got %d vertices, want the cube's 8", name, c.Len())
		}
		seen := map[[3]float64]bool{}
		for i := range c.Len() {
			p := [3]float64{c.X[i], c.Y[i], c.Z[i]}
			if seen[p] || (p[0] != 0 && p[0] != 1) || (p[1] != 0 && p[1] != 1) || (p[2] != 0 && p[2] != 1) {
				t.Errorf("%s: vertex %d = %v is repeated or not a cube corner", name, i, p)
			}
			seen[p] = true
		}
		h := c.Meta.Extra["stl"].(*Header)
		if h.Triangles != 12 || h.ASCII != (name == "ascii") {
			t.Errorf("%s: header %+v, want 12 triangles, ascii %v", name, h, name == "ascii")
		}
	}
}

// TestSample checks area weighting on two triangles of areas 3/8 and 1/8
// in the plane z = 1, with a fixed seed.
func TestSample(t *testing.T) {
	ts := []tri{{{0, 0, 1}, {3, 0, 1}, {0, 0.25, 1}}, {{10, 0, 1}, {10.5, 0, 1}, {10, 0.5, 1}}}
	const n, seed = 40000, 42
	c, err := Sample(bytes.NewReader(binarySTL("", ts)), n, seed)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != n {
		t.Fatalf("got %d points, want %d", c.Len(), n)
	}
	big := 0
	for i := range n {
		x, y := c.X[i], c.Y[i]
		in1 := x >= 0 && y >= 0 && x/3+y/0.25 <= 1+1e-12
		in2 := x >= 10 && y >= 0 && (x-10)/0.5+y/0.5 <= 1+1e-12
		if c.Z[i] != 1 || !in1 && !in2 {
			t.Fatalf("seed %d: point %d = (%v, %v, %v) is off the surface", seed, i, x, y, c.Z[i])
		}
		if in1 {
			big++
		}
	}
	// Binomial(n, 3/4): standard deviation sqrt(n·3/16) ≈ 87.
	if want := n * 3 / 4; math.Abs(float64(big-want)) > 5*math.Sqrt(n*3.0/16) {
		t.Errorf("seed %d: %d points on the big triangle, want %d ± 5σ", seed, big, want)
	}
	// Uniform inside a triangle: half of the big triangle's area lies at
	// x < 3(1 - 1/√2).
	left := 0
	for i := range n {
		if c.X[i] < 3*(1-1/math.Sqrt2) {
			left++
		}
	}
	if math.Abs(float64(left)-float64(big)/2) > 5*math.Sqrt(float64(big)/4) {
		t.Errorf("seed %d: %d of %d points in the left half (by area), want half ± 5σ", seed, left, big)
	}
	if nz := c.Attr(core.DimNormalZ).Float64(0); nz != 1 {
		t.Errorf("NormalZ[0] = %v, want 1 (counter-clockwise seen from +z)", nz)
	}
	again, _ := Sample(bytes.NewReader(binarySTL("", ts)), n, seed)
	other, _ := Sample(bytes.NewReader(binarySTL("", ts)), n, seed+1)
	if again.X[123] != c.X[123] || other.X[123] == c.X[123] {
		t.Errorf("same seed must give the same points and another seed others: %v %v %v", c.X[123], again.X[123], other.X[123])
	}
}

func TestBadInput(t *testing.T) {
	good := binarySTL("x", cube())
	flat := binarySTL("", []tri{{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}})
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "stl: offset 0: 0 bytes: neither a binary STL"},
		{"truncated binary", good[:len(good)-7], "stl: file cut short at byte offset 677: header promises 12 triangles (triangle count, byte offset 80), 11 present"},
		{"huge count", append(append(make([]byte, 80), 0xff, 0xff, 0xff, 0xff), 1, 2, 3), "promises 4294967295 triangles (triangle count, byte offset 80), 0 present"},
		{"longer than its count", append(bytes.Clone(good), 1, 2), "stl: offset 684: binary header promises 12 triangles (684 bytes), but the file has 686 bytes"},
		{"bad ascii", []byte("solid x\nfacet normal 0 0 0\nouter loop\nvertex 1 2\nendloop\nendfacet\nendsolid x\n"), "stl: line 5: Unable to parse float"},
	} {
		_, err := Decode(bytes.NewReader(tc.in))
		var fe *FormatError
		var se *codec.ShortError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &fe) && !errors.As(err, &se) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %q, want a FormatError or ShortError on one line containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := Sample(bytes.NewReader(flat), 10, 1); err == nil || !strings.Contains(err.Error(), "zero area") {
		t.Errorf("sampling a degenerate mesh: got %v, want a zero-area error", err)
	}
	if c, err := Sample(bytes.NewReader(flat), 0, 1); err != nil || c.Len() != 0 {
		t.Errorf("sampling 0 points: got %v, %v; want an empty cloud", c, err)
	}
}

func TestRegistered(t *testing.T) {
	f, err := pcio.ByExtension("part.STL")
	if err != nil || f.Name != "stl" || f.Encode != nil {
		t.Fatalf("ByExtension(part.STL) = %+v, %v; want the read-only stl format", f, err)
	}
}

// TestCutShort reads a binary STL cut inside its fourth triangle and an
// ascii STL cut inside a facet: an error that wraps io.ErrUnexpectedEOF
// (for binary, naming the triangles promised and present), and salvaged,
// the whole triangles before the cut with one warning.
func TestCutShort(t *testing.T) {
	ts := cube()[:5]
	bin := binarySTL("x", ts)
	asc := asciiSTL("x", ts)
	for _, tc := range []struct {
		name string
		in   []byte
		want string
		tris int
	}{
		{"binary", bin[:binaryHeader+3*binaryTriangle+20], "stl: file cut short at byte offset 254: header promises 5 triangles (triangle count, byte offset 80), 3 present", 3},
		{"ascii", asc[:bytes.Index(asc, []byte("facet normal 0 0 0\n outer loop\n  vertex 0 0 1"))+40], "stl: offset 236: file cut short: no endsolid line at the end, 2 whole facets before", 2},
	} {
		_, err := ReadMesh(bytes.NewReader(tc.in))
		if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %q, want an error on one line wrapping io.ErrUnexpectedEOF containing %q", tc.name, err, tc.want)
		}
		var warns []error
		m, err := ReadMesh(bytes.NewReader(tc.in), pcio.ReadOptions{Salvage: true, Warn: func(err error) { warns = append(warns, err) }})
		if err != nil || len(m.Triangles) != tc.tris || len(warns) != 1 || !strings.Contains(warns[0].Error(), tc.want) {
			t.Errorf("%s: salvage gave %v triangles, %v, warnings %v; want %d and one warning", tc.name, m, err, warns, tc.tris)
			continue
		}
		for i, tr := range m.Triangles {
			if tr.Vertices != [3]hstl.Vec3{ts[i][0], ts[i][1], ts[i][2]} {
				t.Errorf("%s: salvaged triangle %d is %v, want %v", tc.name, i, tr.Vertices, ts[i])
			}
		}
	}
}

// TestSniff identifies STL from its first bytes, as for standard input:
// ascii by "solid", binary by the size its count implies when the whole
// input is seen, else by binary bytes after the header.
func TestSniff(t *testing.T) {
	big := binarySTL("made by a CAD tool", append(cube(), cube()...))
	for name, in := range map[string][]byte{
		"ascii":                 asciiSTL("cube", cube()),
		"binary, small":         binarySTL("made by a CAD tool", cube()[:1]),
		"binary, large":         big,
		"binary, named solid":   binarySTL("solid x", cube()),
		"binary, cut (salvage)": big[:600],
	} {
		f, r, err := pcio.Sniff(bytes.NewReader(in))
		if err != nil || f.Name != "stl" {
			t.Errorf("%s: Sniff = %v, %v; want stl", name, f, err)
			continue
		}
		if _, err := f.Decode(r, pcio.ReadOptions{Salvage: true}); err != nil {
			t.Errorf("%s: decoding the sniffed input: %v", name, err)
		}
	}
	for name, in := range map[string][]byte{
		"text":                      []byte(strings.Repeat("not a point cloud at all ", 40)),
		"whole, size not its count": binarySTL("x", cube())[:200],
	} {
		if f, _, err := pcio.Sniff(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: Sniff = %s, want unknown format", name, f.Name)
		}
	}
}
