package raster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// gridTxt is PDAL's test/data/gdal/grid.txt (X, Y, Z), the cloud of
// test/unit/io/GDALWriterTest.cpp.
var gridTxt = [][3]float64{
	{0, 0, 0}, {.5, .5, 1}, {1.5, .5, 2}, {2.5, .5, 3}, {3.5, .5, 4}, {4.5, .5, 5}, {3.5, 1, 4.4}, {4.5, 1, 5.4},
	{.5, 1.5, 2}, {1.5, 1.5, 3}, {2.5, 1.5, 4}, {3, 1.5, 4.4}, {3.5, 1.5, 5}, {4, 1.5, 5.4}, {4.5, 1.5, 6},
	{3.5, 2, 5.4}, {4.5, 2, 6.4}, {.5, 2.5, 3}, {1.5, 2.5, 4}, {2.5, 2.5, 5}, {3.5, 2.5, 6}, {4.5, 2.5, 7},
	{.5, 3.5, 4}, {2.5, 3.5, 6}, {3.5, 3.5, 7}, {4.5, 3.5, 8}, {.5, 4.5, 5}, {2.5, 4.5, 7}, {3.5, 4.5, 8},
	{4.5, 4.6, 9.1}, {4.7, 4.5, 8.9}, {4.3, 4.5, 8.9},
}

// TestPDALGDALWriter asserts the rasters of PDAL's GDALWriterTest
// (resolution 1, radius 0.7071, with and without window_size 2) to its
// 0.001.
func TestPDALGDALWriter(t *testing.T) {
	var xyz []float32
	for _, p := range gridTxt {
		xyz = append(xyz, float32(p[0]), float32(p[1]), float32(p[2]))
	}
	for _, tc := range []struct {
		name   string
		out    Output
		window int
		want   string
	}{
		{"min", Min, 0, "5 -9999 7 8 8.9 4 -9999 6 7 8 3 4 5 5.4 6.4 2 3 4 4.4 5.4 1 2 3 4 5"},
		{"minWindow", Min, 2, "5 5.457 7 8 8.9 4 4.848 6 7 8 3 4 5 5.4 6.4 2 3 4 4.4 5.4 1 2 3 4 5"},
		{"max", Max, 0, "5 -9999 7 8 9.1 4 -9999 6 7 8 3 4 5 6 7 2 3 4.4 5.4 6.4 1 2 3 4.4 5.4"},
		{"maxWindow", Max, 2, "5 5.5 7 8 9.1 4 4.942 6 7 8 3 4 5 6 7 2 3 4.4 5.4 6.4 1 2 3 4.4 5.4"},
		{"mean", Mean, 0, "5 -9999 7 8 8.967 4 -9999 6 7 8 3 4 5 5.7 6.7 2 3 4.2 4.92 5.8 1 2 3 4.2 5.2"},
		{"meanWindow", Mean, 2, "5 5.478 7 8 8.967 4 4.896 6 7 8 3 4 5 5.7 6.7 2 3 4.2 4.92 5.8 1 2 3 4.2 5.2"},
		{"idw", IDW, 0, "5 -9999 7 8 9 4 -9999 6 7 8 3 4 5 6 7 2 3 4 5 6 1 2 3 4 5"},
		{"idwWindow", IDW, 2, "5 5.5 7 8 9 4 4.905 6 7 8 3 4 5 6 7 2 3 4 5 6 1 2 3 4 5"},
		{"count", Count, 0, "1 0 1 1 3 1 0 1 1 1 1 1 1 2 2 1 1 2 5 4 1 1 1 2 2"},
		{"stdev", StdDev, 0, "0 -9999 0 0 0.094 0 -9999 0 0 0 0 0 0 0.3 0.3 0 0 0.2 0.449 0.424 0 0 0 0.2 0.2"},
		{"stdevWindow", StdDev, 2, "0 0.021 0 0 0.094 0 0.045 0 0 0 0 0 0 0.3 0.3 0 0 0.2 0.449 0.424 0 0 0 0.2 0.2"},
	} {
		for _, b := range []findneighbor.Backend{findneighbor.Brute(), findneighbor.CPU()} {
			r, err := Compute(xyz, b, Options{Resolution: 1, Radius: .7071, Outputs: tc.out, WindowSize: tc.window})
			if err != nil {
				t.Fatal(err)
			}
			if g := r.Grid; g.Width != 5 || g.Height != 5 || len(r.Bands) != 1 || r.Bands[0].Name != outputNames[bits(tc.out)] {
				t.Fatalf("%s: %dx%d grid, %d bands, want 5x5 and 1 band", tc.name, g.Width, g.Height, len(r.Bands))
			}
			for k, f := range strings.Fields(tc.want) {
				want, _ := strconv.ParseFloat(f, 64)
				if got := r.Bands[0].Data[k]; math.Abs(got-want) > 0.001 {
					t.Errorf("%s (%s): row %d col %d: %v, want %v", tc.name, b.Name(), k/5, k%5, got, want)
				}
			}
		}
	}
}

