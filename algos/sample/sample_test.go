package sample

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// pdalSample is the reference: PDAL's SampleFilter::voxelize written out
// (filters/SampleFilter.cpp). Voxels of side 2r/√3 from the first point's
// coordinates (PDAL's z origin is its y, a slip that only moves the voxel
// boundaries); each point, in input order, is checked against the points
// kept in its voxel and the 26 around it, and kept unless one is closer
// than r (distSqr < radiusSqr, in float64).
func pdalSample(xyz []float64, r float64) []bool {
	type voxel [3]int
	cell := 2 * r / math.Sqrt(3)
	kept := map[voxel][][3]float64{}
	var origin [3]float64
	keep := make([]bool, len(xyz)/3)
	for i := range keep {
		p := [3]float64(xyz[3*i : 3*i+3])
		if len(kept) == 0 {
			origin = [3]float64{p[0], p[1], p[1]}
		}
		var v voxel
		for k := range 3 {
			v[k] = int(math.Floor((p[k] - origin[k]) / cell))
		}
		ok := true
		for dx := -1; dx <= 1 && ok; dx++ {
			for dy := -1; dy <= 1 && ok; dy++ {
				for dz := -1; dz <= 1 && ok; dz++ {
					for _, q := range kept[voxel{v[0] + dx, v[1] + dy, v[2] + dz}] {
						d := (q[0]-p[0])*(q[0]-p[0]) + (q[1]-p[1])*(q[1]-p[1]) + (q[2]-p[2])*(q[2]-p[2])
						if d < r*r {
							ok = false
							break
						}
					}
				}
			}
		}
		if ok {
			kept[v] = append(kept[v], p)
			keep[i] = true
		}
	}
	return keep
}

// clouds are the synthetic test clouds: a blob, a noisy plane, a lattice
// whose spacing equals the radius exactly (pairs at exactly r are kept,
// as in PDAL), clusters far apart (a grid too sparse for an array), runs
// of coincident points, and a patch at UTM coordinates.
func clouds(seed uint64) []struct {
	name string
	xyz  []float64
	r    float64
} {
	rng := rand.New(rand.NewPCG(seed, 16))
	var blob, plane, lattice, dups, far, utm []float64
	for range 3000 {
		blob = append(blob, rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64())
		// Metres in UTM: the float64 differences of coordinates this far
		// from 0 round, and the test must round as PDAL does.
		utm = append(utm, 637000+rng.Float64()*20, 5104000+rng.Float64()*20, 120+rng.Float64())
		plane = append(plane, rng.Float64()*5, rng.Float64()*5, rng.NormFloat64()*0.01)
	}
	for i := range 12 {
		for j := range 12 {
			for k := range 12 {
				lattice = append(lattice, float64(i)*0.5, float64(j)*0.5, float64(k)*0.5)
			}
		}
	}
	// Shuffle the lattice so that the input order matters.
	rng.Shuffle(len(lattice)/3, func(a, b int) {
		for k := range 3 {
			lattice[3*a+k], lattice[3*b+k] = lattice[3*b+k], lattice[3*a+k]
		}
	})
	for i := range 2000 { // clusters 1e4 radii apart: a sparse grid
		c := float64(i%5) * 1e4
		far = append(far, c+rng.NormFloat64(), rng.NormFloat64(), c+rng.NormFloat64())
	}
	for i := range 500 {
		p := []float64{float64(i % 23), float64(i % 7), 0}
		dups = append(dups, p...)
		dups = append(dups, p...)
	}
	return []struct {
		name string
		xyz  []float64
		r    float64
	}{
		{"blob", blob, 0.3}, {"blob wide", blob, 1.1}, {"plane", plane, 0.12},
		{"lattice", lattice, 0.5}, {"lattice diagonal", lattice, 0.71}, {"duplicates", dups, 1},
		{"far clusters", far, 1}, {"utm", utm, 0.25},
	}
}

