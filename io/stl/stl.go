// Package stl reads STL meshes (binary and ascii, through
// github.com/hschendel/stl) as point clouds: Decode gives the mesh's
// distinct vertices, Sample draws points uniformly from its surface, with
// probability proportional to area. STL is registered with io/pcio as a
// read-only format "stl"; a binary STL has no reliable magic bytes, so it is
// recognised by its ".stl" extension.
package stl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	hstl "github.com/hschendel/stl"
	"github.com/ungerik/go3d/float64/vec3"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

const codecName = "stl"

// FormatError reports a malformed STL file.
type FormatError = codec.FormatError

func init() {
	pcio.Register(&pcio.Format{
		Name:       codecName,
		Extensions: []string{".stl"},
		Magic:      [][]byte{[]byte("solid")},
		Sniff:      sniff,
		Decode:     Decode,
		Describe:   Describe,
	})
}

// sniff reports whether head, the first bytes of an input (up to
// pcio.SniffLen: all of it when shorter), may be a binary STL, which has no
// magic bytes: a whole header, and, when head is the whole input, the size
// its triangle count implies; otherwise a count that covers the bytes seen,
// a byte after the header that is not text, as float32 triangles hold, and
// plausible triangles (plausibleTriangles), which random or compressed
// bytes almost never are.
func sniff(head []byte) bool {
	if len(head) < binaryHeader {
		return false
	}
	count := int64(binary.LittleEndian.Uint32(head[80:84]))
	if len(head) < pcio.SniffLen {
		return int64(len(head)) == binaryHeader+binaryTriangle*count
	}
	return binaryHeader+binaryTriangle*count >= int64(len(head)) &&
		bytes.ContainsFunc(head[binaryHeader:], func(r rune) bool { return r < ' ' && r != '\n' && r != '\r' && r != '\t' || r >= 0x7f }) &&
		plausibleTriangles(head[binaryHeader:])
}

// maxPlausible bounds the magnitude of a normal or vertex coordinate that
// sniffing takes for a mesh's: 1e20 in any unit is beyond any real model,
// while a quarter of random float32 bit patterns exceed it (or are NaN or
// infinite), so the 8 triangles of a sniffed head (96 numbers) tell random
// bytes apart with odds of about 1e-12.
const maxPlausible = 1e20

// plausibleTriangles reports whether each whole triangle in b holds 12
// finite float32 numbers no larger than maxPlausible.
func plausibleTriangles(b []byte) bool {
	for t := 0; t+binaryTriangle <= len(b); t += binaryTriangle {
		for k := range 12 {
			v := math.Float32frombits(binary.LittleEndian.Uint32(b[t+4*k:]))
			if !(math.Abs(float64(v)) <= maxPlausible) {
				return false
			}
		}
	}
	return true
}

// Mesh is a triangle mesh read from an STL file.
type Mesh struct {
	// Name is the solid's name (ascii) or the header text (binary).
	Name string
	// ASCII reports whether the file was ascii STL.
	ASCII bool
	// Triangles are the facets in file order.
	Triangles []hstl.Triangle
}

// Header is what Meta.Extra["stl"] holds for a cloud read from STL.
type Header struct {
	Name      string
	ASCII     bool
	Triangles int
}

// collector receives triangles from hschendel/stl. It ignores the count a
// binary header announces, so that an untrusted count never sizes an
// allocation: the slice grows with the triangles actually read.
type collector struct{ m *Mesh }

func (c collector) SetName(name string)            { c.m.Name = name }
func (c collector) SetBinaryHeader([]byte)         {}
func (c collector) SetASCII(ascii bool)            { c.m.ASCII = ascii }
func (c collector) SetTriangleCount(uint32)        {}
func (c collector) AppendTriangle(t hstl.Triangle) { c.m.Triangles = append(c.m.Triangles, t) }

const (
	binaryHeader   = 84
	binaryTriangle = 50
)

