package stage

import (
	"fmt"

	"github.com/pctk/pctk/algos/lof"
	"github.com/pctk/pctk/core"
)

// lofColumns are the dimensions filters.lof writes, in PDAL's names.
var lofColumns = []core.Dimension{
	{Name: "NNDistance", Type: core.Float64, Description: "distance to the k-th nearest neighbour (PDAL filters.lof, filters.nndistance)"},
	{Name: "LocalReachabilityDistance", Type: core.Float64, Description: "LOF's local reachability density (PDAL's name)"},
	{Name: "LocalOutlierFactor", Type: core.Float64, Description: "local outlier factor: about 1 inside a cluster, larger for outliers (PDAL filters.lof)"},
}

func init() {
	Register(&Stage{
		Name: "lof", PDAL: "filters.lof", Preview: "classification", Writes: lofColumns, Dims: true, IgnoreClass: true, Tiled: true,
		Usage: "Local Outlier Factor over the k nearest neighbours (PDAL filters.lof; --convention sklearn)",
		Description: `Adds NNDistance, LocalReachabilityDistance and LocalOutlierFactor (float64) as
PDAL's filters.lof computes them, the point itself among its minpts+1 nearest,
or as scikit-learn's LocalOutlierFactor (--convention sklearn, docs/lof.md).
With --threshold T the points whose factor exceeds T are outliers: --mode
removes, classifies (--class) or flags them.`,
		Examples: []string{"pctk lof scan.las out.las --minpts 20 --threshold 1.5", "pctk lof scan.las out.las --minpts 10"},
		Options: OutcomeOptions(
			&Option{Kind: Int, Name: "minpts", PDAL: "minpts", Value: lof.DefaultMinPts, Usage: "neighbours whose distances make a point's k-distance (PDAL minpts; scikit-learn n_neighbors)"},
			&Option{Kind: String, Name: "convention", Value: "pdal", Usage: "whose definition: pdal or sklearn (docs/lof.md)"},
			&Option{Kind: Float, Name: "threshold", DefaultText: "none: the columns only", Usage: "LocalOutlierFactor above which a point is an outlier (a ratio of densities: a multiplier, about 1 inside clusters)"}),
		Params: map[string]string{"minpts": "minpts"},
		Prepare: func(c Values) (*Job, error) {
			o, err := ParseOutcome(c, "lof")
			opts := lof.Options{MinPts: c.Int("minpts"), Convention: lof.Convention(c.String("convention"))}
			if err == nil {
				err = opts.Validate()
			}
			if err == nil && c.IsSet("mode") && !c.IsSet("threshold") {
				err = Usagef("--mode applies to outliers: give --threshold")
			}
			l := &Local{Columns: lofColumns, KNN: 5 * c.Int("minpts"), Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
				opts.Pos, opts.Build = in.Abs, in.Build // absolute, as PDAL computes: Origin 0
				r, err := lof.Compute(in.XYZ, in.Backend, opts)
				if err != nil {
					return nil, nil, err
				}
				return float64Columns(lofColumns, r.NNDistance, r.LocalReachabilityDistance, r.LocalOutlierFactor), r.Reach, nil
			}}
			if t := c.Float64("threshold"); c.IsSet("threshold") {
				l.Outcome, l.Stats = o, fmt.Sprintf("minpts %d, %s convention, LocalOutlierFactor above %g", opts.MinPts, opts.Convention, t)
				l.Outlier = func(cols []*core.Attribute, i int) bool { return cols[2].Float64(i) > t }
			}
			return &Job{Local: l}, err
		},
	})
}
