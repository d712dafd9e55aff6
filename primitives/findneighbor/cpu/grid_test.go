package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

// TestGridMemoryBounded builds grids where a dense grid would need
// astronomically many cells (tiny ε over a huge extent, 2D, one point far
// away) and checks that the structures stay O(N).
func TestGridMemoryBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 20000
	xyz := make([]float32, 3*n)
	for i := range n {
		xyz[3*i], xyz[3*i+1] = r.Float32()*1e6, r.Float32()*1e6
	}
	xyz[0], xyz[1], xyz[2] = -3e7, 3e7, 1e5 // an outlier far away
	for _, eps := range []float32{1e-6, 0.01, 3, 1e4, 1e9} {
		g := newGrid(xyz, nil, eps, 1, 2, false)
		cells, rows := len(g.cellX), len(g.rowStart)-1
		if cells > n || rows > cells || len(g.rows.keys) > 4*max(rows, 1) {
			t.Errorf("ε %g: %d cells, %d rows, %d hash slots for %d points", eps, cells, rows, len(g.rows.keys), n)
		}
		for a := range 3 {
			if g.Dim[a] > hostkit.MaxCells {
				t.Errorf("ε %g: %d cells along axis %d", eps, g.Dim[a], a)
			}
		}
		if eps >= 1e9 && cells != 1 {
			t.Errorf("ε %g: %d cells, want 1 (everything is a neighbour)", eps, cells)
		}
	}
}

// TestHugeEpsCountsWithoutPairs checks the shortcut that keeps a huge ε
// from costing O(N²): every point's count is N-1, and Moments come from
// global sums.
func TestHugeEpsCountsWithoutPairs(t *testing.T) {
	const n = 30000
	xyz := make([]float32, 3*n)
	for i := range xyz {
		xyz[i] = float32(i%977) * 1e-3
	}
	ix, err := Backend().Build(xyz, 100, findneighbor.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, n)
	if err := ix.Counts(nil, out); err != nil {
		t.Fatal(err)
	}
	for i, c := range out {
		if c != n-1 {
			t.Fatalf("point %d: count %d, want %d", i, c, n-1)
		}
	}
	// Moments too, from the global sums: compare a few with direct sums.
	mom := make([]findneighbor.Moment, n)
	if err := findneighbor.Moments(ix, xyz, nil, 0, mom); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 977, n - 1} {
		var want findneighbor.Moment
		for j := range n {
			if j != i {
				want.AddNearest(xyz[3*j], xyz[3*j+1], xyz[3*j+2], xyz[3*i], xyz[3*i+1], xyz[3*i+2], 0)
			}
		}
		if mom[i].N != want.N {
			t.Errorf("point %d: N = %d, want %d", i, mom[i].N, want.N)
		}
		for a := range 6 {
			if a < 3 && math.Abs(mom[i].Sum[a]-want.Sum[a]) > 1e-9*(1+math.Abs(want.Sum[a])) {
				t.Errorf("point %d: Sum = %v, want %v", i, mom[i].Sum, want.Sum)
			}
			if math.Abs(mom[i].Outer[a]-want.Outer[a]) > 1e-9*(1+math.Abs(want.Outer[a])) {
				t.Errorf("point %d: Outer = %v, want %v", i, mom[i].Outer, want.Outer)
			}
		}
	}
	if !ix.(*cpuIndex).g.allWithin(0, 0, 0) {
		t.Error("allWithin is false for a cloud 1 wide and ε 100")
	}
	if ix2, _ := Backend().Build(xyz, 0.5, findneighbor.BuildOptions{}); ix2.(*cpuIndex).g.allWithin(0, 0, 0) {
		t.Error("allWithin is true for a cloud 1 wide and ε 0.5")
	}
}

// TestReuseInPlace checks that BuildOptions.Reuse keeps the caller's array
// as the index's storage, rearranged into sorted columns.
func TestReuseInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	const n = 3001
	xyz := make([]float32, 3*n)
	for i := range xyz {
		xyz[i] = r.Float32() * 10
	}
	orig := slices.Clone(xyz)
	ix, err := Backend().Build(xyz, 0.7, findneighbor.BuildOptions{Reuse: true})
	if err != nil {
		t.Fatal(err)
	}
	g := ix.(*cpuIndex).g
	if &g.xs[0] != &xyz[0] || &g.ys[0] != &xyz[n] || &g.zs[0] != &xyz[2*n] {
		t.Fatal("Reuse: the index does not use the caller's array")
	}
	for j, p := range g.perm {
		if got, want := [3]float32{g.xs[j], g.ys[j], g.zs[j]}, [3]float32(orig[3*p:3*p+3]); got != want {
			t.Fatalf("sorted point %d (original %d) is %v, want %v", j, p, got, want)
		}
	}
}
