package raster

import (
	"fmt"
	"math"
	"runtime"

	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
)

// Output is a set of statistics to grid (PDAL's output_type).
type Output uint

// The statistics, in the order PDAL writes their bands.
const (
	Min Output = 1 << iota
	Max
	Mean
	IDW
	Count
	StdDev
	// All is PDAL's output_type "all", its default.
	All = Min | Max | Mean | IDW | Count | StdDev
)

var outputNames = []string{"min", "max", "mean", "idw", "count", "stdev"}

// Grid is the raster's frame: Width × Height square cells of side
// Resolution whose lower-left corner is (OriginX, OriginY), in the frame
// of Options.Pos (PDAL's origin_x, origin_y, width, height). Cell (i, j),
// j counted from the bottom, has its centre at (OriginX + (i+0.5)·
// Resolution, OriginY + (j+0.5)·Resolution).
type Grid struct {
	OriginX, OriginY float64
	Width, Height    int
	Resolution       float64
}

// GeoTransform returns GDAL's geotransform of the grid (top-left corner,
// rows going down), as PDAL's writers.gdal sets it.
func (g Grid) GeoTransform() [6]float64 {
	return [6]float64{g.OriginX, g.Resolution, 0, g.OriginY + g.Resolution*float64(g.Height), 0, -g.Resolution}
}

// Window is a block of a Grid's cells in GDAL's order: columns from the
// left, rows from the top.
type Window struct{ Col, Row, Cols, Rows int }

// Options configure Compute.
type Options struct {
	// Resolution is the cells' side (PDAL's resolution, required).
	Resolution float64
	// Radius is the distance from a cell's centre within which (strictly)
	// points count (PDAL's radius); 0: Resolution·√2, PDAL's default.
	Radius float64
	// Power is the IDW weights' power (PDAL's power); 0: 1, PDAL's
	// default.
	Power float64
	// WindowSize fills an empty cell from the non-empty cells within that
	// many cells (PDAL's window_size); 0: empty cells get NoData.
	WindowSize int
	// Outputs are the statistics to grid (PDAL's output_type); 0: All.
	Outputs Output
	// NoData is the value of empty cells (PDAL's nodata); nil: -9999,
	// PDAL's default for float bands.
	NoData *float64
	// Grid is the whole run's grid, the frame every tile of a run shares;
	// the zero Grid: PDAL's grid from the points' XY bounds (origin at
	// the minimum, floor(extent/Resolution)+1 cells).
	Grid Grid
	// Cells is the block of Grid to compute (a tile's); zero: all of it.
	Cells Window
	// Values are the values gridded (PDAL's dimension); nil: Z.
	Values []float64
	// Pos holds the points' float64 coordinates, interleaved like xyz and
	// relative to the same origin; nil: xyz's values.
	Pos []float64
	// Build tunes the neighbour index.
	Build findneighbor.BuildOptions
}

func (o Options) radius() float64 {
	if o.Radius == 0 {
		return o.Resolution * math.Sqrt(2)
	}
	return o.Radius
}

func (o Options) power() float64 {
	if o.Power == 0 {
		return 1
	}
	return o.Power
}

func (o Options) outputs() Output {
	if o.Outputs == 0 {
		return All
	}
	return o.Outputs
}

// Validate reports whether the options make sense, naming the option as
// PDAL does.
func (o Options) Validate() error {
	const op = "gdal"
	if err := findneighbor.CheckRadius(op, "resolution", o.Resolution, false); err != nil {
		return err
	}
	if err := findneighbor.CheckRadius(op, "radius", o.Radius, true); err != nil {
		return err
	}
	if err := findneighbor.CheckFloat(op, "power", o.Power); err != nil {
		return err
	}
	if err := findneighbor.CheckMin(op, "window_size", o.WindowSize, 0); err != nil {
		return err
	}
	if o.Outputs&^All != 0 {
		return &findneighbor.ParamError{Op: op, Param: "output_type", Value: fmt.Sprint(uint(o.Outputs)), Want: "a set of min, max, mean, idw, count, stdev"}
	}
	if o.NoData != nil {
		if err := findneighbor.CheckFloat(op, "nodata", *o.NoData); err != nil {
			return err
		}
	}
	if o.Grid != (Grid{}) {
		g := o.Grid
		if err := findneighbor.CheckMin(op, "width", g.Width, 1); err != nil {
			return err
		}
		if err := findneighbor.CheckMin(op, "height", g.Height, 1); err != nil {
			return err
		}
		if err := findneighbor.CheckFloat(op, "origin_x", g.OriginX); err != nil {
			return err
		}
		if err := findneighbor.CheckFloat(op, "origin_y", g.OriginY); err != nil {
			return err
		}
		if g.Resolution != o.Resolution {
			return &findneighbor.ParamError{Op: op, Param: "resolution", Value: fmt.Sprint(o.Resolution), Want: fmt.Sprintf("the grid's %g", g.Resolution)}
		}
	}
	return nil
}

