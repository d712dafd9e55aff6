package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pctk/pctk/algos/ground"
	"github.com/pctk/pctk/algos/raster"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/io/geotiff"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

// pctk raster: PDAL's writers.gdal (algos/raster, io/geotiff, docs/raster.md).

func init() {
	commands = append(commands, &cli.Command{
		Name:      "raster",
		Usage:     "grid a cloud into a GeoTIFF: DTM, DSM, CHM (PDAL writers.gdal)",
		ArgsUsage: "IN... OUT.tif",
		Description: `Grids the points as PDAL 2.9.2's writers.gdal does (docs/raster.md): every point
strictly within --radius of a cell's centre updates its min, max, mean, idw,
count and stdev (--output-type), empty cells get --nodata or, with
--window-size, the inverse-distance mean of the non-empty cells around. The
grid is PDAL's: origin at the chosen points' minimum X and Y. OUT is a
Cloud-Optimized GeoTIFF (float64 by default) in IN's CRS. --class and
--returns choose the points (a DTM from ground, a DSM from first returns);
--dimension grids another value (HeightAboveGround: a canopy height model).
--tile-size computes blocks of cells, each from the points within its reach:
the same bytes as one block. Several INs (or a glob) are one cloud, in order.
--max-memory reads IN as a stream, bins the chosen points into blocks of cells
on disk (--tmpdir) and grids one block at a time: the same bytes in about that
much memory, of which the image itself takes 8 bytes a cell and band.

Examples:
   pctk raster ground.laz dtm.tif --resolution 1 --class 2 --output-type idw --window-size 3
   pctk raster scan.laz dsm.tif --resolution 1 --returns first,only --output-type max
   pctk raster hag.laz chm.tif --resolution 1 --dimension HeightAboveGround --output-type max`,
		Flags: []cli.Flag{
			&cli.Float64Flag{Name: "resolution", Usage: "cell side `R` in coordinate units (PDAL resolution; required)"},
			&cli.Float64Flag{Name: "radius", DefaultText: "resolution·√2", Usage: "points strictly within this distance of a cell's centre count (PDAL radius)"},
			&cli.Float64Flag{Name: "power", Value: 1, Usage: "power of the IDW weights (PDAL power)"},
			&cli.IntFlag{Name: "window-size", Usage: "fill empty cells from the cells within this number of cells (PDAL window_size; 0: nodata)"},
			&cli.StringFlag{Name: "output-type", Value: "all", Usage: "bands: all or a comma list of min, max, mean, idw, count, stdev (PDAL output_type)"},
			&cli.Float64Flag{Name: "nodata", Value: -9999, Usage: "value of empty cells, in the units of the gridded dimension (PDAL nodata)"},
			&cli.StringFlag{Name: "data-type", Value: "float64", Usage: "float64 or float32 samples (PDAL data_type)"},
			&cli.StringFlag{Name: "dimension", Value: "Z", Usage: "the value gridded (PDAL dimension): Z, HeightAboveGround, Intensity..."},
			&cli.StringFlag{Name: "class", DefaultText: "every class", Usage: "grid only the points of these classes, a comma list (2: a DTM)"},
			&cli.StringFlag{Name: "returns", DefaultText: "every return", Usage: "grid only these returns: a comma list of first, intermediate, last, only (first,only: a DSM; PDAL's words: first is return 1 of several, only a single return)"},
			&cli.Float64Flag{Name: "tile-size", DefaultText: "one block", Usage: "compute blocks of cells of side `SIZE` in coordinate units, each from the points within its reach: the same bytes"},
			&cli.StringFlag{Name: "max-memory", Usage: "grid out of core in about `SIZE` of memory (256MiB, 2GiB): the same bytes (docs/raster.md)"},
			&cli.StringFlag{Name: "tmpdir", Usage: "folder for the blocks of --max-memory (default: the system's temporary folder)"},
			&cli.BoolFlag{Name: "cog", Value: true, Usage: "Cloud-Optimized GeoTIFF with overviews; false: no overviews"},
			&cli.BoolFlag{Name: "deflate", Usage: "compress the tiles (zlib)"},
			flagOf(stage.SalvageOption), flagOf(stage.ForceOption),
		},
		Action: runRaster,
	})
}

