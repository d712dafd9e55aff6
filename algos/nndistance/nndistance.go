package nndistance

import (
	"cmp"
	"strconv"

	"github.com/pctk/pctk/algos/internal/knn"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// DefaultK is PDAL's default k.
const DefaultK = 10

// Mode says what NNDistance is made of, PDAL's mode.
type Mode string

const (
	// Kth is the distance to the k-th nearest other point (PDAL's
	// default).
	Kth Mode = "kth"
	// Avg is the mean distance to the k nearest other points.
	Avg Mode = "avg"
)

// Options configure Compute. The zero value is PDAL's defaults.
type Options struct {
	// Mode is Kth (also "") or Avg.
	Mode Mode
	// K is the number of nearest other points, PDAL's k; 0 means
	// DefaultK. A cloud of K points or fewer uses all its other points.
	K int
	// Pos, when not nil, holds the points' float64 coordinates
	// (interleaved, relative to the same origin as xyz), from which the
	// distances are computed, as PDAL does from its double coordinates;
	// nil takes them from xyz. The k nearest are those nearest in float64
	// among the k + knn.Spare nearest in float32.
	Pos []float64
	// Origin is the local origin of xyz and Pos (core.Local.Origin): PDAL
	// computes from absolute coordinates: Pos + Origin (knn.Positions;
	// the stages pass the coordinates as read, LocalInput.Abs, and 0).
	Origin [3]float64
	// Build tunes the neighbour index (workers, progress).
	Build findneighbor.BuildOptions
}

// Validate reports whether the options make sense; a parameter out of its
// limits is a *findneighbor.ParamError naming it as PDAL does ("k").
func (o Options) Validate() error {
	if err := findneighbor.CheckMin("nndistance", "k", o.K, 0); err != nil {
		return err
	}
	switch o.Mode {
	case "", Kth, Avg:
		return nil
	}
	return &findneighbor.ParamError{Op: "nndistance", Param: "mode", Value: strconv.Quote(string(o.Mode)), Want: `"kth" or "avg"`}
}

// Result holds Compute's column.
type Result struct {
	// NNDistance is the k-th nearest distance or the mean of the k
	// nearest, per point (0 for a cloud of one point).
	NNDistance []float64
	// Reach is, per point, the float32 distance to its farthest candidate
	// (the (k + knn.Spare)-th nearest; +Inf where the cloud has fewer):
	// its value depends on the points within it.
	Reach []float64
}

// Compute returns PDAL's NNDistance of every point of xyz (interleaved x,
// y, z, float32 relative to a local origin) with backend b.
func Compute(xyz []float32, b findneighbor.Backend, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	n, err := findneighbor.CheckPoints("nndistance", xyz)
	if err != nil {
		return nil, err
	}
	pos, err := knn.Positions("nndistance", xyz, opts.Pos, opts.Origin)
	if err != nil {
		return nil, err
	}
	k := cmp.Or(opts.K, DefaultK)
	t, err := knn.Find("nndistance", xyz, b, k+knn.Spare, opts.Build)
	if err != nil {
		return nil, err
	}
	// Reach: the farthest candidate, whose float32 distance bounds the
	// points the ranking looked at.
	res := &Result{NNDistance: make([]float64, n), Reach: t.Kth(n)}
	if t.K == 0 {
		return res, nil
	}
	avg := opts.Mode == Avg
	par.For(par.Ranges(n, par.Grain/t.K), func(_, lo, hi int) {
		var d []float64
		for p := lo; p < hi; p++ {
			// The k nearest in nanoflann's order, by float64 distance,
			// among the k + Spare nearest in float32.
			d = t.Dists(pos, p, d)
			d = d[:min(k, len(d))]
			if !avg {
				res.NNDistance[p] = d[len(d)-1]
				continue
			}
			s := 0.0
			for _, v := range d {
				s += v
			}
			res.NNDistance[p] = s / float64(len(d))
		}
	})
	return res, nil
}
