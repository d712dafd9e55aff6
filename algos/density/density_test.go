package density

import (
	"bytes"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/internal/peers"
	_ "github.com/pctk/pctk/io/pcd"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// radialRef is RadialDensity by brute force: (other points within r + 1) /
// (4/3·PDALPi·r³), multiplied by the inverse volume as PDAL does.
func radialRef(xyz []float32, r float64) []float64 {
	counts := algotest.Counts(xyz, float32(r))
	third, pi := 4.0/3.0, 3.14159 // float64 variables: rounded as C++ rounds them
	out := make([]float64, len(counts))
	for i, c := range counts {
		out[i] = float64(c+1) * (1.0 / (third * pi * (r * r * r)))
	}
	return out
}

func TestRadialOnEveryBackend(t *testing.T) {
	for _, c := range fntest.Clouds(7, 600) {
		for _, r := range []float64{0.02, 0.1, 0.5} {
			want := radialRef(c.XYZ, r)
			algotest.Check(t, fmt.Sprintf("%s r=%g", c.Name, r), func(b findneighbor.Backend) ([]float64, error) {
				return Radial(slices.Clone(c.XYZ), b, RadialOptions{Radius: r, Build: findneighbor.BuildOptions{Reuse: true}})
			}, want, algotest.Exact[float64])
		}
	}
}

func TestRadialValues(t *testing.T) {
	// Points at 0, 1, 2, 10 on a line, radius 1.5: 2, 3, 2 and 1 points in
	// each sphere, the point itself included.
	xyz := []float32{0, 0, 0, 1, 0, 0, 2, 0, 0, 10, 0, 0}
	got, err := Radial(xyz, findneighbor.Brute(), RadialOptions{Radius: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	third, pi, r := 4.0/3.0, 3.14159, 1.5
	f := 1 / (third * pi * (r * r * r))
	if want := []float64{2 * f, 3 * f, 2 * f, 1 * f}; !slices.Equal(got, want) {
		t.Errorf("Radial = %v, want %v", got, want)
	}
	for _, r := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if _, err := Radial(xyz, findneighbor.Brute(), RadialOptions{Radius: r}); err == nil {
			t.Errorf("Radial with radius %g: want an error", r)
		}
	}
}

// knnRef is the mean distance to the k nearest other points within r (0:
// any), by brute force, NaN for none.
func knnRef(xyz []float32, k int, r float64) []float32 {
	n := len(xyz) / 3
	out := make([]float32, n)
	for i := range n {
		var d []float64
		for j := range n {
			if j == i || r > 0 && !algotest.Within(xyz, i, j, float32(r)) {
				continue
			}
			dx, dy, dz := xyz[3*i]-xyz[3*j], xyz[3*i+1]-xyz[3*j+1], xyz[3*i+2]-xyz[3*j+2]
			d = append(d, math.Sqrt(float64(dx*dx+dy*dy+dz*dz)))
		}
		slices.Sort(d)
		d = d[:min(k, len(d))]
		out[i] = float32(math.NaN())
		if len(d) > 0 {
			s := 0.0
			for _, v := range d {
				s += v
			}
			out[i] = float32(s / float64(len(d)))
		}
	}
	return out
}

func TestKnnMeanDistanceOnEveryBackend(t *testing.T) {
	for _, c := range fntest.Clouds(11, 400) {
		for _, tc := range []struct {
			k int
			r float64
		}{{1, 0}, {8, 0}, {8, 0.1}, {30, 0.05}} {
			want := knnRef(c.XYZ, tc.k, tc.r)
			algotest.Check(t, fmt.Sprintf("%s k=%d r=%g", c.Name, tc.k, tc.r), func(b findneighbor.Backend) ([]float32, error) {
				return KnnMeanDistance(c.XYZ, b, tc.k, tc.r, 0, findneighbor.BuildOptions{})
			}, want, algotest.Near[float32](1e-5))
		}
	}
}

// TestRadialAgainstSciPy compares Radial on the shipped lamppost scan with
// scipy's cKDTree.query_ball_point (return_length, the point included) in
// float64, over PDAL's sphere volume. Points with a neighbour within 1e-5 R
// of the boundary, where float32 and float64 may disagree, are left out.
func TestRadialAgainstSciPy(t *testing.T) {
	algotest.RequirePeer(t, "scipy for "+peers.Python+" (Debian python3-scipy)", exec.Command(peers.Python, "-c", "import scipy.spatial, numpy").Run())
	c, _, err := pcio.ReadFile("../../testdata/lamppost.pcd")
	if err != nil {
		t.Fatal(err)
	}
	xyz := c.Local(false).XYZ
	var in bytes.Buffer
	for i := range len(xyz) / 3 {
		fmt.Fprintf(&in, "%v %v %v\n", xyz[3*i], xyz[3*i+1], xyz[3*i+2])
	}
	const r = 0.05
	script := fmt.Sprintf(`import sys, numpy as np
from scipy.spatial import cKDTree
p = np.loadtxt(sys.stdin)
n = cKDTree(p).query_ball_point(p, %v, return_length=True)
for v in n * (1.0 / ((4.0 / 3.0) * 3.14159 * (%v * %v * %v))): print(repr(float(v)))
`, r, r, r, r)
	cmd := exec.Command(peers.Python, "-c", script)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scipy: %v", err)
	}
	lines := strings.Fields(string(out))
	for _, b := range fntest.Usable(t) {
		got, err := Radial(xyz, b, RadialOptions{Radius: r})
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) != len(got) {
			t.Fatalf("scipy gave %d values for %d points", len(lines), len(got))
		}
		compared := 0
		for i, s := range lines {
			want, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			if nearBoundary(xyz, i, r) {
				continue
			}
			compared++
			if math.Abs(got[i]-want) > 1e-12*want {
				t.Errorf("%s: point %d: RadialDensity %v, scipy %v", b.Name(), i, got[i], want)
			}
		}
		if compared < len(got)*99/100 {
			t.Errorf("only %d of %d points compared", compared, len(got))
		}
	}
}

