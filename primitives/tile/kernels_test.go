package tile

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestMomentsTiledKNN holds the k-nearest moments of MomentsTiled (r = 0)
// to the whole cloud's (findneighbor.KNearestMoments), bit for bit, on the
// cpu backend (kd-tree tiles, then a last round for the points whose k-th
// nearest lies beyond what their tile holds) and on brute force (rounds
// of doubling halos), over tiles smaller and larger than the halo, on a
// ground with a wall, isolated points high above it (their k nearest far
// off in Z) and stacks of coincident points (ties broken by index).
func TestMomentsTiledKNN(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 1))
	var xyz []float32
	for range 2500 { // ground
		xyz = append(xyz, 20*r.Float32(), 20*r.Float32(), 0.1*r.Float32())
	}
	for range 600 { // a wall along x = 10
		xyz = append(xyz, 10+0.05*r.Float32(), 20*r.Float32(), 5*r.Float32())
	}
	for range 20 { // isolated points high above
		xyz = append(xyz, 20*r.Float32(), 20*r.Float32(), 30+20*r.Float32())
	}
	for range 5 { // stacks of 20 coincident points
		x, y := 20*r.Float32(), 20*r.Float32()
		for range 20 {
			xyz = append(xyz, x, y, 0.05)
		}
	}
	n := len(xyz) / 3
	for _, b := range []findneighbor.Backend{findneighbor.CPU(), findneighbor.Brute()} {
		for _, k := range []int{4, 25} {
			want := make([]findneighbor.Moment, n)
			if err := findneighbor.KNearestMoments(b, xyz, k, findneighbor.BuildOptions{}, want); err != nil {
				t.Fatal(err)
			}
			for _, size := range []float64{0.3, 2.5, 7, 100} {
				got := make([]findneighbor.Moment, n)
				seen := make([]int, n)
				err := MomentsTiled(xyz, b, 0, k, size, findneighbor.BuildOptions{Workers: 2}, func(pts []int32, m []findneighbor.Moment) {
					for j, i := range pts {
						got[i] = m[j]
						seen[i]++ // calls hold points of their own: no race
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					if seen[i] != 1 {
						t.Fatalf("%s k %d tile %g: point %d handed over %d times", b.Name(), k, size, i, seen[i])
					}
				}
				if !reflect.DeepEqual(got, want) {
					for i := range n {
						if got[i] != want[i] {
							t.Fatalf("%s k %d tile %g: point %d (%v) has %+v, in memory %+v", b.Name(), k, size, i, xyz[3*i:3*i+3], got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestMomentsTiledFrame holds the radius moments (k = 0) of MomentsTiled
// on the cpu backend, with two workers (tile.Share's Pool of stand-ins),
// to the whole cloud's, bit for bit: what needs the tiles' indexes in the
// whole cloud's findneighbor.Frame, which MomentsTiled passes through the
// Pool and its stand-ins to the cpu backend (without it, 131 of the
// clustered cloud's points at r 1.3 get sums in another order).
func TestMomentsTiledFrame(t *testing.T) {
	cpu := findneighbor.CPU()
	for _, c := range fntest.Clouds(5, 3000)[:2] { // uniform, clustered
		for _, r := range []float64{0.5, 1.3} {
			ix, err := cpu.Build(c.XYZ, float32(r), findneighbor.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := make([]findneighbor.Moment, c.Len())
			err = findneighbor.Moments(ix, c.XYZ, nil, 0, want)
			ix.Close()
			if err != nil {
				t.Fatal(err)
			}
			got := make([]findneighbor.Moment, c.Len())
			err = MomentsTiled(c.XYZ, cpu, r, 0, 3, findneighbor.BuildOptions{Workers: 2}, func(pts []int32, m []findneighbor.Moment) {
				for j, i := range pts {
					got[i] = m[j]
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			differ := 0
			for i := range got {
				if got[i] != want[i] {
					differ++
				}
			}
			if differ > 0 {
				t.Errorf("%s r %g: %d of %d tiled moments differ from the whole cloud's", c.Name, r, differ, c.Len())
			}
		}
	}
}

// TestNear checks near against brute force: every point within d (in X
// and Y) of a point to do is returned, in increasing order, and no point
// farther than d plus two cells of its grid.
func TestNear(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		n    int
		frac float64 // of points to do
		d    float64
	}{{2000, 0.01, 0.5}, {2000, 0.3, 2}, {5000, 0.001, 20}, {3000, 0.5, 0.05}, {100, 1, 200}} {
		xyz := make([]float32, 3*c.n)
		for i := range xyz {
			xyz[i] = float32(r.Float64() * 100)
		}
		todo := make([]bool, c.n)
		var to []int
		for i := range todo {
			if todo[i] = r.Float64() < c.frac; todo[i] {
				to = append(to, i)
			}
		}
		got := near(xyz, todo, c.d)
		if !slices.IsSorted(got) {
			t.Fatalf("n %d, d %g: not in increasing order", c.n, c.d)
		}
		in := make([]bool, c.n)
		for _, i := range got {
			in[i] = true
		}
		side := max(c.d/4, math.Sqrt(100*100/float64(c.n)))
		for i := range c.n {
			dist := math.Inf(1) // to the nearest point to do, max of |dx|, |dy|
			for _, o := range to {
				dist = min(dist, max(math.Abs(float64(xyz[3*i]-xyz[3*o])), math.Abs(float64(xyz[3*i+1]-xyz[3*o+1]))))
			}
			if dist <= c.d && !in[i] {
				t.Fatalf("n %d, d %g: point %d, %g from a point to do, left out", c.n, c.d, i, dist)
			}
			if in[i] && dist > c.d+2*side*(1+1e-9) {
				t.Errorf("n %d, d %g: point %d, %g from the nearest point to do, returned (cells of %g)", c.n, c.d, i, dist, side)
			}
		}
	}
}
