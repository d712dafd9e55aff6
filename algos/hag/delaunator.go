package hag

import (
	"errors"
	"math"
)

// This file triangulates a few ground points as PDAL's copy of
// delaunator-cpp does (PDAL filters/private/delaunator.cpp, the
// Delaunator constructor, legalize and their helpers), with the same
// predicates and tolerances, so that filters.hag_delaunay's neighbourhoods
// give the same triangles in the same order. Written from that source, not
// copied.

const noIndex = -1

// errTriangulation reports a neighbourhood delaunator cannot triangulate
// (fewer than three points, all duplicates, all collinear); PDAL catches its
// exception and gives the point a height of 0.
var errTriangulation = errors.New("hag: no triangulation")

// delaunay holds a triangulation of pts (x0, y0, x1, y1, ...).
type delaunay struct {
	pts                         []float64
	triangles, halfedges        []int
	hullPrev, hullNext, hullTri []int
	hullStart                   int
	hash                        []int
	cx, cy                      float64
	edgeStack                   []int
	dists                       []float64 // from the seed circumcentre
	ids                         []int     // the points by dists
}

// isZero reports det == 0 or det > ±0: the C++ source's tests of non-zero
// spelled out, kept for NaN's sake (a NaN is neither).
func nonZero(v float64) bool { return v > 0 || v < 0 }

func circumradius(ax, ay, bx, by, cx, cy float64) float64 {
	dx, dy := bx-ax, by-ay
	ex, ey := cx-ax, cy-ay
	bl := dx*dx + dy*dy
	cl := ex*ex + ey*ey
	det := dx*ey - dy*ex
	rx := (ey*bl - dy*cl) * 0.5 / det
	ry := (dx*cl - ex*bl) * 0.5 / det
	if nonZero(bl) && nonZero(cl) && nonZero(det) {
		return rx*rx + ry*ry
	}
	return math.MaxFloat64
}

// orient returns the sign delaunator's clockwise and counterclockwise
// test: 0 when the determinant is 0 or tiny against the vectors' lengths
// (|dist/det| > 1e14), else the determinant's sign.
func orient(px, py, qx, qy, rx, ry float64) int {
	v0x, v0y := qx-px, qy-py
	v1x, v1y := rx-px, ry-py
	det := v0x*v1y - v0y*v1x
	if det == 0 {
		return 0
	}
	dist := (v0x*v0x + v0y*v0y) + (v1x*v1x + v1y*v1y)
	if math.Abs(dist/det) > 1e14 {
		return 0
	}
	if det > 0 {
		return 1
	}
	return -1
}

func circumcenter(ax, ay, bx, by, cx, cy float64) (float64, float64) {
	dx, dy := bx-ax, by-ay
	ex, ey := cx-ax, cy-ay
	bl := dx*dx + dy*dy
	cl := ex*ex + ey*ey
	d := dx*ey - dy*ex
	return ax + (ey*bl-dy*cl)*0.5/d, ay + (dx*cl-ex*bl)*0.5/d
}

// inCircle is inCircle of the points a, b, c and p of d.
func (d *delaunay) inCircle(a, b, c, p int) bool {
	x := d.pts
	return inCircle(x[2*a], x[2*a+1], x[2*b], x[2*b+1], x[2*c], x[2*c+1], x[2*p], x[2*p+1])
}

func inCircle(ax, ay, bx, by, cx, cy, px, py float64) bool {
	dx, dy := ax-px, ay-py
	ex, ey := bx-px, by-py
	fx, fy := cx-px, cy-py
	ap := dx*dx + dy*dy
	bp := ex*ex + ey*ey
	cp := fx*fx + fy*fy
	return dx*(ey*cp-bp*fy)-dy*(ex*cp-bp*fx)+ap*(ex*fy-ey*fx) < 0
}

func ptsEqual(x1, y1, x2, y2 float64) bool {
	const eps = 0x1p-52 // DBL_EPSILON
	return math.Abs(x1-x2) <= eps && math.Abs(y1-y2) <= eps
}

func pseudoAngle(dx, dy float64) float64 {
	p := dx / (math.Abs(dx) + math.Abs(dy))
	if dy > 0 {
		return (3 - p) / 4
	}
	return (1 + p) / 4
}

func dist2(ax, ay, bx, by float64) float64 {
	dx, dy := bx-ax, by-ay
	return dx*dx + dy*dy
}

