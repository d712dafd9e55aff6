package copc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/core"
)

// randomXYZ returns n points, a dense cluster and a sparse spread, from seed.
func randomXYZ(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	xyz := make([]float64, 3*n)
	for i := range n {
		s := 1000.0
		if i%3 == 0 {
			s = 20
		}
		xyz[3*i] = 500000 + rng.Float64()*s
		xyz[3*i+1] = 4000000 + rng.Float64()*s/2
		xyz[3*i+2] = 100 + rng.Float64()*s/10
	}
	return xyz
}

func TestOctreeKeepsEveryPointInItsCube(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		prm  octreeParams
	}{
		{"default", 20000, defaultParams},
		{"deep", 20000, octreeParams{maxLeaf: 500, minChild: 10, minTotal: 50, cells: cellCount}},
		{"one point", 1, defaultParams},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xyz := randomXYZ(tc.n, 3)
			c, h := cubeFor(boundsOf(xyz), 0.001)
			cube := (&Info{Center: c, Halfsize: h}).Cube()
			root := buildOctree(xyz, cube, tc.prm, 2)
			seen := make([]int, tc.n)
			depth := 0
			var check func(nd *node)
			check = func(nd *node) {
				depth = max(depth, int(nd.key.Level))
				b := nd.key.Bounds(cube)
				for _, p := range nd.pts {
					seen[p]++
					if q := [3]float64{xyz[3*p], xyz[3*p+1], xyz[3*p+2]}; !contains(b, q) {
						t.Fatalf("point %d %v lies outside the cube %v of node %s", p, q, b, nd.key)
					}
				}
				for _, c := range nd.children {
					if c.key.Parent() != nd.key {
						t.Fatalf("node %s under %s", c.key, nd.key)
					}
					check(c)
				}
			}
			check(root)
			for i, s := range seen {
				if s != 1 {
					t.Fatalf("point %d is in %d nodes, want 1", i, s)
				}
			}
			if tc.name == "deep" && depth < 3 {
				t.Errorf("depth %d with leaves of at most 500 of 20000 points, want at least 3", depth)
			}
			t.Logf("depth %d, root %d points", depth, len(root.pts))
		})
	}
}

// TestOctreeRootIsAThinning checks that the root holds at most one point
// per cell of its sampling grid, and that it covers the cloud: every
// point lies within a few root spacings of a root point.
func TestOctreeRootIsAThinning(t *testing.T) {
	// A thin strip, as a LiDAR line is: the root grid has about 220 cells
	// along it, far fewer than the points.
	xyz := randomXYZ(20000, 5)
	for i := range len(xyz) / 3 {
		xyz[3*i+1] = 4000000 + (xyz[3*i+1]-4000000)/1000
		xyz[3*i+2] = 100 + (xyz[3*i+2]-100)/1000
	}
	c, h := cubeFor(boundsOf(xyz), 0.001)
	cube := (&Info{Center: c, Halfsize: h}).Cube()
	root := buildOctree(xyz, cube, octreeParams{maxLeaf: 2000, minChild: 10, minTotal: 50, cells: cellCount}, 2)
	side := cube.Max[0] - cube.Min[0]
	width := side / cellCount / math.Sqrt(3)
	cells := map[[3]int]int{}
	for _, p := range root.pts {
		var c [3]int
		for a := range 3 {
			c[a] = int((xyz[3*int(p)+a] - cube.Min[a]) / width)
		}
		cells[c]++
		if cells[c] > 1 {
			t.Fatalf("two root points in cell %v", c)
		}
	}
	// Every point lies near a root point: a point a parent did not take
	// shares its grid cell (diagonal: the level's spacing) with one it took,
	// and the spacings from the root down sum to less than 3 root spacings
	// (1.5·side/128 below the root, halving).
	reach := 3 * side / cellCount
	for i := range len(xyz) / 3 {
		best := math.Inf(1)
		for _, p := range root.pts {
			d := math.Hypot(math.Hypot(xyz[3*i]-xyz[3*p], xyz[3*i+1]-xyz[3*p+1]), xyz[3*i+2]-xyz[3*p+2])
			best = min(best, d)
		}
		if best > reach {
			t.Fatalf("point %d lies %g from the nearest root point, more than %g", i, best, reach)
		}
	}
	if n := len(root.pts); n == 0 || n > 2*cellCount {
		t.Errorf("root holds %d of 20000 points along a strip, want at most %d", n, 2*cellCount)
	}
}

func TestMortonOrdersOctants(t *testing.T) {
	for i := range 8 {
		k := RootKey.Child(i)
		if got := morton(uint32(k.X), uint32(k.Y), uint32(k.Z)); got != uint64(i) {
			t.Errorf("child %d: morton %d", i, got)
		}
	}
	if got := morton(1<<20, 0, 0); got != 1<<60 {
		t.Errorf("morton of x=2^20: %x, want %x", got, uint64(1)<<60)
	}
}

// contains reports whether the closed box b holds p.
func contains(b core.Bounds, p [3]float64) bool {
	return b.Min[0] <= p[0] && p[0] <= b.Max[0] && b.Min[1] <= p[1] && p[1] <= b.Max[1] && b.Min[2] <= p[2] && p[2] <= b.Max[2]
}
