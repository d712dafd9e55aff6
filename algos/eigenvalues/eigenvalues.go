package eigenvalues

import (
	"cmp"
	"errors"

	"github.com/pctk/pctk/algos/internal/eigen"
	"github.com/pctk/pctk/algos/internal/knn"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// PDAL's defaults.
const (
	// DefaultKNN is filters.eigenvalues' and approximatecoplanar's knn.
	DefaultKNN = 8
	// DefaultMinK is filters.eigenvalues' min_k, for a radius.
	DefaultMinK = 3
	// DefaultThresh1 and DefaultThresh2 are approximatecoplanar's
	// thresholds.
	DefaultThresh1, DefaultThresh2 = 25.0, 6.0
	// DefaultOptimalMinK and DefaultOptimalMaxK are
	// optimalneighborhood's min_k and max_k.
	DefaultOptimalMinK, DefaultOptimalMaxK = 10, 14
)

// Options configure Compute, filters.eigenvalues. The zero value is
// PDAL's defaults (knn 8, no radius, stride 1, min_k 3).
type Options struct {
	// KNN is the number of nearest other points in a neighbourhood, which
	// is the point and its KNN nearest (PDAL's knn, its kd-tree asked for
	// knn+1); 0 means DefaultKNN. Ignored with a Radius, as in PDAL.
	KNN int
	// Stride keeps every Stride-th of the Stride·(KNN+1) nearest points,
	// the point itself first (PDAL's stride); 0 means 1.
	Stride int
	// Radius, when > 0, makes the neighbourhood every point within it, the
	// point included (PDAL's radius).
	Radius float64
	// MinK is the smallest radius neighbourhood, the point counted, that
	// gets eigenvalues; 0 means DefaultMinK (PDAL's min_k).
	MinK int
	// Normalize divides the eigenvalues by their sum (PDAL's normalize).
	Normalize bool
	// Pos, when not nil, holds the points' float64 coordinates
	// (interleaved, relative to the same origin as xyz), from which the
	// covariances are computed as PDAL computes them from its doubles; nil
	// takes them from xyz. Neighbours are chosen in float32 either way.
	Pos []float64
	// Origin is the local origin of xyz and Pos (core.Local.Origin): PDAL
	// computes from absolute coordinates: Pos + Origin (knn.Positions;
	// the stages pass the coordinates as read, LocalInput.Abs, and 0).
	Origin [3]float64
	// Build tunes the neighbour index (workers, progress).
	Build findneighbor.BuildOptions
}

// Validate reports whether the options make sense; a parameter out of its
// limits is a *findneighbor.ParamError naming it as PDAL does.
func (o Options) Validate() error {
	return errors.Join(
		findneighbor.CheckMin("eigenvalues", "knn", o.KNN, 0),
		findneighbor.CheckMin("eigenvalues", "stride", o.Stride, 0),
		findneighbor.CheckRadius("eigenvalues", "radius", o.Radius, true),
		findneighbor.CheckMin("eigenvalues", "min_k", o.MinK, 0))
}

// Result holds Compute's columns.
type Result struct {
	// Eigenvalue0, Eigenvalue1 and Eigenvalue2 are the covariance's
	// eigenvalues, ascending (normalized to sum 1 with Normalize); 0 for a
	// skipped point (what PDAL leaves there).
	Eigenvalue0, Eigenvalue1, Eigenvalue2 []float64
	// Skipped counts the points without eigenvalues: a radius
	// neighbourhood smaller than MinK, a covariance within
	// eigen.ZeroCovariance of 0, or a neighbourhood of the point alone.
	Skipped int
	// Reach is, per point, the distance to the farthest point of its
	// neighbourhood's search (the radius, or the float32 distance of the
	// last of the nearest kept).
	Reach []float64
}

// Compute returns PDAL's filters.eigenvalues columns for every point of
// xyz (interleaved x, y, z, float32 relative to a local origin) with
// backend b.
func Compute(xyz []float32, b findneighbor.Backend, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	n, err := findneighbor.CheckPoints("eigenvalues", xyz)
	if err != nil {
		return nil, err
	}
	pos, err := knn.Positions("eigenvalues", xyz, opts.Pos, opts.Origin)
	if err != nil {
		return nil, err
	}
	res := &Result{Eigenvalue0: make([]float64, n), Eigenvalue1: make([]float64, n), Eigenvalue2: make([]float64, n)}
	skipped := make([]int, n)
	set := func(p int, ids []int32) {
		if len(ids) < 2 {
			// A cloud of one point: PDAL's 0/0 covariance makes Eigen
			// fail; pctk skips it.
			skipped[p] = 1
			return
		}
		c := eigen.PDALCovariance(pos, ids)
		if eigen.IsZero(c) {
			skipped[p] = 1
			return
		}
		ev := eigen.Values(c)
		if opts.Normalize {
			sum := ev[0] + ev[1] + ev[2]
			for i := range ev {
				ev[i] /= sum
			}
		}
		res.Eigenvalue0[p], res.Eigenvalue1[p], res.Eigenvalue2[p] = ev[0], ev[1], ev[2]
	}
	if opts.Radius > 0 {
		minK := cmp.Or(opts.MinK, DefaultMinK)
		res.Reach = make([]float64, n)
		err = knn.Within("eigenvalues", xyz, b, opts.Radius, opts.Build, func(p int, ids []int32) {
			res.Reach[p] = opts.Radius
			if len(ids) < minK {
				skipped[p] = 1
				return
			}
			set(p, ids)
		})
	} else {
		res.Reach, err = knn.Nearest("eigenvalues", xyz, pos, b, cmp.Or(opts.KNN, DefaultKNN)+1, max(opts.Stride, 1), opts.Build, set)
	}
	if err != nil {
		return nil, err
	}
	for _, s := range skipped {
		res.Skipped += s
	}
	return res, nil
}
