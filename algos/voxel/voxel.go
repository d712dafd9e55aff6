package voxel

import (
	"fmt"
	"math"
	"strings"

	"github.com/pctk/pctk/algos/internal/cellsort"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// PDAL's default cell sides.
const (
	DefaultCell         = 1.0   // the nearest-neighbour filters
	DefaultDownsizeCell = 0.001 // filters.voxeldownsize
)

// Options are the voxel filters' options.
type Options struct {
	// Cell is the voxels' side; 0 means the filter's PDAL default.
	Cell float64
	// Origin, when not nil, is the grid's corner (voxel 0, 0, 0 starts
	// there) in the frame of Pos (or xyz); nil: the filter's PDAL rule.
	Origin *[3]float64
	// Pos, when not nil, holds the points' float64 coordinates
	// (interleaved x, y, z) in any frame: all arithmetic runs on them, and
	// moved coordinates are in their frame. nil: xyz widened.
	Pos []float64
	// NoReach leaves Result.Reach nil: a run over the whole cloud, not a
	// tile, needs no reaches.
	NoReach bool
}

// Validate checks the options: a cell that is 0 (the default) or a finite
// number > 0, a finite origin.
func (o Options) Validate() error {
	if err := findneighbor.CheckRadius("voxel", "cell", o.Cell, true); err != nil {
		return err
	}
	if o.Origin != nil {
		for a, v := range o.Origin {
			if err := findneighbor.CheckFloat("voxel", "origin "+"xyz"[a:a+1], v); err != nil {
				return err
			}
		}
	}
	return nil
}

// Mode is filters.voxeldownsize's mode.
type Mode int

const (
	// Center keeps the first point of each voxel and moves it to the
	// voxel's centre (PDAL's default).
	Center Mode = iota
	// First keeps the first point of each voxel where it is.
	First
)

// String returns "center" or "first".
func (m Mode) String() string {
	switch m {
	case Center:
		return "center"
	case First:
		return "first"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode returns the Mode named s ("center" or "first", any case, as
// PDAL reads it).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "center":
		return Center, nil
	case "first":
		return First, nil
	}
	return 0, fmt.Errorf("voxel: invalid mode %q (want center or first)", s)
}

// Result is a voxel filter's output.
type Result struct {
	// Keep flags the points the filter keeps.
	Keep []bool
	// Kept is the number of points kept.
	Kept int
	// Order lists the kept points in PDAL's output order (voxel keys:
	// row, column, depth), for CenterNearest and CentroidNearest; nil for
	// Downsize, whose PDAL order is the input's.
	Order []int32
	// Moved, for Downsize in mode Center, holds every point's output
	// coordinates (interleaved, in the frame of Pos or xyz): the kept
	// points at their voxels' centres, the others where they were. nil
	// otherwise.
	Moved []float64
	// Reach holds for each point the distance to the farthest corner of
	// its voxel, within which lie all the points its flag depends on.
	Reach []float64
}

// grid is the voxel grid of one run: every point's voxel, in order of
// their keys.
type grid struct {
	cell   float64
	origin [3]float64
	pos    []float64 // interleaved x, y, z
	// key holds each point's voxel as (row, column, depth): y, x, z,
	// PDAL's tuple order.
	key [][3]int64
	// order lists the points by key, then index; starts holds the first
	// position of each voxel in order, and len(order) last.
	order  []int32
	starts []int32
}

// keyAxis is the position of each axis (x, y, z) in a key.
var keyAxis = [3]int{1, 0, 2}

// rule is a filter's PDAL corner rule, from the points' coordinates.
type rule func(n int, pos []float64, cell float64) [3]float64

// newGrid checks the inputs and lays the grid out: the corner from
// o.Origin or the rule, each point's voxel floor((x − corner)/cell), and
// r.Reach.
func newGrid(op string, xyz []float32, o Options, def float64, corner rule, r *Result) (*grid, error) {
	n, err := findneighbor.CheckPoints(op, xyz)
	if err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Cell == 0 {
		o.Cell = def
	}
	if o.Pos != nil && len(o.Pos) != len(xyz) {
		return nil, fmt.Errorf("%s: %d float64 coordinates for %d points", op, len(o.Pos), n)
	}
	g := &grid{cell: o.Cell, pos: o.Pos}
	if g.pos == nil {
		g.pos = make([]float64, len(xyz))
		for i, v := range xyz {
			g.pos[i] = float64(v)
		}
	}
	r.Keep = make([]bool, n)
	if !o.NoReach {
		r.Reach = make([]float64, n)
	}
	if n == 0 {
		return g, nil
	}
	if o.Origin != nil {
		g.origin = *o.Origin
	} else {
		g.origin = corner(n, g.pos, o.Cell)
	}
	g.key = make([][3]int64, n)
	bad := par.First(n, func(lo, hi int) int {
		for i := lo; i < hi; i++ {
			reach := 0.0
			for a := range 3 {
				d := g.pos[3*i+a] - g.origin[a]
				v, ok := onGrid(d, g.cell)
				if !ok {
					return i
				}
				g.key[i][keyAxis[a]] = int64(v)
				if r.Reach != nil {
					// The voxel spans [v·cell, (v+1)·cell) of d, to rounding.
					e := max(d-v*g.cell, (v+1)*g.cell-d) + 1e-9*(g.cell+math.Abs(d))
					reach += e * e
				}
			}
			if r.Reach != nil {
				r.Reach[i] = math.Sqrt(reach)
			}
		}
		return -1
	})
	if bad >= 0 {
		for a := range 3 {
			if _, ok := onGrid(g.pos[3*bad+a]-g.origin[a], g.cell); !ok {
				return nil, fmt.Errorf("%s: point %d: coordinate %g is off the grid (corner %g, cell %g)", op, bad, g.pos[3*bad+a], g.origin[a], g.cell)
			}
		}
	}
	g.order, g.starts = cellsort.Order(g.key)
	return g, nil
}

// onGrid returns floor(d / cell), the voxel of a point d from the
// corner on one axis, and whether it is one the grid can number (not NaN,
// within ±2⁶²).
func onGrid(d, cell float64) (float64, bool) {
	v := math.Floor(d / cell)
	return v, !math.IsNaN(v) && math.Abs(v) <= 1<<62
}

// choose returns, in key order, the point fn chooses among the points of
// each voxel (in index order), calling fn on all cores: fn must only read.
func (g *grid) choose(fn func(pts []int32) int32) []int32 {
	out := make([]int32, max(len(g.starts)-1, 0)) // no starts: no point
	par.For(par.Ranges(len(out), par.Grain/16), func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			out[v] = fn(g.order[g.starts[v]:g.starts[v+1]])
		}
	})
	return out
}

