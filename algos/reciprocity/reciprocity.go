package reciprocity

import (
	"cmp"
	"slices"

	"github.com/pctk/pctk/algos/internal/knn"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// DefaultKNN is PDAL's default knn.
const DefaultKNN = 8

// Options configure Compute. The zero value is PDAL's defaults.
type Options struct {
	// KNN is the number of nearest other points, PDAL's knn; 0 means
	// DefaultKNN. In a cloud of KNN points or fewer every point is among
	// every other's nearest.
	KNN int
	// Pos, when not nil, holds the points' float64 coordinates (any
	// frame: PDAL's absolute ones give its neighbourhoods), in which the
	// KNN nearest are ranked among the KNN + knn.Spare nearest in float32
	// (nil: xyz widened).
	Pos []float64
	// Build tunes the neighbour index (workers, progress).
	Build findneighbor.BuildOptions
}

// Validate reports whether the options make sense; a parameter out of its
// limits is a *findneighbor.ParamError naming it as PDAL does ("knn").
func (o Options) Validate() error {
	return findneighbor.CheckMin("reciprocity", "knn", o.KNN, 0)
}

func (o Options) knn() int {
	return cmp.Or(o.KNN, DefaultKNN)
}

// Result holds Compute's column.
type Result struct {
	// Reciprocity is 100·u/KNN, u the number of the point's KNN nearest
	// that do not have it among their KNN nearest.
	Reciprocity []float64
	// Reach is, per point, max over its nearest o of d(p, o) plus o's
	// distance to its farthest candidate (float32 search distances): the
	// points its value depends on lie within it.
	Reach []float64
}

// Compute returns PDAL's Reciprocity of every point of xyz (interleaved
// x, y, z, float32 relative to a local origin) with backend b. The
// neighbourhoods are chosen in float32; no float64 coordinates are needed.
func Compute(xyz []float32, b findneighbor.Backend, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	pos, err := knn.Positions("reciprocity", xyz, opts.Pos, [3]float64{})
	if err != nil {
		return nil, err
	}
	t, err := knn.Find("reciprocity", xyz, b, opts.knn()+knn.Spare, opts.Build)
	if err != nil {
		return nil, err
	}
	t = t.Ranked(pos, opts.knn())
	n := len(xyz) / 3
	res := &Result{Reciprocity: make([]float64, n), Reach: t.Hop(t.Kth(n))}
	if t.K == 0 {
		return res, nil
	}
	k := float64(opts.knn())
	par.For(par.Ranges(n, par.Grain/t.K), func(_, lo, hi int) {
		for p := lo; p < hi; p++ {
			idx, _ := t.Of(p)
			uni := 0
			for _, o := range idx {
				if on, _ := t.Of(int(o)); !slices.Contains(on, int32(p)) {
					uni++
				}
			}
			res.Reciprocity[p] = 100.0 * float64(uni) / k
		}
	})
	return res, nil
}
