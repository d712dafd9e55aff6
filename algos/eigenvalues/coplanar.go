package eigenvalues

import (
	"cmp"
	"errors"

	"github.com/pctk/pctk/algos/internal/eigen"
	"github.com/pctk/pctk/algos/internal/knn"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// CoplanarOptions configure Coplanar, filters.approximatecoplanar. The
// zero value is PDAL's defaults (knn 8, thresh1 25, thresh2 6).
type CoplanarOptions struct {
	// KNN is the number of points in a neighbourhood, the point itself
	// counted (PDAL's knn, its kd-tree asked for knn, not knn+1); 0 means
	// DefaultKNN.
	KNN int
	// Thresh1 and Thresh2 are PDAL's thresh1 and thresh2; 0 means
	// DefaultThresh1 and DefaultThresh2.
	Thresh1, Thresh2 float64
	// Pos and Origin are as in Options.
	Pos    []float64
	Origin [3]float64
	// Build tunes the neighbour index (workers, progress).
	Build findneighbor.BuildOptions
}

// Validate reports whether the options make sense; a parameter out of its
// limits is a *findneighbor.ParamError naming it as PDAL does.
func (o CoplanarOptions) Validate() error {
	return errors.Join(
		findneighbor.CheckMin("approximatecoplanar", "knn", o.KNN, 0),
		findneighbor.CheckFloat("approximatecoplanar", "thresh1", o.Thresh1),
		findneighbor.CheckFloat("approximatecoplanar", "thresh2", o.Thresh2))
}

// CoplanarResult holds Coplanar's column.
type CoplanarResult struct {
	// Coplanar is 1 where the covariance's ascending eigenvalues λ0 ≤ λ1 ≤
	// λ2 have λ1 > Thresh1·λ0 and Thresh2·λ1 > λ2, else 0 (also for a
	// covariance within eigen.ZeroCovariance of 0, which PDAL skips).
	Coplanar []uint8
	// Reach is, per point, the float32 distance to the last of its
	// neighbourhood.
	Reach []float64
}

// Coplanar returns PDAL's filters.approximatecoplanar column for every
// point of xyz (interleaved x, y, z, float32 relative to a local origin)
// with backend b.
func Coplanar(xyz []float32, b findneighbor.Backend, opts CoplanarOptions) (*CoplanarResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	n, err := findneighbor.CheckPoints("approximatecoplanar", xyz)
	if err != nil {
		return nil, err
	}
	pos, err := knn.Positions("approximatecoplanar", xyz, opts.Pos, opts.Origin)
	if err != nil {
		return nil, err
	}
	k, t1, t2 := cmp.Or(opts.KNN, DefaultKNN), cmp.Or(opts.Thresh1, DefaultThresh1), cmp.Or(opts.Thresh2, DefaultThresh2)
	res := &CoplanarResult{Coplanar: make([]uint8, n)}
	res.Reach, err = knn.Nearest("approximatecoplanar", xyz, pos, b, k, 1, opts.Build, func(p int, ids []int32) {
		c := eigen.PDALCovariance(pos, ids)
		if eigen.IsZero(c) {
			return
		}
		ev := eigen.Values(c)
		if ev[1] > t1*ev[0] && t2*ev[1] > ev[2] {
			res.Coplanar[p] = 1
		}
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
