package denoise

import (
	"fmt"

	"github.com/pctk/pctk/algos/internal/knn"
	"github.com/pctk/pctk/algos/internal/pairs"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// pdalMeans fills r.MeanDist and r.Reach as PDAL's
// OutlierFilter::processStatistical computes the mean distance: the K
// nearest other points (knn.Find on b, K + knn.Spare candidates, then
// the K smallest float64 distances from pos, or xyz, taken in increasing
// order) enter the running mean d += (√dist² − d)/j, j = 1..K; where the
// cloud has fewer than K other points, PDAL's unfound slots hold 0 and
// enter the mean as distances 0. Exactly tied distances give the same
// mean whichever tied point is taken, so only candidates whose float32
// order left a point beyond them possibly as close as the K-th can differ
// from PDAL: r.NearTies counts them.
func pdalMeans(xyz []float32, pos []float64, b findneighbor.Backend, k int, bo findneighbor.BuildOptions, r *StatisticalResult) error {
	n := len(xyz) / 3
	r.Reach = make([]float64, n)
	tab, err := knn.Find("denoise statistical", xyz, b, k+knn.Spare, bo)
	if err != nil {
		return err
	}
	kk, dist := tab.K, tab.Dist
	if kk == 0 {
		return nil // one point: K zeros
	}
	pos, err = knn.Positions("denoise statistical", xyz, pos, [3]float64{})
	if err != nil {
		return err
	}
	// slack bounds the difference between a float32 distance and the
	// float64 one of the same pair (as pairs.Reach widens a radius).
	slack := pairs.Reach(0, findneighbor.BoxOf(xyz))
	rs := par.Ranges(n, 1<<12)
	ties := make([]int, len(rs))
	par.For(rs, func(w, lo, hi int) {
		var d []float64
		for i := lo; i < hi; i++ {
			d = tab.Dists(pos, i, d)
			mean := 0.0
			for j := 1; j <= k; j++ {
				v := 0.0
				if j <= len(d) {
					v = d[j-1]
				}
				mean += (v - mean) / float64(j)
			}
			r.MeanDist[i] = mean
			far := float64(dist[(i+1)*kk-1])
			r.Reach[i] = far
			if kk < n-1 && k <= len(d) && far*(1-1e-5)-slack < d[k-1] {
				ties[w]++
			}
		}
	})
	for _, t := range ties {
		r.NearTies += t
	}
	return nil
}

// pdalCounts stores in counts the number of other points strictly closer
// than o.Radius to each point in float64 (from o.Pos or xyz), or
// o.MinNeighbors where there are at least that many (pairs.Counts stops
// there: the outcome is the same): PDAL's processRadius counts with
// KD3Index::radius.
func pdalCounts(xyz []float32, o RadiusOptions, counts []uint32) error {
	if err := pairs.Counts(xyz, o.Pos, o.Radius, max(o.MinNeighbors, 1), o.Build.Workers, counts); err != nil {
		return fmt.Errorf("denoise: radius: %w", err)
	}
	return nil
}
