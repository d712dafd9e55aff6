package ground

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// SMRFOptions configure SMRF. The zero value is PDAL's filters.smrf with
// its defaults; a zero field takes PDAL's default (so an option PDAL allows
// to be 0, such as scalar, cannot be 0 here: use a tiny value).
type SMRFOptions struct {
	// Cell is the raster's cell size (PDAL's cell, default 1).
	Cell float64
	// Slope is the slope tolerance of the progressive opening, rise over
	// run (PDAL's slope, default 0.15).
	Slope float64
	// Window is the largest opening radius in the coordinates' units
	// (PDAL's window, default 18·Cell), ceil(Window/Cell) cells.
	Window float64
	// Scalar scales the provisional DEM's slope into the threshold (PDAL's
	// scalar, default 1.25).
	Scalar float64
	// Threshold is the elevation threshold (PDAL's threshold, default 0.5).
	Threshold float64
	// Cut is the net cutting spacing, 0 for none (PDAL's cut, default 0).
	Cut float64
	// Ignore lists classes left as they are, taking no part (PDAL's ignore
	// ranges over Classification: "Classification[7:7]" is Ignore {7}).
	Ignore []uint8
	// Returns selects the returns classified (PDAL's returns; zero:
	// "last, only").
	Returns Returns
	// Pos, when not nil, holds the float64 coordinates relative to the
	// same origin as xyz (interleaved x, y, z), from which SMRF computes;
	// nil takes xyz's.
	Pos []float64
	// Grid, when not nil, is the raster frame: a tiled run passes the
	// whole run's, PDALGrid of the points Select selects in the whole
	// cloud, so that tiles share cells; nil takes PDALGrid of the points
	// given.
	Grid *Grid
	// PDALFrame computes as PDAL does, to its classes on a whole cloud:
	// Pos (then required) holds the absolute coordinates, as the file
	// gives them, not relative ones (sums such as the mean of absolute Z
	// round as PDAL's do, and the grid, Grid included, is in absolute
	// coordinates too), and empty cells are filled from PDAL's k-d tree
	// over the cell centres, which breaks ties between equally distant
	// cells as PDAL does. As that order depends on the whole raster, Reach
	// is then +Inf. Without it ties go by the cells' place in the grid and
	// Reach is finite (docs/ground.md).
	PDALFrame bool
}

// withDefaults returns o with zero fields replaced by PDAL's defaults.
func (o SMRFOptions) withDefaults() SMRFOptions {
	orDefault(&o.Cell, 1)
	orDefault(&o.Slope, 0.15)
	orDefault(&o.Window, 18*o.Cell)
	orDefault(&o.Scalar, 1.25)
	orDefault(&o.Threshold, 0.5)
	return o
}

// Validate reports whether the options make sense, naming the option as
// PDAL does in a *findneighbor.ParamError.
func (o SMRFOptions) Validate() error {
	o = o.withDefaults()
	return checkAll(
		findneighbor.CheckRadius("smrf", "cell", o.Cell, false),
		findneighbor.CheckRadius("smrf", "window", o.Window, false),
		findneighbor.CheckRadius("smrf", "cut", o.Cut, true),
		findneighbor.CheckFloat("smrf", "slope", o.Slope),
		findneighbor.CheckFloat("smrf", "scalar", o.Scalar),
		findneighbor.CheckFloat("smrf", "threshold", o.Threshold),
		checkGrid("smrf", o.Grid),
		checkFrame("smrf", o.PDALFrame, o.Pos),
	)
}

// orDefault sets *v to d when it is 0.
func orDefault(v *float64, d float64) {
	if *v == 0 {
		*v = d
	}
}