func bits(o Output) int {
	for s := range outputNames {
		if o == 1<<s {
			return s
		}
	}
	return -1
}

// reference grids by brute force: every point within radius (float64,
// strictly) of each cell's centre, in point order, then PDAL's fill.
func reference(xyz []float32, o Options) []float64 {
	g := o.Grid
	var cells []accum
	for row := range g.Height {
		for c := range g.Width {
			a := accum{min: math.MaxFloat64, max: -math.MaxFloat64}
			cx, cy := g.centre(c, row)
			for i := range len(xyz) / 3 {
				dx, dy := cx-float64(xyz[3*i]), cy-float64(xyz[3*i+1])
				if d := math.Sqrt(dx*dx + dy*dy); d < o.radius() {
					a.add(float64(xyz[3*i+2]), d, o.power())
				}
			}
			cells = append(cells, a)
		}
	}
	all := Window{0, 0, g.Width, g.Height}
	var out []float64
	for _, b := range finish(cells, g, all, all, o).Bands {
		out = append(out, b.Data...)
	}
	return out
}

func randomCloud(seed uint64, n int, side float64) []float32 {
	r := rand.New(rand.NewPCG(seed, 5))
	xyz := make([]float32, 0, 3*n)
	for range n {
		x, y := r.Float64()*side, r.Float64()*side
		if r.IntN(4) == 0 { // holes: empty cells to fill
			x *= 0.3
		}
		xyz = append(xyz, float32(x), float32(y), float32(math.Sin(x)+y/10+r.Float64()))
	}
	return xyz
}

var cases = []Options{
	{Resolution: 1},
	{Resolution: 0.5, Radius: 0.4, WindowSize: 2},
	{Resolution: 0.7, Radius: 1.3, Power: 2, WindowSize: 1, Outputs: Mean | IDW | StdDev},
}

// queryPath is the cpu backend under another name: Compute then takes
// the path a GPU backend takes (a radius query a cell, accumulate), which
// the tests check here too, where no GPU is.
type queryPath struct{ findneighbor.Backend }

func (queryPath) Name() string { return "cpu-query-path" }

func TestOnEveryBackend(t *testing.T) {
	for seed := range uint64(2) {
		xyz := randomCloud(seed, 600, 12)
		for _, o := range cases {
			o.Grid = Grid{-1, -0.5, int(14 / o.Resolution), int(13 / o.Resolution), o.Resolution}
			want := reference(xyz, o)
			compute := func(b findneighbor.Backend) ([]float64, error) {
				r, err := Compute(xyz, b, o)
				if err != nil {
					return nil, err
				}
				var out []float64
				for _, b := range r.Bands {
					out = append(out, b.Data...)
				}
				return out, nil
			}
			name := fmt.Sprintf("seed %d %+v", seed, o)
			algotest.Check(t, name, compute, want, algotest.Exact[float64])
			got, err := compute(queryPath{findneighbor.CPU()})
			if err != nil {
				t.Fatal(err)
			}
			for k := range want {
				if !algotest.Exact(got[k], want[k]) {
					t.Fatalf("%s: the query path's value %d is %v, brute force's %v", name, k, got[k], want[k])
				}
			}
		}
	}
}

