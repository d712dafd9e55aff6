package stage

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pctk/pctk/algos/ground"
	"github.com/pctk/pctk/algos/raster"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/io/geotiff"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
)

// Rasters: PDAL's writers.gdal (algos/raster, io/geotiff, docs/raster.md),
// as the command pctk raster and as a pipeline's writers.gdal. A raster is
// not a stage (its output is no cloud); it is declared here so that both
// read one set of options.

// RasterOptions are the options of a raster (pctk raster's flags, and
// writers.gdal's options by their PDAL names in a JSON pipeline), after
// PDAL 2.9.2's io/GDALWriter.cpp (addArgs, initialize).
var RasterOptions = []*Option{
	{Name: "resolution", Kind: Float, Usage: "cell side `R` in coordinate units (PDAL resolution; required)"},
	{Name: "radius", Kind: Float, DefaultText: "resolution·√2", Usage: "points strictly within this distance of a cell's centre count (PDAL radius)"},
	{Name: "power", Kind: Float, Value: 1, Usage: "power of the IDW weights (PDAL power)"},
	{Name: "window-size", PDAL: "window_size", Kind: Int, Usage: "fill empty cells from the cells within this number of cells (PDAL window_size; 0: nodata)"},
	{Name: "output-type", PDAL: "output_type", Kind: String, Value: "all", Usage: "bands: all or a comma list of min, max, mean, idw, count, stdev (PDAL output_type)"},
	{Name: "nodata", Kind: Float, Value: -9999, Usage: "value of empty cells, in the units of the gridded dimension (PDAL nodata)"},
	{Name: "data-type", PDAL: "data_type", Kind: String, Value: "float64", Usage: "float64 or float32 samples (PDAL data_type: double or float)"},
	{Name: "dimension", Kind: String, Value: "Z", Usage: "the value gridded (PDAL dimension): Z, HeightAboveGround, Intensity..."},
	{Name: "origin-x", PDAL: "origin_x", Kind: Float, DefaultText: "the points' minimum X", Usage: "X of the grid's lower-left corner (PDAL origin_x; with --origin-y, --width and --height: a fixed grid, such as tiles of one frame)"},
	{Name: "origin-y", PDAL: "origin_y", Kind: Float, DefaultText: "the points' minimum Y", Usage: "Y of the grid's lower-left corner (PDAL origin_y)"},
	{Name: "width", Kind: Int, DefaultText: "from the points", Usage: "number of cells along X (PDAL width)"},
	{Name: "height", Kind: Int, DefaultText: "from the points", Usage: "number of cells along Y (PDAL height)"},
	{Name: "class", PDAL: "-", Kind: String, DefaultText: "every class", Usage: "grid only the points of these classes, a comma list (2: a DTM)"},
	{Name: "returns", PDAL: "-", Kind: String, DefaultText: "every return", Usage: "grid only these returns: a comma list of first, intermediate, last, only (first,only: a DSM; PDAL's words: first is return 1 of several, only a single return)"},
	{Name: "tile-size", PDAL: "-", Kind: Float, DefaultText: "one block", Usage: "compute blocks of cells of side `SIZE` in coordinate units, each from the points within its reach: the same bytes"},
	{Name: MaxMemoryOption.Name, PDAL: "-", Kind: String, Usage: "grid out of core in about `SIZE` of memory (256MiB, 2GiB): the same bytes (docs/raster.md)"},
	{Name: TmpdirOption.Name, PDAL: "-", Kind: String, Usage: "folder for the blocks of --max-memory (default: the system's temporary folder)"},
	{Name: "cog", PDAL: "-", Kind: Bool, Value: true, Usage: "Cloud-Optimized GeoTIFF with overviews; false: no overviews"},
	{Name: "deflate", PDAL: "-", Kind: Bool, Usage: "compress the tiles (zlib; PDAL gdalopts COMPRESS=DEFLATE)"},
}

// rasterGridOptions are the options of a fixed grid: all or none.
var rasterGridOptions = []string{"origin-x", "origin-y", "width", "height"}

// rasterOutputs maps PDAL's output_type names to statistics.
var rasterOutputs = map[string]raster.Output{"min": raster.Min, "max": raster.Max, "mean": raster.Mean, "idw": raster.IDW, "count": raster.Count, "stdev": raster.StdDev, "all": raster.All}

