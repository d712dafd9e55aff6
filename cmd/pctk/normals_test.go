package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcd"
	_ "github.com/pctk/pctk/io/ply"
)

// normalsSphere writes a Fibonacci sphere of n points and radius 1 about
// centre, at UTM-sized coordinates, with an Intensity column that must
// survive, and returns its path.
func normalsSphere(t *testing.T, dir string, centre [3]float64, n int) string {
	t.Helper()
	c := core.New(n)
	inten, _ := c.AddAttr(core.DimIntensity, core.Uint16)
	golden := math.Pi * (3 - math.Sqrt(5))
	for i := range n {
		z := 1 - (2*float64(i)+1)/float64(n)
		rho := math.Sqrt(1 - z*z)
		th := golden * float64(i)
		c.X[i], c.Y[i], c.Z[i] = centre[0]+rho*math.Cos(th), centre[1]+rho*math.Sin(th), centre[2]+z
		inten.SetFloat64(i, float64(i%1000))
	}
	path := filepath.Join(dir, "sphere.ply")
	writeTestCloud(t, path, c)
	return path
}

// floatColumn returns attribute name of c, which must be float32.
func floatColumn(t *testing.T, c *core.Cloud, name string) []float32 {
	t.Helper()
	a := c.Attr(name)
	if a == nil || a.Type != core.Float32 {
		t.Fatalf("attribute %s: got %v, want a float32 column", name, a)
	}
	return a.Data.([]float32)
}

// TestNormalsCommand runs pctk normals end to end on a sphere far from the
// origin: consistent orientation must point every normal outward, and a
// viewpoint at the centre, given in the file's coordinates, inward.
func TestNormalsCommand(t *testing.T) {
	dir := t.TempDir()
	centre := [3]float64{500000, 4100000, 100}
	in := normalsSphere(t, dir, centre, 3000)
	// The same sphere as PCD whose VIEWPOINT is the centre, which
	// --orient viewpoint uses when no --viewpoint is given.
	inPCD := filepath.Join(dir, "sphere.pcd")
	pctkRun(t, 0, "convert", in, inPCD)
	c := readTestCloud(t, inPCD)
	c.Meta.Extra["pcd"].(*pcd.Header).Viewpoint = [7]float64{centre[0], centre[1], centre[2], 1, 0, 0, 0}
	writeTestCloud(t, inPCD, c)
	tests := []struct {
		in      string
		args    []string
		outward bool
	}{
		{in, []string{"--knn", "10", "--orient", "consistent", "--eigenvalues"}, true},
		{in, []string{"--radius", "0.15", "--viewpoint", "500000,4100000,100"}, false},
		{inPCD, []string{"--knn", "12", "--orient", "viewpoint"}, false},
	}
	for _, tt := range tests {
		out := filepath.Join(dir, "out.pcd")
		args := append([]string{"pctk", "-q", "normals", tt.in, out, "--backend", "cpu"}, tt.args...)
		if code := run(args); code != 0 {
			t.Fatalf("%q: exit %d", args, code)
		}
		c := readTestCloud(t, out)
		nx, ny, nz := floatColumn(t, c, core.DimNormalX), floatColumn(t, c, core.DimNormalY), floatColumn(t, c, core.DimNormalZ)
		curv := floatColumn(t, c, core.DimCurvature)
		wrong := 0
		for i := range c.Len() {
			d := float64(nx[i])*(c.X[i]-centre[0]) + float64(ny[i])*(c.Y[i]-centre[1]) + float64(nz[i])*(c.Z[i]-centre[2])
			if (d > 0) != tt.outward || !(curv[i] >= 0 && curv[i] < 0.01) {
				wrong++
			}
		}
		if wrong != 0 {
			t.Errorf("%q: %d of %d points with a normal not %s or curvature outside [0, 0.01)", tt.args, wrong, c.Len(), map[bool]string{true: "outward", false: "inward"}[tt.outward])
		}
		if a := c.Attr(core.DimIntensity); a == nil || a.Float64(1234) != 234 {
			t.Errorf("%q: Intensity lost or changed: %v", tt.args, a)
		}
		hasEigen := c.Attr(core.DimEigenvalue0) != nil
		if want := tt.args[len(tt.args)-1] == "--eigenvalues"; hasEigen != want {
			t.Errorf("%q: Eigenvalue0 present %v, want %v", tt.args, hasEigen, want)
		}
		if hasEigen {
			l0, l2 := floatColumn(t, c, core.DimEigenvalue0), floatColumn(t, c, core.DimEigenvalue2)
			if !(l0[0] >= 0 && l0[0] <= l2[0]) {
				t.Errorf("eigenvalues λ0 %g, λ2 %g, want 0 ≤ λ0 ≤ λ2", l0[0], l2[0])
			}
		}
	}
}

