package stage

import (
	"math"

	"github.com/pctk/pctk/algos/denoise"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
)

// pctk denoise statistical|radius --convention pdal: PDAL's
// filters.outlier (docs/denoise.md) as local stages whose outcome needs
// the whole run (Local.Reduce): each point's mean distance or count is
// local, the threshold and PDAL's all-outliers rule global.

// pdalOutcome sets the outcome of filters.outlier: outliers classified
// (PDAL never removes them) unless --mode says otherwise.
func pdalOutcome(c Values, a *Outcome) error {
	if c.IsSet("mode") {
		return nil
	}
	if a.invert {
		return Usagef("--invert applies to --mode remove; --convention pdal classifies, as PDAL does, so say --mode remove")
	}
	a.mode = "classify"
	return nil
}

// pdalStatistical is denoise statistical under PDAL's convention: each
// point's mean distance (a hidden column), then Welford's statistics over
// them in point order and the threshold.
func pdalStatistical(c Values, a *Outcome, opts denoise.StatisticalOptions) (*Job, error) {
	if err := pdalOutcome(c, a); err != nil {
		return nil, err
	}
	cols := []core.Dimension{{Name: "MeanDistance", Type: core.Float64}}
	l := &Local{Columns: cols, Hidden: 1, KNN: opts.K, Outcome: a}
	l.Compute = func(in *LocalInput) ([]*core.Attribute, []float64, error) {
		o := opts
		o.Pos, o.Build = in.Abs, in.Build // absolute, as PDAL computes
		r, err := denoise.Statistical(in.XYZ, in.Backend, o)
		if err != nil {
			return nil, nil, err
		}
		return float64Columns(cols, r.MeanDist), r.Reach, nil
	}
	var red *denoise.Reduction // the outcome's, made once for its g
	l.Reduce = &Reduction{
		// g: the mean, deviation and threshold, and 1 when every point is
		// an outlier (then none is flagged).
		Run: func(each Each) ([]float64, error) {
			r := opts.NewReduction()
			if err := each(func(cols []*core.Attribute, lo, hi int) { r.AddAll(0, cols[0].Data.([]float64)[lo:hi], nil) }); err != nil {
				return nil, err
			}
			r.EndPass(0)
			all, err := allOutliers(each, func(cols []*core.Attribute, i int) bool { return r.Outlier(cols[0].Float64(i), 0) })
			return []float64{r.Mean, r.Std, r.Threshold, b2f(all)}, err
		},
		Outlier: func(g []float64, cols []*core.Attribute, i int) bool {
			if red == nil || math.Float64bits(red.Threshold) != math.Float64bits(g[2]) {
				red = opts.NewReduction()
				red.Threshold = g[2]
			}
			return g[3] == 0 && red.Outlier(cols[0].Float64(i), 0)
		},
		Stats: func(g []float64) (string, map[string]any) { return statisticalStats(opts, g[0], g[1], g[2]) },
	}
	return &Job{Local: l}, nil
}

// pdalRadius is denoise radius under PDAL's convention: each point's
// count of other points strictly within the radius in float64 (a hidden
// column), outliers below min_k.
func pdalRadius(c Values, a *Outcome, opts denoise.RadiusOptions) (*Job, error) {
	if err := pdalOutcome(c, a); err != nil {
		return nil, err
	}
	if opts.CountSelf {
		return nil, Usagef("--count-self: --convention pdal counts other points (PDAL's min_k)")
	}
	cols := []core.Dimension{{Name: core.DimNeighborCount, Type: core.Uint32}}
	// A point's reach is the radius widened for float32 rounding
	// (pairs.PointReach): twice the radius holds it in the first tiles.
	l := &Local{Columns: cols, Hidden: 1, Halo: 2 * opts.Radius, Outcome: a}
	l.Compute = func(in *LocalInput) ([]*core.Attribute, []float64, error) {
		o := opts
		o.Pos, o.Build = in.Abs, in.Build // absolute, as PDAL computes
		r, err := denoise.Radius(in.XYZ, in.Backend, o)
		if err != nil {
			return nil, nil, err
		}
		return []*core.Attribute{core.NewColumn(cols[0].Name, r.Counts)}, r.Reach, nil
	}
	outlier := func(cols []*core.Attribute, i int) bool { return opts.Outlier(uint32(cols[0].Uint64(i))) }
	l.Reduce = &Reduction{
		// g: 1 when every point is an outlier (then none is flagged).
		Run: func(each Each) ([]float64, error) {
			all, err := allOutliers(each, outlier)
			return []float64{b2f(all)}, err
		},
		Outlier: func(g []float64, cols []*core.Attribute, i int) bool { return g[0] == 0 && outlier(cols, i) },
		Stats:   func([]float64) (string, map[string]any) { return radiusStats(opts), nil },
	}
	return &Job{Local: l}, nil
}

// b2f is 1 for true, 0 for false: a flag among a Reduction's numbers.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// allOutliers reports whether outlier flags every point of a run that
// has some (each, as a Reduction's Run gets it): PDAL's filters.outlier then
// flags none, with a warning.
func allOutliers(each Each, outlier func(cols []*core.Attribute, i int) bool) (bool, error) {
	n, out := 0, 0
	err := each(func(cols []*core.Attribute, lo, hi int) {
		n += hi - lo
		for i := lo; i < hi; i++ {
			if outlier(cols, i) {
				out++
			}
		}
	})
	if err != nil || n == 0 || out < n {
		return false, err
	}
	msg.Infof("warning: every one of the %s is an outlier; as PDAL's filters.outlier, none is flagged", Count(n, "point"))
	return true, nil
}