// RunRaster grids ins (merged in order, as ReadClouds merges them) into
// the GeoTIFF out with c's RasterOptions: the command pctk raster.
func RunRaster(c Values, ins []string, out string) error {
	in := strings.Join(ins, ", ")
	opts, wo, err := rasterOptions(c)
	if err != nil {
		return err
	}
	if err := CheckOutputs(c, out); err != nil {
		return err
	}
	start := time.Now()
	var img *geotiff.Image
	var n, total int64
	if c.IsSet(MaxMemoryOption.Name) {
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
func rasterInMemory(c Values, ins []string, o raster.Options) (*geotiff.Image, int64, int64, error) {
	cloud, _, err := ReadClouds(rasterRead{c}, ins)
	if err != nil {
		return nil, 0, 0, err
	}
	img, n, err := rasterGrid(c, cloud, o)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", strings.Join(ins, ", "), err)
	}
	return img, int64(n), int64(cloud.Len()), nil
}

// rasterRead is the raster's options as the reading sees them: its
// --resolution is the raster's, not COPC's query.
type rasterRead struct{ Values }

// IsSet reports whether the option was given, never the COPC --resolution.
func (r rasterRead) IsSet(name string) bool { return name != "resolution" && r.Values.IsSet(name) }

// rasterOptions reads the options that need no points.
func rasterOptions(c Values) (raster.Options, geotiff.Options, error) {
	o := raster.Options{Resolution: c.Float64("resolution"), Radius: c.Float64("radius"), Power: c.Float64("power"), WindowSize: c.Int("window-size")}
	var wo geotiff.Options
	if !c.IsSet("resolution") {
		return o, wo, Usagef("raster: --resolution is required")
	}
	for _, w := range strings.Split(c.String("output-type"), ",") {
		v, ok := rasterOutputs[strings.TrimSpace(w)]
		if !ok {
			return o, wo, Usagef("--output-type %q: want all or min, max, mean, idw, count, stdev", w)
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
		return o, wo, Usagef("--data-type %q: want float64 or float32", t)
	}
	wo.NoOverviews, wo.Deflate = !c.Bool("cog"), c.Bool("deflate")
	set := 0
	for _, name := range rasterGridOptions {
		if c.IsSet(name) {
			set++
		}
	}
	if set != 0 && set != len(rasterGridOptions) {
		// PDAL's GDALWriter::initialize refuses the same.
		return o, wo, Usagef("raster: give all or none of --origin-x, --origin-y, --width and --height (PDAL origin_x, origin_y, width, height)")
	}
	if set > 0 {
		// Validate checks the grid; the origin moves to the local frame later.
		o.Grid = raster.Grid{OriginX: c.Float64("origin-x"), OriginY: c.Float64("origin-y"), Width: c.Int("width"), Height: c.Int("height"), Resolution: o.Resolution}
	}
	if err := o.Validate(); err != nil {
		return o, wo, Usagef("%v", err)
	}
	if ts := c.Float64("tile-size"); ts < 0 || math.IsNaN(ts) || math.IsInf(ts, 0) {
		return o, wo, Usagef("--tile-size %g: want a positive size", ts)
	}
	return o, wo, nil
}

// rasterGrid grids the points of cloud chosen by --class and --returns,
// block by block of cells with --tile-size, and returns the image and the
// number of points gridded.
func rasterGrid(c Values, cloud *core.Cloud, o raster.Options) (*geotiff.Image, int, error) {
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

// rasterImage sets o's grid in the frame of origin: the fixed grid given
// (its corner moved to that frame), else PDAL's from the chosen points'
// box lo, hi (relative to origin); and returns the image to fill, in crs,
// and the side of --tile-size's blocks in cells (the whole grid without
// it).
func rasterImage(c Values, o *raster.Options, origin [3]float64, lo, hi [2]float64, crs core.CRS) (*geotiff.Image, int) {
	var gt [6]float64
	if o.Grid != (raster.Grid{}) {
		// The corner given (rasterOptions), as PDAL's writer computes it.
		gt = o.Grid.GeoTransform()
		o.Grid.OriginX, o.Grid.OriginY = o.Grid.OriginX-origin[0], o.Grid.OriginY-origin[1]
	} else {
		o.Grid = raster.DefaultGrid(lo[0], lo[1], hi[0], hi[1], o.Resolution)
		gt = o.Grid.GeoTransform()
		gt[0], gt[3] = gt[0]+origin[0], gt[3]+origin[1]
	}
	g := o.Grid
	img := &geotiff.Image{Width: g.Width, Height: g.Height, NoData: o.NoData, CRS: crs, GeoTransform: gt}
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
func rasterValues(c Values, cloud *core.Cloud) ([]float64, error) {
	d := c.String("dimension")
	if d == "Z" {
		return cloud.Z, nil
	}
	a := cloud.Attr(d)
	if a == nil {
		return nil, Usagef("--dimension %s: the input has no such dimension", d)
	}
	vals := make([]float64, cloud.Len())
	for i := range vals {
		vals[i] = a.Float64(i)
	}
	return vals, nil
}

// rasterSelect returns the points --class and --returns choose (nil: all).
func rasterSelect(c Values, cloud *core.Cloud) ([]bool, error) {
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
			return nil, Usagef("--returns: %v", err)
		}
	}
	sel, err := ground.Select(cloud.Len(), attrs, nil, ret)
	if err != nil {
		return nil, err
	}
	if s := c.String("class"); s != "" {
		if attrs.Classification == nil {
			return nil, Usagef("--class: the input has no Classification")
		}
		keep := map[uint8]bool{}
		for _, f := range strings.Split(s, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || v < 0 || v > 255 {
				return nil, Usagef("--class: %q is not a class (0-255)", f)
			}
			keep[uint8(v)] = true
		}
		for i, k := range attrs.Classification {
			sel[i] = sel[i] && keep[k]
		}
	}
	return sel, nil
}

// gdalStage reads a JSON pipeline's writers.gdal: its file name and its
// options by RasterOptions name (PDAL's names mapped; gdaldriver must be
// GTiff, gdalopts COMPRESS=DEFLATE or NONE and TILED=YES, the layout pctk
// writes; the deprecated bounds become the fixed grid PDAL makes of them). An option pctk does not map is an error naming those it maps,
// as PDAL refuses an option its stage lacks.
func gdalStage(kv object) (string, map[string]string, error) {
	name, ok := kv.get("filename")
	if !ok {
		return "", nil, fmt.Errorf("no filename")
	}
	known := []string{"filename", "bounds", "gdaldriver", "gdalopts"}
	byPDAL := map[string]*Option{}
	for _, o := range RasterOptions {
		switch o.PDAL {
		case "-":
		case "":
			byPDAL[o.Name] = o
		default:
			byPDAL[o.PDAL] = o
		}
	}
	for k := range byPDAL {
		known = append(known, k)
	}
	slices.Sort(known[4:])
	opts := map[string]string{}
	var bounds []float64 // minx, maxx, miny, maxy
	for _, e := range kv {
		if e.key == "type" || e.key == "filename" {
			continue
		}
		text, err := flagValue(e.key, e.value)
		if err != nil {
			return "", nil, fmt.Errorf("option %q: %v", e.key, err)
		}
		switch o := byPDAL[e.key]; {
		case o != nil:
			opts[o.Name] = text
		case e.key == "bounds":
			m := pdalBoundsRE.FindStringSubmatch(text)
			if m == nil {
				return "", nil, fmt.Errorf("bounds %q: want ([xmin,xmax],[ymin,ymax])", text)
			}
			for _, r := range m[1:3] {
				for _, f := range strings.Split(r, ",") {
					v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
					if err != nil {
						return "", nil, fmt.Errorf("bounds %q: %q is not a number", text, f)
					}
					bounds = append(bounds, v)
				}
			}
			if len(bounds) != 4 || !(bounds[0] <= bounds[1] && bounds[2] <= bounds[3]) {
				return "", nil, fmt.Errorf("bounds %q: want ([xmin,xmax],[ymin,ymax]) with min ≤ max", text)
			}
		case e.key == "gdaldriver":
			if !strings.EqualFold(text, "GTiff") {
				return "", nil, fmt.Errorf("gdaldriver %q: pctk writes GTiff only", text)
			}
		case e.key == "gdalopts":
			for _, kv := range strings.Split(text, ",") {
				switch k, v, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(kv)), "="); {
				case k == "COMPRESS" && (v == "DEFLATE" || v == "NONE"):
					opts["deflate"] = strconv.FormatBool(v == "DEFLATE")
				case k == "TILED" && v == "YES":
				default:
					return "", nil, fmt.Errorf("gdalopts %q: pctk maps COMPRESS=DEFLATE, COMPRESS=NONE and TILED=YES (it writes a tiled GeoTIFF)", kv)
				}
			}
		default:
			return "", nil, fmt.Errorf("option %q is not one pctk maps (%s)", e.key, strings.Join(known, ", "))
		}
	}
	if bounds != nil {
		// PDAL's deprecated bounds: the grid GDALWriter::createGrid makes
		// of them, floor(extent/resolution)+1 cells from the minimum.
		for _, g := range rasterGridOptions {
			if _, ok := opts[g]; ok {
				return "", nil, fmt.Errorf("give bounds or origin_x, origin_y, width and height, not both")
			}
		}
		res, err := strconv.ParseFloat(opts["resolution"], 64)
		if err == nil && res > 0 {
			g := raster.DefaultGrid(bounds[0], bounds[2], bounds[1], bounds[3], res)
			for k, v := range map[string]float64{"origin-x": g.OriginX, "origin-y": g.OriginY, "width": float64(g.Width), "height": float64(g.Height)} {
				opts[k] = strconv.FormatFloat(v, 'g', -1, 64)
			}
		}
	}
	return name, opts, nil
}