func TestNormalsUsage(t *testing.T) {
	dir := t.TempDir()
	in := normalsSphere(t, dir, [3]float64{0, 0, 0}, 50)
	out := filepath.Join(dir, "out.ply")
	tests := [][]string{
		{},
		{"--knn", "2"},
		{"--radius", "-1"},
		{"--knn", "10", "--orient", "outward"},
		{"--knn", "10", "--orient", "viewpoint"}, // a PLY file records no viewpoint
		{"--knn", "10", "--viewpoint", "1,2"},
		{"--knn", "10", "--viewpoint", "1,2,nan"},
		{"--knn", "10", "--orient", "up", "--viewpoint", "1,2,3"},
		{"--knn", "10", "--orient", "consistent", "--orient-knn", "0"},
	}
	for _, flags := range tests {
		args := append([]string{"pctk", "-q", "normals", in, out}, flags...)
		if code := run(args); code != 2 {
			t.Errorf("%q: exit %d, want 2 (usage error)", flags, code)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed run wrote %s", out)
	}
}

// TestNormalsNaNInput checks that a NaN coordinate is an error naming the
// point, and that with --keep-nan (organised clouds) such points get NaN
// normals while the others are computed without them.
func TestNormalsNaNInput(t *testing.T) {
	dir := t.TempDir()
	const side = 20
	c := core.New(side * side)
	for i := range side {
		for j := range side {
			// A grid on the plane z = x/2 with every 7th point missing.
			p := i*side + j
			c.X[p], c.Y[p], c.Z[p] = float64(i)*0.1, float64(j)*0.1, float64(i)*0.05
			if p%7 == 3 {
				c.X[p], c.Y[p], c.Z[p] = math.NaN(), math.NaN(), math.NaN()
			}
		}
	}
	in := filepath.Join(dir, "nan.pcd")
	writeTestCloud(t, in, c)
	out := filepath.Join(dir, "out.pcd")
	if code := run([]string{"pctk", "-q", "normals", "--knn", "8", in, out}); code != 1 {
		t.Errorf("NaN input: exit %d, want 1", code)
	}
	pctkRun(t, 0, "normals", "--knn", "8", "--keep-nan", in, out)
	r := readTestCloud(t, out)
	nx, nz := floatColumn(t, r, core.DimNormalX), floatColumn(t, r, core.DimNormalZ)
	want := 1 / math.Sqrt(1.25) // the normal of z = x/2 is (-1/2, 0, 1)/√1.25
	for p := range nz {
		missing := p%7 == 3
		if missing != math.IsNaN(float64(nz[p])) || (!missing && (math.Abs(float64(nz[p])-want) > 1e-5 || math.Abs(float64(nx[p])+want/2) > 1e-5)) {
			t.Fatalf("point %d (missing %v): normal x %g z %g, want NaN for missing points, else (%g, 0, %g)", p, missing, nx[p], nz[p], -want/2, want)
		}
	}
}

// TestNormalsLAS checks that the normals reach a LAS file as extra bytes,
// with the CRS and the other fields kept, on a real airborne scan oriented
// up (the default).
func TestNormalsLAS(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "haystack_rock.las")
	out := filepath.Join(t.TempDir(), "out.las")
	pctkRun(t, 0, "normals", "--knn", "10", in, out)
	src, c := readTestCloud(t, in), readTestCloud(t, out)
	if c.Len() != src.Len() || c.Meta.CRS.EPSG != src.Meta.CRS.EPSG || len(c.Attrs) != len(src.Attrs)+4 {
		t.Fatalf("got %d points, EPSG %d, %d attributes; want %d, %d, %d", c.Len(), c.Meta.CRS.EPSG, len(c.Attrs), src.Len(), src.Meta.CRS.EPSG, len(src.Attrs)+4)
	}
	nx, ny, nz := floatColumn(t, c, core.DimNormalX), floatColumn(t, c, core.DimNormalY), floatColumn(t, c, core.DimNormalZ)
	for i := range nz {
		l := math.Sqrt(float64(nx[i])*float64(nx[i]) + float64(ny[i])*float64(ny[i]) + float64(nz[i])*float64(nz[i]))
		if nz[i] < 0 || math.Abs(l-1) > 1e-6 {
			t.Fatalf("point %d: normal (%g, %g, %g), want a unit vector with NormalZ ≥ 0", i, nx[i], ny[i], nz[i])
		}
	}
}