// triangulate sets d to the Delaunay triangulation of pts as
// delaunator-cpp builds it, or returns errTriangulation; d's memory is
// reused from its last triangulation (a height is one triangulation of a
// few points, so a worker keeps one d for all of its). The one difference
// from delaunator: the points are ordered by their distance from the seed
// circumcentre with a stable sort, which is what std::sort does for up to
// 16 points (insertion sort) but not beyond, where it leaves exact ties in
// an order of its own.
func (d *delaunay) triangulate(pts []float64) error {
	n := len(pts) / 2
	if n < 3 {
		return errTriangulation
	}
	minX, minY := math.MaxFloat64, math.MaxFloat64
	maxX, maxY := -math.MaxFloat64, -math.MaxFloat64
	for i := range n {
		x, y := pts[2*i], pts[2*i+1]
		// std::min(x, minX) and std::max(x, maxX) as delaunator calls them,
		// not math.Min's NaN and signed-zero rules.
		if !(minX < x) {
			minX = x
		}
		if !(minY < y) {
			minY = y
		}
		if !(x < maxX) {
			maxX = x
		}
		if !(y < maxY) {
			maxY = y
		}
	}
	w, h := maxX-minX, maxY-minY
	span := w*w + h*h
	mx, my := (minX+maxX)/2, (minY+maxY)/2

	i0, i1, i2 := noIndex, noIndex, noIndex
	best := math.MaxFloat64
	for i := range n {
		if d := dist2(mx, my, pts[2*i], pts[2*i+1]); d < best {
			i0, best = i, d
		}
	}
	if i0 == noIndex { // every distance NaN
		return errTriangulation
	}
	x0, y0 := pts[2*i0], pts[2*i0+1]
	best = math.MaxFloat64
	for i := range n {
		if i == i0 {
			continue
		}
		if d := dist2(x0, y0, pts[2*i], pts[2*i+1]); d < best && d > 0 {
			i1, best = i, d
		}
	}
	if i1 == noIndex {
		return errTriangulation
	}
	x1, y1 := pts[2*i1], pts[2*i1+1]
	best = math.MaxFloat64
	for i := range n {
		if i == i0 || i == i1 {
			continue
		}
		if r := circumradius(x0, y0, x1, y1, pts[2*i], pts[2*i+1]); r < best {
			i2, best = i, r
		}
	}
	if i2 == noIndex {
		return errTriangulation
	}
	if orient(x0, y0, x1, y1, pts[2*i2], pts[2*i2+1]) > 0 {
		i1, i2 = i2, i1
	}
	x1, y1 = pts[2*i1], pts[2*i1+1]
	x2, y2 := pts[2*i2], pts[2*i2+1]

	d.pts, d.triangles, d.halfedges = pts, d.triangles[:0], d.halfedges[:0]
	d.cx, d.cy = circumcenter(x0, y0, x1, y1, x2, y2)
	dists, ids := resize(d.dists, n), resize(d.ids, n)
	d.dists, d.ids = dists, ids
	for i := range n {
		dists[i] = dist2(pts[2*i], pts[2*i+1], d.cx, d.cy)
		ids[i] = i
	}
	// By distance, ties in index order: the insertion sort libstdc++'s
	// std::sort makes of a range this short (≤ 16 elements; a longer one
	// is sorted stably here, where std::sort's order of ties is its own).
	for a := 1; a < n; a++ {
		i, di := ids[a], dists[ids[a]]
		b := a
		for ; b > 0 && dists[ids[b-1]] > di; b-- {
			ids[b] = ids[b-1]
		}
		ids[b] = i
	}

	d.hash = resize(d.hash, int(1.618*math.Ceil(math.Sqrt(float64(n)))))
	for i := range d.hash {
		d.hash[i] = noIndex
	}
	d.hullPrev, d.hullNext, d.hullTri = resize(d.hullPrev, n), resize(d.hullNext, n), resize(d.hullTri, n)
	clear(d.hullPrev)
	clear(d.hullNext)
	clear(d.hullTri)
	d.hullStart = i0
	d.hullNext[i0], d.hullPrev[i2] = i1, i1
	d.hullNext[i1], d.hullPrev[i0] = i2, i2
	d.hullNext[i2], d.hullPrev[i1] = i0, i0
	d.hullTri[i0], d.hullTri[i1], d.hullTri[i2] = 0, 1, 2
	d.hash[d.hashKey(x0, y0)] = i0
	d.hash[d.hashKey(x1, y1)] = i1
	d.hash[d.hashKey(x2, y2)] = i2
	d.addTriangle(i0, i1, i2, noIndex, noIndex, noIndex)

	xp, yp := math.NaN(), math.NaN()
	for k, i := range ids {
		x, y := pts[2*i], pts[2*i+1]
		if k > 0 && ptsEqual(x, y, xp, yp) {
			continue
		}
		xp, yp = x, y
		if ptsEqual(x, y, x0, y0) || ptsEqual(x, y, x1, y1) || ptsEqual(x, y, x2, y2) {
			continue
		}
		start := 0
		key := d.hashKey(x, y)
		for range d.hash {
			start = d.hash[key]
			if start != noIndex && start != d.hullNext[start] {
				break
			}
			if key++; key == len(d.hash) {
				key = 0
			}
		}
		if start == noIndex {
			return errTriangulation
		}
		start = d.hullPrev[start]
		e := start
		for {
			q := d.hullNext[e]
			if dist2(x, y, pts[2*e], pts[2*e+1])/span < 1e-20 || dist2(x, y, pts[2*q], pts[2*q+1])/span < 1e-20 {
				e = noIndex
				break
			}
			if orient(x, y, pts[2*e], pts[2*e+1], pts[2*q], pts[2*q+1]) > 0 {
				break
			}
			e = q
			if e == start {
				e = noIndex
				break
			}
		}
		if e == noIndex {
			continue
		}
		t := d.addTriangle(e, i, d.hullNext[e], noIndex, noIndex, d.hullTri[e])
		d.hullTri[i] = d.legalize(t + 2)
		d.hullTri[e] = t
		next := d.hullNext[e]
		for {
			q := d.hullNext[next]
			if orient(x, y, pts[2*next], pts[2*next+1], pts[2*q], pts[2*q+1]) <= 0 {
				break
			}
			t = d.addTriangle(next, i, q, d.hullTri[i], noIndex, d.hullTri[next])
			d.hullTri[i] = d.legalize(t + 2)
			d.hullNext[next] = next
			next = q
		}
		if e == start {
			for {
				q := d.hullPrev[e]
				if orient(x, y, pts[2*q], pts[2*q+1], pts[2*e], pts[2*e+1]) <= 0 {
					break
				}
				t = d.addTriangle(q, i, e, noIndex, d.hullTri[e], d.hullTri[q])
				d.legalize(t + 2)
				d.hullTri[q] = t
				d.hullNext[e] = e
				e = q
			}
		}
		d.hullPrev[i] = e
		d.hullStart = e
		d.hullPrev[next] = i
		d.hullNext[e] = i
		d.hullNext[i] = next
		d.hash[d.hashKey(x, y)] = i
		d.hash[d.hashKey(pts[2*e], pts[2*e+1])] = e
	}
	return nil
}

