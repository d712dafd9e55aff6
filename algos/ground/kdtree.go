package ground

import (
	"math"

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
	// vx, vy are the points' coordinates in the tree's order (vx[k] =
	// x[vind[k]]), so that a leaf's scan reads them in sequence.
	vx, vy []float64
	nodes  []fnode
	root   int
	lo     [2]float64
	hi     [2]float64
}

// fnode is a leaf (child1 < 0: points vind[left:right]) or a split on
// feature feat between divlow and divhigh.
type fnode struct {
	child1, child2  int
	left, right     int
	feat            int
	divlow, divhigh float64
}

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
	t.root = t.divide(0, len(x), &bb)
	t.lo = [2]float64{bb[0][0], bb[1][0]}
	t.hi = [2]float64{bb[0][1], bb[1][1]}
	t.vx, t.vy = make([]float64, len(x)), make([]float64, len(x))
	for k, i := range t.vind {
		t.vx[k], t.vy[k] = x[i], y[i]
	}
	return t
}

// divide is nanoflann's divideTree: it updates bb to the points' bounds.
func (t *flann) divide(left, right int, bb *[2][2]float64) int {
	t.nodes = append(t.nodes, fnode{child1: -1, child2: -1})
	id := len(t.nodes) - 1
	if right-left <= flannLeaf {
		t.nodes[id].left, t.nodes[id].right = left, right
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
	c1 := t.divide(left, left+idx, &lb)
	rb[feat][0] = cut
	c2 := t.divide(left+idx, right, &rb)
	t.nodes[id] = fnode{child1: c1, child2: c2, feat: feat, divlow: lb[feat][1], divhigh: rb[feat][0]}
	for f := range 2 {
		bb[f] = [2]float64{math.Min(lb[f][0], rb[f][0]), math.Max(lb[f][1], rb[f][1])}
	}
	return id
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

// knn is nanoflann's KNNResultSet: distances ascending, a later point equal
// to one held going after it.
type knn struct {
	idx   []int
	dist  []float64
	n     int
	first bool
}

func (r *knn) worst() float64 { return r.dist[len(r.dist)-1] }

func (r *knn) add(d float64, index int) {
	i := r.n
	for ; i > 0; i-- {
		if r.dist[i-1] > d || r.first && r.dist[i-1] == d && r.idx[i-1] > index {
			if i < len(r.dist) {
				r.dist[i], r.idx[i] = r.dist[i-1], r.idx[i-1]
			}
		} else {
			break
		}
	}
	if i < len(r.dist) {
		r.dist[i], r.idx[i] = d, index
	}
	if r.n < len(r.dist) {
		r.n++
	}
}

// nearest fills res with the len(res.dist) points nearest to (qx, qy), as
// KD2Impl::neighbors does (findNeighbors with eps 0).
func (t *flann) nearest(qx, qy float64, res *knn) {
	res.n, res.first = 0, t.canonical
	res.dist[len(res.dist)-1] = math.MaxFloat64
	q := [2]float64{qx, qy}
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
	t.search(res, q, t.root, d, &dists)
}

func (t *flann) search(res *knn, q [2]float64, id int, mind float64, dists *[2]float64) {
	nd := &t.nodes[id]
	if nd.child1 < 0 {
		worst := res.worst()
		vx, vy := t.vx[nd.left:nd.right], t.vy[nd.left:nd.right]
		vy = vy[:len(vx)]
		for j, px := range vx {
			dx := q[0] - px
			dy := q[1] - vy[j]
			d := 0.0
			d += float64(dx * dx)
			d += float64(dy * dy)
			if d < worst || t.canonical && d == worst {
				res.add(d, t.vind[nd.left+j])
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
		res := &knn{idx: make([]int, k), dist: make([]float64, k)}
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
