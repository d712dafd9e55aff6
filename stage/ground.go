package stage

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pctk/pctk/algos/ground"
	"github.com/pctk/pctk/core"
)

// PDAL's ground filters (algos/ground, docs/ground.md): filters.smrf and
// filters.pmf as local stages, filters.csf on the whole cloud only.

// groundColumns is what the ground filters write: Classification, 2 for
// ground, 1 for the other points they classify.
var groundColumns = []core.Dimension{{Name: core.DimClassification, Type: core.Uint8}}

// groundReads are the dimensions the ground filters read.
var groundReads = []string{core.DimClassification, core.DimReturnNumber, core.DimNumberOfReturns}

// groundOptions are the options the three filters share, PDAL's names.
func groundOptions(opts ...*Option) []*Option {
	return append(opts,
		&Option{Kind: String, Name: "ignore", PDAL: "ignore", DefaultText: "none", Usage: "classes left as they are, taking no part (PDAL ignore): `CLASSES` as 7,9 or 3:5 or PDAL's Classification[7:7]"},
		&Option{Kind: String, Name: "returns", PDAL: "returns", Value: "last,only", Usage: "returns classified (PDAL returns): a comma list of first, intermediate, last, only"})
}

// tiesOption chooses between PDAL's exact classes and the tile mode.
var tiesOption = &Option{Kind: String, Name: "ties", Value: "pdal", Usage: "pdal: PDAL's exact classes, computed on the whole cloud in memory (--tile-size then saves no memory; --max-memory and tile collections need grid); grid: ties between empty cells' equidistant neighbours broken by grid position, the grid laid over the whole run, so that tiles give the whole run's bytes (docs/ground.md)"}

// groundSetup is what Prepare reads of the shared options.
type groundSetup struct {
	ignore  []uint8
	returns ground.Returns
	pdal    bool // PDAL's frame: absolute coordinates, PDAL's k-d tree ties
}

func parseGroundSetup(c Values, ties bool) (groundSetup, error) {
	var s groundSetup
	var err error
	if s.ignore, err = parseIgnore(c.String("ignore")); err != nil {
		return s, err
	}
	if s.returns, err = ground.ParseReturns(c.String("returns")); err != nil {
		return s, err
	}
	switch t := c.String("ties"); {
	case !ties || t == "pdal":
		s.pdal = true
	case t != "grid":
		return s, Usagef("--ties %q: want pdal or grid", t)
	}
	if s.pdal && ties {
		return s, inMemoryOnly(c, "--ties grid: PDAL's exact classes depend on the whole cloud (docs/ground.md)")
	}
	return s, nil
}

// parseIgnore reads PDAL's ignore over Classification: a comma list of
// codes or ranges lo:hi, each optionally as PDAL writes it,
// Classification[lo:hi].
func parseIgnore(s string) ([]uint8, error) {
	var out []uint8
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		r := strings.TrimSuffix(strings.TrimPrefix(f, core.DimClassification+"["), "]")
		lo, hi, isRange := strings.Cut(r, ":")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 0 || b > 255 || a > b {
			return nil, Usagef("--ignore: %q is not a class or range of classes (0-255); want e.g. 7, 3:5 or Classification[7:7]", f)
		}
		for v := a; v <= b; v++ {
			out = append(out, uint8(v))
		}
	}
	return out, nil
}

// withClassBits adds to ignore the classes PDAL's filters.smrf leaves out
// for its classbits option (Segmentation::ignoreClassBits): those whose
// Classification value has any of the bits named, synthetic 32, keypoint 64
// or withheld 128. The LAS flags of point formats 0 to 5 are not
// Classification (PDAL's readers.las and pctk's read them apart), so the
// option acts on the classes of formats 6 to 10.
func withClassBits(ignore []uint8, s string) ([]uint8, error) {
	var bits int
	for _, w := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(w)) {
		case "":
		case "synthetic":
			bits |= 32
		case "keypoint":
			bits |= 64
		case "withheld":
			bits |= 128
		default:
			return nil, Usagef("--classbits: %q is not synthetic, keypoint or withheld", w)
		}
	}
	for c := range 256 {
		if c&bits != 0 && !slices.Contains(ignore, uint8(c)) {
			ignore = append(ignore, uint8(c))
		}
	}
	return ignore, nil
}

