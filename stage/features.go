package stage

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pctk/pctk/algos/features"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
)

func init() {
	Register(&Stage{
		Name:  "features",
		PDAL:  "filters.covariancefeatures",
		Usage: "write covariance features of each point's neighbourhood (PDAL filters.covariancefeatures)",
		Description: `Adds PDAL's covariance features (float64) of the point and its --knn K
nearest, or of the points within --radius R (at least --min-k, itself
counted). --features: names, "dimensionality" (Linearity, Planarity,
Scattering, Verticality; the default) or "all" (also Omnivariance, Anisotropy,
Eigenentropy, EigenvalueSum, SurfaceVariation, DemantkeVerticality). --mode:
sqrt (default), raw or normalized eigenvalues. Skipped points get 0, as in
PDAL (docs/features.md).`,
		Examples: []string{"pctk features scan.las out.las --knn 10 --features all"},
		Options: []*Option{
			&Option{Kind: Int, Name: "knn", PDAL: "knn", Usage: "neighbours besides the point itself (PDAL knn)"},
			&Option{Kind: Float, Name: "radius", PDAL: "radius", Usage: "neighbourhood radius in coordinate units, instead of --knn"},
			&Option{Kind: Int, Name: "min-k", PDAL: "min_k", Usage: "with --radius, the fewest points that get features", Value: features.DefaultMinK},
			&Option{Kind: String, Name: "mode", PDAL: "mode", Usage: "sqrt, raw or normalized", Value: "sqrt"},
			&Option{Kind: String, Name: "features", PDAL: "feature_set", Usage: "names, dimensionality or all", Value: "dimensionality"},
		},
		IgnoreClass: true, Tiled: true,
		Params: map[string]string{"k": "knn", "radius": "radius", "min_k": "min-k"},
		Prepare: func(c Values) (*Job, error) {
			opts := features.Options{K: c.Int("knn"), Radius: c.Float64("radius"), MinK: c.Int("min-k")}
			var err, ferr error
			opts.Mode, err = features.ParseMode(c.String("mode"))
			opts.Features, ferr = features.ParseFeatures(c.String("features"))
			switch { // 0 is "not given" to the algorithm, out of range when given
			case c.IsSet("knn") == c.IsSet("radius"):
				return nil, Usagef("features needs --knn K or --radius R, one of them")
			case err != nil || ferr != nil:
				return nil, Usagef("%v", errors.Join(err, ferr))
			case c.IsSet("knn") && opts.K == 0:
				return nil, findneighbor.CheckMin("features", "k", 0, 1)
			case c.IsSet("radius") && opts.Radius == 0:
				return nil, findneighbor.CheckRadius("features", "radius", 0, false)
			}
			if err := opts.Validate(); err != nil {
				return nil, err
			}
			// A local stage (PDAL's covariances, from the coordinates as
			// read), which the driver runs in memory, on tiles, out of core
			// and on Beam. CPUWork: --backend auto keeps the cpu backend, as
			// it did for the moments this stage summed before.
			return &Job{CPUWork: true, Local: featuresLocal(opts)}, nil
		},
	})
}

// skippedColumn is the hidden column of featuresLocal: 1 where a point
// got no features, for the summary.
const skippedColumn = "skipped"

// featuresLocal is features as a local stage: features.Compute on the
// points' absolute coordinates as read (Origin 0), as PDAL computes, its
// columns (opts.Features, set by Prepare) and a hidden one flagging the
// skipped points, which the summary counts.
func featuresLocal(opts features.Options) *Local {
	fs := opts.Features
	dims := make([]core.Dimension, len(fs), len(fs)+1)
	for j, f := range fs {
		dims[j] = core.Dimension{Name: f.String(), Type: core.Float64}
	}
	dims = append(dims, core.Dimension{Name: skippedColumn, Type: core.Uint8})
	return &Local{Columns: dims, Hidden: 1, Halo: opts.Radius, KNN: opts.K,
		Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
			o := opts
			o.Pos, o.Build = in.Abs, in.Build // absolute, as PDAL computes: Origin 0
			r, err := features.Compute(in.XYZ, in.Backend, o)
			if err != nil {
				return nil, nil, err
			}
			return append(featureColumns(r), flagColumn(skippedColumn, r.Skip)), r.Reach, nil
		},
		Summary: func(n int64, each Each) ([]string, any, error) {
			// A k beyond the cloud: every point uses all there is.
			warnClamped("knn", opts.K, max(int(n)-1, 0), "other point")
			skipped := 0
			err := each(func(cols []*core.Attribute, lo, hi int) {
				for i := lo; i < hi; i++ {
					if cols[len(fs)].Uint64(i) != 0 {
						skipped++
					}
				}
			})
			lines, doc := featuresSummary(opts, fs, int(n), skipped)
			return lines, doc, err
		}}
}

// featureColumns returns the columns of r.
func featureColumns(r *features.Result) []*core.Attribute {
	cols := make([]*core.Attribute, len(r.Features))
	for j, f := range r.Features {
		cols[j] = core.NewColumn(f.String(), r.Values[j])
	}
	return cols
}

// featuresSummary returns the summary lines and JSON of a features run.
func featuresSummary(opts features.Options, fs []features.Feature, points, skipped int) ([]string, map[string]any) {
	names := make([]string, len(fs))
	for j, f := range fs {
		names[j] = f.String()
	}
	return []string{fmt.Sprintf("%s (%s) of %d points; %d skipped (0, as in PDAL)", strings.Join(names, ", "), opts.Mode, points, skipped)},
		map[string]any{"features": names, "mode": opts.Mode.String(), "skipped": skipped}
}
