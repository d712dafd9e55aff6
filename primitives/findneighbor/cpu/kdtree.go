package cpu

import (
	"math"
	"slices"

	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
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

// kdBucket is about the most points a bucket of the top tree holds
// (newKDTree): a few kilobytes of packed points, whose subtree then
// builds in a core's cache.
const kdBucket = 1024

// kdTopSample is the number of sample points per bucket that place the
// top tree's splits.
const kdTopSample = 32

// kdTopMaxDepth bounds the top tree's depth: bucket numbers are uint16.
// Beyond 2^26 points the buckets grow past kdBucket instead.
const kdTopMaxDepth = 16

// kdTopDepth returns the depth of the top tree of n points: buckets of at
// most kdBucket points where kdTopMaxDepth allows.
func kdTopDepth(n int) int {
	depth := 0
	for n>>depth > kdBucket && depth < kdTopMaxDepth {
		depth++
	}
	return depth
}

// emptyBox is the box of a node without points: every distance to it is
// +Inf, so that no search enters it.
var emptyBox = [6]float32{inf32, inf32, inf32, -inf32, -inf32, -inf32}

// inf32 is +Inf as a float32.
var inf32 = float32(math.Inf(1))

func newKDTree(xyz []float32, nw int) *kdtree {
	n := len(xyz) / 3
	// The top levels are split at the medians of a sample, not of all the
	// points, which then go to their buckets (the top tree's leaves) in
	// one counting pass and one scatter of their indices: the exact median
	// splits of those levels took about half of the build, a dozen passes
	// over memory, the first ones on one core. Each bucket's subtree is
	// then split exactly, in parallel, on packed points in a worker's
	// scratch (so that the partitions move 16 bytes in one place, in
	// cache), and written to the arrays the searches scan. Its leaves hold
	// at most kdLeaf points as before; the buckets' sizes vary with the
	// sample, a few percent.
	depth := kdTopDepth(n)
	top := newKDTop(xyz, depth)
	t := &kdtree{xs: make([]float32, n), ys: make([]float32, n), zs: make([]float32, n), perm: make([]int32, n)}
	start := top.scatter(xyz, nw, t.perm)
	nb := 1 << depth
	nodes := make([]kdNode, 2*nb-1, 2*(n/kdLeaf+nb))
	sub := make([][]kdNode, nb)
	scratch := make([]kdBuild, nw)
	_ = hostkit.ParallelChunks(nb, 1, nw, nil, func(w, j, _ int) error {
		lo, hi := start[j], start[j+1]
		m := int(hi - lo)
		b := &scratch[w]
		if cap(b.pts) < m {
			b.pts, b.tmp = make([]kdPoint, m), make([]kdPoint, m)
		}
		b.pts = b.pts[:m]
		for k, i := range t.perm[lo:hi] {
			b.pts[k] = kdPoint{[3]float32{xyz[3*i], xyz[3*i+1], xyz[3*i+2]}, i}
		}
		sub[j] = make([]kdNode, 1, 2*(m/kdLeaf+1))
		b.build(&sub[j], 0, 0, int32(m))
		for k := range sub[j] {
			sub[j][k].lo += lo
			sub[j][k].hi += lo
		}
		for k, p := range b.pts {
			t.xs[int(lo)+k], t.ys[int(lo)+k], t.zs[int(lo)+k], t.perm[int(lo)+k] = p.c[0], p.c[1], p.c[2], p.idx
		}
		return nil
	})
	for j, sn := range sub {
		// The bucket's node 0 takes its slot among the top tree's leaves
		// (node nb-1+j); node i ≥ 1 goes to base+i-1.
		base := int32(len(nodes))
		for i := range sn {
			if sn[i].left >= 0 {
				sn[i].left += base - 1
			}
		}
		nodes[nb-1+j] = sn[0]
		nodes = append(nodes, sn[1:]...)
	}
	// The top tree's inner nodes: node v's children are 2v+1 and 2v+2.
	for v := nb - 2; v >= 0; v-- {
		l, r := &nodes[2*v+1], &nodes[2*v+2]
		nd := kdNode{lo: l.lo, hi: r.hi, left: int32(2*v + 1)}
		for a := range 3 {
			nd.bb[a], nd.bb[3+a] = min(l.bb[a], r.bb[a]), max(l.bb[3+a], r.bb[3+a])
		}
		nodes[v] = nd
	}
	t.nodes = nodes
	return t
}

// kdTop is the top tree of a kd-tree, its depth levels of splits in a
// table: node v (the root is 1) sends a point to child 2v+1 where its
// coordinate along axis table[v]&3 is at least the float32 of the bits
// table[v] (the axis in their low two bits: a split a few ulps off the
// sample's median is as good), else to 2v; its leaves are the buckets.
type kdTop struct {
	depth int
	table []uint32
}

// newKDTop places the splits of a top tree of the given depth at the
// medians of a sample of the points xyz, each along the widest axis of its
// sample points' box.
func newKDTop(xyz []float32, depth int) *kdTop {
	n := len(xyz) / 3
	nb := 1 << depth
	top := &kdTop{depth: depth, table: make([]uint32, nb)}
	if depth == 0 {
		return top
	}
	step := max(1, n/(kdTopSample*nb))
	sb := kdBuild{pts: make([]kdPoint, 0, n/step+1)}
	for i := 0; i < n; i += step {
		sb.pts = append(sb.pts, kdPoint{c: [3]float32{xyz[3*i], xyz[3*i+1], xyz[3*i+2]}})
	}
	sb.tmp = make([]kdPoint, len(sb.pts))
	var place func(v int, lo, hi int32)
	place = func(v int, lo, hi int32) {
		if v >= nb {
			return
		}
		_, axis, mid, ok := sb.split(lo, hi, 1)
		if !ok {
			// One sample point, or all alike: everything goes first.
			top.table[v] = math.Float32bits(inf32)
			place(2*v, lo, hi)
			place(2*v+1, hi, hi)
			return
		}
		top.table[v] = math.Float32bits(sb.pts[mid].c[axis])&^3 | uint32(axis)
		place(2*v, lo, mid)
		place(2*v+1, mid, hi)
	}
	place(1, 0, int32(len(sb.pts)))
	return top
}

// bucketsGo stores in out the bucket of each point of xyz (x, y, z after
// one another), numbered 0..2^depth-1 from the left. buckets runs it, or
// the same 16 points at a time with AVX-512.
func (top *kdTop) bucketsGo(xyz []float32, out []uint16) {
	for i := range out {
		v := 1
		for range top.depth {
			e := top.table[v]
			if xyz[3*i+int(e&3)] >= math.Float32frombits(e) {
				v = 2*v + 1
			} else {
				v = 2 * v
			}
		}
		out[i] = uint16(v - 1<<top.depth)
	}
}

// scatter stores in order the indices of the points xyz ordered by
// bucket (in input order within one), and returns the buckets' first
// positions, start[j] to start[j+1] being bucket j: a counting sort, its
// chunks in parallel.
func (top *kdTop) scatter(xyz []float32, nw int, order []int32) []int32 {
	n := len(xyz) / 3
	nb := 1 << top.depth
	// About 8 chunks per worker, but no more than one per 16 points per
	// bucket, so that the counts (a row of buckets per chunk) stay small
	// next to the cloud on many cores and deep top trees.
	chunk := max(4096, n/(8*nw), 16*nb)
	nc := (n + chunk - 1) / chunk
	bk := make([]uint16, n)
	count := make([]int32, nc*nb) // chunk c's points in bucket j at c*nb+j
	_ = hostkit.ParallelChunks(nc, 1, nw, nil, func(_, c, _ int) error {
		lo, hi := c*chunk, min(n, (c+1)*chunk)
		top.buckets(xyz[3*lo:3*hi], bk[lo:hi])
		cnt := count[c*nb : (c+1)*nb]
		for _, j := range bk[lo:hi] {
			cnt[j]++
		}
		return nil
	})
	// Offsets: bucket by bucket, chunk by chunk within each.
	start := make([]int32, nb+1)
	off := int32(0)
	for j := range nb {
		start[j] = off
		for c := range nc {
			cnt := count[c*nb+j]
			count[c*nb+j] = off
			off += cnt
		}
	}
	start[nb] = off
	_ = hostkit.ParallelChunks(nc, 1, nw, nil, func(_, c, _ int) error {
		next := count[c*nb : (c+1)*nb]
		for i := c * chunk; i < min(n, (c+1)*chunk); i++ {
			j := bk[i]
			order[next[j]] = int32(i)
			next[j]++
		}
		return nil
	})
	return start
}

// kdPoint is a point while the tree is built: coordinates and index.
type kdPoint struct {
	c   [3]float32
	idx int32
}

// kdBuild holds packed points being arranged into a tree, and scratch as
// long for selectNth.
type kdBuild struct{ pts, tmp []kdPoint }

// build fills node k of nodes with points [lo, hi) and recurses.
func (b *kdBuild) build(nodes *[]kdNode, k int, lo, hi int32) {
	nd, _, mid, ok := b.split(lo, hi, kdLeaf)
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

// split returns the node of points [lo, hi) (its left child not set) and
// its box's widest axis and, unless it is a leaf (ok false: no more than
// leaf points, or all alike), reorders them around their median along that
// axis, the first point of the right child at mid.
func (b *kdBuild) split(lo, hi, leaf int32) (nd kdNode, axis int, mid int32, ok bool) {
	nd = kdNode{lo: lo, hi: hi, left: -1, bb: emptyBox}
	if lo == hi {
		return nd, 0, 0, false
	}
	nd.bb = nodeBounds(b.pts[lo:hi])
	for a := 1; a < 3; a++ {
		if nd.bb[3+a]-nd.bb[a] > nd.bb[3+axis]-nd.bb[axis] {
			axis = a
		}
	}
	if hi-lo <= leaf || nd.bb[3+axis] == nd.bb[axis] {
		return nd, axis, 0, false
	}
	mid = lo + (hi-lo)/2
	b.selectNth(axis, lo, hi, mid)
	return nd, axis, mid, true
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
// smaller after it: a quickselect whose partition never branches on a
// comparison (which side a point goes is random, and mispredicted branches
// were most of the cost of Hoare's scans), each point written to both
// ends of b.tmp (at least hi-lo long), the ends advanced by the
// comparison, then copied back. Its pivot is the median of three on short
// ranges; on long ones the value of the sample of kdSample evenly spaced
// points next to nth's rank (after Floyd and Rivest), so that nth lands
// close to the pivot and the next partition leaves little to select from.
// Where the pivot is the range's minimum, the points equal to it go first
// instead, so that every pass shrinks the range.
func (b *kdBuild) selectNth(axis int, lo, hi, nth int32) {
	var sample [kdSample]float32
	for hi-lo > 1 {
		pts := b.pts[lo:hi]
		m := len(pts)
		var pivot float32
		if m >= 16*kdSample {
			for i := range sample {
				sample[i] = pts[m*i/kdSample].c[axis]
			}
			slices.Sort(sample[:])
			// The sample's rank of nth, moved one toward the middle.
			r := int(nth-lo) * kdSample / m
			if r < kdSample/2 {
				r++
			} else {
				r--
			}
			pivot = sample[min(max(r, 0), kdSample-1)]
		} else {
			x, y, z := pts[0].c[axis], pts[m/2].c[axis], pts[m-1].c[axis]
			pivot = max(min(x, y), min(max(x, y), z))
		}
		tmp := b.tmp[:m]
		// First: c < pivot, as the sign of the difference (exact for
		// finite coordinates: distinct floats never differ by 0).
		i := 0
		for k := range pts {
			// The second end is m-1-(k-i): k-i points have gone there.
			p := &pts[k] // a pointer: a copy indexed by axis would go through the stack
			tmp[i] = *p
			tmp[m-1-k+i] = *p
			i += int(math.Float32bits(p.c[axis]-pivot) >> 31)
		}
		if i == 0 {
			// The pivot is the minimum: c ≤ pivot first.
			for k := range pts {
				p := &pts[k]
				tmp[i] = *p
				tmp[m-1-k+i] = *p
				i += 1 - int(math.Float32bits(pivot-p.c[axis])>>31)
			}
			copy(pts, tmp)
			if nth < lo+int32(i) {
				return // all of them equal the pivot
			}
			lo += int32(i)
			continue
		}
		copy(pts, tmp)
		if nth < lo+int32(i) {
			hi = lo + int32(i)
		} else {
			lo += int32(i)
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
func (t *kdtree) nearest(kb *hostkit.KBest, stack *[]kdVisit, x, y, z float32, self int32) {
	st := append((*stack)[:0], kdVisit{0, 0})
	lim := kb.WorstSq()
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

// offerRange offers kb the points lo..hi-1 of the sorted arrays xs, ys, zs
// (original indices in perm) whose squared distance from (x, y, z) is at
// most lim, except position self, and returns the limit for what follows:
// lim, or less once kb holds k candidates. It branches on the distance
// test, which suits the kd-tree: its leaves are visited nearest first, so
// most of a later leaf's points fail the test, predictably. (The grid
// gathers without branching instead: gatherKeys.)
func offerRange(kb *hostkit.KBest, xs, ys, zs []float32, perm []int32, lo, hi int32, x, y, z float32, self int32, lim float32) float32 {
	xs = xs[lo:hi]
	ys, zs = ys[lo:hi], zs[lo:hi]
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	for j, px := range xs {
		dx, dy, dz := px-x, ys[j]-y, zs[j]-z
		d2 := dx*dx + dy*dy + dz*dz
		if d2 > lim {
			continue
		}
		pos := lo + int32(j)
		if pos == self {
			continue
		}
		kb.Add(hostkit.Kent{Key: hostkit.KentKey(d2, perm[pos]), Pos: pos})
		if kb.Full() {
			lim = min(lim, kb.WorstSq())
		}
	}
	return lim
}
