package cpu

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKDTreeInvariants builds kd-trees of clouds with and without a top
// tree (more and fewer than kdBucket points), of quantized coordinates
// (many equal values along an axis), of one repeated point and of a line,
// on one and three workers, and checks what the searches rely on: every
// node's children split its range in two, every node's box is the box of
// its points (emptyBox without points), leaves hold at most kdLeaf points
// unless all alike, and the arrays hold every point once.
func TestKDTreeInvariants(t *testing.T) {
	const seed = 21
	rng := rand.New(rand.NewPCG(seed, 1))
	clouds := map[string]func(n int) []float32{
		"uniform": func(n int) []float32 {
			xyz := make([]float32, 3*n)
			for i := range xyz {
				xyz[i] = rng.Float32()
			}
			return xyz
		},
		"quantized": func(n int) []float32 {
			xyz := make([]float32, 3*n)
			for i := range xyz {
				xyz[i] = float32(rng.IntN(12)) * 0.25
			}
			return xyz
		},
		"one point": func(n int) []float32 {
			xyz := make([]float32, 3*n)
			for i := range xyz {
				xyz[i] = 1.5
			}
			return xyz
		},
		"line": func(n int) []float32 {
			xyz := make([]float32, 3*n)
			for i := range n {
				xyz[3*i] = rng.Float32()
			}
			return xyz
		},
	}
	for name, gen := range clouds {
		for _, n := range []int{1, kdLeaf, kdLeaf + 1, kdBucket + 1, 5000, 70000} {
			xyz := gen(n)
			for _, nw := range []int{1, 3} {
				checkKDTree(t, newKDTree(xyz, nw), xyz, name, nw)
			}
		}
	}
}

func checkKDTree(t *testing.T, tr *kdtree, xyz []float32, name string, nw int) {
	t.Helper()
	n := len(xyz) / 3
	seen := make([]bool, n)
	for i, p := range tr.perm {
		if seen[p] || tr.xs[i] != xyz[3*p] || tr.ys[i] != xyz[3*p+1] || tr.zs[i] != xyz[3*p+2] {
			t.Fatalf("%s, %d points, %d workers: position %d holds point %d wrongly or twice", name, n, nw, i, p)
		}
		seen[p] = true
	}
	if r := tr.nodes[0]; r.lo != 0 || int(r.hi) != n {
		t.Fatalf("%s, %d points: the root covers [%d, %d)", name, n, r.lo, r.hi)
	}
	for v, nd := range tr.nodes {
		want := emptyBox
		if nd.hi > nd.lo {
			want = [6]float32{tr.xs[nd.lo], tr.ys[nd.lo], tr.zs[nd.lo], tr.xs[nd.lo], tr.ys[nd.lo], tr.zs[nd.lo]}
			for i := nd.lo; i < nd.hi; i++ {
				c := [3]float32{tr.xs[i], tr.ys[i], tr.zs[i]}
				for a := range 3 {
					want[a], want[3+a] = min(want[a], c[a]), max(want[3+a], c[a])
				}
			}
		}
		if nd.bb != want {
			t.Fatalf("%s, %d points, %d workers: node %d's box %v, its points' %v", name, n, nw, v, nd.bb, want)
		}
		if nd.left < 0 {
			alike := want[0] == want[3] && want[1] == want[4] && want[2] == want[5]
			if nd.hi-nd.lo > kdLeaf && !alike {
				t.Fatalf("%s, %d points, %d workers: leaf %d holds %d points", name, n, nw, v, nd.hi-nd.lo)
			}
			continue
		}
		l, r := tr.nodes[nd.left], tr.nodes[nd.left+1]
		if l.lo != nd.lo || l.hi != r.lo || r.hi != nd.hi {
			t.Fatalf("%s, %d points, %d workers: node %d [%d, %d) has children [%d, %d) and [%d, %d)", name, n, nw, v, nd.lo, nd.hi, l.lo, l.hi, r.lo, r.hi)
		}
	}
}

// TestSelectNth checks selectNth (pivots of three points and of a sample)
// against a sort: the value at nth, none greater before it, none smaller
// after it, the same points, on values with many ties and without.
func TestSelectNth(t *testing.T) {
	const seed = 22
	rng := rand.New(rand.NewPCG(seed, 1))
	for trial := range 2000 {
		n := 2 + rng.IntN(3000)
		levels := 1 + rng.IntN(1<<uint(rng.IntN(20)))
		pts := make([]kdPoint, n)
		for i := range pts {
			pts[i] = kdPoint{[3]float32{float32(rng.IntN(levels)), rng.Float32(), float32(rng.IntN(levels)) - 7}, int32(i)}
		}
		axis := []int{0, 2}[trial%2]
		lo := int32(rng.IntN(n - 1))
		hi := lo + 1 + int32(rng.IntN(n-int(lo)))
		nth := lo + int32(rng.IntN(int(hi-lo)))
		b := kdBuild{pts: slices.Clone(pts), tmp: make([]kdPoint, hi-lo)}
		b.selectNth(axis, lo, hi, nth)
		vals := make([]float32, 0, hi-lo)
		for _, p := range pts[lo:hi] {
			vals = append(vals, p.c[axis])
		}
		slices.Sort(vals)
		v := b.pts[nth].c[axis]
		if v != vals[nth-lo] {
			t.Fatalf("trial %d (seed %d): %d points, [%d, %d), nth %d: value %g, a sort puts %g there", trial, seed, n, lo, hi, nth, v, vals[nth-lo])
		}
		for i := lo; i < hi; i++ {
			if c := b.pts[i].c[axis]; (i < nth && c > v) || (i > nth && c < v) {
				t.Fatalf("trial %d (seed %d): position %d holds %g, nth %d holds %g", trial, seed, i, c, nth, v)
			}
		}
		got := slices.Clone(b.pts)
		slices.SortFunc(got, func(a, b kdPoint) int { return int(a.idx - b.idx) })
		if !slices.Equal(got, pts) {
			t.Fatalf("trial %d (seed %d): the points changed", trial, seed)
		}
	}
}

// TestKDTopDepth checks that the top tree's buckets hold at most kdBucket
// points up to 2^26 points, and that no cloud's bucket numbers overflow
// their uint16.
func TestKDTopDepth(t *testing.T) {
	for _, n := range []int{0, 1, kdBucket, kdBucket + 1, 1_000_000, 1 << 26, 1<<26 + 1, 3_000_000_000} {
		d := kdTopDepth(n)
		if d > kdTopMaxDepth || (n <= 1<<26 && n>>d > kdBucket) || (d > 0 && n>>(d-1) <= kdBucket) {
			t.Errorf("%d points: depth %d (buckets of %d)", n, d, n>>d)
		}
	}
}