// centre returns the centre of point i's voxel on axis a: corner + (v +
// 0.5)·cell, as all three filters compute it.
func (g *grid) centre(i, a int) float64 {
	return g.origin[a] + float64((float64(g.key[i][keyAxis[a]])+0.5)*g.cell) // no fused multiply-add
}

// dist2 returns the squared distance from point i to c in PDAL's order of
// terms: pow(cx − x, 2) + pow(cy − y, 2) + pow(cz − z, 2), each square
// rounded (no fused multiply-add).
func (g *grid) dist2(i int, c [3]float64) float64 {
	d := 0.0
	for a := range 3 {
		v := c[a] - g.pos[3*i+a]
		d += float64(v * v)
	}
	return d
}

func (g *grid) centreOf(i int) [3]float64 {
	return [3]float64{g.centre(i, 0), g.centre(i, 1), g.centre(i, 2)}
}

// keep flags point i and appends it to r.Order.
func keep(r *Result, i int32) {
	r.Keep[i] = true
	r.Kept++
	r.Order = append(r.Order, i)
}

// minCorner is filters.voxelcenternearestneighbor's corner: the points'
// minimum on each axis (PointView::calculateBounds).
func minCorner(n int, pos []float64, _ float64) [3]float64 {
	c := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	for i := range n {
		for a := range 3 {
			c[a] = min(c[a], pos[3*i+a])
		}
	}
	return c
}

