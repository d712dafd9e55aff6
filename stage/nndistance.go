package stage

import (
	"github.com/pctk/pctk/algos/nndistance"
	"github.com/pctk/pctk/algos/reciprocity"
	"github.com/pctk/pctk/core"
)

// PDAL's filters.nndistance and filters.reciprocity: a value of a point's
// k nearest neighbours each.

func init() {
	nnd := []core.Dimension{lofColumns[0]}
	Register(&Stage{
		Name: "nndistance", PDAL: "filters.nndistance", Writes: nnd, Dims: true, IgnoreClass: true, Tiled: true,
		Usage: "distance to the k-th nearest neighbour, or the mean of the k nearest (PDAL filters.nndistance)",
		Description: `Adds NNDistance (float64) as PDAL's filters.nndistance computes it: with --mode
kth the distance to the k-th nearest other point, with avg the mean distance to
the k nearest (docs/nndistance.md).`,
		Examples: []string{"pctk nndistance scan.las out.las --k 8 --mode avg"},
		Options: []*Option{
			{Kind: Int, Name: "k", PDAL: "k", Value: nndistance.DefaultK, Usage: "nearest other points (PDAL k)"},
			{Kind: String, Name: "mode", PDAL: "mode", Value: "kth", Usage: "kth (the k-th distance) or avg (the mean of the k)"}},
		Params: map[string]string{"k": "k", "mode": "mode"},
		Prepare: func(c Values) (*Job, error) {
			opts := nndistance.Options{K: c.Int("k"), Mode: nndistance.Mode(c.String("mode"))}
			return &Job{Local: &Local{Columns: nnd, KNN: opts.K, Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
				opts.Pos, opts.Build = in.Abs, in.Build // absolute, as PDAL computes: Origin 0
				r, err := nndistance.Compute(in.XYZ, in.Backend, opts)
				if err != nil {
					return nil, nil, err
				}
				return float64Columns(nnd, r.NNDistance), r.Reach, nil
			}}}, opts.Validate()
		},
	})
	rec := []core.Dimension{{Name: core.DimReciprocity, Type: core.Float64, Description: "per cent of the k nearest that do not have the point among their k nearest (PDAL filters.reciprocity)"}}
	Register(&Stage{
		Name: "reciprocity", PDAL: "filters.reciprocity", Writes: rec, Dims: true, IgnoreClass: true, Tiled: true,
		Usage: "per cent of a point's k nearest that do not have it among theirs (PDAL filters.reciprocity)",
		Description: `Adds Reciprocity (float64, 0-100) as PDAL's filters.reciprocity computes it:
the share of the point's --knn nearest neighbours that do not count the point
among their own --knn nearest (docs/reciprocity.md).`,
		Examples: []string{"pctk reciprocity scan.las out.las --knn 8"},
		Options:  []*Option{{Kind: Int, Name: "knn", PDAL: "knn", Value: reciprocity.DefaultKNN, Usage: "nearest other points (PDAL knn)"}},
		Params:   map[string]string{"knn": "knn"},
		Prepare: func(c Values) (*Job, error) {
			opts := reciprocity.Options{KNN: c.Int("knn")}
			return &Job{Local: &Local{Columns: rec, KNN: 2 * opts.KNN, Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
				opts.Pos, opts.Build = in.Abs, in.Build
				r, err := reciprocity.Compute(in.XYZ, in.Backend, opts)
				if err != nil {
					return nil, nil, err
				}
				return float64Columns(rec, r.Reciprocity), r.Reach, nil
			}}}, opts.Validate()
		},
	})
}
