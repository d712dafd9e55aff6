package ground

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// PDAL's ASPRS classes the filters write (pdal::ClassLabel).
const (
	// Unclassified is class 1: a point a filter classified and found to be
	// no ground.
	Unclassified uint8 = 1
	// Ground is class 2.
	Ground uint8 = 2
)

// Returns selects the points a filter classifies by their return number,
// as PDAL's "returns" option (Segmentation::segmentReturns): a set of
// First (return 1 of several), Intermediate, Last (the last of several)
// and Only (the single return of its pulse). The zero value is PDAL's
// default, Last|Only.
type Returns uint8

// The return kinds of Returns.
const (
	First Returns = 1 << iota
	Intermediate
	Last
	Only
)

// DefaultReturns is PDAL's default "returns" of filters.smrf and
// filters.pmf: "last, only".
const DefaultReturns = Last | Only

var returnNames = []struct {
	name string
	r    Returns
}{{"first", First}, {"intermediate", Intermediate}, {"last", Last}, {"only", Only}}

// ParseReturns reads PDAL's "returns" option, a comma-separated list of
// first, intermediate, last and only; an unknown word is a
// *findneighbor.ParamError naming "returns", as PDAL refuses it
// ("Unrecognized 'returns' value").
func ParseReturns(s string) (Returns, error) {
	var r Returns
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		i := slices.IndexFunc(returnNames, func(n struct {
			name string
			r    Returns
		}) bool {
			return n.name == w
		})
		if i < 0 {
			return 0, &findneighbor.ParamError{Op: "ground", Param: "returns", Value: fmt.Sprintf("%q", w), Want: "first, intermediate, last or only"}
		}
		r |= returnNames[i].r
	}
	return r, nil
}

// String returns r as PDAL's option writes it ("last,only").
func (r Returns) String() string {
	if r == 0 {
		r = DefaultReturns
	}
	var w []string
	for _, n := range returnNames {
		if r&n.r != 0 {
			w = append(w, n.name)
		}
	}
	return strings.Join(w, ",")
}

// Attrs are the per-point inputs the filters read besides coordinates, each
// nil or one value per point, as PDAL names them.
type Attrs struct {
	// Classification is kept for the points a filter does not classify;
	// nil reads as 0 (never classified).
	Classification []uint8
	// ReturnNumber and NumberOfReturns select the points by Returns; when
	// either is nil the filters classify every return, as PDAL does when
	// the dimensions are missing (with a warning).
	ReturnNumber, NumberOfReturns []uint8
}

// ErrNoReturns is returned when no point is left to classify (PDAL's "No
// returns to process.").
var ErrNoReturns = errors.New("ground: no returns to process")

// Select returns which of n points a filter classifies (a driver lays the
// whole run's Grid, PDALGrid, over the points it selects): those whose
// class is not in ignore (PDAL's ignore ranges over Classification,
// Segmentation::ignoreDimRanges) and whose return is in ret
// (Segmentation::segmentReturns), unless ReturnNumber and NumberOfReturns
// are all 0, which selects every return as PDAL does; some zeros but not
// all are an error, as in PDAL.
func Select(n int, a Attrs, ignore []uint8, ret Returns) ([]bool, error) {
	for _, col := range []struct {
		name string
		v    []uint8
	}{{"Classification", a.Classification}, {"ReturnNumber", a.ReturnNumber}, {"NumberOfReturns", a.NumberOfReturns}} {
		if col.v != nil {
			if err := findneighbor.CheckLen("ground", col.name, len(col.v), n); err != nil {
				return nil, err
			}
		}
	}
	if ret == 0 {
		ret = DefaultReturns
	}
	var ignored [256]bool
	for _, c := range ignore {
		ignored[c] = true
	}
	// Three passes over the points, each on all cores.
	rs := par.Ranges(n, par.Grain)
	sel := make([]bool, n)
	par.For(rs, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			sel[i] = a.Classification == nil && !ignored[0] ||
				a.Classification != nil && !ignored[a.Classification[i]]
		}
	})
	if a.ReturnNumber == nil || a.NumberOfReturns == nil {
		return sel, nil
	}
	someZeros, allZeros := make([]bool, len(rs)), make([]bool, len(rs))
	par.For(rs, func(r, lo, hi int) {
		someZero, allZero := false, true
		for i := lo; i < hi; i++ {
			if !sel[i] {
				continue
			}
			rn, nr := a.ReturnNumber[i], a.NumberOfReturns[i]
			someZero = someZero || rn == 0 || nr == 0
			allZero = allZero && rn == 0 && nr == 0
		}
		someZeros[r], allZeros[r] = someZero, allZero
	})
	if !slices.Contains(allZeros, false) {
		return sel, nil
	}
	if slices.Contains(someZeros, true) {
		return nil, errors.New("ground: some NumberOfReturns or ReturnNumber values are 0, but not all (each must be ≥ 1)")
	}
	par.For(rs, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			if !sel[i] {
				continue
			}
			rn, nr := a.ReturnNumber[i], a.NumberOfReturns[i]
			sel[i] = rn == 1 && nr > 1 && ret&First != 0 ||
				rn > 1 && rn < nr && ret&Intermediate != 0 ||
				rn == nr && nr > 1 && ret&Last != 0 ||
				nr == 1 && ret&Only != 0
		}
	})
	return sel, nil
}

