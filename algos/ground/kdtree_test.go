package ground

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// plainNearest is nanoflann's search as written (findNeighbors with
// KNNResultSet: each leaf's points in the tree's order, a point taken when
// nearer than the worst held, or as near with a smaller index in the
// canonical search), the oracle of the chunked leaves.
func plainNearest(t *flann, qx, qy float64, k int) ([]int, []float64) {
	var idx []int
	var dist []float64
	worst := func() float64 {
		if len(dist) < k {
			return math.MaxFloat64
		}
		return dist[k-1]
	}
	add := func(d float64, i int) {
		at := len(dist)
		for at > 0 && (dist[at-1] > d || t.canonical && dist[at-1] == d && idx[at-1] > i) {
			at--
		}
		idx, dist = slices.Insert(idx, at, i), slices.Insert(dist, at, d)
		if len(dist) > k {
			idx, dist = idx[:k], dist[:k]
		}
	}
	q := [2]float64{qx, qy}
	var search func(id int, mind float64, dists [2]float64)
	search = func(id int, mind float64, dists [2]float64) {
		nd := t.nodes[id]
		if nd.child1 < 0 {
			for _, i := range t.vind[nd.left:nd.right] {
				dx, dy := q[0]-t.x[i], q[1]-t.y[i]
				d := 0.0
				d += float64(dx * dx)
				d += float64(dy * dy)
				if d < worst() || t.canonical && d == worst() {
					add(d, i)
				}
			}
			return
		}
		v := q[nd.feat]
		best, other := nd.child1, nd.child2
		cut := (v - nd.divhigh) * (v - nd.divhigh)
		if (v-nd.divlow)+(v-nd.divhigh) >= 0 {
			best, other = nd.child2, nd.child1
			cut = (v - nd.divlow) * (v - nd.divlow)
		}
		search(best, mind, dists)
		mind = mind + cut - dists[nd.feat] // nanoflann's association
		dists[nd.feat] = cut
		if mind <= worst() {
			search(other, mind, dists)
		}
	}
	d, dists := t.rootDist(q)
	search(t.root, d, dists)
	return idx, dist
}

// TestFlannChunks checks the chunked leaves' search against nanoflann's
// plain one: the same neighbours in the same order, on cell centres full
// of exact ties (the rasters' fills), duplicates and scattered points, for
// both searches (PDAL's meeting order and the canonical one).
func TestFlannChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	type cloud struct {
		name string
		x, y []float64
	}
	var clouds []cloud
	for _, n := range []int{5, 150, 3000} {
		var grid, dup, scatter cloud
		grid.name, dup.name, scatter.name = fmt.Sprint("grid ", n), fmt.Sprint("duplicates ", n), fmt.Sprint("scatter ", n)
		for range n {
			// Centres of cells of side 0.5 at a large offset, 1 in 3 filled.
			c, r := rng.IntN(3*60), rng.IntN(60)
			grid.x, grid.y = append(grid.x, 636000.25+float64(c)*0.5), append(grid.y, 848000.25+float64(r)*0.5)
			dup.x, dup.y = append(dup.x, float64(rng.IntN(4))), append(dup.y, float64(rng.IntN(3)))
			scatter.x, scatter.y = append(scatter.x, rng.NormFloat64()*10), append(scatter.y, rng.Float64()*3)
		}
		clouds = append(clouds, grid, dup, scatter)
	}
	for _, c := range clouds {
		for _, canonical := range []bool{false, true} {
			tree := newFlann(c.x, c.y)
			tree.canonical = canonical
			for _, k := range []int{1, 4, 8, 20} {
				k = min(k, len(c.x))
				res := newKNN(k)
				for q := range 400 {
					// Queries on the points, between them and outside.
					j := rng.IntN(len(c.x))
					qx, qy := c.x[j], c.y[j]
					switch q % 3 {
					case 1:
						qx, qy = qx+0.25, qy-0.75
					case 2:
						qx, qy = qx+rng.NormFloat64()*20, qy+rng.NormFloat64()*20
					}
					tree.nearest(qx, qy, res)
					wi, wd := plainNearest(tree, qx, qy, k)
					if !slices.Equal(res.idx[:res.n], wi) || !slices.Equal(res.dist[:res.n], wd) {
						t.Fatalf("%s, canonical %v, k %d, query (%v, %v): got %v %v, nanoflann %v %v",
							c.name, canonical, k, qx, qy, res.idx[:res.n], res.dist[:res.n], wi, wd)
					}
				}
			}
		}
	}
}

// TestDiamond holds the diamond's sliding extremes to r steps of the
// cross, bit for bit, on rasters of every shape (single rows and columns
// too) with ties, signed zeros and infinities, for r up to past both sides.
func TestDiamond(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for _, shape := range [][2]int{{1, 1}, {1, 9}, {9, 1}, {2, 3}, {7, 5}, {13, 40}, {40, 13}, {33, 33}} {
		g := raster{cols: shape[0], rows: shape[1]}
		v := make([]float64, g.cols*g.rows)
		for i := range v {
			switch rng.IntN(8) {
			case 0:
				v[i] = 0
			case 1:
				v[i] = math.Copysign(0, -1)
			case 2:
				v[i] = math.Inf(2*rng.IntN(2) - 1)
			default:
				v[i] = float64(rng.IntN(20)) + rng.Float64()*float64(rng.IntN(2))
			}
		}
		for r := diamondMin; r <= max(g.cols, g.rows)+2; r++ {
			for _, dilate := range []bool{false, true} {
				step := minStep
				if dilate {
					step = maxStep
				}
				want, got := slices.Clone(v), slices.Clone(v)
				g.steps(want, r, step)
				g.diamond(got, r, dilate)
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%dx%d, r %d, dilate %v: cell %d is %v, %d steps give %v", g.cols, g.rows, r, dilate, i, got[i], r, want[i])
					}
				}
			}
		}
	}
}

// TestFlannParallelBuild checks that building subtrees on goroutines
// gives the sequential build's tree: the same order of the points and the
// same nodes, in depth-first order.
func TestFlannParallelBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var x, y []float64
	for range 20000 {
		// Cell centres with ties, and a few scattered points.
		x, y = append(x, float64(rng.IntN(300))+0.5), append(y, float64(rng.IntN(200))+0.5)
		if rng.IntN(10) == 0 {
			x[len(x)-1] += rng.Float64()
		}
	}
	build := func(parallel int) *flann {
		defer func(p int) { flannParallel = p }(flannParallel)
		flannParallel = parallel
		return newFlann(slices.Clone(x), slices.Clone(y))
	}
	seq, par := build(math.MaxInt), build(300)
	if !slices.Equal(seq.vind, par.vind) || seq.lo != par.lo || seq.hi != par.hi || len(seq.nodes) != len(par.nodes) {
		t.Fatalf("parallel build: %d nodes, bounds %v %v; sequential %d, %v %v (or vind differs)", len(par.nodes), par.lo, par.hi, len(seq.nodes), seq.lo, seq.hi)
	}
	var walk func(t *flann, id int, out []fnode) []fnode
	walk = func(t *flann, id int, out []fnode) []fnode {
		n := t.nodes[id]
		if n.child1 >= 0 {
			out = walk(t, n.child1, out)
			out = walk(t, n.child2, out)
			n.child1, n.child2 = 0, 0
		}
		n.c0, n.c1 = 0, 0
		return append(out, n)
	}
	if a, b := walk(seq, seq.root, nil), walk(par, par.root, nil); !slices.Equal(a, b) {
		t.Fatal("the parallel build's nodes differ from the sequential build's")
	}
}
