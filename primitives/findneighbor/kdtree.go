package findneighbor

import (
	"math/bits"
	"slices"
)

// kdtree answers k-nearest queries with no radius (ε = +Inf), where a grid
// has no natural cell size: a balanced tree of median splits along the
// widest axis, points reordered so that every node is a contiguous range.
type kdtree struct {
	xs, ys, zs []float32
	perm       []int32
	nodes      []kdNode
}

// kdLeaf is the most points a leaf holds.
const kdLeaf = 40

// kdSample is the size of the sample that picks selectNth's pivots on
// long ranges.
const kdSample = 63

type kdNode struct {
	lo, hi int32
	// left is the index of the first child (the second follows it), or -1
	// for a leaf.
	left int32
	bb   [6]float32 // min x, y, z, max x, y, z of the node's points
}

func newKDTree(xyz []float32, nw int) *kdtree {
	n := len(xyz) / 3
	// The tree is built on packed points, so that the partitions move 16
	// bytes in one place instead of four arrays' entries (a quarter less
	// build time on 1M points of a scan), then split into the arrays the
	// searches scan.
	b := kdBuild{pts: make([]kdPoint, n)}
	_ = parallel(n, nw, nil, func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			b.pts[i] = kdPoint{[3]float32{xyz[3*i], xyz[3*i+1], xyz[3*i+2]}, int32(i)}
		}
		return nil
	})
	nodes := make([]kdNode, 1, 2*(n/kdLeaf+1))
	// The top levels split level by level, the nodes of a level in
	// parallel, down to about 4 subtrees per worker, which then build in
	// parallel, each into its own nodes, appended after.
	tasks := []kdTask{{0, 0, int32(n)}}
	for range bits.Len(uint(4*nw - 1)) {
		type split struct {
			nd  kdNode
			mid int32
			ok  bool
		}
		sp := make([]split, len(tasks))
		_ = parallelChunks(len(tasks), 1, nw, nil, func(_, j, _ int) error {
			sp[j].nd, sp[j].mid, sp[j].ok = b.split(tasks[j].lo, tasks[j].hi)
			return nil
		})
		var next []kdTask
		for j, tk := range tasks {
			if sp[j].ok {
				sp[j].nd.left = int32(len(nodes))
				nodes = append(nodes, kdNode{}, kdNode{})
				next = append(next, kdTask{int(sp[j].nd.left), tk.lo, sp[j].mid}, kdTask{int(sp[j].nd.left) + 1, sp[j].mid, tk.hi})
			}
			nodes[tk.node] = sp[j].nd
		}
		tasks = next
	}
	sub := make([][]kdNode, len(tasks))
	_ = parallelChunks(len(tasks), 1, nw, nil, func(_, j, _ int) error {
		sub[j] = make([]kdNode, 1, 2*(int(tasks[j].hi-tasks[j].lo)/kdLeaf+1))
		b.build(&sub[j], 0, tasks[j].lo, tasks[j].hi)
		return nil
	})
	for j, sn := range sub {
		// Local node 0 takes the task's slot; node i ≥ 1 goes to base+i-1.
		base := int32(len(nodes))
		for i := range sn {
			if sn[i].left >= 0 {
				sn[i].left += base - 1
			}
		}
		nodes[tasks[j].node] = sn[0]
		nodes = append(nodes, sn[1:]...)
	}
	t := &kdtree{xs: make([]float32, n), ys: make([]float32, n), zs: make([]float32, n), perm: make([]int32, n), nodes: nodes}
	_ = parallel(n, nw, nil, func(_, lo, hi int) error {
		for i, p := range b.pts[lo:hi] {
			t.xs[lo+i], t.ys[lo+i], t.zs[lo+i], t.perm[lo+i] = p.c[0], p.c[1], p.c[2], p.idx
		}
		return nil
	})
	return t
}

// kdPoint is a point while the tree is built: coordinates and index.
type kdPoint struct {
	c   [3]float32
	idx int32
}

// kdBuild holds the points being arranged into a tree.
type kdBuild struct{ pts []kdPoint }

// kdTask is a subtree left for a parallel build: node, over points
// [lo, hi).
type kdTask struct {
	node   int
	lo, hi int32
}

// build fills node k of nodes with points [lo, hi) and recurses.
func (b *kdBuild) build(nodes *[]kdNode, k int, lo, hi int32) {
	nd, mid, ok := b.split(lo, hi)
	if !ok {
		(*nodes)[k] = nd
		return
	}
	nd.left = int32(len(*nodes))
	(*nodes)[k] = nd
	*nodes = append(*nodes, kdNode{}, kdNode{})
	b.build(nodes, int(nd.left), lo, mid)
	b.build(nodes, int(nd.left)+1, mid, hi)
}