// check compares a result with the reference and checks the promises of
// Poisson's doc: kept points at least r apart, every dropped point closer
// than r to a kept one (brute force).
func check(t *testing.T, ctx string, xyz []float64, r float64, got *Result, want []bool) {
	t.Helper()
	n := len(xyz) / 3
	kept, diff := 0, 0
	for i := range n {
		if got.Keep[i] {
			kept++
		}
		if got.Keep[i] != want[i] {
			if diff++; diff <= 5 {
				t.Errorf("%s: point %d kept %v, PDAL's rule %v", ctx, i, got.Keep[i], want[i])
			}
		}
	}
	if got.Kept != kept {
		t.Errorf("%s: Kept = %d, %d points marked", ctx, got.Kept, kept)
	}
	var keptIdx []int
	for i, k := range got.Keep {
		if k {
			keptIdx = append(keptIdx, i)
		}
	}
	d2 := func(i, j int) float64 {
		dx, dy, dz := xyz[3*i]-xyz[3*j], xyz[3*i+1]-xyz[3*j+1], xyz[3*i+2]-xyz[3*j+2]
		return dx*dx + dy*dy + dz*dz
	}
	for a, i := range keptIdx {
		for _, j := range keptIdx[a+1:] {
			if d2(i, j) < r*r {
				t.Fatalf("%s: kept points %d and %d are %g apart, radius %g", ctx, i, j, math.Sqrt(d2(i, j)), r)
			}
		}
	}
	for i, k := range got.Keep {
		if k {
			continue
		}
		covered := false
		for _, j := range keptIdx {
			if j < i && d2(i, j) < r*r {
				covered = true
				break
			}
		}
		if !covered {
			t.Fatalf("%s: dropped point %d has no earlier kept point within %g", ctx, i, r)
		}
	}
}

// TestAgainstPDALRule holds Poisson to PDAL's rule on the synthetic
// clouds.
func TestAgainstPDALRule(t *testing.T) {
	const seed = 3
	for _, c := range clouds(seed) {
		got, err := Poisson(soa(c.xyz), Options{Radius: c.r})
		if err != nil {
			t.Fatal(err)
		}
		check(t, fmt.Sprintf("%s (seed %d, %d points) r %g", c.name, seed, len(c.xyz)/3, c.r), c.xyz, c.r, got, pdalSample(c.xyz, c.r))
	}
}

// TestLatticeTies checks the boundary on a lattice of spacing r: pairs at
// exactly r are kept, so in input (row-major) order every point is kept;
// with a radius a hair larger, every other point along each axis.
func TestLatticeTies(t *testing.T) {
	var xyz []float64
	for i := range 6 {
		for j := range 6 {
			xyz = append(xyz, float64(i)*0.25, float64(j)*0.25, 0)
		}
	}
	for _, tc := range []struct {
		r    float64
		kept int
	}{{0.25, 36}, {0.2500001, 18}, {0.36, 9}} {
		got, err := Poisson(soa(xyz), Options{Radius: tc.r})
		if err != nil {
			t.Fatal(err)
		}
		if got.Kept != tc.kept {
			t.Errorf("radius %g on a 0.25 lattice of 36: %d kept, want %d", tc.r, got.Kept, tc.kept)
		}
	}
}

// soa returns the interleaved points xyz as Points.
func soa(xyz []float64) Points {
	n := len(xyz) / 3
	p := Points{X: make([]float64, n), Y: make([]float64, n), Z: make([]float64, n)}
	for i := range n {
		p.X[i], p.Y[i], p.Z[i] = xyz[3*i], xyz[3*i+1], xyz[3*i+2]
	}
	return p
}

// scanAbs returns the scan rel of the shared data (algotest.Scan) as its
// absolute coordinates, which Poisson takes, and as the float32 view
// around its centre, which the neighbour backends take.
func scanAbs(t *testing.T, rel string) ([]float64, []float32) {
	c, l, _ := algotest.SharedCloud(t, rel)
	return c.Relative([3]float64{}), l.XYZ
}

