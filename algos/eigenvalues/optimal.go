package eigenvalues

import (
	"cmp"
	"errors"
	"math"

	"github.com/pctk/pctk/algos/internal/eigen"
	"github.com/pctk/pctk/algos/internal/knn"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// OptimalOptions configure Optimal, filters.optimalneighborhood. The zero
// value is PDAL's defaults (min_k 10, max_k 14).
type OptimalOptions struct {
	// MinK and MaxK bound the neighbourhood sizes tried, the point itself
	// counted (PDAL's min_k and max_k); 0 means DefaultOptimalMinK and
	// DefaultOptimalMaxK.
	MinK, MaxK int
	// Pos and Origin are as in Options.
	Pos    []float64
	Origin [3]float64
	// Build tunes the neighbour index (workers, progress).
	Build findneighbor.BuildOptions
}

func (o OptimalOptions) ks() (lo, hi int) {
	return cmp.Or(o.MinK, DefaultOptimalMinK), cmp.Or(o.MaxK, DefaultOptimalMaxK)
}

// Validate reports whether the options make sense; a parameter out of its
// limits is a *findneighbor.ParamError naming it as PDAL does.
func (o OptimalOptions) Validate() error {
	lo, hi := o.ks()
	return errors.Join(
		findneighbor.CheckMin("optimalneighborhood", "min_k", o.MinK, 0),
		findneighbor.CheckMin("optimalneighborhood", "max_k", o.MaxK, 0),
		findneighbor.CheckMin("optimalneighborhood", "max_k", hi, lo))
}

// OptimalResult holds Optimal's columns.
type OptimalResult struct {
	// OptimalKNN is the neighbourhood size k in [MinK, MaxK], the point
	// counted, whose covariance has the least eigenentropy, the first
	// such k (0 where every entropy is NaN, as for coincident points).
	OptimalKNN []uint64
	// OptimalRadius is the distance to the last point of that
	// neighbourhood (0 with OptimalKNN 0).
	OptimalRadius []float64
	// Reach is, per point, the float32 distance to the (MaxK-1)-th
	// nearest other point.
	Reach []float64
}

// Optimal returns PDAL's filters.optimalneighborhood columns for every
// point of xyz (interleaved x, y, z, float32 relative to a local origin)
// with backend b, following OptimalNeighborhood::filter: the point and its
// MaxK-1 nearest, their covariance updated one point at a time (running
// centroid, Σ (n-1)/n·dd ᵀ), and for each k from MinK on the entropy
// -Σ λ̂ ln λ̂ of its eigenvalues clamped at 0 and normalized to sum 1.
func Optimal(xyz []float32, b findneighbor.Backend, opts OptimalOptions) (*OptimalResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	n, err := findneighbor.CheckPoints("optimalneighborhood", xyz)
	if err != nil {
		return nil, err
	}
	pos, err := knn.Positions("optimalneighborhood", xyz, opts.Pos, opts.Origin)
	if err != nil {
		return nil, err
	}
	lo, hi := opts.ks()
	res := &OptimalResult{OptimalKNN: make([]uint64, n), OptimalRadius: make([]float64, n)}
	res.Reach, err = knn.Nearest("optimalneighborhood", xyz, pos, b, hi, 1, opts.Build, func(p int, ids []int32) {
		best := math.MaxFloat64
		entropies(pos, ids, lo, func(k int, e float64) {
			if e < best {
				best = e
				res.OptimalKNN[p] = uint64(k)
				res.OptimalRadius[p] = knn.Dist(pos, int32(p), ids[k-1])
			}
		})
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// entropies calls fn with the eigenentropy of the first k points of ids
// for every k from lo on, in increasing k, as OptimalNeighborhood::filter
// computes them: the covariance updated one point at a time (running
// centroid, B += (n-1)/n·ddᵀ), divided by k-1, its eigenvalues clamped
// at 0 and normalized to sum 1 (NaN where they sum to 0).
func entropies(pos []float64, ids []int32, lo int, fn func(k int, e float64)) {
	var m [3]float64
	var c eigen.Sym3
	for k, q := range ids {
		var d [3]float64
		nk := float64(k + 1)
		for a := range 3 {
			d[a] = pos[3*int(q)+a] - m[a]
			m[a] += d[a] / nk
		}
		s := (nk - 1) / nk
		c[0] += float64(float64(s*d[0]) * d[0])
		c[3] += float64(float64(s*d[1]) * d[1])
		c[5] += float64(float64(s*d[2]) * d[2])
		c[1] += float64(float64(s*d[0]) * d[1])
		c[2] += float64(float64(s*d[0]) * d[2])
		c[4] += float64(float64(s*d[1]) * d[2])
		if k+1 < lo {
			continue
		}
		var b eigen.Sym3
		for i := range c {
			b[i] = c[i] / (nk - 1)
		}
		ev := eigen.Values(b)
		l := [3]float64{max(ev[2], 0), max(ev[1], 0), max(ev[0], 0)}
		sum := l[0] + l[1] + l[2]
		for i := range l {
			l[i] /= sum
		}
		fn(k+1, -(l[2]*math.Log(l[2]) + l[1]*math.Log(l[1]) + l[0]*math.Log(l[0])))
	}
}