// TestReach checks the driver's contract for cells: a block of cells
// computed from only the points within Options.Reach of the block's cell
// centres (in the same order) equals the whole grid's block to the bit.
func TestReach(t *testing.T) {
	xyz := randomCloud(9, 5000, 30)
	for _, o := range cases {
		o.Grid = Grid{0, 0, int(30 / o.Resolution), int(30 / o.Resolution), o.Resolution}
		whole, err := Compute(xyz, findneighbor.CPU(), o)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []Window{{3, 4, 10, 7}, {0, 0, 5, 9}, {o.Grid.Width - 6, o.Grid.Height - 3, 6, 3}} {
			o := o
			o.Cells = w
			x0, y1 := o.Grid.centre(w.Col, w.Row)
			x1, y0 := o.Grid.centre(w.Col+w.Cols-1, w.Row+w.Rows-1)
			reach := o.Reach()
			var sub []float32
			for i := range len(xyz) / 3 {
				x, y := float64(xyz[3*i]), float64(xyz[3*i+1])
				if x >= x0-reach && x <= x1+reach && y >= y0-reach && y <= y1+reach {
					sub = append(sub, xyz[3*i:3*i+3]...)
				}
			}
			part, err := Compute(sub, findneighbor.CPU(), o)
			if err != nil {
				t.Fatal(err)
			}
			for b, band := range part.Bands {
				for k, got := range band.Data {
					c, row := w.Col+k%w.Cols, w.Row+k/w.Cols
					want := whole.Bands[b].Data[row*o.Grid.Width+c]
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Errorf("%+v window %v: %s at col %d row %d: %v in the block, %v in the whole grid", o, w, band.Name, c, row, got, want)
					}
				}
			}
		}
	}
}

func TestValidate(t *testing.T) {
	nan := math.NaN()
	for _, o := range []Options{
		{}, {Resolution: -1}, {Resolution: 1, Radius: -2}, {Resolution: 1, WindowSize: -1},
		{Resolution: 1, Outputs: 1 << 9}, {Resolution: 1, NoData: &nan}, {Resolution: 1, Power: math.Inf(1)},
		{Resolution: 1, Grid: Grid{0, 0, 0, 3, 1}}, {Resolution: 1, Grid: Grid{0, 0, 3, 3, 2}},
	} {
		if _, err := Compute([]float32{0, 0, 0}, findneighbor.CPU(), o); err == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
	if _, err := Compute([]float32{0, 0, 0}, findneighbor.CPU(), Options{Resolution: 1, Cells: Window{1, 0, 1, 1}}); err == nil {
		t.Error("cells outside the 1x1 grid: want an error")
	}
}

// TestNaNValues checks min and max with NaN values as PDAL's std::min and
// std::max leave them: a NaN taken in, a NaN replaced by the next value.
func TestNaNValues(t *testing.T) {
	xyz := []float32{0.5, 0.5, 0, 0.5, 0.5, 0, 0.5, 0.5, 0}
	nan := math.NaN()
	for _, tc := range []struct {
		values   []float64
		min, max float64
	}{
		{[]float64{nan, 3, 1}, 1, 3},
		{[]float64{3, nan, 1}, 1, 1},
		{[]float64{3, 1, nan}, nan, nan},
	} {
		r, err := Compute(xyz, findneighbor.CPU(), Options{Resolution: 1, Outputs: Min | Max, Values: tc.values, Grid: Grid{0, 0, 1, 1, 1}})
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]float64{r.Bands[0].Data[0], r.Bands[1].Data[0]}; !algotest.Exact(got[0], tc.min) || !algotest.Exact(got[1], tc.max) {
			t.Errorf("values %v: min, max %v, want %v, %v", tc.values, got, tc.min, tc.max)
		}
	}
}

