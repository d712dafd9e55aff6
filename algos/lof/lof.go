package lof

import (
	"cmp"
	"strconv"

	"github.com/pctk/pctk/algos/internal/knn"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// DefaultMinPts is PDAL's default minpts.
const DefaultMinPts = 10

// Convention chooses whose definition of the neighbourhood and the means
// Compute follows.
type Convention string

const (
	// PDAL is filters.lof's: a point's neighbourhood is the MinPts+1
	// nearest points, the point itself among them (at distance 0), and the
	// means are running means over those MinPts+1 (M += (x - M)/n).
	PDAL Convention = "pdal"
	// Sklearn is scikit-learn's LocalOutlierFactor(n_neighbors=MinPts): the
	// MinPts nearest other points, plain means, and the local reachability
	// density 1/(mean + 1e-10). LocalOutlierFactor is then the positive
	// LOF, -negative_outlier_factor_.
	Sklearn Convention = "sklearn"
)

// sklearnEps is what scikit-learn adds to the mean reachability distance
// before inverting it (sklearn/neighbors/_lof.py,
// _local_reachability_density), so that duplicates give no NaN.
const sklearnEps = 1e-10

// Options configure Compute. The zero value is PDAL's filters.lof with its
// defaults.
type Options struct {
	// MinPts is k, the number of nearest other points whose distances make
	// a point's k-distance, PDAL's minpts; 0 means DefaultMinPts. A cloud of
	// MinPts points or fewer uses all its other points.
	MinPts int
	// Convention is PDAL (also "") or Sklearn.
	Convention Convention
	// Pos, when not nil, holds the points' float64 coordinates (interleaved
	// x, y, z relative to the same origin as xyz), from which the distances
	// are computed, as PDAL computes them from its double coordinates; nil
	// takes them from xyz. Neighbours are chosen in float32 (xyz) either way.
	Pos []float64
	// Origin is the local origin of xyz and Pos (core.Local.Origin): PDAL
	// computes from absolute coordinates: Pos + Origin (knn.Positions;
	// the stages pass the coordinates as read, LocalInput.Abs, and 0).
	Origin [3]float64
	// Build tunes the neighbour index (workers, progress).
	Build findneighbor.BuildOptions
}

// Validate reports whether the options make sense; a parameter out of its
// limits is a *findneighbor.ParamError naming it as PDAL does ("minpts").
func (o Options) Validate() error {
	if err := findneighbor.CheckMin("lof", "minpts", o.MinPts, 0); err != nil {
		return err
	}
	switch o.Convention {
	case "", PDAL, Sklearn:
		return nil
	}
	return &findneighbor.ParamError{Op: "lof", Param: "convention", Value: strconv.Quote(string(o.Convention)), Want: `"pdal" or "sklearn"`}
}

func (o Options) minPts() int {
	return cmp.Or(o.MinPts, DefaultMinPts)
}

// Result holds Compute's columns, one value per point.
type Result struct {
	// NNDistance is the k-distance: the distance to the MinPts-th nearest
	// other point.
	NNDistance []float64
	// LocalReachabilityDistance is the local reachability density: the
	// inverse of the mean, over the neighbourhood o, of the reachability
	// distance max(NNDistance[o], d(p, o)) (PDAL's dimension name).
	LocalReachabilityDistance []float64
	// LocalOutlierFactor is the mean over the neighbourhood o of
	// LocalReachabilityDistance[o] / LocalReachabilityDistance[p]: about 1
	// inside a cluster, larger for outliers.
	LocalOutlierFactor []float64
	// Reach is, per point, a distance such that its three values depend
	// only on the points within Reach of it: its neighbours o, their
	// neighbours q and the k nearest of those q (whose k-distances the
	// densities of the o use), bounded by max over o and q of
	// d(p, o) + d(o, q) + NNDistance[q] in the float32 distances of the
	// neighbour search.
	Reach []float64
}

// Compute returns the LOF columns of every point of xyz (interleaved x, y,
// z, float32 relative to a local origin) with backend b.
func Compute(xyz []float32, b findneighbor.Backend, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	n, err := findneighbor.CheckPoints("lof", xyz)
	if err != nil {
		return nil, err
	}
	pos, err := knn.Positions("lof", xyz, opts.Pos, opts.Origin)
	if err != nil {
		return nil, err
	}
	// PDAL's neighbourhoods: the minpts nearest in float64 among the
	// minpts + Spare nearest in float32.
	t, err := knn.Find("lof", xyz, b, opts.minPts()+knn.Spare, opts.Build)
	if err != nil {
		return nil, err
	}
	t = t.Ranked(pos, opts.minPts())
	res := &Result{
		NNDistance:                make([]float64, n),
		LocalReachabilityDistance: make([]float64, n),
		LocalOutlierFactor:        make([]float64, n),
	}
	res.Reach = t.Hop(t.Hop(t.Kth(n)))
	c := calc{t: t, res: res, sk: opts.Convention == Sklearn, d: make([]float64, n*t.K)}
	rs := par.Ranges(n, par.Grain/max(t.K, 1))
	par.For(rs, func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			idx, _ := t.Of(p)
			d := c.d[p*t.K : (p+1)*t.K]
			for j, o := range idx {
				d[j] = knn.Dist(pos, int32(p), o)
				res.NNDistance[p] = max(res.NNDistance[p], d[j])
			}
		}
	})
	par.For(rs, func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			res.LocalReachabilityDistance[p] = c.lrd(p)
		}
	})
	par.For(rs, func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			res.LocalOutlierFactor[p] = c.lof(p)
		}
	})
	return res, nil
}

// calc holds what the three passes share: the neighbours, their float64
// distances d (as t lays them out) and the columns.
type calc struct {
	t   *knn.Table
	d   []float64
	res *Result
	sk  bool
}

// lrd returns point p's local reachability density. The k-distance of a
// point is the largest float64 distance of its k nearest (PDAL's
// sqrt(sqr_dists[minpts]), the last of nanoflann's sorted list).
func (c *calc) lrd(p int) float64 {
	idx, _ := c.t.Of(p)
	d := c.d[p*c.t.K : (p+1)*c.t.K]
	kd := c.res.NNDistance
	if c.sk {
		s := 0.0
		for j, o := range idx {
			s += max(kd[o], d[j])
		}
		return 1 / (s/float64(len(idx)) + sklearnEps)
	}
	// PDAL: the point itself first, at distance 0, then the others.
	m, n := kd[p], 1.0
	for j, o := range idx {
		n++
		m += (max(kd[o], d[j]) - m) / n
	}
	return 1 / m
}

// lof returns point p's local outlier factor.
func (c *calc) lof(p int) float64 {
	idx, _ := c.t.Of(p)
	lrd := c.res.LocalReachabilityDistance
	if c.sk {
		s := 0.0
		for _, o := range idx {
			s += lrd[o] / lrd[p]
		}
		return s / float64(len(idx))
	}
	m, n := lrd[p]/lrd[p], 1.0
	for _, o := range idx {
		n++
		m += (lrd[o]/lrd[p] - m) / n
	}
	return m
}