// rasterOutputs maps PDAL's output_type names to statistics.
var rasterOutputs = map[string]raster.Output{"min": raster.Min, "max": raster.Max, "mean": raster.Mean, "idw": raster.IDW, "count": raster.Count, "stdev": raster.StdDev, "all": raster.All}

func runRaster(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) < 2 {
		return stage.Usagef("%s needs IN... and OUT.tif, got %d argument(s)", c.Command.Name, len(args))
	}
	ins, err := stage.ExpandInputs(args[:len(args)-1])
	if err != nil {
		return err
	}
	in, out := strings.Join(ins, ", "), args[len(args)-1]
	opts, wo, err := rasterOptions(c)
	if err != nil {
		return err
	}
	if err := stage.CheckOutputs(c, out); err != nil {
		return err
	}
	start := time.Now()
	var img *geotiff.Image
	var n, total int64
	if c.IsSet("max-memory") {
		img, n, total, err = rasterStreamed(c, ins, opts)
	} else {
		img, n, total, err = rasterInMemory(c, ins, opts)
	}
	if err != nil {
		return err
	}
	if err := geotiff.WriteFile(out, img, wo); err != nil {
		return err
	}
	msg.Infof("gridded %d of %d points of %s into %s (%d×%d cells, %d bands) in %.2f s", n, total, in, out, img.Width, img.Height, len(img.Bands), time.Since(start).Seconds())
	return nil
}

// rasterInMemory reads ins as one cloud and grids it.
func rasterInMemory(c *cli.Context, ins []string, o raster.Options) (*geotiff.Image, int64, int64, error) {
	cloud, _, err := stage.ReadClouds(rasterRead{c}, ins)
	if err != nil {
		return nil, 0, 0, err
	}
	img, n, err := rasterGrid(c, cloud, o)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", strings.Join(ins, ", "), err)
	}
	return img, int64(n), int64(cloud.Len()), nil
}

// rasterRead is the raster command's flags as the stage package's reading
// sees them: its --resolution is the raster's, not COPC's query.
type rasterRead struct{ stage.Values }

// IsSet reports whether the option was given, never the COPC --resolution.
func (r rasterRead) IsSet(name string) bool { return name != "resolution" && r.Values.IsSet(name) }

// rasterOptions reads the flags that need no points.
func rasterOptions(c *cli.Context) (raster.Options, geotiff.Options, error) {
	o := raster.Options{Resolution: c.Float64("resolution"), Radius: c.Float64("radius"), Power: c.Float64("power"), WindowSize: c.Int("window-size")}
	var wo geotiff.Options
	if !c.IsSet("resolution") {
		return o, wo, stage.Usagef("raster: --resolution is required")
	}
	for _, w := range strings.Split(c.String("output-type"), ",") {
		v, ok := rasterOutputs[strings.TrimSpace(w)]
		if !ok {
			return o, wo, stage.Usagef("--output-type %q: want all or min, max, mean, idw, count, stdev", w)
		}
		o.Outputs |= v
	}
	nd := c.Float64("nodata")
	o.NoData = &nd
	switch t := c.String("data-type"); t {
	case "float64", "double":
	case "float32", "float":
		wo.Type = geotiff.Float32
	default:
		return o, wo, stage.Usagef("--data-type %q: want float64 or float32", t)
	}
	wo.NoOverviews, wo.Deflate = !c.Bool("cog"), c.Bool("deflate")
	if err := o.Validate(); err != nil {
		return o, wo, stage.Usagef("%v", err)
	}
	if ts := c.Float64("tile-size"); ts < 0 || math.IsNaN(ts) || math.IsInf(ts, 0) {
		return o, wo, stage.Usagef("--tile-size %g: want a positive size", ts)
	}
	return o, wo, nil
}

