package stl

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stlTestdata finds hschendel/stl's own test files (an OpenSCAD model in
// binary and ascii) in the module cache.
func stlTestdata(t *testing.T) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/hschendel/stl").Output()
	dir := filepath.Join(strings.TrimSpace(string(out)), "testdata")
	if _, serr := os.Stat(filepath.Join(dir, "complex_bin.stl")); err != nil || serr != nil {
		t.Skipf("hschendel/stl's testdata not found in the module cache (%v, %v); skipping the real-mesh test", err, serr)
	}
	return dir
}

// TestRealMesh reads the same 30,476-facet model as binary and ascii STL:
// the same distinct vertices in the same order (ascii rounds them to six
// digits), and samples of its surface stay within its bounds.
func TestRealMesh(t *testing.T) {
	dir := stlTestdata(t)
	open := func(name string) *Mesh {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		m, err := ReadMesh(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return m
	}
	bin, asc := open("complex_bin.stl"), open("complex_ascii.stl")
	if len(bin.Triangles) != 30476 || len(asc.Triangles) != 30476 || bin.ASCII || !asc.ASCII {
		t.Fatalf("got %d binary and %d ascii triangles (ascii flags %v, %v), want 30476 each", len(bin.Triangles), len(asc.Triangles), bin.ASCII, asc.ASCII)
	}
	vb, va := bin.Vertices(), asc.Vertices()
	if vb.Len() != va.Len() || vb.Len() < 1000 {
		t.Fatalf("got %d binary and %d ascii vertices, want the same number", vb.Len(), va.Len())
	}
	for i := range vb.Len() {
		for _, p := range [][2]float64{{vb.X[i], va.X[i]}, {vb.Y[i], va.Y[i]}, {vb.Z[i], va.Z[i]}} {
			if math.Abs(p[0]-p[1]) > 1e-5*max(1, math.Abs(p[0])) {
				t.Fatalf("vertex %d: binary %v, ascii %v", i, p[0], p[1])
			}
		}
	}
	b, _ := vb.Bounds()
	s, err := bin.Sample(50000, 9)
	if err != nil {
		t.Fatal(err)
	}
	sb, _ := s.Bounds()
	for k := range 3 {
		if sb.Min[k] < b.Min[k]-1e-9 || sb.Max[k] > b.Max[k]+1e-9 || sb.Max[k]-sb.Min[k] < 0.9*(b.Max[k]-b.Min[k]) {
			t.Errorf("axis %d: samples span [%v, %v], mesh [%v, %v]", k, sb.Min[k], sb.Max[k], b.Min[k], b.Max[k])
		}
	}
	t.Logf("%d distinct vertices; samples span %v..%v", vb.Len(), sb.Min, sb.Max)
}