// Reach returns the XY distance from a cell's centre within which the
// points decide its values: the radius, plus, with a window fill, the
// farthest centre of a cell the fill reads (WindowSize cells along both
// axes: √2·WindowSize·Resolution).
func (o Options) Reach() float64 {
	return o.radius() + math.Sqrt2*float64(o.WindowSize)*o.Resolution
}

// Band is one statistic over a Window's cells, rows from the top.
type Band struct {
	// Name is PDAL's band description ("min", "max", "mean", "idw",
	// "count", "stdev").
	Name string
	Data []float64
}

// Raster is Compute's result.
type Raster struct {
	// Grid is the whole run's grid and Cells the block computed.
	Grid  Grid
	Cells Window
	// NoData is the value of empty cells in every band but count.
	NoData float64
	// Bands are the statistics asked for, in PDAL's order (min, max,
	// mean, idw, count, stdev).
	Bands []Band
}

// DefaultGrid returns PDAL's grid for points whose XY bounds are [minX,
// maxX] × [minY, maxY] (GDALWriter::createGrid): origin at the minimum,
// floor(extent/resolution)+1 cells each way.
func DefaultGrid(minX, minY, maxX, maxY, resolution float64) Grid {
	return Grid{minX, minY, int(math.Floor((maxX-minX)/resolution) + 1), int(math.Floor((maxY-minY)/resolution) + 1), resolution}
}

// accum is one cell's running statistics (PDAL's GDALGrid::update). The
// zero accum is an empty cell: its first add sets min and max to PDAL's
// initial ±math.MaxFloat64 before comparing.
type accum struct {
	count, min, max, mean, m2, idw, idwDist float64
}

// accumBytes is an accum's size.
const accumBytes = 7 * 8

// Compute grids the points of xyz (float32 local coordinates) as PDAL's
// writers.gdal does (io/private/GDALGrid.cpp): every point within Radius
// of a cell's centre updates the cell's count, min, max, mean (Welford),
// standard deviation (population) and inverse-distance weighted mean, in
// point order; empty cells are filled from their window or get NoData.
// Each cell is a 2D radius query around its centre on b's index of the
// points: its values depend only on the points within Options.Reach of
// its centre.
func Compute(xyz []float32, b findneighbor.Backend, opts Options) (*Raster, error) {
	n, err := findneighbor.CheckPoints("gdal", xyz)
	if err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Pos != nil && len(opts.Pos) != 3*n {
		return nil, fmt.Errorf("raster: %d float64 coordinates for %d points", len(opts.Pos), n)
	}
	if opts.Values != nil && len(opts.Values) != n {
		return nil, fmt.Errorf("raster: %d values for %d points", len(opts.Values), n)
	}
	pos := opts.Pos
	if pos == nil {
		pos = make([]float64, 3*n)
		for i, v := range xyz {
			pos[i] = float64(v)
		}
	}
	val := func(i int32) float64 {
		if opts.Values != nil {
			return opts.Values[i]
		}
		return pos[3*i+2]
	}
	g := opts.Grid
	if g == (Grid{}) {
		if n == 0 {
			return nil, fmt.Errorf("raster: no points and no grid")
		}
		lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
		for i := range n {
			for a := range 2 {
				lo[a], hi[a] = min(lo[a], pos[3*i+a]), max(hi[a], pos[3*i+a])
			}
		}
		g = DefaultGrid(lo[0], lo[1], hi[0], hi[1], opts.Resolution)
	}
	win := opts.Cells
	if win == (Window{}) {
		win = Window{0, 0, g.Width, g.Height}
	}
	if win.Col < 0 || win.Row < 0 || win.Cols < 1 || win.Rows < 1 || win.Col+win.Cols > g.Width || win.Row+win.Rows > g.Height {
		return nil, fmt.Errorf("raster: cells %+v outside the %d×%d grid", win, g.Width, g.Height)
	}
	// The cells whose statistics the window needs: itself and, for the
	// fill, WindowSize more around it, within the grid.
	ws := opts.WindowSize
	ext := Window{max(0, win.Col-ws), max(0, win.Row-ws), 0, 0}
	ext.Cols = min(g.Width, win.Col+win.Cols+ws) - ext.Col
	ext.Rows = min(g.Height, win.Row+win.Rows+ws) - ext.Row
	if n > 0 && b.Name() == cpu.Backend().Name() {
		return computeCPU(n, pos, val, g, ext, win, opts), nil
	}
	cells, err := accumulate(xyz, pos, val, b, g, ext, opts)
	if err != nil {
		return nil, err
	}
	return finish(cells, g, ext, win, opts), nil
}