// positions returns opts' float64 coordinates, or xyz's when pos is nil.
func positions(xyz []float32, pos []float64) ([]float64, error) {
	if len(xyz)%3 != 0 {
		return nil, fmt.Errorf("ground: %d coordinates is not a multiple of 3", len(xyz))
	}
	if pos != nil {
		if err := findneighbor.CheckLen("ground", "Pos", len(pos), len(xyz)); err != nil {
			return nil, err
		}
		return pos, nil
	}
	if err := findneighbor.CheckFinite("ground", "xyz", xyz); err != nil {
		return nil, err
	}
	out := make([]float64, len(xyz))
	for i, v := range xyz {
		out[i] = float64(v)
	}
	return out, nil
}

// place lays the grid g over the selected points of pos: it returns the
// raster covering their cells and each selected point's raster index (-1
// for the others), and its raster index in the minimum surface, by minCell
// when not nil (the raster then covers those cells too). A selected point
// outside g, or a coordinate that is not finite, is an error.
func place(pos []float64, sel []bool, g Grid, cell float64, minCell func(dx, dy float64) (int, int)) (raster, []int, []int, error) {
	n := len(pos) / 3
	// cellOf is point i's grid column and row, and those of its cell in the
	// minimum surface; ok is false when i is outside g or not finite.
	cellOf := func(i int) (c, r, mc, mr int, ok bool) {
		x, y, z := pos[3*i], pos[3*i+1], pos[3*i+2]
		if math.IsNaN(x+y+z) || math.IsInf(x+y+z, 0) {
			return 0, 0, 0, 0, false
		}
		c = int(math.Floor((x - g.X0) / cell))
		r = int(math.Floor((y - g.Y0) / cell))
		if c < 0 || c >= g.Cols || r < 0 || r >= g.Rows {
			return 0, 0, 0, 0, false
		}
		mc, mr = c, r
		if minCell != nil {
			mc, mr = minCell(x-g.X0, y-g.Y0)
		}
		return c, r, mc, mr, true
	}
	// First pass, on all cores: the cells' span, and the first bad point.
	rs := par.Ranges(n, par.Grain)
	type span struct{ lo, hi [2]int }
	spans := make([]span, len(rs))
	bad := make([]int, len(rs))
	par.For(rs, func(k, a, b int) {
		lo, hi := [2]int{math.MaxInt, math.MaxInt}, [2]int{math.MinInt, math.MinInt}
		bad[k] = -1
		for i := a; i < b; i++ {
			if !sel[i] {
				continue
			}
			c, r, mc, mr, ok := cellOf(i)
			if !ok {
				bad[k] = i
				break
			}
			lo = [2]int{min(lo[0], c, mc), min(lo[1], r, mr)}
			hi = [2]int{max(hi[0], c, mc), max(hi[1], r, mr)}
		}
		spans[k] = span{lo, hi}
	})
	lo, hi := [2]int{math.MaxInt, math.MaxInt}, [2]int{math.MinInt, math.MinInt}
	for k, sp := range spans {
		if i := bad[k]; i >= 0 {
			x, y, z := pos[3*i], pos[3*i+1], pos[3*i+2]
			if math.IsNaN(x+y+z) || math.IsInf(x+y+z, 0) {
				return raster{}, nil, nil, fmt.Errorf("ground: point %d: coordinate (%g, %g, %g) is not finite", i, x, y, z)
			}
			return raster{}, nil, nil, fmt.Errorf("ground: point %d at (%g, %g) lies outside the grid (%d×%d cells of %g from (%g, %g))", i, x, y, g.Cols, g.Rows, cell, g.X0, g.Y0)
		}
		lo = [2]int{min(lo[0], sp.lo[0]), min(lo[1], sp.lo[1])}
		hi = [2]int{max(hi[0], sp.hi[0]), max(hi[1], sp.hi[1])}
	}
	if lo[0] > hi[0] {
		return raster{}, nil, nil, ErrNoReturns
	}
	ra := raster{cols: hi[0] - lo[0] + 1, rows: hi[1] - lo[1] + 1, c0: lo[0], r0: lo[1],
		edge: [4]bool{lo[0] == 0, hi[0] == g.Cols-1, lo[1] == 0, hi[1] == g.Rows-1}}
	// Second pass: each point's raster indices, its cells found again.
	cells := make([]int, n)
	mcells := cells
	if minCell != nil {
		mcells = make([]int, n)
	}
	par.For(rs, func(_, a, b int) {
		for i := a; i < b; i++ {
			if !sel[i] {
				cells[i], mcells[i] = -1, -1
				continue
			}
			c, r, mc, mr, _ := cellOf(i)
			cells[i] = (c-ra.c0)*ra.rows + r - ra.r0
			if minCell != nil {
				mcells[i] = (mc-ra.c0)*ra.rows + mr - ra.r0
			}
		}
	})
	return ra, cells, mcells, nil
}
