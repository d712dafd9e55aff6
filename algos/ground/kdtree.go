package ground

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/pctk/pctk/internal/par"
)

// flann is the 2D k-d tree PDAL's KD2Index builds (pdal/private/KDImpl.hpp:
// nanoflann 1.3.1's KDTreeSingleIndexAdaptor, leaves of up to 100 points,
// L2_Simple_Adaptor over float64 X, Y), rebuilt here so that the nearest
// cells of an empty cell, and their order, are PDAL's to the tie: nanoflann
// keeps the first of equally distant points it meets, and meets them in the
// order its tree stores them.
type flann struct {
	// canonical makes the search return the nearest by distance and then
	// by index, whatever the tree's order (nanoflann's
	// NANOFLANN_FIRST_MATCH insertion, and ties with the worst taken in).
	canonical bool
	x, y      []float64
	vind      []int
	// Each leaf's points are stored again along a Z-order curve of the
	// leaf's box, cut into chunks of up to flannChunk points with their
	// boxes (chunks), so that a search skips the chunks that lie farther
	// than its worst distance; sx, sy are their coordinates, spos their
	// positions in vind. nanoflann meets a leaf's points in vind's order,
	// which decides between equally distant ones: the search keeps that
	// order as each point's key (knn), so the chunks change no result.
	sx, sy []float64
	spos   []int32
	chunks []fchunk
	nodes  []fnode
	root   int
	lo     [2]float64
	hi     [2]float64
}

// fnode is a leaf (child1 < 0: points vind[left:right], stored as
// chunks[c0:c1]) or a split on feature feat between divlow and divhigh.
type fnode struct {
	child1, child2  int
	left, right     int
	c0, c1          int
	feat            int
	divlow, divhigh float64
}

// fchunk is a run of a leaf's points in sx, sy and spos, [lo, hi), within
// the box [x0, x1] × [y0, y1].
type fchunk struct {
	x0, x1, y0, y1 float64
	lo, hi         int
}

// flannChunk is the most points in a chunk (4 and 16 measured no faster).
const flannChunk = 8

const flannLeaf = 100

func (t *flann) at(i, feat int) float64 {
	if feat == 0 {
		return t.x[i]
	}
	return t.y[i]
}

// newFlann indexes the points (x[i], y[i]) (KDTreeSingleIndexAdaptor::
// buildIndex, its bounding box from the points as KD2Impl::kdtree_get_bbox
// computes it).
func newFlann(x, y []float64) *flann {
	t := &flann{x: x, y: y, vind: make([]int, len(x))}
	for i := range t.vind {
		t.vind[i] = i
	}
	if len(x) == 0 {
		return t
	}
	bb := [2][2]float64{{x[0], x[0]}, {y[0], y[0]}}
	for i := range x {
		bb[0] = [2]float64{math.Min(bb[0][0], x[i]), math.Max(bb[0][1], x[i])}
		bb[1] = [2]float64{math.Min(bb[1][0], y[i]), math.Max(bb[1][1], y[i])}
	}
	t.root = t.divide(&t.nodes, 0, len(x), &bb)
	t.lo = [2]float64{bb[0][0], bb[1][0]}
	t.hi = [2]float64{bb[0][1], bb[1][1]}
	t.chunk()
	return t
}