// centre returns the centre of the cell at column c, row r (from the top).
func (g Grid) centre(c, r int) (float64, float64) {
	j := g.Height - 1 - r
	return g.OriginX + (float64(c)+.5)*g.Resolution, g.OriginY + (float64(j)+.5)*g.Resolution
}

// accumulate returns the running statistics of the cells of ext (rows
// from the top), each from the points within the radius of its centre, in
// point order.
func accumulate(xyz []float32, pos []float64, val func(int32) float64, b findneighbor.Backend, g Grid, ext Window, opts Options) ([]accum, error) {
	radius, power := opts.radius(), opts.power()
	out := newCells(ext.Cols * ext.Rows)
	n := len(xyz) / 3
	if n == 0 {
		return out, nil
	}
	flat := make([]float32, 3*n)
	for i := range n {
		flat[3*i], flat[3*i+1] = xyz[3*i], xyz[3*i+1]
	}
	q := make([]float32, 3*len(out))
	for k := range out {
		x, y := g.centre(ext.Col+k%ext.Cols, ext.Row+k/ext.Cols)
		q[3*k], q[3*k+1] = float32(x), float32(y)
	}
	// The float32 index finds candidates a little beyond the radius (by
	// far more than float32's rounding of the coordinates); the float64
	// distance decides, as PDAL's does.
	var extent float32
	for _, v := range append(flat[:len(flat):len(flat)], q...) {
		extent = max(extent, v, -v)
	}
	eps := float32(radius*(1+1e-5)) + 1e-6*extent
	bo := opts.Build
	bo.Reuse = true
	ix, err := b.Build(flat, eps, bo)
	if err != nil {
		return nil, fmt.Errorf("raster: %s backend: build index: %w", b.Name(), err)
	}
	defer ix.Close()
	err = findneighbor.Batches(ix, nil, q, findneighbor.NeighborOptions{}, 1<<24, func(first int, csr *findneighbor.CSR) error {
		rows := len(csr.Offsets) - 1
		par.For(par.Ranges(rows, 16), func(_, lo, hi int) {
			for r := lo; r < hi; r++ {
				k := first + r
				cx, cy := g.centre(ext.Col+k%ext.Cols, ext.Row+k/ext.Cols)
				a := &out[k]
				for _, p := range csr.Indices[csr.Offsets[r]:csr.Offsets[r+1]] {
					dx, dy := cx-pos[3*p], cy-pos[3*p+1]
					d := math.Sqrt(dx*dx + dy*dy)
					if d < radius {
						a.add(val(p), d, power)
					}
				}
			}
		})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("raster: %s backend: %w", b.Name(), err)
	}
	return out, nil
}

// newCells returns n empty cells. Zero cells are empty (add sets their
// min and max first); a store in each page of the fresh array, on all
// cores, maps it: a first touch by add's load would map the zero page,
// then copy it at the store.
func newCells(n int) []accum {
	out := make([]accum, n)
	par.For(par.Ranges(len(out), par.Grain), func(_, lo, hi int) {
		for k := lo; k < hi; k += 64 { // 64 cells: under a 4 KiB page
			out[k].count = 0
		}
	})
	return out
}

// blocking tunes computeCPU's blocks of rows: bytes is about the bytes
// of running statistics (accum) of a block, one a worker, that its caches
// hold while the points update it and its rows are finished; above min
// bytes of them in all, a window is computed by blocks of at least rows
// rows. A variable for the tests.
var blocking = struct{ bytes, min, rows int }{1 << 20, 8 << 20, 16}

// computeCPU is Compute on the cpu backend: the points scattered onto the
// cells (scatter). A large window is computed by blocks of rows, each as
// Compute computes a window of its own: the cells the block's rows and
// their fill need (ext's columns, WindowSize rows more each way), from
// the points whose candidate rows meet them, in point order; then its
// rows finished. A block's cells are the whole grid's: a cell's
// statistics depend on its points alone, in order.
func computeCPU(n int, pos []float64, val func(int32) float64, g Grid, ext, win Window, opts Options) *Raster {
	radius, power, ws := opts.radius(), opts.power(), opts.WindowSize
	// Output rows a block: about blocking.bytes of cells, four blocks a
	// core at least, the fill's rows (2·WindowSize) a quarter at most.
	procs := runtime.GOMAXPROCS(0)
	rows := min(blocking.bytes/(ext.Cols*accumBytes), (win.Rows+4*procs-1)/(4*procs))
	rows = max(rows, blocking.rows, 8*ws)
	if ext.Cols*ext.Rows*accumBytes <= blocking.min || rows >= win.Rows {
		cells := newCells(ext.Cols * ext.Rows)
		scatter(n, pos, val, g, ext, radius, power, cells)
		return finish(cells, g, ext, win, opts)
	}
	blocks := (win.Rows + rows - 1) / rows
	// The cells of block k: its rows of win, and of ext with the fill's.
	block := func(k int) (w, e Window) {
		w = Window{win.Col, win.Row + k*rows, win.Cols, min(rows, win.Rows-k*rows)}
		e = Window{ext.Col, max(ext.Row, w.Row-ws), ext.Cols, 0}
		e.Rows = min(ext.Row+ext.Rows, w.Row+w.Rows+ws) - e.Row
		return w, e
	}
	// The points of each block, in order: per range of points, the
	// block's list.
	res := g.Resolution
	jLo, jHi := g.Height-1-(ext.Row+ext.Rows-1), g.Height-1-ext.Row
	rs := par.Ranges(n, par.Grain)
	lists := make([][][]int32, len(rs))
	par.For(rs, func(i, lo, hi int) {
		l := make([][]int32, blocks)
		for p := lo; p < hi; p++ {
			// scatter's candidate rows, from the bottom.
			y := pos[3*p+1]
			fj0, fj1 := math.Floor((y-radius-g.OriginY)/res-0.5)-1, math.Ceil((y+radius-g.OriginY)/res-0.5)+1
			if !(fj1 >= float64(jLo) && fj0 <= float64(jHi)) {
				continue // outside ext, or not finite
			}
			// Rows from the top rLo..rHi of ext.
			rLo, rHi := g.Height-1-int(min(fj1, float64(jHi))), g.Height-1-int(max(fj0, float64(jLo)))
			for k := max(0, (rLo-ws-win.Row)/rows-1); k < blocks; k++ {
				_, e := block(k)
				if e.Row > rHi {
					break
				}
				if e.Row+e.Rows > rLo {
					l[k] = append(l[k], int32(p))
				}
			}
		}
		lists[i] = l
	})
	r, which := newRaster(g, win, opts)
	par.For(par.Ranges(blocks, 1), func(_, lo, hi int) {
		var cells []accum
		for k := lo; k < hi; k++ {
			w, e := block(k)
			if m := e.Cols * e.Rows; cap(cells) < m {
				cells = make([]accum, m)
			} else {
				cells = cells[:m]
				clear(cells)
			}
			for _, l := range lists {
				if l[k] != nil {
					scatterRows(l[k], 0, pos, val, g, e, 0, e.Rows, radius, power, cells)
				}
			}
			finishRows(r, which, cells, g, e, win, w.Row-win.Row, w.Row-win.Row+w.Rows, opts)
		}
	})
	return r
}

// scatter updates the cells of ext (out, rows from the top) from each
// point in turn, as PDAL's GDALGrid::addPoint does: every cell whose
// centre is strictly within radius (the float64 distance of the query
// path, computed alike) takes the point. A cell thus sees its points in
// point order, with the same distances: the query path's bits, without an
// index (on the cpu backend a query a cell costs more than a few cells a
// point). Workers take bands of rows, each reading every point.
func scatter(n int, pos []float64, val func(int32) float64, g Grid, ext Window, radius, power float64, out []accum) {
	bands := par.Ranges(ext.Rows, max(1, (ext.Rows+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0)))
	if n < 1<<14 {
		bands = [][2]int{{0, ext.Rows}}
	}
	par.For(bands, func(_, lo, hi int) {
		scatterRows(nil, n, pos, val, g, ext, lo, hi, radius, power, out)
	})
}

// scatterRows is scatter's work on rows lo..hi of ext from the points
// pts, in their order (nil: the n points).
func scatterRows(pts []int32, n int, pos []float64, val func(int32) float64, g Grid, ext Window, lo, hi int, radius, power float64, out []accum) {
	res := g.Resolution
	// Rows lo..hi of ext, from the top, are rows from the bottom
	// jLo..jHi of the grid.
	jLo, jHi := g.Height-1-(ext.Row+hi-1), g.Height-1-(ext.Row+lo)
	if pts != nil {
		n = len(pts)
	}
	for i := range n {
		p := int32(i)
		if pts != nil {
			p = pts[i]
		}
		x, y := pos[3*p], pos[3*p+1]
		// Candidate cells, a cell wider than the radius on each side: the
		// distance decides.
		fc0, fc1 := math.Floor((x-radius-g.OriginX)/res-0.5)-1, math.Ceil((x+radius-g.OriginX)/res-0.5)+1
		fj0, fj1 := math.Floor((y-radius-g.OriginY)/res-0.5)-1, math.Ceil((y+radius-g.OriginY)/res-0.5)+1
		if !(fc1 >= float64(ext.Col) && fc0 < float64(ext.Col+ext.Cols) && fj1 >= float64(jLo) && fj0 <= float64(jHi)) {
			continue // outside the band, or not finite
		}
		c0, c1 := max(int(fc0), ext.Col), min(int(fc1), ext.Col+ext.Cols-1)
		j0, j1 := max(int(fj0), jLo), min(int(fj1), jHi)
		// A column (row) whose centre is the radius or more away along x
		// (y) alone takes no point: fl(dx²+dy²) ≥ fl(dx²) under rounding
		// to nearest, and the square root is monotone. The candidates'
		// end columns and every such row are skipped; the cells left are
		// decided by the distance, as before.
		for ; c0 <= c1; c0++ {
			if dx := g.OriginX + (float64(c0)+.5)*res - x; math.Sqrt(dx*dx) < radius {
				break
			}
		}
		for ; c1 >= c0; c1-- {
			if dx := g.OriginX + (float64(c1)+.5)*res - x; math.Sqrt(dx*dx) < radius {
				break
			}
		}
		if c0 > c1 {
			continue
		}
		v := val(p)
		for j := j0; j <= j1; j++ {
			// Cell centres as g.centre computes them.
			dy := g.OriginY + (float64(j)+.5)*res - y
			if math.Sqrt(dy*dy) >= radius {
				continue
			}
			r := g.Height - 1 - j
			cells := out[(r-ext.Row)*ext.Cols-ext.Col+c0 : (r-ext.Row)*ext.Cols-ext.Col+c1+1]
			for c := c0; c <= c1; c++ {
				dx := g.OriginX + (float64(c)+.5)*res - x
				if d := math.Sqrt(dx*dx + dy*dy); d < radius {
					cells[c-c0].add(v, d, power)
				}
			}
		}
	}
}

// add is PDAL's GDALGrid::update of one cell with value v at distance d.
func (a *accum) add(v, d, power float64) {
	if a.count == 0 {
		a.min, a.max = math.MaxFloat64, -math.MaxFloat64
	}
	a.count++
	// std::min(v, min) and std::max(v, max), NaNs and all.
	if !(a.min < v) {
		a.min = v
	}
	if !(v < a.max) {
		a.max = v
	}
	delta := v - a.mean
	a.mean += delta / a.count
	a.m2 += delta * (v - a.mean)
	if !math.IsNaN(a.idwDist) {
		if d == 0 {
			a.idw = v
			a.idwDist = math.NaN()
		} else {
			w := d // math.Pow(d, 1) is d
			if power != 1 {
				w = math.Pow(d, power)
			}
			a.idw += v / w
			a.idwDist += 1 / w
		}
	}
}

// stats returns a cell's finished statistics in PDAL's band order (min,
// max, mean, idw, count, stdev), as GDALGrid::finalize leaves them.
func (a *accum) stats() [6]float64 {
	idw := a.idw
	if !math.IsNaN(a.idwDist) {
		idw /= a.idwDist
	}
	return [6]float64{a.min, a.max, a.mean, idw, a.count, math.Sqrt(a.m2 / a.count)}
}

// finish turns the statistics of ext into the bands of win: filled from
// the window (GDALGrid::windowFill) or NoData where empty.
func finish(cells []accum, g Grid, ext, win Window, opts Options) *Raster {
	r, which := newRaster(g, win, opts)
	par.For(par.Ranges(win.Rows, 4), func(_, lo, hi int) {
		finishRows(r, which, cells, g, ext, win, lo, hi, opts)
	})
	return r
}

// newRaster returns the raster of win with its bands made, and the index
// in a cell's stats of each band's statistic.
func newRaster(g Grid, win Window, opts Options) (*Raster, []int) {
	nodata := -9999.0
	if opts.NoData != nil {
		nodata = *opts.NoData
	}
	outs := opts.outputs()
	r := &Raster{Grid: g, Cells: win, NoData: nodata}
	var which []int
	for s, name := range outputNames {
		if outs&(1<<s) != 0 {
			which = append(which, s)
			r.Bands = append(r.Bands, Band{Name: name, Data: make([]float64, win.Cols*win.Rows)})
		}
	}
	return r, which
}

// finishRows is finish's work on rows lo..hi of win, from the cells of
// ext, which hold those rows' and their fill's.
func finishRows(r *Raster, which []int, cells []accum, g Grid, ext, win Window, lo, hi int, opts Options) {
	at := func(c, row int) *accum { return &cells[(row-ext.Row)*ext.Cols+c-ext.Col] }
	ws := opts.WindowSize
	empty := fill(at, g, 0, 0, 0, r.NoData)
	dst := make([][]float64, len(which))
	for row := win.Row + lo; row < win.Row+hi; row++ {
		k := (row - win.Row) * win.Cols
		for b := range dst {
			dst[b] = r.Bands[b].Data[k : k+win.Cols]
		}
		src := cells[(row-ext.Row)*ext.Cols+win.Col-ext.Col:][:win.Cols]
		for i := range src {
			v := empty
			if a := &src[i]; a.count > 0 {
				v = a.stats()
			} else if ws > 0 {
				v = fill(at, g, win.Col+i, row, ws, r.NoData)
			}
			for b, s := range which {
				dst[b][i] = v[s]
			}
		}
	}
}

// fill is an empty cell's values (count 0): with a window, PDAL's
// GDALGrid::windowFill, the non-empty cells within ws cells weighted by
// 1/(their Chebyshev distance in cells), visited column by column from the
// left and, in each, from the bottom row up, as PDAL visits them; else, or
// with none, NoData.
func fill(at func(c, row int) *accum, g Grid, c, row, ws int, nodata float64) [6]float64 {
	empty := [6]float64{nodata, nodata, nodata, nodata, 0, nodata}
	if ws == 0 {
		return empty
	}
	var sum [6]float64
	distSum := 0.0
	j := g.Height - 1 - row
	for i := max(0, c-ws); i < min(g.Width, c+ws+1); i++ {
		for jj := max(0, j-ws); jj < min(g.Height, j+ws+1); jj++ {
			a := at(i, g.Height-1-jj)
			if i == c && jj == j || a.count == 0 {
				continue
			}
			d := float64(max(abs(jj-j), abs(i-c)))
			s := a.stats()
			for b := range s {
				if b != 4 {
					sum[b] += s[b] / d
				}
			}
			distSum += 1 / d
		}
	}
	if distSum == 0 {
		return empty
	}
	for b := range sum {
		sum[b] /= distSum
	}
	sum[4] = 0
	return sum
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
