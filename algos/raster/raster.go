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

// accum is one cell's running statistics (PDAL's GDALGrid::update).
type accum struct {
	count, min, max, mean, m2, idw, idwDist float64
}

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
	out := make([]accum, ext.Cols*ext.Rows)
	for k := range out {
		out[k] = accum{min: math.MaxFloat64, max: -math.MaxFloat64}
	}
	n := len(xyz) / 3
	if n == 0 {
		return out, nil
	}
	if b.Name() == cpu.Backend().Name() {
		scatter(n, pos, val, g, ext, radius, power, out)
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

// scatter updates the cells of ext (out, rows from the top) from each
// point in turn, as PDAL's GDALGrid::addPoint does: every cell whose
// centre is strictly within radius (the float64 distance of the query
// path, computed alike) takes the point. A cell thus sees its points in
// point order, with the same distances: the query path's bits, without an
// index (on the cpu backend a query a cell costs more than a few cells a
// point). Workers take bands of rows, each reading every point.
func scatter(n int, pos []float64, val func(int32) float64, g Grid, ext Window, radius, power float64, out []accum) {
	res := g.Resolution
	bands := par.Ranges(ext.Rows, max(1, (ext.Rows+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0)))
	if n < 1<<14 {
		bands = [][2]int{{0, ext.Rows}}
	}
	par.For(bands, func(_, lo, hi int) {
		// Rows lo..hi of ext, from the top, are rows from the bottom
		// jLo..jHi of the grid.
		jLo, jHi := g.Height-1-(ext.Row+hi-1), g.Height-1-(ext.Row+lo)
		for p := range n {
			x, y := pos[3*p], pos[3*p+1]
			// Candidate cells, a cell wider than the radius on each side:
			// the distance decides.
			fc0, fc1 := math.Floor((x-radius-g.OriginX)/res-0.5)-1, math.Ceil((x+radius-g.OriginX)/res-0.5)+1
			fj0, fj1 := math.Floor((y-radius-g.OriginY)/res-0.5)-1, math.Ceil((y+radius-g.OriginY)/res-0.5)+1
			if !(fc1 >= float64(ext.Col) && fc0 < float64(ext.Col+ext.Cols) && fj1 >= float64(jLo) && fj0 <= float64(jHi)) {
				continue // outside the band, or not finite
			}
			c0, c1 := max(int(fc0), ext.Col), min(int(fc1), ext.Col+ext.Cols-1)
			j0, j1 := max(int(fj0), jLo), min(int(fj1), jHi)
			for j := j0; j <= j1; j++ {
				r := g.Height - 1 - j
				for c := c0; c <= c1; c++ {
					cx, cy := g.centre(c, r)
					dx, dy := cx-x, cy-y
					if d := math.Sqrt(dx*dx + dy*dy); d < radius {
						out[(r-ext.Row)*ext.Cols+c-ext.Col].add(val(int32(p)), d, power)
					}
				}
			}
		}
	})
}

// add is PDAL's GDALGrid::update of one cell with value v at distance d.
func (a *accum) add(v, d, power float64) {
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
			w := math.Pow(d, power)
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
	at := func(c, row int) *accum { return &cells[(row-ext.Row)*ext.Cols+c-ext.Col] }
	ws := opts.WindowSize
	par.For(par.Ranges(win.Rows, 4), func(_, lo, hi int) {
		for row := win.Row + lo; row < win.Row+hi; row++ {
			for c := win.Col; c < win.Col+win.Cols; c++ {
				k := (row-win.Row)*win.Cols + c - win.Col
				var v [6]float64
				if a := at(c, row); a.count > 0 {
					v = a.stats()
				} else {
					v = fill(at, g, c, row, ws, nodata)
				}
				for b, s := range which {
					r.Bands[b].Data[k] = v[s]
				}
			}
		}
	})
	return r
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