// chunk stores each leaf's points along a Z-order curve of its box and
// cuts them into chunks (flann's sx, sy, spos, chunks), the leaves on all
// cores.
func (t *flann) chunk() {
	n := len(t.vind)
	t.sx, t.sy, t.spos = make([]float64, n), make([]float64, n), make([]int32, n)
	var leaves []int
	chunks := 0
	for id := range t.nodes {
		if nd := &t.nodes[id]; nd.child1 < 0 {
			leaves = append(leaves, id)
			nd.c0 = chunks
			chunks += (nd.right - nd.left + flannChunk - 1) / flannChunk
			nd.c1 = chunks
		}
	}
	t.chunks = make([]fchunk, chunks)
	type coded struct {
		code uint32
		k    int32
	}
	par.For(par.Ranges(len(leaves), 64), func(_, lo, hi int) {
		var order []coded
		for _, id := range leaves[lo:hi] {
			nd := &t.nodes[id]
			x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
			for k := nd.left; k < nd.right; k++ {
				x, y := t.x[t.vind[k]], t.y[t.vind[k]]
				x0, x1, y0, y1 = min(x0, x), max(x1, x), min(y0, y), max(y1, y)
			}
			order = order[:0]
			for k := nd.left; k < nd.right; k++ {
				code := zorder(t.x[t.vind[k]], x0, x1) | zorder(t.y[t.vind[k]], y0, y1)<<1
				order = append(order, coded{code, int32(k)})
			}
			slices.SortFunc(order, func(a, b coded) int {
				return cmp.Or(cmp.Compare(a.code, b.code), cmp.Compare(a.k, b.k))
			})
			for j, o := range order {
				at, i := nd.left+j, t.vind[o.k]
				t.sx[at], t.sy[at], t.spos[at] = t.x[i], t.y[i], o.k
			}
			for c := nd.c0; c < nd.c1; c++ {
				ch := fchunk{x0: math.Inf(1), x1: math.Inf(-1), y0: math.Inf(1), y1: math.Inf(-1)}
				ch.lo = nd.left + (c-nd.c0)*flannChunk
				ch.hi = min(ch.lo+flannChunk, nd.right)
				for j := ch.lo; j < ch.hi; j++ {
					ch.x0, ch.x1 = min(ch.x0, t.sx[j]), max(ch.x1, t.sx[j])
					ch.y0, ch.y1 = min(ch.y0, t.sy[j]), max(ch.y1, t.sy[j])
				}
				t.chunks[c] = ch
			}
		}
	})
}

// zorder spreads v's place in [lo, hi], on 16 bits, over the even bits of
// a Z-order code.
func zorder(v, lo, hi float64) uint32 {
	var q uint32
	if hi > lo {
		q = uint32((v - lo) / (hi - lo) * 0xffff)
	}
	// The bits apart by 8, 4, 2, then 1 place.
	q = (q | q<<8) & 0x00ff00ff
	q = (q | q<<4) & 0x0f0f0f0f
	q = (q | q<<2) & 0x33333333
	return (q | q<<1) & 0x55555555
}

// divide is nanoflann's divideTree: it appends the nodes of the subtree
// of vind[left:right] to nodes, returns its root's and updates bb to the
// points' bounds. Subtrees of flannParallel points or more are built on
// two goroutines, each into nodes of its own, grafted after: the same tree
// with its nodes in another order (their order changes no search).
func (t *flann) divide(nodes *[]fnode, left, right int, bb *[2][2]float64) int {
	*nodes = append(*nodes, fnode{child1: -1, child2: -1})
	id := len(*nodes) - 1
	if right-left <= flannLeaf {
		(*nodes)[id].left, (*nodes)[id].right = left, right
		for f := range 2 {
			v := t.at(t.vind[left], f)
			bb[f] = [2]float64{v, v}
		}
		for k := left + 1; k < right; k++ {
			for f := range 2 {
				v := t.at(t.vind[k], f)
				if bb[f][0] > v {
					bb[f][0] = v
				}
				if bb[f][1] < v {
					bb[f][1] = v
				}
			}
		}
		return id
	}
	idx, feat, cut := t.middleSplit(left, right-left, bb)
	lb, rb := *bb, *bb
	lb[feat][1] = cut
	rb[feat][0] = cut
	var c1, c2 int
	if right-left >= flannParallel {
		var sub [2][]fnode
		var wg sync.WaitGroup
		wg.Go(func() { c1 = t.divide(&sub[0], left, left+idx, &lb) })
		c2 = t.divide(&sub[1], left+idx, right, &rb)
		wg.Wait()
		c1, c2 = graft(nodes, sub[0], c1), graft(nodes, sub[1], c2)
	} else {
		c1 = t.divide(nodes, left, left+idx, &lb)
		c2 = t.divide(nodes, left+idx, right, &rb)
	}
	(*nodes)[id] = fnode{child1: c1, child2: c2, feat: feat, divlow: lb[feat][1], divhigh: rb[feat][0]}
	for f := range 2 {
		bb[f] = [2]float64{math.Min(lb[f][0], rb[f][0]), math.Max(lb[f][1], rb[f][1])}
	}
	return id
}

// flannParallel is the fewest points divide splits on two goroutines
// (a variable for the tests).
var flannParallel = 1 << 14

// graft appends the subtree sub, whose root is sub[root], to nodes and
// returns the root's place there.
func graft(nodes *[]fnode, sub []fnode, root int) int {
	off := len(*nodes)
	for _, n := range sub {
		if n.child1 >= 0 {
			n.child1, n.child2 = n.child1+off, n.child2+off
		}
		*nodes = append(*nodes, n)
	}
	return off + root
}