// rasterGrid grids the points of cloud chosen by --class and --returns,
// block by block of cells with --tile-size, and returns the image and the
// number of points gridded.
func rasterGrid(c *cli.Context, cloud *core.Cloud, o raster.Options) (*geotiff.Image, int, error) {
	sel, err := rasterSelect(c, cloud)
	if err != nil {
		return nil, 0, err
	}
	vals, err := rasterValues(c, cloud)
	if err != nil {
		return nil, 0, err
	}
	loc := cloud.Local(false)
	n := cloud.Len()
	if sel != nil {
		n = 0
		for _, s := range sel {
			if s {
				n++
			}
		}
	}
	xyz, pos, values := make([]float32, 0, 3*n), make([]float64, 0, 3*n), make([]float64, 0, n)
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for i := range cloud.Len() {
		if sel != nil && !sel[i] {
			continue
		}
		p := [3]float64{cloud.X[i] - loc.Origin[0], cloud.Y[i] - loc.Origin[1], cloud.Z[i] - loc.Origin[2]}
		xyz, pos, values = append(xyz, loc.XYZ[3*i:3*i+3]...), append(pos, p[:]...), append(values, vals[i])
		lo, hi = [2]float64{min(lo[0], p[0]), min(lo[1], p[1])}, [2]float64{max(hi[0], p[0]), max(hi[1], p[1])}
	}
	if n == 0 {
		return nil, 0, errNoPoint
	}
	img, block := rasterImage(c, &o, loc.Origin, lo, hi, cloud.Meta.CRS)
	for _, w := range blocks(o.Grid, block) {
		if err := gridBlock(img, xyz, pos, values, o, w); err != nil {
			return nil, 0, err
		}
	}
	return img, n, nil
}

// errNoPoint is the error of a raster without a point.
var errNoPoint = errors.New("raster: no point to grid (see --class, --returns)")

// rasterImage sets o's grid, PDAL's from the chosen points' box lo, hi
// (relative to origin), and returns the image to fill, in crs, and the
// side of --tile-size's blocks in cells (the whole grid without it).
func rasterImage(c *cli.Context, o *raster.Options, origin [3]float64, lo, hi [2]float64, crs core.CRS) (*geotiff.Image, int) {
	o.Grid = raster.DefaultGrid(lo[0], lo[1], hi[0], hi[1], o.Resolution)
	g := o.Grid
	img := &geotiff.Image{Width: g.Width, Height: g.Height, NoData: o.NoData, CRS: crs}
	gt := g.GeoTransform()
	gt[0], gt[3] = gt[0]+origin[0], gt[3]+origin[1]
	img.GeoTransform = gt
	block := g.Width + g.Height
	if ts := c.Float64("tile-size"); ts > 0 {
		block = max(1, int(math.Ceil(ts/o.Resolution)))
	}
	return img, block
}

// blocks cuts g into windows of block × block cells, row by row.
func blocks(g raster.Grid, block int) []raster.Window {
	var ws []raster.Window
	for row := 0; row < g.Height; row += block {
		for col := 0; col < g.Width; col += block {
			ws = append(ws, raster.Window{Col: col, Row: row, Cols: min(block, g.Width-col), Rows: min(block, g.Height-row)})
		}
	}
	return ws
}

// reachBox returns the box, in the grid's frame, of the points a block's
// cells may read: its cell centres grown by the options' reach.
func reachBox(o raster.Options, w raster.Window) (x0, x1, y0, y1 float64) {
	g, r := o.Grid, o.Reach()
	x0 = g.OriginX + (float64(w.Col)+0.5)*g.Resolution - r
	x1 = g.OriginX + (float64(w.Col+w.Cols)-0.5)*g.Resolution + r
	y1 = g.OriginY + (float64(g.Height-w.Row)-0.5)*g.Resolution + r
	y0 = g.OriginY + (float64(g.Height-w.Row-w.Rows)+0.5)*g.Resolution - r
	return x0, x1, y0, y1
}

