package stage

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
)

// knnMoments calls fn with the moments of every point's k nearest other
// points (k > 0) among the points of in, as findneighbor's
// KNearestMomentsFunc computes them on the whole cloud (summed in
// KNearest's order, distance then index, which a tile's points in global
// order share with the whole cloud), and returns each point's reach: the
// distance of its k-th nearest, +Inf where the points hold fewer than k
// others (the whole run, then, tells); nil on the whole run
// (LocalInput.Whole). fn is called from several goroutines at once, each
// with points of its own; op names the stage in errors.
func knnMoments(op string, in *LocalInput, k int, fn func(pts []int32, m []findneighbor.Moment)) ([]float64, error) {
	n := len(in.XYZ) / 3
	var reach []float64
	if !in.Whole {
		reach = make([]float64, n)
	}
	kq := min(k, n-1)
	if kq < k && reach != nil {
		for i := range reach {
			reach[i] = math.Inf(1)
		}
	}
	if kq <= 0 {
		return reach, nil
	}
	if in.Whole {
		return nil, findneighbor.KNearestMomentsFunc(in.Backend, in.XYZ, kq, in.Build, fn)
	}
	err := findneighbor.KNearestMomentsFarFunc(in.Backend, in.XYZ, kq, in.Build, func(pts []int32, m []findneighbor.Moment, far []float32) {
		if kq == k {
			for j, i := range pts {
				reach[i] = float64(far[j])
			}
		}
		fn(pts, m)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %d nearest (%s): %w", op, k, in.Backend.Name(), err)
	}
	return reach, nil
}

// constReach returns the reach r for each of n points: counts within r.
func constReach(n int, r float64) []float64 {
	reach := make([]float64, n)
	for i := range reach {
		reach[i] = r
	}
	return reach
}

// localMoments calls fn with the moments of each point's neighbourhood
// among the points of in, as the whole cloud's run sums them: its k
// nearest other points (r = 0: knnMoments), or the points within r, the k
// nearest of them with k > 0, from an index of radius r (a local stage
// of Moments and Halo r: such sums follow the grid's cells, so the reach
// is cpu.TileHalo's, in the whole run's extent). fn is called as
// knnMoments calls it.
func localMoments(op string, in *LocalInput, r float64, k int, fn func(pts []int32, m []findneighbor.Moment)) ([]float64, error) {
	if r == 0 {
		return knnMoments(op, in, k, fn)
	}
	ix, err := in.Backend.Build(in.XYZ, float32(r), in.Build)
	if err != nil {
		return nil, fmt.Errorf("%s: %s backend: %w", op, in.Backend.Name(), err)
	}
	defer ix.Close()
	if err := findneighbor.MomentsFunc(ix, in.XYZ, k, in.Build.Workers, fn); err != nil {
		return nil, fmt.Errorf("%s: %s moments: %w", op, in.Backend.Name(), err)
	}
	if in.Whole {
		return nil, nil
	}
	// The float32 frame's extent is at most the run's, give or take the
	// coordinates' rounding (as the out-of-core halo takes it).
	extent := max(in.Max[0]-in.Min[0], in.Max[1]-in.Min[1], in.Max[2]-in.Min[2]) * (1 + 1e-6)
	return constReach(len(in.XYZ)/3, cpu.TileHalo(float32(r), extent)), nil
}