// groundInput returns the attributes of in (its Values of groundReads)
// and the coordinates a filter computes from: absolute as read in PDAL's
// frame (LocalInput.Abs, on every path), relative to the run's origin
// otherwise.
func groundInput(in *LocalInput, pdal bool) (ground.Attrs, []float64) {
	a := ground.Attrs{Classification: u8(in.Values[0]), ReturnNumber: u8(in.Values[1]), NumberOfReturns: u8(in.Values[2])}
	if !pdal {
		return a, in.Pos
	}
	return a, in.Abs
}

// runGrid returns the whole run's grid of cells of side cell in the
// coordinates relative to in.Origin, so that every tile's cells are the
// run's.
func runGrid(in *LocalInput, cell float64) *ground.Grid {
	return &ground.Grid{X0: in.Min[0] - in.Origin[0], Y0: in.Min[1] - in.Origin[1],
		Cols: int((in.Max[0]-in.Min[0])/cell) + 1, Rows: int((in.Max[1]-in.Min[1])/cell) + 1}
}

// groundJob returns the job of a ground filter: run classifies the points
// of a LocalInput; halo is the first tiles' halo in grid mode.
func groundJob(s groundSetup, halo float64, run func(xyz []float32, a ground.Attrs, pos []float64, g *ground.Grid) (ground.Result, error), cell float64) *Job {
	if s.pdal {
		halo = math.Inf(1)
	}
	return &Job{CPUWork: true, Local: &Local{Columns: groundColumns, Reads: groundReads, Halo: halo, Rel: !s.pdal, Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
		a, pos := groundInput(in, s.pdal)
		var g *ground.Grid
		if !s.pdal {
			g = runGrid(in, cell)
		}
		r, err := run(in.XYZ, a, pos, g)
		if err != nil {
			return nil, nil, err
		}
		return []*core.Attribute{core.NewColumn(core.DimClassification, r.Classification)}, r.Reach, nil
	}}}
}