// CenterNearest is filters.voxelcenternearestneighbor on the points xyz
// (interleaved x, y, z float32 relative to a local origin): in each
// voxel, the point nearest its centre.
func CenterNearest(xyz []float32, o Options) (*Result, error) {
	r := &Result{}
	g, err := newGrid("voxel center nearest", xyz, o, DefaultCell, minCorner, r)
	if err != nil {
		return nil, err
	}
	for _, i := range g.choose(func(pts []int32) int32 {
		c := g.centreOf(int(pts[0]))
		best, bd := pts[0], g.dist2(int(pts[0]), c)
		for _, i := range pts[1:] {
			if d := g.dist2(int(i), c); d < bd {
				best, bd = i, d
			}
		}
		return best
	}) {
		keep(r, i)
	}
	return r, nil
}

// firstCorner is filters.voxelcentroidnearestneighbor's corner: the first
// point.
func firstCorner(_ int, pos []float64, _ float64) [3]float64 {
	return [3]float64{pos[0], pos[1], pos[2]}
}

// CentroidNearest is filters.voxelcentroidnearestneighbor on the points
// xyz: in each voxel, the point nearest the centroid of its points (of
// two, the one nearer the voxel's centre).
func CentroidNearest(xyz []float32, o Options) (*Result, error) {
	r := &Result{}
	g, err := newGrid("voxel centroid nearest", xyz, o, DefaultCell, firstCorner, r)
	if err != nil {
		return nil, err
	}
	for _, i := range g.choose(func(pts []int32) int32 {
		switch len(pts) {
		case 1:
			return pts[0]
		case 2:
			c := g.centreOf(int(pts[0]))
			if g.dist2(int(pts[0]), c) < g.dist2(int(pts[1]), c) {
				return pts[0]
			}
			return pts[1]
		default:
			// math::computeCentroid: a running mean per axis.
			var m [3]float64
			for n, i := range pts {
				for a := range 3 {
					m[a] += (g.pos[3*int(i)+a] - m[a]) / float64(n+1)
				}
			}
			best, bd := pts[0], math.MaxFloat64
			for _, i := range pts {
				if d := g.dist2(int(i), m); d < bd {
					best, bd = i, d
				}
			}
			return best
		}
	}) {
		keep(r, i)
	}
	return r, nil
}

// DownsizeOptions are filters.voxeldownsize's options; Cell 0 means
// DefaultDownsizeCell.
type DownsizeOptions struct {
	Options
	// Mode is Center (PDAL's default, the zero value) or First.
	Mode Mode
}

// halfCellCorner is filters.voxeldownsize's corner: the first point minus
// half a cell on each axis.
func halfCellCorner(_ int, pos []float64, cell float64) [3]float64 {
	return [3]float64{pos[0] - cell/2, pos[1] - cell/2, pos[2] - cell/2}
}

// Validate checks the options and the mode.
func (o DownsizeOptions) Validate() error {
	if o.Mode != Center && o.Mode != First {
		return fmt.Errorf("voxel downsize: unknown mode %d", int(o.Mode))
	}
	return o.Options.Validate()
}

// Downsize is filters.voxeldownsize on the points xyz: the first point of
// each voxel, moved to the voxel's centre in mode Center (Result.Moved).
func Downsize(xyz []float32, o DownsizeOptions) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	r := &Result{}
	g, err := newGrid("voxel downsize", xyz, o.Options, DefaultDownsizeCell, halfCellCorner, r)
	if err != nil {
		return nil, err
	}
	n := len(r.Keep)
	if o.Mode == Center {
		r.Moved = make([]float64, 3*n)
		par.For(par.Ranges(n, par.Grain), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				for a := range 3 {
					r.Moved[3*i+a] = g.pos[3*i+a]
				}
			}
		})
	}
	for _, i := range g.choose(func(pts []int32) int32 { return pts[0] }) {
		r.Keep[i] = true
		r.Kept++
		if r.Moved != nil {
			for a := range 3 {
				r.Moved[3*int(i)+a] = g.centre(int(i), a)
			}
		}
	}
	return r, nil
}
