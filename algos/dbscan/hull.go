package dbscan

import (
	"cmp"
	"slices"
)

// Members groups point indices by cluster: the points of cluster c are
// order[offsets[c]:offsets[c+1]], in increasing index order. Noise points
// are left out. labels are a Result's Labels and clusters its len(Sizes).
func Members(labels []int32, clusters int) (offsets []int, order []int32) {
	offsets = make([]int, clusters+1)
	for _, l := range labels {
		if l >= 0 {
			offsets[l+1]++
		}
	}
	for c := range clusters {
		offsets[c+1] += offsets[c]
	}
	order = make([]int32, offsets[clusters])
	next := slices.Clone(offsets[:clusters])
	for i, l := range labels {
		if l >= 0 {
			order[next[l]] = int32(i)
			next[l]++
		}
	}
	return offsets, order
}

// Hull returns the convex hull of the points (x[i], y[i]) for i in idx, by
// Andrew's monotone chain in O(k log k) for k points: its vertices counter-
// clockwise, starting at the point of smallest x (then smallest y), without
// repeating the first vertex. Points on the hull's edges are not vertices.
// Degenerate inputs give fewer than three vertices: none for no points, one
// when all points coincide, the two extremes when they are collinear.
func Hull(x, y []float64, idx []int32) [][2]float64 {
	p := make([][2]float64, len(idx))
	for k, i := range idx {
		p[k] = [2]float64{x[i], y[i]}
	}
	slices.SortFunc(p, func(a, b [2]float64) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	p = slices.Compact(p)
	if len(p) < 3 {
		return p
	}
	// cross > 0 when o→a→b turns counter-clockwise.
	cross := func(o, a, b [2]float64) float64 {
		return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
	}
	h := make([][2]float64, 0, 2*len(p))
	for _, q := range p { // lower hull, left to right
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	lower := len(h) + 1
	for i := len(p) - 2; i >= 0; i-- { // upper hull, right to left
		q := p[i]
		for len(h) >= lower && cross(h[len(h)-2], h[len(h)-1], q) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, q)
	}
	return h[:len(h)-1] // the last point is the first one again
}
