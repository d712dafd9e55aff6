// Package pairs finds the pairs of points strictly closer than a radius
// in float64, the rule of PDAL's KD3Index::radius and KD2Index::radius
// (PDAL 2.9.2, pdal/private/KDImpl.hpp over nanoflann's RadiusResultSet,
// whose addPoint keeps dist < r², dist the float64 sum of the squared
// coordinate differences in axis order), on pctk's float32 neighbour index,
// which answers ≤ r in float32: it asks the index for the pairs within the
// wider Reach, then tests each in float64. The algorithms that follow PDAL
// at the radius (cluster, denoise's pdal convention) share it.
package pairs

import (
	"errors"
	"fmt"
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

// batchEntries bounds the neighbour lists held at once.
const batchEntries = 1 << 22

// Within calls fn(i, j) for every pair i < j of the points xyz (float32,
// interleaved) with dx²+dy²(+dz² unless flat) < r² in float64, the
// differences taken from pos (float64 coordinates relative to the origin
// of xyz, interleaved; nil: xyz widened), pairs in increasing i, then j.
// An error from fn stops the search and is returned.
func Within(xyz []float32, pos []float64, flat bool, r float64, b findneighbor.Backend, bo findneighbor.BuildOptions, fn func(i, j int) error) error {
	if pos != nil && len(pos) != len(xyz) {
		return fmt.Errorf("%d float64 coordinates for %d points", len(pos), len(xyz)/3)
	}
	if len(xyz) == 0 {
		return nil
	}
	pts, dims := xyz, 3
	if flat {
		pts, dims = make([]float32, len(xyz)), 2
		for i := 0; i < len(xyz); i += 3 {
			pts[i], pts[i+1] = xyz[i], xyz[i+1]
		}
	}
	bo.Reuse = false
	ix, err := b.Build(pts, float32(Reach(r, findneighbor.BoxOf(pts))), bo)
	if err != nil {
		return fmt.Errorf("%s backend: build index: %w", b.Name(), err)
	}
	defer ix.Close()
	at := func(i, a int) float64 {
		if pos != nil {
			return pos[3*i+a]
		}
		return float64(xyz[3*i+a])
	}
	r2 := r * r
	pairs := func(first int, csr *findneighbor.CSR) error {
		for q := range len(csr.Offsets) - 1 {
			i := first + q
			for _, j32 := range csr.Indices[csr.Offsets[q]:csr.Offsets[q+1]] {
				j := int(j32)
				if j <= i {
					continue
				}
				// nanoflann's L2_Simple_Adaptor::evalMetric: the squared
				// differences added in axis order from 0, each product
				// rounded (the conversion forbids a fused multiply-add).
				d2 := 0.0
				for a := range dims {
					d := at(i, a) - at(j, a)
					d2 += float64(d * d)
				}
				if d2 < r2 {
					if err := fn(i, j); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	// The whole cloud's lists at once when they are few (one traversal
	// less than Batches, which counts first); else in batches.
	csr, err := ix.Neighbors(nil, findneighbor.NeighborOptions{MaxEntries: batchEntries})
	if errors.Is(err, findneighbor.ErrTooLarge) {
		return findneighbor.Batches(ix, pts, nil, findneighbor.NeighborOptions{}, batchEntries, pairs)
	}
	if err != nil {
		return err
	}
	return pairs(0, csr)
}
