package elm

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pctk/pctk/algos/internal/cellsort"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// PDAL's defaults.
const (
	DefaultCell      = 10.0
	DefaultThreshold = 1.0
	// LowPoint is ASPRS class 7, PDAL's ClassLabel::LowPoint, the default
	// class.
	LowPoint uint8 = 7
)

// Options are filters.elm's options. The zero value is PDAL's defaults
// (cell 10, threshold 1, class 7).
type Options struct {
	// Cell is the side of the square cells; 0 means DefaultCell.
	Cell float64
	// Threshold is the Z gap: a point whose next higher point in its cell
	// is at least Threshold above it is low; 0 means DefaultThreshold.
	Threshold float64
	// Class is the class given to low points; 0 means LowPoint (so class 0
	// cannot be asked for).
	Class uint8
	// Origin, when not nil, is the XY corner of the cells in the frame of
	// xyz (the stage driver passes the whole run's minimum X and Y, so
	// that tiles share cells); no point may lie below it. nil: PDAL's rule,
	// the minimum X and Y of the points.
	Origin *[2]float64
	// Pos, when not nil, holds the points' float64 coordinates relative to
	// the origin of xyz (interleaved x, y, z): the cells and Z gaps are
	// computed from them, as PDAL does from its own. nil: from xyz.
	Pos []float64
	// NoReach leaves Result.Reach nil: a run over the whole cloud, not a
	// tile, which no one asks how far each point's class reaches.
	NoReach bool
}

