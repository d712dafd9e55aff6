package stl

import (
	"bytes"
	"testing"
)

// FuzzDecode reads arbitrary input as STL: an error or a cloud, never a
// panic; what reads must also sample.
func FuzzDecode(f *testing.F) {
	f.Add(binarySTL("cube", cube()))
	f.Add(asciiSTL("cube", cube()[:2]))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadMesh(bytes.NewReader(data))
		if err != nil {
			return
		}
		c := m.Vertices()
		if c.Len() > 3*len(m.Triangles) {
			t.Fatalf("%d vertices from %d triangles", c.Len(), len(m.Triangles))
		}
		if s, err := m.Sample(10, 1); err == nil && s.Len() != 10 {
			t.Fatalf("sampled %d points, want 10", s.Len())
		}
	})
}
