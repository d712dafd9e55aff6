package hag

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// hagtest is PDAL's test/data/filters/hagtest.txt (X Y Z Classification),
// the cloud of test/unit/filters/HAGFilterTest.cpp.
var hagtest = [][4]float64{
	{-2, 4, 20, 1}, {4, 1, 20, 1}, {2, 3, 20, 1}, {4, 4, 20, 1},
	{0, 0, 0, 2}, {3, 0, 10, 2}, {5, 1, 10, 2}, {3, 3, 4, 2}, {0, 3, 10, 2}, {1, 5, 10, 2},
}

func split(rows [][4]float64) ([]float32, []uint8) {
	var xyz []float32
	var class []uint8
	for _, r := range rows {
		xyz = append(xyz, float32(r[0]), float32(r[1]), float32(r[2]))
		class = append(class, uint8(r[3]))
	}
	return xyz, class
}

// TestPDALHAGFilter asserts the heights of PDAL's HAGFilterTest (delaunay
// with count 10, neighbors with count 2, closest with count 1) on its
// cloud: the four non-ground points, ground points 0.
func TestPDALHAGFilter(t *testing.T) {
	xyz, class := split(hagtest)
	for _, tc := range []struct {
		name string
		opts Options
		want [4]float64
	}{
		{"delaunay", Options{Method: Delaunay, Count: 10}, [4]float64{10, 11, 14, 16}},
		{"neighbors", Options{Count: 2}, [4]float64{10, 10, 14.8, 15}},
		{"closest", Options{Count: 1}, [4]float64{10, 10, 16, 16}},
		{"closest default", Options{}, [4]float64{10, 10, 16, 16}},
	} {
		for _, b := range []findneighbor.Backend{findneighbor.Brute(), findneighbor.CPU()} {
			res, err := Compute(xyz, class, b, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			for i, h := range res.HeightAboveGround {
				want := 0.0
				if i < 4 {
					want = tc.want[i]
				}
				// PDAL's EXPECT_DOUBLE_EQ: within 4 ulps.
				if math.Abs(h-want) > 4*ulp(want) {
					t.Errorf("%s (%s): point %d: HeightAboveGround %v, want %v", tc.name, b.Name(), i, h, want)
				}
			}
		}
	}
}

func ulp(v float64) float64 { return math.Nextafter(math.Abs(v), math.Inf(1)) - math.Abs(v) }

// TestOptions checks the behaviours PDAL's test leaves out: max_distance,
// allow_extrapolation, a point on a ground point, too few ground points,
// none, and the parameter checks.
func TestOptions(t *testing.T) {
	xyz, class := split(hagtest)
	run := func(o Options) []float64 {
		t.Helper()
		res, err := Compute(xyz, class, findneighbor.CPU(), o)
		if err != nil {
			t.Fatal(err)
		}
		return res.HeightAboveGround[:4]
	}
	// Point 2 (2, 3, 20), count 2: ground (3, 3, 4) at d² 1 and (0, 3, 10)
	// at d² 4; max_distance 1.5 keeps the first alone: 20 - 4.
	if got := run(Options{Count: 2, MaxDistance: 1.5}); got[2] != 16 {
		t.Errorf("max_distance 1.5: point 2 height %v, want 16", got[2])
	}
	// max_distance 0.5 leaves points 2 and 3 with no ground: height 0.
	if got := run(Options{Count: 2, MaxDistance: 0.5}); got[2] != 0 || got[3] != 0 {
		t.Errorf("max_distance 0.5: heights %v, want 0 for points 2 and 3", got)
	}
	// Point 0 (-2, 4) lies outside the ground box [0,5]×[0,5]: height 0
	// without extrapolation, for both methods (count > 1).
	if got := run(Options{Count: 2, NoExtrapolation: true}); got[0] != 0 || got[2] != 14.8 {
		t.Errorf("hag_nn without extrapolation: heights %v, want 0 for point 0, 14.8 for point 2", got)
	}
	if got := run(Options{Method: Delaunay, NoExtrapolation: true}); got[0] != 0 || got[1] != 11 {
		t.Errorf("hag_delaunay without extrapolation: heights %v, want 0 and 11", got)
	}
	// A given ground box holding point 0 lets it extrapolate again.
	if got := run(Options{Count: 2, NoExtrapolation: true, GroundBounds: &Bounds{-5, -5, 5, 5}}); math.Abs(got[0]-10) > 1e-12 {
		t.Errorf("hag_nn with a wider ground box: point 0 height %v, want 10", got[0])
	}
	// Count beyond the 6 ground points: PDAL pads its lists with the first
	// ground point at squared distance 0, which makes the mean NaN.
	if got := run(Options{Count: 7}); !math.IsNaN(got[2]) {
		t.Errorf("count 7 of 6 ground points: height %v, want NaN", got[2])
	}
	// A point exactly above a ground point takes its Z.
	above := append(slices.Clone(xyz), 3, 3, 9)
	res, err := Compute(above, append(slices.Clone(class), 1), findneighbor.CPU(), Options{Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	if h := res.HeightAboveGround[10]; h != 5 {
		t.Errorf("point above ground (3, 3, 4): height %v, want 5", h)
	}
	// No ground: PDAL leaves every height 0.
	res, err = Compute(xyz, make([]uint8, 10), findneighbor.CPU(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.HeightAboveGround, make([]float64, 10)) || !math.IsInf(res.Reach[0], 1) {
		t.Errorf("no ground: heights %v reach %v, want 0 and +Inf", res.HeightAboveGround, res.Reach[0])
	}
	for _, o := range []Options{{Count: -1}, {MaxDistance: -1}, {Method: Delaunay, Count: 2}, {Method: Delaunay, MaxDistance: 1}, {Method: 7}} {
		if _, err := Compute(xyz, class, findneighbor.CPU(), o); err == nil {
			t.Errorf("%+v: want an error", o)
		} else if _, ok := err.(*findneighbor.ParamError); !ok {
			t.Errorf("%+v: error %v is not a *findneighbor.ParamError", o, err)
		}
	}
	if _, err := Compute(xyz, class[:3], findneighbor.CPU(), Options{}); err == nil {
		t.Error("3 classes for 10 points: want an error")
	}
}

// randomGround returns n points of a rough terrain (about a third ground,
// lower) and their classes, seeded.
func randomGround(seed uint64, n int, side float64) ([]float32, []uint8) {
	r := rand.New(rand.NewPCG(seed, 2))
	xyz := make([]float32, 0, 3*n)
	class := make([]uint8, n)
	for i := range n {
		x, y := r.Float64()*side, r.Float64()*side
		z := math.Sin(x/3) + math.Cos(y/4)
		if r.IntN(3) == 0 {
			class[i] = Ground
		} else {
			class[i] = []uint8{1, 3, 4, 5}[r.IntN(4)]
			z += r.Float64() * 10
		}
		xyz = append(xyz, float32(x), float32(y), float32(z))
	}
	return xyz, class
}

// reference computes the heights by brute force: the count nearest ground
// points in float32 XY (ties by index), then PDAL's arithmetic.
func reference(xyz []float32, class []uint8, o Options) []float64 {
	n := len(class)
	var ground []int32
	for i, c := range class {
		if c == Ground {
			ground = append(ground, int32(i))
		}
	}
	count := o.count()
	bounds := groundBounds(f64(xyz), ground)
	out := make([]float64, n)
	for i := range n {
		if class[i] == Ground {
			continue
		}
		d2 := func(g int32) float32 {
			dx, dy := xyz[3*i]-xyz[3*g], xyz[3*i+1]-xyz[3*g+1]
			return dx*dx + dy*dy
		}
		order := slices.Clone(ground)
		slices.SortStableFunc(order, func(a, b int32) int {
			da, db := d2(a), d2(b)
			switch {
			case da < db:
				return -1
			case db < da:
				return 1
			}
			return 0
		})
		var nb []neighbor
		for _, g := range order[:min(count+spare, len(order))] {
			dx, dy := float64(xyz[3*i])-float64(xyz[3*g]), float64(xyz[3*i+1])-float64(xyz[3*g+1])
			nb = append(nb, neighbor{g, dx*dx + dy*dy})
		}
		sortByDist(nb)
		nb = nb[:min(count, len(nb))]
		for len(nb) < count {
			nb = append(nb, neighbor{g: ground[0]})
		}
		x0, y0, z0 := float64(xyz[3*i]), float64(xyz[3*i+1]), float64(xyz[3*i+2])
		g0 := nb[0].g
		var z1 float64
		switch {
		case x0 == float64(xyz[3*g0]) && y0 == float64(xyz[3*g0+1]) || count == 1:
			z1 = float64(xyz[3*g0+2])
		case o.NoExtrapolation && !bounds.Contains(x0, y0):
			z1 = z0
		case o.Method == Delaunay:
			var pts []float64
			for _, v := range nb {
				pts = append(pts, float64(xyz[3*v.g]), float64(xyz[3*v.g+1]))
			}
			z1 = new(delaunay).ground(x0, y0, z0, pts, nb, f64(xyz))
		default:
			z1 = idwGround(nb, f64(xyz), o.MaxDistance*o.MaxDistance, z0)
		}
		out[i] = z0 - z1
	}
	return out
}

func f64(xyz []float32) []float64 {
	out := make([]float64, len(xyz))
	for i, v := range xyz {
		out[i] = float64(v)
	}
	return out
}

var cases = []Options{
	{},
	{Count: 4},
	{Count: 6, MaxDistance: 0.6},
	{Count: 5, NoExtrapolation: true},
	{Method: Delaunay},
	{Method: Delaunay, Count: 3},
	{Method: Delaunay, Count: 16, NoExtrapolation: true},
}

func TestOnEveryBackend(t *testing.T) {
	for seed := range uint64(3) {
		xyz, class := randomGround(seed, 900, 20)
		for _, o := range cases {
			want := reference(xyz, class, o)
			algotest.Check(t, fmt.Sprintf("seed %d %+v", seed, o), func(b findneighbor.Backend) ([]float64, error) {
				res, err := Compute(xyz, class, b, o)
				return res.HeightAboveGround, err
			}, want, algotest.Exact[float64])
		}
	}
}

// TestReach checks the driver's contract: the heights of the points whose
// Reach disc lies inside a box, computed from the box's points alone (in
// the same order), equal the whole cloud's to the bit.
func TestReach(t *testing.T) {
	xyz, class := randomGround(7, 4000, 40)
	for _, o := range cases {
		whole, err := Compute(xyz, class, findneighbor.CPU(), o)
		if err != nil {
			t.Fatal(err)
		}
		b := groundBounds(f64(xyz), groundOf(class))
		o.GroundBounds = &b
		for _, box := range []Bounds{{5, 5, 20, 20}, {0, 10, 40, 18}, {22, 3, 39, 39}} {
			var sub []int
			for i := range class {
				if box.Contains(float64(xyz[3*i]), float64(xyz[3*i+1])) {
					sub = append(sub, i)
				}
			}
			pts, cls := make([]float32, 0, 3*len(sub)), make([]uint8, 0, len(sub))
			for _, i := range sub {
				pts = append(pts, xyz[3*i:3*i+3]...)
				cls = append(cls, class[i])
			}
			part, err := Compute(pts, cls, findneighbor.CPU(), o)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for j, i := range sub {
				x, y, r := float64(xyz[3*i]), float64(xyz[3*i+1]), whole.Reach[i]
				if x-r < box.MinX || x+r > box.MaxX || y-r < box.MinY || y+r > box.MaxY {
					continue
				}
				checked++
				if g, w := part.HeightAboveGround[j], whole.HeightAboveGround[i]; math.Float64bits(g) != math.Float64bits(w) {
					t.Errorf("%+v box %v: point %d: height %v in the box, %v in the whole cloud", o, box, i, g, w)
				}
			}
			if checked < len(sub)/2 {
				t.Errorf("%+v box %v: only %d of %d points checked", o, box, checked, len(sub))
			}
		}
	}
}

func groundOf(class []uint8) []int32 {
	var g []int32
	for i, c := range class {
		if c == Ground {
			g = append(g, int32(i))
		}
	}
	return g
}

// TestTriangulate checks the triangulation on a square with a centre
// (four triangles around it), the failures PDAL's catch turns into
// height 0, and that a triangulation reusing the memory of others (more
// points, fewer, failed) is a fresh one's.
func TestTriangulate(t *testing.T) {
	square := []float64{0, 0, 2, 0, 2, 2, 0, 2, 1, 1}
	var fresh delaunay
	if err := fresh.triangulate(square); err != nil {
		t.Fatal(err)
	}
	if got := len(fresh.triangles) / 3; got != 4 {
		t.Errorf("square with centre: %d triangles, want 4", got)
	}
	var reused delaunay
	big := make([]float64, 0, 40)
	for i := range 20 {
		big = append(big, float64(i%5)+0.1*float64(i), float64(i/5)*1.3)
	}
	if err := reused.triangulate(big); err != nil {
		t.Fatal(err)
	}
	for _, pts := range [][]float64{{0, 0, 1, 1}, {1, 1, 1, 1, 1, 1}, {0, 0, 1, 1, 2, 2, 3, 3}} {
		if err := reused.triangulate(pts); err == nil {
			t.Errorf("%v: want no triangulation", pts)
		}
	}
	if err := reused.triangulate(square); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reused.triangles, fresh.triangles) || !slices.Equal(reused.halfedges, fresh.halfedges) {
		t.Errorf("reused: triangles %v, halfedges %v; fresh: %v, %v", reused.triangles, reused.halfedges, fresh.triangles, fresh.halfedges)
	}
}