// TestScatterEdges checks the cpu backend against brute force, to the
// bit, where its pruning of candidate rows and columns and its blocks of
// rows could go wrong: points anywhere and, every other one, on a lattice
// of quarter cells, at distances of cell centres equal to the radius, on
// centres (d = 0), beyond the grid; enough of them for the workers' bands
// of rows; windows inside the grid and at its edges; powers 1 (no
// math.Pow) and others; window fills across blocks; the whole grid at
// once and by blocks of a few rows.
func TestScatterEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	n := 1<<15 + 7
	xyz := make([]float32, 0, 3*n)
	for i := range n {
		x, y := float32(r.IntN(52)-2)*0.25, float32(r.IntN(44)-2)*0.25
		if i%2 == 1 { // anywhere
			x, y = float32(r.Float64()*13-0.5), float32(r.Float64()*11-0.5)
		}
		if x > 2 && x < 4.5 && y > 1.5 && y < 8.5 || x > 7 && x < 9 && y > 3 && y < 5.5 {
			continue // holes: empty cells to fill, across blocks
		}
		xyz = append(xyz, x, y, float32(r.NormFloat64()))
	}
	defer func(b struct{ bytes, min, rows int }) { blocking = b }(blocking)
	for _, o := range []Options{
		{Resolution: 0.5, Radius: 0.5},
		{Resolution: 0.5, Radius: 0.25, WindowSize: 1},
		{Resolution: 1, Radius: 1, Power: 2},
		{Resolution: 1, Radius: 0.75, Power: 0.5, WindowSize: 2},
		{Resolution: 0.5}, // √2/2
		{Resolution: 1, Radius: 1.25, Power: 1},
		{Resolution: 0.25, Radius: 0.3, WindowSize: 2},
		{Resolution: 0.5, Radius: 0.6, WindowSize: 3, Outputs: Mean | Count},
	} {
		o.Grid = Grid{0, 0, int(12 / o.Resolution), int(10 / o.Resolution), o.Resolution}
		g := o.Grid
		want := reference(xyz, o)
		for _, b := range []struct{ bytes, min, rows int }{blocking, {1, 0, 1}, {1, 0, 3}} {
			blocking = b
			for _, w := range []Window{{}, {1, 2, g.Width - 3, g.Height - 2}, {g.Width - 5, 0, 5, 4}, {0, g.Height - 3, 4, 3}} {
				o := o
				o.Cells = w
				res, err := Compute(xyz, findneighbor.CPU(), o)
				if err != nil {
					t.Fatal(err)
				}
				if w == (Window{}) {
					w = Window{0, 0, g.Width, g.Height}
				}
				for k := range res.Bands {
					for i, got := range res.Bands[k].Data {
						c, row := w.Col+i%w.Cols, w.Row+i/w.Cols
						if exp := want[k*g.Width*g.Height+row*g.Width+c]; !algotest.Exact(got, exp) {
							t.Fatalf("%+v, blocks %+v, window %v: %s at col %d row %d: %v, want %v", o, b, w, res.Bands[k].Name, c, row, got, exp)
						}
					}
				}
			}
		}
	}
}

// TestAddIDWWeights checks add's IDW sums against math.Pow(d, power)'s
// weights, to the bit: power 1 takes d itself, the others math.Pow.
func TestAddIDWWeights(t *testing.T) {
	for _, power := range []float64{1, 2, 0.5, 3, -1} {
		r := rand.New(rand.NewPCG(8, 1))
		var a accum
		idw, dist := 0.0, 0.0
		for range 1000 {
			v, d := r.NormFloat64(), r.Float64()*3+math.SmallestNonzeroFloat64
			a.add(v, d, power)
			w := math.Pow(d, power)
			idw, dist = idw+v/w, dist+1/w
		}
		if !algotest.Exact(a.idw, idw) || !algotest.Exact(a.idwDist, dist) {
			t.Errorf("power %v: idw sums %v, %v, want %v, %v", power, a.idw, a.idwDist, idw, dist)
		}
	}
}
