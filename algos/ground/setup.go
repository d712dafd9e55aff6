package ground

import (
	"math"

	"github.com/pctk/pctk/internal/par"
)

// setup is what the filters do before their own work: the points'
// float64 coordinates, which of them are classified, the grid and the
// raster over them, each classified point's cell.
type setup struct {
	pos   []float64
	grid  Grid
	ras   raster
	cells []int
	// mcells is each point's cell in the minimum surface where it differs
	// from cells (PMF's), else cells itself.
	mcells []int
	cell   float64
	pdal   bool
}

// newSetup selects the points of xyz (Pos when not nil) by ignore and
// returns, and lays the grid (g, or PDAL's over the selected points) over
// them. minCell, when not nil, maps a point's offset from the grid origin
// to its cell of the minimum surface (PMF's own rule).
func newSetup(xyz []float32, a Attrs, pos []float64, ignore []uint8, returns Returns, g *Grid, cell float64, pdal bool, minCell func(dx, dy float64) (int, int)) (*setup, error) {
	pos, err := positions(xyz, pos)
	if err != nil {
		return nil, err
	}
	sel, err := Select(len(pos)/3, a, ignore, returns)
	if err != nil {
		return nil, err
	}
	if g == nil {
		pg := PDALGrid(pos, sel, cell)
		g = &pg
	}
	ras, cells, mcells, err := place(pos, sel, *g, cell, minCell)
	if err != nil {
		return nil, err
	}
	return &setup{pos: pos, grid: *g, ras: ras, cells: cells, mcells: mcells, cell: cell, pdal: pdal}, nil
}

// fill fills v's empty cells from their k nearest filled ones, in PDAL's
// order under PDALFrame (then returning nil), else in the grid's order,
// returning how far each cell looked (raster.fill).
func (s *setup) fill(v []float64, k int) []float64 {
	if !s.pdal {
		return s.ras.fill(v, k)
	}
	s.ras.fillPDAL(v, s.grid.X0, s.grid.Y0, s.cell, k)
	return nil
}

// result returns the classes: a's for the points not classified,
// Ground where ground(i, cell) holds, else Unclassified; and the Reach,
// (dep[cell] + √2 + extra)·cell (+Inf when dep is nil), 0 for the points
// not classified.
func (s *setup) result(a Attrs, dep []float64, ground func(i, c int) bool) Result {
	n := len(s.pos) / 3
	out := Result{Classification: make([]uint8, n), Reach: make([]float64, n)}
	if a.Classification != nil {
		copy(out.Classification, a.Classification)
	}
	par.For(par.Ranges(n, par.Grain), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			c := s.cells[i]
			if c < 0 {
				continue
			}
			out.Classification[i] = Unclassified
			out.Reach[i] = math.Inf(1)
			if dep != nil {
				out.Reach[i] = (dep[c] + math.Sqrt2) * s.cell
			}
			if ground(i, c) {
				out.Classification[i] = Ground
			}
		}
	})
	return out
}
