package stl

import (
	"bytes"
	"math"
	"testing"

	"github.com/pctk/pctk/io/internal/codectest"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/io/ply"
)

// FuzzDecode reads arbitrary input as STL: an error or a mesh, never a
// panic, and the same verdict salvaging unless the input was cut short.
// STL has no writer in pctk, so what reads is checked by two round trips:
// its triangles written as binary STL (by the tests' binarySTL) read back
// bit for bit, and its distinct vertices written as binary PLY read back as
// the same cloud. What reads must also sample.
func FuzzDecode(f *testing.F) {
	f.Add(binarySTL("cube", cube()))
	f.Add(asciiSTL("cube", cube()[:2]))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadMesh(bytes.NewReader(data))
		if err != nil {
			return
		}
		if _, err := ReadMesh(bytes.NewReader(data), pcio.ReadOptions{Salvage: true}); err != nil {
			t.Fatalf("salvaging a mesh that reads: %v", err)
		}
		ts := make([]tri, len(m.Triangles))
		for i, tr := range m.Triangles {
			for k, v := range tr.Vertices {
				ts[i][k] = v
			}
		}
		back, err := ReadMesh(bytes.NewReader(binarySTL("", ts)))
		if err != nil {
			t.Fatalf("reading its triangles written as binary STL: %v", err)
		}
		if len(back.Triangles) != len(m.Triangles) {
			t.Fatalf("binary STL copy has %d triangles, want %d", len(back.Triangles), len(m.Triangles))
		}
		for i, tr := range back.Triangles {
			for k, v := range tr.Vertices {
				for d := range 3 {
					if math.Float32bits(v[d]) != math.Float32bits(m.Triangles[i].Vertices[k][d]) {
						t.Fatalf("binary STL copy: triangle %d vertex %d is %v, want %v", i, k, v, m.Triangles[i].Vertices[k])
					}
				}
			}
		}
		c := m.Vertices()
		if c.Len() > 3*len(m.Triangles) {
			t.Fatalf("%d vertices from %d triangles", c.Len(), len(m.Triangles))
		}
		var buf bytes.Buffer
		if err := ply.Encode(&buf, c, "binary"); err != nil {
			t.Fatalf("writing the vertices as PLY: %v", err)
		}
		p, err := ply.Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("reading the vertices back from PLY: %v", err)
		}
		if msg := codectest.Diff(c, p, true); msg != "" {
			t.Fatalf("vertices through PLY: %s", msg)
		}
		if s, err := m.Sample(10, 1); err == nil && s.Len() != 10 {
			t.Fatalf("sampled %d points, want 10", s.Len())
		}
	})
}