func (o Options) withDefaults() Options {
	if o.Cell == 0 {
		o.Cell = DefaultCell
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	if o.Class == 0 {
		o.Class = LowPoint
	}
	return o
}

// Validate checks the options.
func (o Options) Validate() error {
	o = o.withDefaults()
	if err := findneighbor.CheckRadius("elm", "cell", o.Cell, false); err != nil {
		return err
	}
	if err := findneighbor.CheckFloat("elm", "threshold", o.Threshold); err != nil {
		return err
	}
	if o.Origin != nil {
		for a, v := range o.Origin {
			if err := findneighbor.CheckFloat("elm", "origin "+"xy"[a:a+1], v); err != nil {
				return err
			}
		}
	}
	return nil
}

// Result is filters.elm's output.
type Result struct {
	// Classification is the classes given, with Class for low points.
	Classification []uint8
	// Low flags the points ELM classified.
	Low []bool
	// Count is the number of low points.
	Count int
	// Reach holds, for each point, the XY distance within which lie all
	// the points its class depends on (its cell); nil with NoReach.
	Reach []float64
}

// CellOf returns PDAL's cell column (or row) of a coordinate at offset d ≥
// 0 from the origin: (size_t)(floor(d) / cell).
func CellOf(d, cell float64) uint64 { return uint64(math.Floor(d) / cell) }

// ELM runs filters.elm on the points xyz (interleaved x, y, z float32
// relative to a local origin) whose classes are class (nil: all 0). It
// needs no neighbour index: cells are a grid.
func ELM(xyz []float32, class []uint8, o Options) (*Result, error) {
	n, err := findneighbor.CheckPoints("elm", xyz)
	if err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	if class != nil && len(class) != n {
		return nil, fmt.Errorf("elm: %d classes for %d points", len(class), n)
	}
	if o.Pos != nil && len(o.Pos) != len(xyz) {
		return nil, fmt.Errorf("elm: %d float64 coordinates for %d points", len(o.Pos), n)
	}
	at := func(i, a int) float64 {
		if o.Pos != nil {
			return o.Pos[3*i+a]
		}
		return float64(xyz[3*i+a])
	}
	r := &Result{Classification: make([]uint8, n), Low: make([]bool, n)}
	if !o.NoReach {
		r.Reach = make([]float64, n)
	}
	copy(r.Classification, class)
	if n == 0 {
		return r, nil
	}
	var org [2]float64
	if o.Origin != nil {
		org = *o.Origin
	} else {
		rs := par.Ranges(n, par.Grain)
		los := make([][2]float64, len(rs))
		par.For(rs, func(r, lo, hi int) {
			m := [2]float64{math.Inf(1), math.Inf(1)}
			for i := lo; i < hi; i++ {
				m[0], m[1] = min(m[0], at(i, 0)), min(m[1], at(i, 1))
			}
			los[r] = m
		})
		org = [2]float64{math.Inf(1), math.Inf(1)}
		for _, m := range los {
			org[0], org[1] = min(org[0], m[0]), min(org[1], m[1])
		}
	}
	// Each point's cell, as int64s in the order of the uint64 cells.
	cells := make([][3]int64, n)
	if i := par.First(n, func(lo, hi int) int {
		for i := lo; i < hi; i++ {
			dx, dy := at(i, 0)-org[0], at(i, 1)-org[1]
			if !(dx >= 0 && dy >= 0) {
				return i
			}
			c, rw := CellOf(dx, o.Cell), CellOf(dy, o.Cell)
			cells[i] = [3]int64{int64(c ^ 1<<63), int64(rw ^ 1<<63), 0}
			if r.Reach != nil {
				r.Reach[i] = math.Hypot(reach(dx, c, o.Cell), reach(dy, rw, o.Cell))
			}
		}
		return -1
	}); i >= 0 {
		return nil, fmt.Errorf("elm: point %d (%g, %g) lies below the origin (%g, %g)", i, at(i, 0), at(i, 1), org[0], org[1])
	}
	// The points by cell, then height, then index; then ELMFilter::filter
	// in each cell: from the lowest point up, while the next is not within
	// the threshold, the lower one is low. Cells on all cores, each range
	// of cells counting its own.
	order, starts := cellsort.Order(cells)
	cs := par.Ranges(len(starts)-1, 1) // cells of 10 m by default: few and large
	counts := make([]int, len(cs))
	less := func(a, b int32) int {
		return cmp.Or(cmp.Compare(at(int(a), 2), at(int(b), 2)), cmp.Compare(a, b))
	}
	par.For(cs, func(rg, c0, c1 int) {
		for c := c0; c < c1; c++ {
			s, e := int(starts[c]), int(starts[c+1])
			// The walk from the lowest point up mostly stops at the first
			// pair: the lowest points are picked one at a time, in the
			// order a sort would give them, and only a cell with more than
			// selectFirst low points has the rest sorted.
			lowestFirst(order[s:e], less)
			for k := s; k+1 < e; k++ {
				switch {
				case k-s < selectFirst:
					lowestFirst(order[k+1:e], less)
				case k-s == selectFirst:
					slices.SortFunc(order[k+1:e], less)
				}
				i, j := int(order[k]), int(order[k+1])
				if math.Abs(at(i, 2)-at(j, 2)) < o.Threshold {
					break
				}
				r.Low[i] = true
				r.Classification[i] = o.Class
				counts[rg]++
			}
		}
	})
	for _, c := range counts {
		r.Count += c
	}
	return r, nil
}

// reach returns the largest distance, along one axis, from a point at
// offset d from the origin to the edge of its cell c: the cell holds the
// offsets in [first(c), first(c+1)).
func reach(d float64, c uint64, cell float64) float64 {
	return max(d-first(c, cell), first(c+1, cell)-d)
}

// first returns the smallest whole offset k ≥ 0 with CellOf(k) ≥ c: near
// ceil(c·cell), moved by the rounding of the division in CellOf.
func first(c uint64, cell float64) float64 {
	k := math.Ceil(float64(c) * cell)
	for k > 0 && CellOf(k-1, cell) >= c {
		k--
	}
	for CellOf(k, cell) < c {
		k++
	}
	return k
}

// selectFirst is how many of a cell's lowest points ELM picks one at a
// time (each a pass over the cell) before it sorts the rest.
const selectFirst = 8

// lowestFirst moves the least element of x by cmp to x[0].
func lowestFirst(x []int32, cmp func(a, b int32) int) {
	m := 0
	for i := 1; i < len(x); i++ {
		if cmp(x[i], x[m]) < 0 {
			m = i
		}
	}
	x[0], x[m] = x[m], x[0]
}
