package hostkit

import (
	"math"

	"github.com/pctk/pctk/internal/par"
)

// The cpu backend's grid layout (package cpu). Cells are ε/r wide (a little
// more, see cellSlack); the number of cells per axis is capped at
// MaxCells, which makes cells coarser for a tiny ε over a huge extent
// instead of making keys overflow.

const (
	// cellSlack widens cells by a relative 1e-5 so that a pair the float32
	// test accepts (whose true distance may exceed ε by a few ulps) never
	// lies more than r cells apart along an axis.
	cellSlack = 1e-5
	// MaxCells caps the number of cells along each axis (2²⁰, so that a
	// row-major key fits in 60 bits).
	MaxCells = 1 << 20
)

// Layout is a uniform grid's geometry: cells of side H from the origin
// Org, Dim of them along each axis, over the box Lo..Hi, keyed in
// row-major (z, y, x) order.
type Layout struct {
	Org    [3]float64 // grid origin (the box's minimum corner)
	Lo, Hi [3]float32 // the box: the points' bounding box, or a frame's
	H      float64    // cell size
	Dim    [3]int64   // cells per axis
}

// NewLayout lays out cells of about ε/r over the box lo..hi.
func NewLayout(lo, hi [3]float32, eps float32, r int) Layout {
	l := Layout{Lo: lo, Hi: hi}
	for a := range 3 {
		l.Org[a] = float64(lo[a])
	}
	l.H = CellSize(eps, r, Extent(lo, hi))
	for a := range 3 {
		l.Dim[a] = min(MaxCells, int64((float64(hi[a])-l.Org[a])/l.H)+1)
	}
	return l
}

// Order sorts the points xyz (within the box) by cell: spatialOrder's
// permutation, occupied cell keys and run starts, on nw goroutines; spare
// says 4 bytes per point are to spare (not in a Build with Reuse), as
// spatialOrder asks.
func (l *Layout) Order(xyz []float32, nw int, spare bool) (perm []int32, keys []uint64, starts []int32) {
	return spatialOrder(len(xyz)/3, uint64(l.Dim[0]*l.Dim[1]*l.Dim[2]), nw, spare, func(i int) uint64 {
		cx, cy, cz := l.Cell(xyz[3*i], xyz[3*i+1], xyz[3*i+2])
		return l.Key(cx, cy, cz)
	})
}

// CellSize is the side of the grid's cells for ε and r cells per ε over a
// box of largest side extent: ε/r, a little more (cellSlack), or coarser
// where the box would need more than MaxCells along an axis.
func CellSize(eps float32, r int, extent float64) float64 {
	h := max(float64(eps)*(1+cellSlack)/float64(r), extent/(MaxCells-1))
	if h == 0 || math.IsInf(h, 0) {
		h = 1 // all points coincide, or ε is +Inf: one cell
	}
	return h
}

// Extent returns the largest side of the box lo..hi.
func Extent(lo, hi [3]float32) float64 {
	e := 0.0
	for a := range 3 {
		e = max(e, float64(hi[a])-float64(lo[a]))
	}
	return e
}

// Bounds returns the bounding box of the points xyz (interleaved x, y, z;
// zeros for none), over ranges of points on all cores.
func Bounds(xyz []float32) (lo, hi [3]float32) {
	if len(xyz) == 0 {
		return [3]float32{}, [3]float32{}
	}
	rs := par.Ranges(len(xyz)/3, par.Grain)
	los, his := make([][3]float32, len(rs)), make([][3]float32, len(rs))
	par.For(rs, func(r, a, b int) { los[r], his[r] = bounds(xyz[3*a : 3*b]) })
	lo, hi = los[0], his[0]
	for r := 1; r < len(rs); r++ {
		for a := range 3 {
			lo[a], hi[a] = min(lo[a], los[r][a]), max(hi[a], his[r][a])
		}
	}
	return lo, hi
}

// bounds is Bounds on one core.
func bounds(xyz []float32) (lo, hi [3]float32) {
	inf := float32(math.Inf(1))
	// Locals, not arrays, so that the loop keeps them in registers.
	lx, ly, lz, hx, hy, hz := inf, inf, inf, -inf, -inf, -inf
	for i := 0; i+2 < len(xyz); i += 3 {
		p := xyz[i : i+3 : i+3]
		lx, hx = min(lx, p[0]), max(hx, p[0])
		ly, hy = min(ly, p[1]), max(hy, p[1])
		lz, hz = min(lz, p[2]), max(hz, p[2])
	}
	return [3]float32{lx, ly, lz}, [3]float32{hx, hy, hz}
}

// CellF returns the cell coordinates of a point as floats (unclamped).
func (l *Layout) CellF(x, y, z float32) (fx, fy, fz float64) {
	return math.Floor((float64(x) - l.Org[0]) / l.H), math.Floor((float64(y) - l.Org[1]) / l.H), math.Floor((float64(z) - l.Org[2]) / l.H)
}

// Cell returns the Cell of an indexed point (clamped into the grid).
func (l *Layout) Cell(x, y, z float32) (cx, cy, cz int64) {
	fx, fy, fz := l.CellF(x, y, z)
	return clampCell(fx, l.Dim[0]), clampCell(fy, l.Dim[1]), clampCell(fz, l.Dim[2])
}

func clampCell(f float64, n int64) int64 {
	return int64(min(max(f, 0), float64(n-1)))
}

func (l *Layout) Key(cx, cy, cz int64) uint64 {
	return uint64((cz*l.Dim[1]+cy)*l.Dim[0] + cx)
}
