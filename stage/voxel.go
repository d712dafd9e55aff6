package stage

import (
	"fmt"

	"github.com/pctk/pctk/algos/voxel"
	"github.com/pctk/pctk/core"
)

// PDAL's three voxel thinning filters, a selection (Local.Drop) whose
// grid starts where PDAL's does for the whole run: its minimum
// (voxelcenternearestneighbor) or its first point (the others).

func init() {
	kept := []core.Dimension{{Name: "VoxelKept", Type: core.Uint8}}
	Register(&Stage{
		Name: "voxel", PDAL: "filters.voxelcenternearestneighbor", Preview: "classification", IgnoreClass: true, Tiled: true,
		PDALAs: map[string][]string{"filters.voxelcentroidnearestneighbor": {"--mode", "centroid"}, "filters.voxeldownsize": {"--mode", "downsize-center"}},
		Usage:  "keep one point a voxel (PDAL filters.voxelcenternearestneighbor, voxelcentroidnearestneighbor, voxeldownsize)",
		Description: `Keeps one point of each --cell cube, in input order, as PDAL chooses it
(docs/voxel.md): --mode center the point nearest the voxel's centre, the grid
starting at the run's minimum X, Y, Z (filters.voxelcenternearestneighbor);
centroid the point nearest the centroid of the voxel's points, the grid
starting at the run's first point (filters.voxelcentroidnearestneighbor);
downsize-first the first point of each voxel, the grid starting half a cell
before the first point (filters.voxeldownsize mode first). PDAL's default
downsize mode, center, moves the kept point to its voxel's centre: pctk
does not edit coordinates, so --mode downsize-center is refused.
--ignore-class leaves points of those classes out: they are kept.`,
		Examples: []string{"pctk voxel scan.las out.las --cell 2 --mode center"},
		Options: []*Option{
			{Kind: String, Name: "mode", PDAL: "mode", Value: "center", Usage: "center, centroid or downsize-first (see above)",
				PDALValues: map[string]string{"center": "downsize-center", "first": "downsize-first"}},
			{Kind: Float, Name: "cell", PDAL: "cell", DefaultText: fmt.Sprintf("%g (%g with downsize modes)", voxel.DefaultCell, voxel.DefaultDownsizeCell), Usage: "side of the cubic voxels"}},
		Params: map[string]string{"cell": "cell"},
		Prepare: func(c Values) (*Job, error) {
			opts := voxel.Options{Cell: c.Float64("cell")}
			if c.IsSet("cell") && opts.Cell == 0 {
				return nil, Usagef("--cell: want a side > 0, got 0")
			}
			var run func(xyz []float32, o voxel.Options) (*voxel.Result, error)
			var corner func(in *LocalInput) [3]float64
			m := c.String("mode")
			switch m {
			case "center":
				run, corner = voxel.CenterNearest, func(in *LocalInput) [3]float64 { return in.Min }
			case "centroid":
				run, corner = voxel.CentroidNearest, func(in *LocalInput) [3]float64 { return in.First }
			case "downsize-first":
				if opts.Cell == 0 {
					opts.Cell = voxel.DefaultDownsizeCell
				}
				run = func(xyz []float32, o voxel.Options) (*voxel.Result, error) {
					return voxel.Downsize(xyz, voxel.DownsizeOptions{Options: o, Mode: voxel.First})
				}
				corner = func(in *LocalInput) [3]float64 {
					h := opts.Cell / 2
					f := in.First
					return [3]float64{f[0] - h, f[1] - h, f[2] - h}
				}
			case "downsize-center":
				return nil, Usagef("--mode downsize-center (PDAL voxeldownsize's default) moves points to their voxel's centre, which pctk does not offer; --mode downsize-first keeps the same points unmoved")
			default:
				return nil, Usagef("--mode: want center, centroid or downsize-first, got %q", m)
			}
			if opts.Cell == 0 {
				opts.Cell = voxel.DefaultCell
			}
			return &Job{Local: &Local{Columns: kept, Hidden: 1, Stats: fmt.Sprintf("mode %s, cell %g", m, opts.Cell), Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
				o := opts
				org := corner(in)
				o.Pos, o.Origin, o.NoReach = in.Abs, &org, in.Whole
				r, err := run(in.XYZ, o)
				if err != nil {
					return nil, nil, err
				}
				return []*core.Attribute{flagColumn(kept[0].Name, r.Keep)}, r.Reach, nil
			}, Drop: func(cols []*core.Attribute, i int) bool { return cols[0].Uint64(i) == 0 }}}, opts.Validate()
		},
	})
}

// flagColumn returns a uint8 column name of 1 where flags holds, else 0.
func flagColumn(name string, flags []bool) *core.Attribute {
	v := make([]uint8, len(flags))
	for i, f := range flags {
		if f {
			v[i] = 1
		}
	}
	return core.NewColumn(name, v)
}