// TestScans compares Poisson with PDAL's rule on real scans at radii of 2
// and 6 median spacings.
func TestScans(t *testing.T) {
	for _, rel := range []string{"pcd/bun0.pcd", "las/haystack_rock.las"} {
		xyz, local := scanAbs(t, rel)
		if n := len(xyz) / 3; n > 8000 {
			// check is O(N·kept): every s-th point.
			s := (n + 7999) / 8000
			var sub []float64
			for i := 0; i < n; i += s {
				sub = append(sub, xyz[3*i:3*i+3]...)
			}
			xyz = sub
		}
		spacing := algotest.MedianSpacing(t, findneighbor.Brute(), local)
		for _, r := range []float64{2 * spacing, 6 * spacing} {
			got, err := Poisson(soa(xyz), Options{Radius: r})
			if err != nil {
				t.Fatal(err)
			}
			check(t, fmt.Sprintf("%s (%d points) r %.4g", rel, len(xyz)/3, r), xyz, r, got, pdalSample(xyz, r))
			t.Logf("%s (%d points) r %.4g: %d kept, as PDAL's rule", rel, len(xyz)/3, r, got.Kept)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		o   Options
		err string
	}{
		{Options{Radius: 1}, ""},
		{Options{}, "radius"},
		{Options{Radius: -1}, "radius"},
		{Options{Radius: math.NaN()}, "radius"},
		{Options{Radius: math.Inf(1)}, "radius"},
	} {
		err := tc.o.Validate()
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: Validate() = %v, want %q", tc.o, err, tc.err)
		}
	}
	if _, err := Poisson(Points{X: []float64{1, 2}, Y: []float64{3}}, Options{Radius: 1}); err == nil {
		t.Error("Poisson of 2 coordinates: no error")
	}
	pe := (*findneighbor.ParamError)(nil)
	if _, err := Poisson(soa([]float64{0, 0, 0, 1e30, 0, 0}), Options{Radius: 1e-10}); !errors.As(err, &pe) || pe.Param != "radius" || !strings.Contains(err.Error(), "want at least 4.66e+20 for a cloud 1") {
		t.Errorf("Poisson with 1e40 cells along x: %v, want a radius error naming at least 4.66e+20", err)
	}
	if _, err := Poisson(soa([]float64{0, 0, math.NaN()}), Options{Radius: 1}); err == nil || !strings.Contains(err.Error(), "finite") {
		t.Errorf("Poisson of a NaN point: %v, want an error", err)
	}
	r, err := Poisson(soa(nil), Options{Radius: 1})
	if err != nil || len(r.Keep) != 0 || r.Kept != 0 {
		t.Errorf("Poisson of no points = %+v, %v", r, err)
	}
}

// TestProgress checks that Progress sees the fraction of points done, in
// order, once per progressEvery points.
func TestProgress(t *testing.T) {
	const n = 2*progressEvery + 100
	xyz := make([]float64, 3*n)
	for i := range n {
		xyz[3*i] = float64(i)
	}
	var got []float64
	if _, err := Poisson(soa(xyz), Options{Radius: 1.5, Progress: func(d float64) { got = append(got, d) }}); err != nil {
		t.Fatal(err)
	}
	want := []float64{0, float64(progressEvery) / n, float64(2*progressEvery) / n}
	if !slices.Equal(got, want) {
		t.Errorf("progress %v, want %v", got, want)
	}
}

// TestSamplerChunks feeds a Sampler the synthetic clouds and a scan in
// chunks of random sizes (single points too) and holds the flags to
// Poisson's on the whole cloud, and Bytes to the memory it reports.
func TestSamplerChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	cs := clouds(5)
	scan, _ := scanAbs(t, "las/haystack_rock.las")
	cs = append(cs, struct {
		name string
		xyz  []float64
		r    float64
	}{"haystack_rock", scan, 1.5})
	for _, c := range cs {
		want, err := Poisson(soa(c.xyz), Options{Radius: c.r})
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewSampler(Options{Radius: c.r})
		if err != nil {
			t.Fatal(err)
		}
		var got []bool
		n := len(c.xyz) / 3
		for i := 0; i < n; {
			m := min(n-i, []int{1, 2, 7, 100, 1000}[rng.IntN(5)])
			if got, err = s.Add(soa(c.xyz[3*i:3*(i+m)]), got); err != nil {
				t.Fatal(err)
			}
			i += m
		}
		if !slices.Equal(got, want.Keep) || s.Kept() != want.Kept {
			t.Errorf("%s r %g: chunks keep %d points, other flags than Poisson's %d", c.name, c.r, s.Kept(), want.Kept)
		}
		if s.Bytes() <= int64(keptBytes*s.Kept()) {
			t.Errorf("%s: Bytes %d, less than the %d kept points' coordinates", c.name, s.Bytes(), s.Kept())
		}
		t.Logf("%s r %g: %d of %d kept, %d bytes (%.0f a kept point)", c.name, c.r, s.Kept(), n, s.Bytes(), float64(s.Bytes())/float64(s.Kept()))
	}
}