func init() {
	RegisterGroup(&Group{
		Name:  "ground",
		Usage: "classify ground (class 2) with PDAL's filters.smrf, filters.pmf or filters.csf",
		Description: `Each mode reproduces PDAL 2.9.2's filter (docs/ground.md): the returns chosen
(--returns, default last,only) of the classes not ignored (--ignore) get class 2
(ground) or 1; the other points keep their class.

  pctk ground smrf in.laz out.laz     Simple Morphological Filter (Pingel 2013)
  pctk ground pmf in.laz out.laz      Progressive Morphological Filter (Zhang 2003)
  pctk ground csf in.laz out.laz      Cloth Simulation Filter (Zhang 2016), whole cloud only

smrf and pmf give PDAL's exact classes by default (--ties pdal, whole cloud);
--ties grid makes them tile: --tile-size, --max-memory and tile collections then
give the whole run's classes with bounded memory.`,
	})
	smrf := "Simple Morphological Filter (PDAL filters.smrf): classify ground"
	Register(&Stage{
		Name: "ground smrf", PDAL: "filters.smrf", Tiled: true, Usage: smrf,
		Description: smrf + `, as PDAL 2.9.2 does (docs/ground.md).
By default (--ties pdal) the classes are PDAL's, bit for bit, computed on the
whole cloud. --ties grid breaks ties between equidistant cells by grid position
and lays the grid over the whole run: tiles then give the whole run's bytes.`,
		Examples: []string{"pctk ground smrf street.las out.las --ties grid --window 6", "pctk ground smrf autzen.laz out.laz --slope 0.2 --ignore 7"},
		Options: groundOptions(
			&Option{Kind: Float, Name: "cell", PDAL: "cell", Value: 1.0, Usage: "raster cell size in coordinate units (PDAL cell)"},
			&Option{Kind: Float, Name: "slope", PDAL: "slope", Value: 0.15, Usage: "slope tolerance, rise over run: units per unit (PDAL slope)"},
			&Option{Kind: Float, Name: "window", PDAL: "window", DefaultText: "18 × cell", Usage: "largest opening radius in coordinate units (PDAL window)"},
			&Option{Kind: Float, Name: "scalar", PDAL: "scalar", Value: 1.25, Usage: "multiplier of the DEM's slope in the threshold (PDAL scalar)"},
			&Option{Kind: Float, Name: "threshold", PDAL: "threshold", Value: 0.5, Usage: "elevation threshold in coordinate units (PDAL threshold)"},
			&Option{Kind: Float, Name: "cut", PDAL: "cut", Usage: "net cutting spacing in coordinate units, 0: none (PDAL cut)"},
			&Option{Kind: String, Name: "classbits", PDAL: "classbits", DefaultText: "none", Usage: "points whose Classification has these bits are left as they are, taking no part (PDAL classbits): a comma list of synthetic (32), keypoint (64), withheld (128)"},
			tiesOption),
		Params: map[string]string{"cell": "cell", "slope": "slope", "window": "window", "scalar": "scalar", "threshold": "threshold", "cut": "cut", "returns": "returns"},
		Prepare: func(c Values) (*Job, error) {
			s, err := parseGroundSetup(c, true)
			if err == nil {
				s.ignore, err = withClassBits(s.ignore, c.String("classbits"))
			}
			o := ground.SMRFOptions{Cell: c.Float64("cell"), Slope: c.Float64("slope"), Window: c.Float64("window"), Scalar: c.Float64("scalar"),
				Threshold: c.Float64("threshold"), Cut: c.Float64("cut"), Ignore: s.ignore, Returns: s.returns}
			if err == nil {
				err = o.Validate()
			}
			o.PDALFrame = s.pdal // Pos comes with the points
			w := o.Window
			if w == 0 {
				w = 18 * o.Cell
			}
			return groundJob(s, (2*math.Ceil(w/o.Cell)+4*math.Ceil(o.Cut/o.Cell)+4)*o.Cell, func(xyz []float32, a ground.Attrs, pos []float64, g *ground.Grid) (ground.Result, error) {
				o.Pos, o.Grid = pos, g
				return ground.SMRF(xyz, a, o)
			}, o.Cell), err
		},
	})
	pmf := "Progressive Morphological Filter (PDAL filters.pmf): classify ground"
	Register(&Stage{
		Name: "ground pmf", PDAL: "filters.pmf", Tiled: true, Usage: pmf,
		Description: pmf + `, as PDAL 2.9.2 does (docs/ground.md).
--ties pdal (the default) gives PDAL's classes on the whole cloud; --ties grid
tiles with the whole run's bytes.`,
		Examples: []string{"pctk ground pmf street.las out.las --ties grid --max-window-size 9", "pctk ground pmf autzen.laz out.laz --exponential=false"},
		Options: groundOptions(
			&Option{Kind: Float, Name: "cell-size", PDAL: "cell_size", Value: 1.0, Usage: "raster cell size in coordinate units (PDAL cell_size)"},
			&Option{Kind: Bool, Name: "exponential", PDAL: "exponential", Value: true, Usage: "windows grow exponentially, else linearly (PDAL exponential)"},
			&Option{Kind: Float, Name: "initial-distance", PDAL: "initial_distance", Value: 0.15, Usage: "first height threshold in coordinate units (PDAL initial_distance)"},
			&Option{Kind: Float, Name: "max-distance", PDAL: "max_distance", Value: 2.5, Usage: "largest height threshold in coordinate units (PDAL max_distance)"},
			&Option{Kind: Float, Name: "max-window-size", PDAL: "max_window_size", Value: 33.0, Usage: "largest window in coordinate units (PDAL max_window_size)"},
			&Option{Kind: Float, Name: "slope", PDAL: "slope", Value: 1.0, Usage: "slope of the threshold, units per unit (PDAL slope)"},
			tiesOption),
		Params: map[string]string{"cell_size": "cell-size", "initial_distance": "initial-distance", "max_distance": "max-distance", "max_window_size": "max-window-size", "slope": "slope", "returns": "returns"},
		Prepare: func(c Values) (*Job, error) {
			s, err := parseGroundSetup(c, true)
			o := ground.PMFOptions{CellSize: c.Float64("cell-size"), Linear: !c.Bool("exponential"), InitialDistance: c.Float64("initial-distance"),
				MaxDistance: c.Float64("max-distance"), MaxWindowSize: c.Float64("max-window-size"), Slope: c.Float64("slope"), Ignore: s.ignore, Returns: s.returns}
			if err == nil {
				err = o.Validate()
			}
			o.PDALFrame = s.pdal // Pos comes with the points
			return groundJob(s, (o.MaxWindowSize/o.CellSize*2+4)*o.CellSize, func(xyz []float32, a ground.Attrs, pos []float64, g *ground.Grid) (ground.Result, error) {
				o.Pos, o.Grid = pos, g
				return ground.PMF(xyz, a, o)
			}, o.CellSize), err
		},
	})
	csf := "Cloth Simulation Filter (PDAL filters.csf): classify ground, whole cloud only"
	Register(&Stage{
		Name: "ground csf", PDAL: "filters.csf", Usage: csf,
		Description: csf + `, as PDAL 2.9.2 does (docs/ground.md).
CSF is global: the cloth's every particle depends on the whole cloud, so it
runs in memory on the whole cloud (no --tile-size, --max-memory or tile
collections; a tiled CSF would be an approximation pctk does not offer).`,
		Examples: []string{"pctk ground csf street.las out.las --cloth-resolution 2 --iterations 100", "pctk ground csf autzen.laz out.laz --rigidness 2 --smooth=false"},
		Options: groundOptions(
			&Option{Kind: Float, Name: "cloth-resolution", PDAL: "resolution", Value: 1.0, Usage: "cloth grid spacing (PDAL resolution; --resolution is the COPC reading option)"},
			&Option{Kind: Int, Name: "rigidness", PDAL: "rigidness", Value: 3, Usage: "cloth rigidness, 1 to 3 (PDAL rigidness)"},
			&Option{Kind: Int, Name: "iterations", PDAL: "iterations", Value: 500, Usage: "most time steps: a count (PDAL iterations)"},
			&Option{Kind: Float, Name: "step", PDAL: "step", Value: 0.65, Usage: "time step in seconds of the simulation (PDAL step)"},
			&Option{Kind: Float, Name: "threshold", PDAL: "threshold", Value: 0.5, Usage: "largest distance in coordinate units from the cloth of a ground point (PDAL threshold)"},
			&Option{Kind: Float, Name: "hdiff", PDAL: "hdiff", Value: 0.3, Usage: "height difference in coordinate units under which steep cloth is pinned (PDAL hdiff)"},
			&Option{Kind: Bool, Name: "smooth", PDAL: "smooth", Value: true, Usage: "post-process steep slopes (PDAL smooth)"}),
		Params: map[string]string{"resolution": "cloth-resolution", "rigidness": "rigidness", "iterations": "iterations", "step": "step", "threshold": "threshold", "hdiff": "hdiff", "returns": "returns"},
		Prepare: func(c Values) (*Job, error) {
			s, err := parseGroundSetup(c, false)
			o := ground.CSFOptions{Resolution: c.Float64("cloth-resolution"), Rigidness: c.Int("rigidness"), Iterations: c.Int("iterations"), Step: c.Float64("step"),
				Threshold: c.Float64("threshold"), HDiff: c.Float64("hdiff"), NoSmooth: !c.Bool("smooth"), Ignore: s.ignore, Returns: s.returns}
			if err == nil {
				err = o.Validate()
			}
			if err == nil && (o.Rigidness == 0 || o.Iterations == 0) {
				err = Usagef("--rigidness and --iterations: want at least 1")
			}
			return groundJob(s, 0, func(xyz []float32, a ground.Attrs, pos []float64, _ *ground.Grid) (ground.Result, error) {
				o.Pos = pos
				return ground.CSF(xyz, a, o)
			}, o.Resolution), err
		},
	})
}