// resize returns s with length n, its memory reused when large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// hashKey is delaunator's hash_key: the pseudo-angle of (x, y) around the
// seed circumcentre, scaled to the table (a NaN angle, at the centre
// itself, goes to slot 0, where llround's result is unspecified).
func (d *delaunay) hashKey(x, y float64) int {
	// delaunator's llround(floor(v)) % size: for v ≥ 0, int's truncation
	// is the floor.
	v := pseudoAngle(x-d.cx, y-d.cy) * float64(len(d.hash))
	if !(v >= 0) {
		return 0
	}
	// The pseudo-angle is at most 1, so the truncation is at most the
	// size, which delaunator's modulo takes to 0.
	if k := int(v); k < len(d.hash) {
		return k
	}
	return 0
}

// addTriangle appends the triangle (i0, i1, i2) and its halfedges, linked
// to a, b and c (noIndex: none), halfedges of older triangles.
func (d *delaunay) addTriangle(i0, i1, i2, a, b, c int) int {
	t := len(d.triangles)
	d.triangles = append(d.triangles, i0, i1, i2)
	d.halfedges = append(d.halfedges, a, b, c)
	d.link(t, a)
	d.link(t+1, b)
	d.link(t+2, c)
	return t
}

// link pairs the halfedges a and b (noIndex: a has none), both of
// triangles already added.
func (d *delaunay) link(a, b int) {
	d.halfedges[a] = b
	if b != noIndex {
		d.halfedges[b] = a
	}
}

// legalize flips edges until the triangles around a satisfy the Delaunay
// condition, as delaunator's legalize does with its edge stack.
func (d *delaunay) legalize(a int) int {
	i, ar := 0, 0
	d.edgeStack = d.edgeStack[:0]
	for {
		b := d.halfedges[a]
		a0 := 3 * (a / 3)
		ar = a0 + (a+2)%3
		var b0, bl, p0, p1 int
		if b != noIndex {
			b0 = 3 * (b / 3)
			bl = b0 + (b+2)%3
			p0, p1 = d.triangles[ar], d.triangles[bl]
		}
		if b == noIndex || !d.inCircle(p0, d.triangles[a], d.triangles[a0+(a+1)%3], p1) {
			// Legal: pop the next edge, if any.
			if i == 0 {
				break
			}
			i--
			a = d.edgeStack[i]
			continue
		}
		d.triangles[a] = p1
		d.triangles[b] = p0
		hbl := d.halfedges[bl]
		if hbl == noIndex {
			e := d.hullStart
			for {
				if d.hullTri[e] == bl {
					d.hullTri[e] = a
					break
				}
				e = d.hullPrev[e]
				if e == d.hullStart {
					break
				}
			}
		}
		d.link(a, hbl)
		d.link(b, d.halfedges[ar])
		d.link(ar, bl)
		br := b0 + (b+1)%3
		if i < len(d.edgeStack) {
			d.edgeStack[i] = br
		} else {
			d.edgeStack = append(d.edgeStack, br)
		}
		i++
	}
	return ar
}