// rasterWriter is a pipeline writer's options when it writes a raster
// (writers.gdal): its RasterOptions over the pipeline's own (--force).
type rasterWriter struct{ Values }

// newRasterWriter returns the values of a writers.gdal whose options are
// opts (by RasterOptions name), over the pipeline's c; a usage error when
// they do not make a raster or file is not one it can write.
func newRasterWriter(c Values, file string, opts map[string]string) (rasterWriter, error) {
	s := NewSettings(RasterOptions)
	for name, text := range opts {
		if err := s.Set(name, text); err != nil {
			return rasterWriter{}, Usagef("pipeline: writers.gdal %s: %v", file, err)
		}
	}
	r := rasterWriter{layered{s, c}}
	if file == "-" {
		return r, Usagef("pipeline: writers.gdal writes a file, not standard output")
	}
	if _, _, err := rasterOptions(r); err != nil {
		return r, Usagef("pipeline: writers.gdal %s: %v", file, err)
	}
	return r, nil
}

// write grids cloud into the GeoTIFF path.
func (r rasterWriter) write(path string, cloud *core.Cloud) error {
	start := time.Now()
	o, wo, err := rasterOptions(r)
	if err != nil {
		return err
	}
	img, n, err := rasterGrid(r, cloud, o)
	if err != nil {
		return fmt.Errorf("writers.gdal %s: %w", path, err)
	}
	if err := geotiff.WriteFile(path, img, wo); err != nil {
		return err
	}
	msg.Infof("gridded %d of %d points into %s (%d×%d cells, %d bands) in %.2f s", n, cloud.Len(), path, img.Width, img.Height, len(img.Bands), time.Since(start).Seconds())
	return nil
}

// isRaster reports whether c is a writers.gdal's.
func isRaster(c Values) bool {
	_, ok := c.(rasterWriter)
	return ok
}

// writeOutput writes a pipeline's cloud to path with c's writer: a raster
// for writers.gdal, else the cloud (WriteCloud).
func writeOutput(c Values, path string, cloud *core.Cloud, from *pcio.Format) error {
	if r, ok := c.(rasterWriter); ok {
		return r.write(path, cloud)
	}
	return WriteCloud(c, path, cloud, from)
}

// checkOutput reports before the steps run whether path can be written
// with c's writer (OutputFormat for a cloud).
func checkOutput(c Values, path string, from *pcio.Format) error {
	if isRaster(c) {
		return nil
	}
	_, _, err := OutputFormat(c, path, from)
	return err
}