// cube returns n random points in a cube of the given side (seeded) and
// Poisson's sample of them at radius 1.
func cube(t *testing.T, seed uint64, n int, side float64) ([]float64, *Result) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	xyz := make([]float64, 3*n)
	for i := range xyz {
		xyz[i] = rng.Float64() * side
	}
	want, err := Poisson(soa(xyz), Options{Radius: 1})
	if err != nil {
		t.Fatal(err)
	}
	return xyz, want
}

// TestSamplerMaxBytes checks that a Sampler never holds more than
// MaxBytes: past it, Add fails with a *MemoryError, the flags before the
// point that failed being Poisson's.
func TestSamplerMaxBytes(t *testing.T) {
	xyz, want := cube(t, 9, 20000, 100)
	for _, limit := range []int64{32 << 10, 100 << 10, 1 << 20} {
		s, err := NewSampler(Options{Radius: 1, MaxBytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Add(soa(xyz), nil)
		var me *MemoryError
		if !errors.As(err, &me) || me.Max != limit || me.Need <= limit || me.Kept != s.Kept() || me.Points != int64(len(got)) {
			t.Fatalf("MaxBytes %d: %v (%+v, kept %d), want a MemoryError after %d points", limit, err, *me, s.Kept(), len(got))
		}
		if s.Bytes() > limit || !slices.Equal(got, want.Keep[:len(got)]) {
			t.Errorf("MaxBytes %d: Bytes %d, or the flags of the first %d points differ from Poisson's", limit, s.Bytes(), len(got))
		}
		if !strings.Contains(err.Error(), "over the limit") {
			t.Errorf("MaxBytes %d: %q", limit, err)
		}
	}
	s, err := NewSampler(Options{Radius: 1, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Add(soa(xyz[:3*2000]), nil); err != nil || !slices.Equal(got, want.Keep[:2000]) {
		t.Errorf("MaxBytes 1MiB, 2000 points: %v", err)
	}
	if _, err := NewSampler(Options{Radius: 1, MaxBytes: -1}); err == nil {
		t.Error("MaxBytes -1: no error")
	}
}

// TestSamplerErrors: a coordinate that is not finite, or too far from the
// origin for the radius, is an error naming the point.
func TestSamplerErrors(t *testing.T) {
	for _, tc := range []struct {
		pts  Points
		r    float64
		want string
	}{
		{soa([]float64{0, 0, 0, 1e30, 0, 0}), 1e-10, "point 1 at"},
		{soa([]float64{5e6, 0, 0, 5e6 + 1e-3, 1e5, 0}), 1e-10, "want at least 9.32e-05 for point 1 at (5.000000001e+06, 100000, 0), 100000 from the first point"},
		{soa([]float64{0, 0, 0, 1, 1, math.NaN()}), 1, "point 1 has a coordinate that is not finite"},
		{Points{X: []float64{0, 0}, Y: []float64{0}}, 1, "one x, y and z per point"},
	} {
		s, err := NewSampler(Options{Radius: tc.r})
		if err != nil {
			t.Fatal(err)
		}
		keep, err := s.Add(tc.pts, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v r %g: %v, want an error with %q", tc.pts, tc.r, err, tc.want)
		}
		if tc.pts.Len() == 2 && len(tc.pts.Y) == 2 && (len(keep) != 1 || !keep[0]) {
			t.Errorf("%v: flags %v before the error, want [true]", tc.pts, keep)
		}
	}
}

// TestSamplerListsOverBudget: a limit that holds the kept points and
// their cells but not every cell's list of neighbours stops the lists, not
// the Sampler, whose flags stay Poisson's.
func TestSamplerListsOverBudget(t *testing.T) {
	xyz, want := cube(t, 4, 30000, 20)
	free, err := NewSampler(Options{Radius: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := free.Add(soa(xyz), nil); err != nil {
		t.Fatal(err)
	}
	lists := int64(cap(free.lists)) * listBytes
	limit := free.Bytes() - lists/2
	s, err := NewSampler(Options{Radius: 1, MaxBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Add(soa(xyz), nil)
	if err != nil || !slices.Equal(got, want.Keep) {
		t.Fatalf("MaxBytes %d (%d without it, %d of lists): %v, or other flags than Poisson's", limit, free.Bytes(), lists, err)
	}
	if !s.noLists || s.Bytes() > limit {
		t.Errorf("MaxBytes %d: lists stopped %v, %d bytes held", limit, s.noLists, s.Bytes())
	}
}