// split returns the node of points [lo, hi) (its left child not set) and,
// unless it is a leaf (ok false), reorders them around the median of its
// box's widest axis, the first point of the right child at mid.
func (b *kdBuild) split(lo, hi int32) (nd kdNode, mid int32, ok bool) {
	nd = kdNode{lo: lo, hi: hi, left: -1}
	if lo < hi {
		nd.bb = nodeBounds(b.pts[lo:hi])
	}
	axis := 0
	for a := 1; a < 3; a++ {
		if nd.bb[3+a]-nd.bb[a] > nd.bb[3+axis]-nd.bb[axis] {
			axis = a
		}
	}
	if hi-lo <= kdLeaf || nd.bb[3+axis] == nd.bb[axis] {
		return nd, 0, false
	}
	mid = lo + (hi-lo)/2
	b.selectNth(axis, lo, hi, mid)
	return nd, mid, true
}

// nodeBoundsGo returns the box of the points pts (at least one): min x,
// y, z, max x, y, z. nodeBounds runs it, or the same with AVX-512.
func nodeBoundsGo(pts []kdPoint) [6]float32 {
	c := pts[0].c
	x0, y0, z0, x1, y1, z1 := c[0], c[1], c[2], c[0], c[1], c[2]
	for _, p := range pts[1:] {
		x0, y0, z0 = min(x0, p.c[0]), min(y0, p.c[1]), min(z0, p.c[2])
		x1, y1, z1 = max(x1, p.c[0]), max(y1, p.c[1]), max(z1, p.c[2])
	}
	return [6]float32{x0, y0, z0, x1, y1, z1}
}

// selectNth reorders [lo, hi) so that position nth holds the point a sort
// along axis would put there, with no greater value before it and no
// smaller after it: Hoare's quickselect, its pivot the median of three
// on short ranges, on long ones the value of the sample of kdSample
// evenly spaced points next to nth's rank (after Floyd and Rivest), so
// that nth lands close to the pivot and the next partition leaves little
// to select from (by the textbook estimate about 1.5 passes over a range
// instead of about 3.4; the build measured a quarter faster with it and
// the parallel top levels together).
func (b *kdBuild) selectNth(axis int, lo, hi, nth int32) {
	pts := b.pts
	hi--
	var sample [kdSample]float32
	for lo < hi {
		var pivot float32
		if n := hi - lo + 1; n >= 16*kdSample {
			for i := range sample {
				sample[i] = pts[lo+int32(int64(n)*int64(i)/kdSample)].c[axis]
			}
			slices.Sort(sample[:])
			// The sample's rank of nth, moved one toward the middle.
			r := int64(nth-lo) * kdSample / int64(n)
			if r < kdSample/2 {
				r++
			} else {
				r--
			}
			pivot = sample[min(max(r, 0), kdSample-1)]
		} else {
			m := lo + (hi-lo)/2
			x, y, z := pts[lo].c[axis], pts[m].c[axis], pts[hi].c[axis]
			pivot = max(min(x, y), min(max(x, y), z))
		}
		i, j := lo, hi
		for i <= j {
			for pts[i].c[axis] < pivot {
				i++
			}
			for pts[j].c[axis] > pivot {
				j--
			}
			if i <= j {
				pts[i], pts[j] = pts[j], pts[i]
				i++
				j--
			}
		}
		switch {
		case nth <= j:
			hi = j
		case nth >= i:
			lo = i
		default:
			return
		}
	}
}

// boxDistSq is the squared distance from (x, y, z) to a node's box.
func boxDistSq(bb *[6]float32, x, y, z float32) float32 {
	dx := max(bb[0]-x, 0, x-bb[3])
	dy := max(bb[1]-y, 0, y-bb[4])
	dz := max(bb[2]-z, 0, z-bb[5])
	return dx*dx + dy*dy + dz*dz
}

// nearest collects into kb (reset to k) the k nearest points of (x, y, z),
// skipping tree position self (-1: none). Candidates carry the original
// index (ties) and the tree position.
func (t *kdtree) nearest(kb *kbest, stack *[]kdVisit, x, y, z float32, self int32) {
	st := append((*stack)[:0], kdVisit{0, 0})
	lim := kb.worstSq()
	for len(st) > 0 {
		v := st[len(st)-1]
		st = st[:len(st)-1]
		// A node can only hold candidates not farther than the worst kept
		// one; the slack keeps float32 rounding of the box distance from
		// dropping an exact tie.
		if v.d2 > lim*(1+pruneSlack) {
			continue
		}
		nd := &t.nodes[v.node]
		if nd.left < 0 {
			lim = offerRange(kb, t.xs, t.ys, t.zs, t.perm, nd.lo, nd.hi, x, y, z, self, lim)
			continue
		}
		a, b := nd.left, nd.left+1
		da, db := boxDistSq(&t.nodes[a].bb, x, y, z), boxDistSq(&t.nodes[b].bb, x, y, z)
		if da > db {
			a, b, da, db = b, a, db, da
		}
		st = append(st, kdVisit{b, db}, kdVisit{a, da}) // nearer child on top
	}
	*stack = st
}

// kdVisit is a node waiting on the traversal stack with its box distance.
type kdVisit struct {
	node int32
	d2   float32
}