// nearBoundary reports whether point i has a neighbour whose float64
// distance is within 1e-5·r of r.
func nearBoundary(xyz []float32, i int, r float64) bool {
	for j := range len(xyz) / 3 {
		dx := float64(xyz[3*i]) - float64(xyz[3*j])
		dy := float64(xyz[3*i+1]) - float64(xyz[3*j+1])
		dz := float64(xyz[3*i+2]) - float64(xyz[3*j+2])
		if math.Abs(math.Sqrt(dx*dx+dy*dy+dz*dz)-r) <= 1e-5*r {
			return true
		}
	}
	return false
}

// TestKnnMeanDistanceDuplicates checks KnnMeanDistance against one
// KNearest call on duplicated points, where a point's own hit can hide
// behind copies with smaller indices.
func TestKnnMeanDistanceDuplicates(t *testing.T) {
	xyz := make([]float32, 0, 3*3000)
	for i := range 3000 {
		xyz = append(xyz, float32(i%500)*0.1, float32(i%7), 0)
	}
	ix, err := findneighbor.CPU().Build(xyz, 0.25, findneighbor.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 3, 2000} {
		got, err := KnnMeanDistance(xyz, findneighbor.CPU(), k, 0.25, 0, findneighbor.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		idx, dist := make([]int32, 3000*k), make([]float32, 3000*k)
		if err := ix.KNearest(nil, k, idx, dist); err != nil {
			t.Fatal(err)
		}
		for i := range 3000 {
			var sum float64
			n := 0
			for j := i * k; j < (i+1)*k && idx[j] >= 0; j++ {
				sum += float64(dist[j])
				n++
			}
			want := float32(math.NaN())
			if n > 0 {
				want = float32(sum / float64(n))
			}
			if !algotest.Near[float32](1e-6)(got[i], want) {
				t.Fatalf("k %d point %d: got %g, want %g", k, i, got[i], want)
			}
		}
	}
}
