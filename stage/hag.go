package stage

import (
	"math"

	"github.com/pctk/pctk/algos/hag"
	"github.com/pctk/pctk/core"
)

// PDAL's filters.hag_nn and filters.hag_delaunay (algos/hag, docs/hag.md).

// hagColumns is the dimension the height filters write, PDAL's.
var hagColumns = []core.Dimension{{Name: "HeightAboveGround", Type: core.Float64, Description: "height above the ground (class 2) under the point (PDAL filters.hag_nn, filters.hag_delaunay)"}}

func init() {
	Register(&Stage{
		Name: "hag", PDAL: "filters.hag_nn", Writes: hagColumns, Tiled: true,
		PDALAs: map[string][]string{"filters.hag_delaunay": {"--method", "delaunay"}},
		Usage:  "height above ground from the ground points, class 2 (PDAL filters.hag_nn, filters.hag_delaunay)",
		Description: `Adds HeightAboveGround (float64): Z minus the ground's Z under the point,
from the nearest ground points (class 2: run pctk ground first), as PDAL's
filters.hag_nn (--method nn, the mean weighted by 1/d² of the count nearest)
or filters.hag_delaunay (--method delaunay, interpolated in the triangulation
of the count nearest) computes it (docs/hag.md).

--replace-z makes Z the height, as LAStools' lasheight -replace_z: the original
Z is not kept (nor is HeightAboveGround, which would equal Z); run without it to
keep both. --allow-extrapolation=false gives points outside the ground's XY box
height 0; as that box is the whole run's, it runs on the whole cloud.`,
		Examples: []string{"pctk hag street.las out.las --count 4", "pctk hag ground.laz hag.laz --method delaunay", "pctk hag ground.laz norm.laz --replace-z"},
		Options: []*Option{
			{Kind: String, Name: "method", Value: "nn", Usage: "nn (PDAL filters.hag_nn) or delaunay (filters.hag_delaunay)"},
			{Kind: Int, Name: "count", PDAL: "count", DefaultText: "1 (nn), 10 (delaunay)", Usage: "nearest ground points used (PDAL count)"},
			{Kind: Float, Name: "max-distance", PDAL: "max_distance", DefaultText: "none", Usage: "nn: ground points farther in XY are not used (PDAL max_distance)"},
			{Kind: Bool, Name: "allow-extrapolation", PDAL: "allow_extrapolation", Value: true, Usage: "heights outside the ground's XY box (PDAL allow_extrapolation); false gives them 0"},
			{Kind: Bool, Name: "replace-z", PDAL: "-", Usage: "Z becomes the height (LAStools lasheight -replace_z); the original Z is not kept"},
		},
		Params: map[string]string{"count": "count", "max_distance": "max-distance", "method": "method"},
		Prepare: func(c Values) (*Job, error) {
			o := hag.Options{Count: c.Int("count"), MaxDistance: c.Float64("max-distance"), NoExtrapolation: !c.Bool("allow-extrapolation")}
			var err error
			switch m := c.String("method"); m {
			case "nn":
			case "delaunay":
				o.Method = hag.Delaunay
			default:
				err = Usagef("--method %q: want nn or delaunay", m)
			}
			if err == nil {
				err = o.Validate()
			}
			if err == nil && o.NoExtrapolation {
				err = inMemoryOnly(c, "--allow-extrapolation: without it the heights depend on the whole run's ground box")
			}
			l := &Local{Columns: hagColumns, Reads: []string{core.DimClassification}, KNN: max(o.Count, 1) + 2, Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
				class := u8(in.Values[0])
				oo := o
				oo.Pos, oo.Build, oo.Need = in.Abs, in.Build, in.Need // absolute, as PDAL computes
				r, err := hag.Compute(in.XYZ, class, in.Backend, oo)
				if err != nil {
					return nil, nil, err
				}
				if o.NoExtrapolation {
					// The ground's box is the whole run's: no tile holds it.
					for i := range r.Reach {
						r.Reach[i] = math.Inf(1)
					}
				}
				return float64Columns(hagColumns, r.HeightAboveGround), r.Reach, nil
			}}
			if o.NoExtrapolation {
				l.Halo = math.Inf(1)
			}
			if c.Bool("replace-z") {
				l.Edit = replaceZ
			}
			return &Job{Local: l}, err
		},
	})
}

// replaceZ sets each point's Z to its HeightAboveGround and drops that
// column (lasheight -replace_z).
func replaceZ(c *core.Cloud) (*core.Cloud, error) {
	h := c.Attr(hagColumns[0].Name)
	if h == nil {
		return c, nil
	}
	for i := range c.Z {
		c.Z[i] = h.Float64(i)
	}
	c.RemoveAttr(h.Name)
	return c, nil
}