func (t *flann) minMax(ind []int, feat int) (float64, float64) {
	lo := t.at(ind[0], feat)
	hi := lo
	for _, i := range ind[1:] {
		v := t.at(i, feat)
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

// middleSplit is nanoflann's middleSplit_ over vind[first:first+count].
func (t *flann) middleSplit(first, count int, bb *[2][2]float64) (index, feat int, cut float64) {
	const eps = 0.00001
	ind := t.vind[first : first+count]
	maxSpan := bb[0][1] - bb[0][0]
	if s := bb[1][1] - bb[1][0]; s > maxSpan {
		maxSpan = s
	}
	maxSpread := -1.0
	for f := range 2 {
		if bb[f][1]-bb[f][0] > (1-eps)*maxSpan {
			lo, hi := t.minMax(ind, f)
			if hi-lo > maxSpread {
				feat, maxSpread = f, hi-lo
			}
		}
	}
	split := (bb[feat][0] + bb[feat][1]) / 2
	lo, hi := t.minMax(ind, feat)
	switch {
	case split < lo:
		cut = lo
	case split > hi:
		cut = hi
	default:
		cut = split
	}
	lim1, lim2 := t.planeSplit(ind, feat, cut)
	switch {
	case lim1 > count/2:
		index = lim1
	case lim2 < count/2:
		index = lim2
	default:
		index = count / 2
	}
	return index, feat, cut
}

// planeSplit is nanoflann's planeSplit: the points below cut first, then
// those at it, then those above, moved by the same swaps.
func (t *flann) planeSplit(ind []int, feat int, cut float64) (int, int) {
	part := func(left int, below func(v float64) bool) int {
		right := len(ind) - 1
		for {
			for left <= right && below(t.at(ind[left], feat)) {
				left++
			}
			for right != 0 && left <= right && !below(t.at(ind[right], feat)) {
				right--
			}
			if left > right || right == 0 {
				break
			}
			ind[left], ind[right] = ind[right], ind[left]
			left++
			right--
		}
		return left
	}
	lim1 := part(0, func(v float64) bool { return v < cut })
	lim2 := part(lim1, func(v float64) bool { return v <= cut })
	return lim1, lim2
}

// knn is nanoflann's KNNResultSet: distances ascending, a point equal to
// one held going after it when met later (the first k points by distance
// and then by the order nanoflann meets them), or (the canonical search)
// when its index is larger. key holds that order: the index, or the
// leaf's number in the search's order of visits and the point's position
// in it.
type knn struct {
	idx  []int
	dist []float64
	key  []int
	n    int
	leaf int // leaves visited
}

func newKNN(k int) *knn {
	return &knn{idx: make([]int, k), dist: make([]float64, k), key: make([]int, k)}
}

// worst is the largest distance held, or MaxFloat64 while fewer than
// len(dist) points are.
func (r *knn) worst() float64 {
	if r.n < len(r.dist) {
		return math.MaxFloat64
	}
	return r.dist[len(r.dist)-1]
}

// add offers the point index at distance d, with the given key.
func (r *knn) add(d float64, index, key int) {
	i := r.n
	if i == len(r.dist) {
		i--
		if !(d < r.dist[i] || d == r.dist[i] && key < r.key[i]) {
			return
		}
	} else {
		r.n++
	}
	for ; i > 0 && (r.dist[i-1] > d || r.dist[i-1] == d && r.key[i-1] > key); i-- {
		r.dist[i], r.idx[i], r.key[i] = r.dist[i-1], r.idx[i-1], r.key[i-1]
	}
	r.dist[i], r.idx[i], r.key[i] = d, index, key
}

// nearest fills res with the len(res.dist) points nearest to (qx, qy), as
// KD2Impl::neighbors does (findNeighbors with eps 0).
func (t *flann) nearest(qx, qy float64, res *knn) {
	res.n, res.leaf = 0, 0
	q := [2]float64{qx, qy}
	d, dists := t.rootDist(q)
	t.search(res, q, t.root, d, &dists)
}

// rootDist is findNeighbors' start: q's squared distance to the tree's
// box, and its parts along each axis.
func (t *flann) rootDist(q [2]float64) (float64, [2]float64) {
	var dists [2]float64
	d := 0.0
	for f := range 2 {
		if q[f] < t.lo[f] {
			dists[f] = (q[f] - t.lo[f]) * (q[f] - t.lo[f])
			d += dists[f]
		}
		if q[f] > t.hi[f] {
			dists[f] = (q[f] - t.hi[f]) * (q[f] - t.hi[f])
			d += dists[f]
		}
	}
	return d, dists
}

// boxDist is the squared distance from q to the chunk's box, by the
// operations that give a point's (rounding keeps their order): no point of
// the chunk is nearer.
func boxDist(q [2]float64, ch *fchunk) float64 {
	var dx, dy float64
	if q[0] < ch.x0 {
		dx = q[0] - ch.x0
	} else if q[0] > ch.x1 {
		dx = q[0] - ch.x1
	}
	if q[1] < ch.y0 {
		dy = q[1] - ch.y0
	} else if q[1] > ch.y1 {
		dy = q[1] - ch.y1
	}
	d := 0.0
	d += float64(dx * dx)
	d += float64(dy * dy)
	return d
}

func (t *flann) search(res *knn, q [2]float64, id int, mind float64, dists *[2]float64) {
	nd := &t.nodes[id]
	if nd.child1 < 0 {
		leaf := res.leaf << 8 // leaves hold at most flannLeaf < 256 points
		res.leaf++
		// The chunks nearest first (the points' keys keep nanoflann's
		// order), each skipped once farther than the worst distance held.
		var md [(flannLeaf + flannChunk - 1) / flannChunk]float64
		chunks := t.chunks[nd.c0:nd.c1]
		for c := range chunks {
			md[c] = boxDist(q, &chunks[c])
		}
		for {
			c, near := -1, res.worst()
			for j := range chunks {
				if md[j] <= near {
					c, near = j, md[j]
				}
			}
			if c < 0 {
				break
			}
			md[c] = math.Inf(1)
			ch := &chunks[c]
			for j := ch.lo; j < ch.hi; j++ {
				dx := q[0] - t.sx[j]
				dy := q[1] - t.sy[j]
				d := 0.0
				d += float64(dx * dx)
				d += float64(dy * dy)
				if d > res.worst() {
					continue
				}
				k := int(t.spos[j])
				key := leaf | (k - nd.left)
				if t.canonical {
					key = t.vind[k]
				}
				res.add(d, t.vind[k], key)
			}
		}
		return
	}
	f := nd.feat
	v := q[f]
	diff1, diff2 := v-nd.divlow, v-nd.divhigh
	best, other := nd.child1, nd.child2
	cut := (v - nd.divhigh) * (v - nd.divhigh)
	if diff1+diff2 >= 0 {
		best, other = nd.child2, nd.child1
		cut = (v - nd.divlow) * (v - nd.divlow)
	}
	t.search(res, q, best, mind, dists)
	dst := dists[f]
	mind = mind + cut - dst
	dists[f] = cut
	if mind <= res.worst() {
		t.search(res, q, other, mind, dists)
	}
	dists[f] = dst
}

// fillPDAL is fill with PDAL's neighbours: the cells' centres at
// (bx + (c+0.5)·cell, by + (r+0.5)·cell), bx, by PDAL's bounds' minimum in
// its absolute coordinates, searched with PDAL's k-d tree; the means summed
// in the order it returns them.
func (g raster) fillPDAL(v []float64, bx, by, cell float64, fillK int) {
	var xs, ys, zs []float64
	var empty []int
	for c := range g.cols {
		for r := range g.rows {
			i := c*g.rows + r
			if math.IsNaN(v[i]) {
				empty = append(empty, i)
				continue
			}
			xs = append(xs, bx+(float64(g.c0+c)+0.5)*cell)
			ys = append(ys, by+(float64(g.r0+r)+0.5)*cell)
			zs = append(zs, v[i])
		}
	}
	if len(zs) == 0 || len(empty) == 0 {
		return
	}
	t := newFlann(xs, ys)
	k := min(len(zs), fillK)
	par.For(par.Ranges(len(empty), 256), func(_, lo, hi int) {
		res := newKNN(k)
		for _, i := range empty[lo:hi] {
			c, r := i/g.rows, i%g.rows
			t.nearest(bx+(float64(g.c0+c)+0.5)*cell, by+(float64(g.r0+r)+0.5)*cell, res)
			m := 0.0
			for j, n := range res.idx[:res.n] {
				m += (zs[n] - m) / float64(j+1)
			}
			v[i] = m
		}
	})
}