// checkAll returns the first error of errs.
func checkAll(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkGrid reports a grid that is not finite or has no cell.
func checkGrid(op string, g *Grid) error {
	if g == nil {
		return nil
	}
	return checkAll(
		findneighbor.CheckFloat(op, "grid origin x", g.X0),
		findneighbor.CheckFloat(op, "grid origin y", g.Y0),
		findneighbor.CheckMin(op, "grid columns", g.Cols, 1),
		findneighbor.CheckMin(op, "grid rows", g.Rows, 1),
	)
}

// checkFrame reports PDALFrame without Pos.
func checkFrame(op string, frame bool, pos []float64) error {
	if frame && pos == nil {
		return fmt.Errorf("%s: PDALFrame needs Pos, the absolute coordinates", op)
	}
	return nil
}

// Result is what a ground filter computed for each point.
type Result struct {
	// Classification is the points' new class: Ground (2) or
	// Unclassified (1) for the points classified, the input class
	// (Attrs.Classification, or 0) for the others.
	Classification []uint8
	// Reach is, for each point, a distance in XY such that its class
	// depends only on the points within it (+Inf where it may depend on
	// the whole cloud); 0 for the points not classified.
	Reach []float64
}

// SMRF classifies the points of xyz (float32 coordinates relative to a
// local origin, interleaved x, y, z) into ground and no ground as PDAL's
// filters.smrf does (filters/SMRFilter.cpp, SMRFilter::run): the minimum
// surface of the selected points on a raster of Cell, its empty cells
// filled with the mean of their 8 nearest filled cells, low outliers
// (one opening of the inverted surface, slope 5) and objects (openings
// with diamonds of 1 .. ceil(Window/Cell) cells, the net cut first when
// Cut > 0) taken out and filled again into the provisional DEM, and each
// point ground when it lies within Threshold + Scalar·slope of the DEM in
// Z. docs/ground.md says where it differs from PDAL and what a tile halo
// must hold.
func SMRF(xyz []float32, a Attrs, opts SMRFOptions) (Result, error) {
	if err := opts.Validate(); err != nil {
		return Result{}, err
	}
	opts = opts.withDefaults()
	st, err := newSetup(xyz, a, opts.Pos, opts.Ignore, opts.Returns, opts.Grid, opts.Cell, opts.PDALFrame, nil)
	if err != nil {
		return Result{}, err
	}
	ras, cells, pos, cell := st.ras, st.cells, st.pos, st.cell
	const smrfK = 8 // SMRFilter::knnfill's k
	zmin := ras.minimum(pos, cells)
	fillReach := st.fill(zmin, smrfK)

	neg := make([]float64, len(zmin))
	for i, z := range zmin {
		neg[i] = -z
	}
	low := ras.progressive(neg, 5.0, cell, cell)

	net := make([]bool, ras.n())
	netDepth := 0
	znet := zmin
	if opts.Cut > 0 {
		v := int(math.Ceil(opts.Cut / cell))
		netDepth = 4 * v
		open := append([]float64(nil), zmin...)
		ras.erode(open, 2*v)
		ras.dilate(open, 2*v)
		znet = append([]float64(nil), zmin...)
		for c := range ras.cols {
			for r := range ras.rows {
				if (ras.c0+c)%v == 0 || (ras.r0+r)%v == 0 {
					net[c*ras.rows+r] = true
					znet[c*ras.rows+r] = open[c*ras.rows+r]
				}
			}
		}
	}
	obj := ras.progressive(znet, opts.Slope, opts.Window, cell)

	masked := make([]bool, ras.n())
	zpro := append([]float64(nil), zmin...)
	for i := range zpro {
		if obj[i] || low[i] || net[i] {
			masked[i] = true
			zpro[i] = math.NaN()
		}
	}
	st.fill(zpro, smrfK)
	thresh := ras.slope(zpro, cell)
	for i, s := range thresh {
		thresh[i] = opts.Threshold + opts.Scalar*s
	}

	// A cell's mask looks this far (in cells, a diamond) into the filled
	// minimum surface: the openings of up to maxRadius (2·maxRadius), the
	// net's opening before them, the low outliers' opening of 1 (2).
	var dep []float64
	if !opts.PDALFrame {
		maxRadius := int(math.Ceil(opts.Window / cell))
		dep = ras.dependence(fillReach, masked, max(2*maxRadius+netDepth, 2), smrfK)
	}

	return st.result(a, dep, func(i, c int) bool {
		return !math.IsNaN(zpro[c]) && !math.IsNaN(thresh[c]) && math.Abs(zpro[c]-pos[3*i+2]) <= thresh[c]
	}), nil
}

// minimum returns the lowest Z of the points in each cell (cells[i] the
// raster index of point i, -1 for none), NaN where none falls.
func (g raster) minimum(pos []float64, cells []int) []float64 {
	z := make([]float64, g.n())
	for i := range z {
		z[i] = math.NaN()
	}
	for i, c := range cells {
		if c >= 0 && (pos[3*i+2] < z[c] || math.IsNaN(z[c])) {
			z[c] = pos[3*i+2]
		}
	}
	return z
}

// widen returns, for each cell, depth + the largest of reach over the
// diamond of depth cells around it: how far a value computed from the
// diamond's cells looks, each of them looking reach further.
func (g raster) widen(reach []float64, depth int) []float64 {
	w := append([]float64(nil), reach...)
	g.dilate(w, depth)
	for i := range w {
		w[i] += float64(depth)
	}
	return w
}

// clip returns d, the dependence of cell (c, r) in cells, or +Inf when it
// reaches a cell beyond a side of the raster that the whole grid has.
func (g raster) clip(c, r int, d float64) float64 {
	for s, gap := range [4]int{c + 1, g.cols - c, r + 1, g.rows - r} {
		if !g.edge[s] && d >= float64(gap) {
			return math.Inf(1)
		}
	}
	return d
}

// dependence returns, for each cell q, a distance D in cells such that the
// class of a point in q depends only on the cells whose centres lie within
// D of q's: the provisional DEM at q and its four neighbours (the
// gradient), each of which is the filled minimum surface there when
// unmasked and otherwise the mean of its nearest unmasked cells, whose
// masks look maskDepth cells (a diamond) into the filled minimum surface,
// each cell of which depends on the cells it was filled from (fillReach).
// +Inf where D reaches past a side of the raster that is not the whole
// grid's (the cells beyond, absent here, would count) or where no cell is
// unmasked.
func (g raster) dependence(fillReach []float64, masked []bool, maskDepth, fillK int) []float64 {
	// mreach: how far a cell's mask and value look.
	mreach := g.widen(fillReach, maskDepth)
	// pro: how far the provisional DEM at a cell looks.
	pro := append([]float64(nil), mreach...)
	unmasked := func(i int) bool { return !masked[i] }
	buf := make([]cand, 0, fillK)
	for i, m := range masked {
		if !m {
			continue
		}
		c, r := i/g.rows, i%g.rows
		best := g.nearest(c, r, fillK, unmasked, buf)
		if len(best) == 0 || len(best) < fillK && !g.whole() {
			pro[i] = math.Inf(1)
			continue
		}
		d2 := best[len(best)-1].d2
		k := int(math.Sqrt(float64(d2)))
		worst := 0.0
		for cc := max(c-k, 0); cc <= min(c+k, g.cols-1); cc++ {
			for rr := max(r-k, 0); rr <= min(r+k, g.rows-1); rr++ {
				dc, dr := cc-c, rr-r
				if dc*dc+dr*dr <= d2 {
					worst = math.Max(worst, math.Sqrt(float64(dc*dc+dr*dr))+mreach[cc*g.rows+rr])
				}
			}
		}
		pro[i] = worst
	}
	dep := make([]float64, g.n())
	for c := range g.cols {
		for r := range g.rows {
			i := c*g.rows + r
			d := pro[i]
			if c > 0 {
				d = math.Max(d, 1+pro[i-g.rows])
			}
			if c < g.cols-1 {
				d = math.Max(d, 1+pro[i+g.rows])
			}
			if r > 0 {
				d = math.Max(d, 1+pro[i-1])
			}
			if r < g.rows-1 {
				d = math.Max(d, 1+pro[i+1])
			}
			dep[i] = g.clip(c, r, d)
		}
	}
	return dep
}
