package stage

import (
	"github.com/pctk/pctk/algos/elm"
	"github.com/pctk/pctk/core"
)

// PDAL's filters.elm: the extended local minimum of each cell, its grid
// starting at the run's XY minimum (PDAL's view bounds).

func init() {
	cls := []core.Dimension{{Name: core.DimClassification, Type: core.Uint8}}
	Register(&Stage{
		Name: "elm", PDAL: "filters.elm", Preview: "classification", Writes: cls, Tiled: true,
		Usage: "classify low outliers by the extended local minimum of a grid's cells (PDAL filters.elm)",
		Description: `Sets the Classification of low outliers to --class (7, low point) as PDAL's
filters.elm finds them: in each --cell square of a grid that starts at the
run's smallest X and Y, the points from the lowest up, each classified while
the next is at least --threshold higher (docs/elm.md). Other points keep their
Classification; the input must have one.`,
		Examples: []string{"pctk elm scan.las out.las --cell 20 --threshold 0.5"},
		Options: []*Option{
			{Kind: Float, Name: "cell", PDAL: "cell", Value: elm.DefaultCell, Usage: "side of the grid's square cells"},
			{Kind: Float, Name: "threshold", PDAL: "threshold", Value: elm.DefaultThreshold, Usage: "height gap in coordinate units above a point that makes it a low outlier"},
			{Kind: Int, Name: "class", PDAL: "class", Value: int(elm.LowPoint), Usage: "Classification code of low outliers (1-255)"}},
		Params: map[string]string{"cell": "cell", "threshold": "threshold"},
		Prepare: func(c Values) (*Job, error) {
			if k := c.Int("class"); k < 1 || k > 255 {
				return nil, Usagef("--class: want a code from 1 to 255, got %d", k)
			}
			opts := elm.Options{Cell: c.Float64("cell"), Threshold: c.Float64("threshold"), Class: uint8(c.Int("class"))}
			return &Job{Local: &Local{Columns: cls, Reads: []string{core.DimClassification}, Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
				o := opts
				// PDAL's cells: (x − minx)/cell in absolute coordinates.
				o.Pos, o.Origin, o.NoReach = in.Abs, &[2]float64{in.Min[0], in.Min[1]}, in.Whole
				r, err := elm.ELM(in.XYZ, u8(in.Values[0]), o)
				if err != nil {
					return nil, nil, err
				}
				return []*core.Attribute{core.NewColumn(cls[0].Name, r.Classification)}, r.Reach, nil
			}}}, opts.Validate()
		},
	})
}