// ReadMesh reads a binary or ascii STL file. A file is binary when its
// size is exactly what the triangle count at offset 80 implies; otherwise
// it must be ascii, beginning with "solid". A binary file cut short is an
// error (a *codec.ShortError) unless opts (at most one) asks to salvage it:
// then the whole triangles before the cut are read and the error goes to
// the options' Warn; so are the triangles of an ascii file that ends
// inside a facet.
func ReadMesh(r io.Reader, opts ...pcio.ReadOptions) (m *Mesh, err error) {
	opt := pcio.Options(opts)
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	ascii := bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("solid"))
	if len(data) >= binaryHeader {
		n := int64(binary.LittleEndian.Uint32(data[80:84]))
		want := binaryHeader + binaryTriangle*n
		switch {
		case int64(len(data)) == want:
			ascii = false
		case ascii:
		case int64(len(data)) < want:
			present := (int64(len(data)) - binaryHeader) / binaryTriangle
			short := &codec.ShortError{Codec: codecName, Pos: codec.Pos{Offset: int64(len(data))}, What: "triangles", Promised: n, Present: present,
				Count: "triangle count, byte offset 80"}
			if !opt.Salvage {
				return nil, short
			}
			opt.Warning(short)
			data = data[:binaryHeader+binaryTriangle*present]
			binary.LittleEndian.PutUint32(data[80:84], uint32(present))
		default:
			return nil, codec.Errorf(codecName, codec.Pos{Offset: want},
				"binary header promises %d triangles (%d bytes), but the file has %d bytes", n, want, len(data))
		}
	} else if !ascii {
		return nil, codec.Errorf(codecName, codec.Pos{Offset: int64(len(data))}, "%d bytes: neither a binary STL (84-byte header) nor ascii (\"solid\")", len(data))
	}
	m = &Mesh{}
	defer func() {
		// hschendel/stl is third-party code: a panic on odd input must not
		// take the program down.
		if p := recover(); p != nil {
			m, err = nil, codec.Errorf(codecName, codec.Pos{}, "parser failed: %v", p)
		}
	}()
	if err := hstl.CopyAll(bytes.NewReader(data), collector{m}); err != nil {
		if ascii && !endsSolid(data) {
			// hschendel/stl reports a facet cut short only as skipped.
			err = &FormatError{Codec: codecName, Pos: codec.Pos{Offset: int64(len(data))},
				Msg: fmt.Sprintf("file cut short: no endsolid line at the end, %d whole facets before", len(m.Triangles)), Err: io.ErrUnexpectedEOF}
		} else {
			err = parseError(err)
		}
		if !opt.Salvage || !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, err
		}
		opt.Warning(err)
	}
	if m.ASCII != ascii {
		return nil, codec.Errorf(codecName, codec.Pos{}, "cannot tell binary from ascii STL")
	}
	return m, nil
}

// endsSolid reports whether the last line of ascii STL data that is not
// blank begins with "endsolid".
func endsSolid(data []byte) bool {
	data = bytes.TrimRight(data, " \t\r\n")
	last := data[bytes.LastIndexByte(data, '\n')+1:]
	return bytes.HasPrefix(bytes.TrimLeft(last, " \t"), []byte("endsolid"))
}

// parseError turns an error of hschendel/stl, which lists each bad line as
// "N: message" on a line of its own (after "Triangles had to be skipped."
// when some were), into a FormatError on one line: the first bad line, and
// how many more there are. One that says the file ended wraps
// io.ErrUnexpectedEOF.
func parseError(err error) error {
	fe := &FormatError{Codec: codecName, Msg: strings.TrimSpace(err.Error())}
	bad := 0 // lines reported
	for _, l := range strings.Split(fe.Msg, "\n") {
		if n, msg, ok := strings.Cut(l, ": "); ok {
			if line, cerr := strconv.Atoi(n); cerr == nil {
				if bad == 0 {
					fe.Pos.Line, fe.Msg = line, msg
				}
				bad++
			}
		}
	}
	if bad > 1 {
		fe.Msg += fmt.Sprintf(" (and %d more bad lines)", bad-1)
	}
	if strings.Contains(err.Error(), "unexpected end of file") || errors.Is(err, hstl.ErrUnexpectedEOF) {
		fe.Err = io.ErrUnexpectedEOF
	}
	return fe
}

// Decode reads an STL file and returns the mesh's distinct vertices, in
// order of first appearance; vertices are the same when their coordinates
// have the same bits. Options are those of ReadMesh.
func Decode(r io.Reader, opts ...pcio.ReadOptions) (*core.Cloud, error) {
	m, err := ReadMesh(r, opts...)
	if err != nil {
		return nil, err
	}
	return m.Vertices(), nil
}

// Vertices returns the distinct vertices of m as a cloud.
func (m *Mesh) Vertices() *core.Cloud {
	seen := make(map[[3]uint32]bool)
	c := core.New(0)
	for _, t := range m.Triangles {
		for _, v := range t.Vertices {
			k := [3]uint32{math.Float32bits(v[0]), math.Float32bits(v[1]), math.Float32bits(v[2])}
			if seen[k] {
				continue
			}
			seen[k] = true
			c.X = append(c.X, float64(v[0]))
			c.Y = append(c.Y, float64(v[1]))
			c.Z = append(c.Z, float64(v[2]))
		}
	}
	c.Meta = m.meta()
	return c
}

