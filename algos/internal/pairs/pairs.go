// Package pairs finds the pairs of points strictly closer than a radius
// in float64, the rule of PDAL's KD3Index::radius and KD2Index::radius
// (PDAL 2.9.2, pdal/private/KDImpl.hpp over nanoflann's RadiusResultSet,
// whose addPoint keeps dist < r², dist the float64 sum of the squared
// coordinate differences in axis order). The algorithms that follow PDAL
// at the radius share it: cluster's components (Forest), denoise's pdal
// radius counts (Counts), and the reach of the float32 neighbour index's
// answers that stand for float64 ones (Reach, PointReach).
//
// Forest and Counts bin the float64 points in a grid of their own rather
// than list pairs from pctk's float32 index (which answers ≤ r in
// float32, so every pair within a wider radius would have to be listed
// and tested again): on a dense cloud, where a point has hundreds of
// neighbours within r, they test a few pairs a point, because a cell of
// side r/√3 holds points that are all linked and a count can stop at the
// number that decides.
package pairs

import (
	"math"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// Reach returns the radius the index is asked for on points within the
// box frame (float32 coordinates, the run's frame or a part of it): r
// widened by 1e-5 relative and 1e-6 of the frame's largest coordinate,
// more than float32 rounding of the coordinates and of the distance can
// move a pair. Every pair strictly closer than r in float64 is within
// Reach in float32; a tile needs a halo of Reach of the run's frame.
func Reach(r float64, frame findneighbor.Box) float64 {
	m := 0.0
	for a := range 3 {
		m = max(m, math.Abs(float64(frame.Min[a])), math.Abs(float64(frame.Max[a])))
	}
	return r*(1+1e-5) + 1e-6*m
}

// PointReach returns, for a point at (x, y, z) in float32 local
// coordinates, a distance in that frame within which lie all the points
// strictly closer than r to it in float64: r widened by 1e-5 relative and
// 1e-6 of the point's largest coordinate plus r (the other point's is at
// most that), more than float32 rounding moves a distance. It depends on
// the point alone, not on the run's frame: a stage's per-point Reach.
func PointReach(r float64, x, y, z float32) float64 {
	m := max(math.Abs(float64(x)), math.Abs(float64(y)), math.Abs(float64(z)))
	return r*(1+1e-5) + 1e-6*(m+r)
}