// gridBlock computes the block w of img's cells from the points within
// the options' reach of it, in their order.
func gridBlock(img *geotiff.Image, xyz []float32, pos, values []float64, o raster.Options, w raster.Window) error {
	g, r := o.Grid, o.Reach()
	x0, x1, y0, y1 := reachBox(o, w)
	in := func(i int) bool { x, y := pos[3*i], pos[3*i+1]; return x >= x0 && x <= x1 && y >= y0 && y <= y1 }
	m := 0
	for i := range values {
		if in(i) {
			m++
		}
	}
	bxyz, bpos, bvals := xyz, pos, values
	if m < len(values) {
		bxyz, bpos, bvals = make([]float32, 0, 3*m), make([]float64, 0, 3*m), make([]float64, 0, m)
		for i, v := range values {
			if in(i) {
				bxyz, bpos, bvals = append(bxyz, xyz[3*i:3*i+3]...), append(bpos, pos[3*i:3*i+3]...), append(bvals, v)
			}
		}
	}
	o.Cells, o.Pos, o.Values = w, bpos, bvals
	if len(bvals) == 0 {
		// No point within reach: every cell is empty. A point far away
		// stands in (outside every radius) so that Compute fills the block.
		far := [3]float64{x1 + 2*r + g.Resolution, y1 + 2*r + g.Resolution, 0}
		bxyz, o.Pos, o.Values = []float32{float32(far[0]), float32(far[1]), 0}, far[:], []float64{0}
	}
	res, err := raster.Compute(bxyz, cpu.Backend(), o)
	if err != nil {
		return err
	}
	if img.Bands == nil && w.Cols == img.Width && w.Rows == img.Height {
		// One block: its bands are the image's.
		for _, band := range res.Bands {
			img.Bands, img.Names = append(img.Bands, band.Data), append(img.Names, band.Name)
		}
		return nil
	}
	if img.Bands == nil {
		img.Bands, img.Names = make([][]float64, len(res.Bands)), make([]string, len(res.Bands))
		for b, band := range res.Bands {
			img.Bands[b], img.Names[b] = make([]float64, img.Width*img.Height), band.Name
		}
	}
	for b, band := range res.Bands {
		for rr := range w.Rows {
			copy(img.Bands[b][(w.Row+rr)*img.Width+w.Col:][:w.Cols], band.Data[rr*w.Cols:][:w.Cols])
		}
	}
	return nil
}

// rasterValues returns the values --dimension grids.
func rasterValues(c *cli.Context, cloud *core.Cloud) ([]float64, error) {
	d := c.String("dimension")
	if d == "Z" {
		return cloud.Z, nil
	}
	a := cloud.Attr(d)
	if a == nil {
		return nil, stage.Usagef("--dimension %s: the input has no such dimension", d)
	}
	vals := make([]float64, cloud.Len())
	for i := range vals {
		vals[i] = a.Float64(i)
	}
	return vals, nil
}

// rasterSelect returns the points --class and --returns choose (nil: all).
func rasterSelect(c *cli.Context, cloud *core.Cloud) ([]bool, error) {
	if c.String("class") == "" && c.String("returns") == "" {
		return nil, nil
	}
	u8 := func(name string) []uint8 {
		a := cloud.Attr(name)
		if a == nil {
			return nil
		}
		out := make([]uint8, cloud.Len())
		for i := range out {
			out[i] = uint8(a.Int64(i))
		}
		return out
	}
	attrs := ground.Attrs{Classification: u8(core.DimClassification), ReturnNumber: u8(core.DimReturnNumber), NumberOfReturns: u8(core.DimNumberOfReturns)}
	ret := ground.Returns(ground.First | ground.Intermediate | ground.Last | ground.Only)
	if s := c.String("returns"); s != "" {
		var err error
		if ret, err = ground.ParseReturns(s); err != nil {
			return nil, stage.Usagef("--returns: %v", err)
		}
	}
	sel, err := ground.Select(cloud.Len(), attrs, nil, ret)
	if err != nil {
		return nil, err
	}
	if s := c.String("class"); s != "" {
		if attrs.Classification == nil {
			return nil, stage.Usagef("--class: the input has no Classification")
		}
		keep := map[uint8]bool{}
		for _, f := range strings.Split(s, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || v < 0 || v > 255 {
				return nil, stage.Usagef("--class: %q is not a class (0-255)", f)
			}
			keep[uint8(v)] = true
		}
		for i, k := range attrs.Classification {
			sel[i] = sel[i] && keep[k]
		}
	}
	return sel, nil
}
