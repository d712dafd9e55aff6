package stage

import (
	"github.com/pctk/pctk/algos/eigenvalues"
	"github.com/pctk/pctk/core"
)

// PDAL's covariance stages over a point's nearest neighbours:
// filters.eigenvalues, filters.approximatecoplanar and
// filters.optimalneighborhood (algos/eigenvalues).

func init() {
	eig := []core.Dimension{{Name: core.DimEigenvalue0, Type: core.Float64}, {Name: core.DimEigenvalue1, Type: core.Float64}, {Name: core.DimEigenvalue2, Type: core.Float64}}
	Register(&Stage{
		Name: "eigenvalues", PDAL: "filters.eigenvalues", Writes: eig, Dims: true, IgnoreClass: true, Tiled: true,
		Usage: "eigenvalues of each point's neighbourhood covariance (PDAL filters.eigenvalues)",
		Description: `Adds Eigenvalue0 <= Eigenvalue1 <= Eigenvalue2 (float64) of the covariance of
the point and its --knn nearest (every --stride-th), or of every point within
--radius (at least --min-k), as PDAL's filters.eigenvalues (docs/eigenvalues.md).`,
		Examples: []string{"pctk eigenvalues scan.las out.las --knn 10 --normalize"},
		Options: []*Option{
			{Kind: Int, Name: "knn", PDAL: "knn", Value: eigenvalues.DefaultKNN, Usage: "nearest other points (PDAL knn)"},
			{Kind: Int, Name: "stride", PDAL: "stride", Value: 1, Usage: "keep every stride-th of the stride·(knn+1) nearest"},
			{Kind: Float, Name: "radius", PDAL: "radius", Usage: "neighbourhood radius in coordinate units, instead of --knn (0: none)"},
			{Kind: Int, Name: "min-k", PDAL: "min_k", Value: eigenvalues.DefaultMinK, Usage: "with --radius, the fewest points that get eigenvalues"},
			{Kind: Bool, Name: "normalize", PDAL: "normalize", Usage: "divide the eigenvalues by their sum"}},
		Params: map[string]string{"knn": "knn", "stride": "stride", "radius": "radius", "min_k": "min-k"},
		Prepare: func(c Values) (*Job, error) {
			opts := eigenvalues.Options{KNN: c.Int("knn"), Stride: c.Int("stride"), Radius: c.Float64("radius"), MinK: c.Int("min-k"), Normalize: c.Bool("normalize")}
			return &Job{Local: &Local{Columns: eig, KNN: opts.KNN * max(opts.Stride, 1), Halo: opts.Radius, Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
				opts.Pos, opts.Build = in.Abs, in.Build // absolute, as PDAL computes: Origin 0
				r, err := eigenvalues.Compute(in.XYZ, in.Backend, opts)
				if err != nil {
					return nil, nil, err
				}
				return float64Columns(eig, r.Eigenvalue0, r.Eigenvalue1, r.Eigenvalue2), r.Reach, nil
			}}}, opts.Validate()
		},
	})
	cop := []core.Dimension{{Name: core.DimCoplanar, Type: core.Uint8, Description: "1 where the neighbourhood is about planar (PDAL filters.approximatecoplanar)"}}
	Register(&Stage{
		Name: "approximatecoplanar", PDAL: "filters.approximatecoplanar", Writes: cop, Dims: true, IgnoreClass: true, Tiled: true,
		Usage: "flag points whose neighbourhood is about planar (PDAL filters.approximatecoplanar)",
		Description: `Adds Coplanar (uint8): 1 where the eigenvalues λ0 <= λ1 <= λ2 of the --knn
nearest (the point counted) have λ1 > thresh1·λ0 and thresh2·λ1 > λ2, as PDAL's
filters.approximatecoplanar (docs/eigenvalues.md).`,
		Examples: []string{"pctk approximatecoplanar scan.las out.las --knn 8"},
		Options: []*Option{
			{Kind: Int, Name: "knn", PDAL: "knn", Value: eigenvalues.DefaultKNN, Usage: "points in a neighbourhood, the point counted (PDAL knn)"},
			{Kind: Float, Name: "thresh1", PDAL: "thresh1", Value: eigenvalues.DefaultThresh1, Usage: "multiplier: coplanar when λ1 > thresh1·λ0"},
			{Kind: Float, Name: "thresh2", PDAL: "thresh2", Value: eigenvalues.DefaultThresh2, Usage: "multiplier: coplanar when thresh2·λ1 > λ2"}},
		Params: map[string]string{"knn": "knn", "thresh1": "thresh1", "thresh2": "thresh2"},
		Prepare: func(c Values) (*Job, error) {
			opts := eigenvalues.CoplanarOptions{KNN: c.Int("knn"), Thresh1: c.Float64("thresh1"), Thresh2: c.Float64("thresh2")}
			return &Job{Local: &Local{Columns: cop, KNN: opts.KNN, Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
				opts.Pos, opts.Build = in.Abs, in.Build // absolute, as PDAL computes: Origin 0
				r, err := eigenvalues.Coplanar(in.XYZ, in.Backend, opts)
				if err != nil {
					return nil, nil, err
				}
				return []*core.Attribute{core.NewColumn(core.DimCoplanar, r.Coplanar)}, r.Reach, nil
			}}}, opts.Validate()
		},
	})
	opt := []core.Dimension{{Name: core.DimOptimalKNN, Type: core.Uint64, Description: "neighbourhood size of least eigenentropy (PDAL filters.optimalneighborhood)"},
		{Name: core.DimOptimalRadius, Type: core.Float64, Description: "distance to the last point of that neighbourhood (PDAL filters.optimalneighborhood)"}}
	Register(&Stage{
		Name: "optimalneighborhood", PDAL: "filters.optimalneighborhood", Writes: opt, Dims: true, IgnoreClass: true, Tiled: true,
		Usage: "the neighbourhood size of least eigenentropy (PDAL filters.optimalneighborhood)",
		Description: `Adds OptimalKNN (uint64) and OptimalRadius (float64): the k in [min-k, max-k]
whose neighbourhood has the least eigenentropy, and the distance to its last
point, as PDAL's filters.optimalneighborhood (docs/eigenvalues.md).`,
		Examples: []string{"pctk optimalneighborhood scan.las out.las --min-k 8 --max-k 20"},
		Options: []*Option{
			{Kind: Int, Name: "min-k", PDAL: "min_k", Value: eigenvalues.DefaultOptimalMinK, Usage: "smallest neighbourhood tried, the point counted"},
			{Kind: Int, Name: "max-k", PDAL: "max_k", Value: eigenvalues.DefaultOptimalMaxK, Usage: "largest neighbourhood tried, the point counted"}},
		Params: map[string]string{"min_k": "min-k", "max_k": "max-k"},
		Prepare: func(c Values) (*Job, error) {
			opts := eigenvalues.OptimalOptions{MinK: c.Int("min-k"), MaxK: c.Int("max-k")}
			return &Job{Local: &Local{Columns: opt, KNN: opts.MaxK, Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
				opts.Pos, opts.Build = in.Abs, in.Build // absolute, as PDAL computes: Origin 0
				r, err := eigenvalues.Optimal(in.XYZ, in.Backend, opts)
				if err != nil {
					return nil, nil, err
				}
				return []*core.Attribute{core.NewColumn(core.DimOptimalKNN, r.OptimalKNN), core.NewColumn(core.DimOptimalRadius, r.OptimalRadius)}, r.Reach, nil
			}}}, opts.Validate()
		},
	})
}