func (m *Mesh) meta() core.Metadata {
	return core.Metadata{Format: codecName, Extra: map[string]any{codecName: &Header{Name: m.Name, ASCII: m.ASCII, Triangles: len(m.Triangles)}}}
}

// Sample reads an STL file, with options as ReadMesh, and draws n points
// uniformly from its surface (see Mesh.Sample).
func Sample(r io.Reader, n int, seed uint64, opts ...pcio.ReadOptions) (*core.Cloud, error) {
	m, err := ReadMesh(r, opts...)
	if err != nil {
		return nil, err
	}
	return m.Sample(n, seed)
}

// Sample draws n points uniformly from the surface of m: a triangle is
// picked with probability proportional to its area, then a point uniformly
// inside it, p = A + √r1·(1-r2)·(B-A) + √r1·r2·(C-A) for r1, r2 uniform in
// [0, 1). Each point carries its triangle's unit normal (NormalX/Y/Z, from
// the vertices' winding; zero for a degenerate triangle). The same seed
// gives the same points.
func (m *Mesh) Sample(n int, seed uint64) (*core.Cloud, error) {
	if n < 0 {
		return nil, fmt.Errorf("stl: cannot sample %d points", n)
	}
	cum := make([]float64, len(m.Triangles))
	total := 0.0
	for i, t := range m.Triangles {
		a := area(t)
		if !(a >= 0) || math.IsInf(a, 0) {
			a = 0 // NaN or infinite coordinates: never sampled
		}
		total += a
		cum[i] = total
	}
	if n > 0 && !(total > 0) {
		return nil, fmt.Errorf("stl: cannot sample a surface of zero area (%d triangles)", len(m.Triangles))
	}
	c := core.New(n)
	var normals [3]*core.Attribute
	for k, name := range []string{core.DimNormalX, core.DimNormalY, core.DimNormalZ} {
		normals[k], _ = c.AddAttr(name, core.Float32)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := range n {
		u := rng.Float64() * total
		k := sort.SearchFloat64s(cum, u)
		for k < len(cum)-1 && cum[k] <= u {
			k++ // skip zero-area triangles and the u == cum[k] edge
		}
		t := m.Triangles[k]
		s, r2 := math.Sqrt(rng.Float64()), rng.Float64()
		wb, wc := s*(1-r2), s*r2
		var p [3]float64
		for d := range 3 {
			// A + wb(B-A) + wc(C-A): exact on faces parallel to an axis plane.
			a := float64(t.Vertices[0][d])
			p[d] = a + wb*(float64(t.Vertices[1][d])-a) + wc*(float64(t.Vertices[2][d])-a)
		}
		c.X[i], c.Y[i], c.Z[i] = p[0], p[1], p[2]
		nv := normal(t)
		for d := range 3 {
			normals[d].Data.([]float32)[i] = float32(nv[d])
		}
	}
	c.Meta = m.meta()
	return c, nil
}

// cross returns (B-A)×(C-A) of triangle t in float64.
func cross(t hstl.Triangle) vec3.T {
	var v [3]vec3.T
	for i := range 3 {
		for d := range 3 {
			v[i][d] = float64(t.Vertices[i][d])
		}
	}
	e1, e2 := vec3.Sub(&v[1], &v[0]), vec3.Sub(&v[2], &v[0])
	return vec3.Cross(&e1, &e2)
}

func area(t hstl.Triangle) float64 {
	c := cross(t)
	return c.Length() / 2
}

// normal returns the unit normal of t, zero for a degenerate triangle.
// (vec3.Normalize is not used: it leaves vectors shorter than its Epsilon
// unscaled, which would give tiny triangles non-unit normals.)
func normal(t hstl.Triangle) [3]float64 {
	c := cross(t)
	l := c.Length()
	if !(l > 0) || math.IsInf(l, 0) {
		return [3]float64{}
	}
	return [3]float64{c[0] / l, c[1] / l, c[2] / l}
}

// Describe lists the STL facts of a cloud read from STL.
func Describe(m *core.Metadata) []pcio.Fact {
	h, ok := m.Extra[codecName].(*Header)
	if !ok {
		return nil
	}
	enc := "binary"
	if h.ASCII {
		enc = "ascii"
	}
	return []pcio.Fact{{Key: "encoding", Value: enc}, {Key: "solid", Value: h.Name}, {Key: "triangles", Value: fmt.Sprint(h.Triangles)}}
}
