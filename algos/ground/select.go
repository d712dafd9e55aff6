package ground

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

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
	sel := make([]bool, n)
	for i := range sel {
		sel[i] = a.Classification == nil && !ignored[0] ||
			a.Classification != nil && !ignored[a.Classification[i]]
	}
	if a.ReturnNumber == nil || a.NumberOfReturns == nil {
		return sel, nil
	}
	someZero, allZero := false, true
	for i, s := range sel {
		if !s {
			continue
		}
		rn, nr := a.ReturnNumber[i], a.NumberOfReturns[i]
		someZero = someZero || rn == 0 || nr == 0
		allZero = allZero && rn == 0 && nr == 0
	}
	if allZero {
		return sel, nil
	}
	if someZero {
		return nil, errors.New("ground: some NumberOfReturns or ReturnNumber values are 0, but not all (each must be ≥ 1)")
	}
	for i, s := range sel {
		if !s {
			continue
		}
		rn, nr := a.ReturnNumber[i], a.NumberOfReturns[i]
		sel[i] = rn == 1 && nr > 1 && ret&First != 0 ||
			rn > 1 && rn < nr && ret&Intermediate != 0 ||
			rn == nr && nr > 1 && ret&Last != 0 ||
			nr == 1 && ret&Only != 0
	}
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
	cells := make([]int, n)
	cc := make([]int, 4*n)
	lo, hi := [2]int{math.MaxInt, math.MaxInt}, [2]int{math.MinInt, math.MinInt}
	cover := func(c, r int) {
		lo = [2]int{min(lo[0], c), min(lo[1], r)}
		hi = [2]int{max(hi[0], c), max(hi[1], r)}
	}
	for i := range n {
		cells[i] = -1
		if !sel[i] {
			continue
		}
		x, y, z := pos[3*i], pos[3*i+1], pos[3*i+2]
		if math.IsNaN(x+y+z) || math.IsInf(x+y+z, 0) {
			return raster{}, nil, nil, fmt.Errorf("ground: point %d: coordinate (%g, %g, %g) is not finite", i, x, y, z)
		}
		c := int(math.Floor((x - g.X0) / cell))
		r := int(math.Floor((y - g.Y0) / cell))
		if c < 0 || c >= g.Cols || r < 0 || r >= g.Rows {
			return raster{}, nil, nil, fmt.Errorf("ground: point %d at (%g, %g) lies outside the grid (%d×%d cells of %g from (%g, %g))", i, x, y, g.Cols, g.Rows, cell, g.X0, g.Y0)
		}
		cc[4*i], cc[4*i+1], cc[4*i+2], cc[4*i+3] = c, r, c, r
		if minCell != nil {
			cc[4*i+2], cc[4*i+3] = minCell(x-g.X0, y-g.Y0)
		}
		cover(c, r)
		cover(cc[4*i+2], cc[4*i+3])
	}
	if lo[0] > hi[0] {
		return raster{}, nil, nil, ErrNoReturns
	}
	ra := raster{cols: hi[0] - lo[0] + 1, rows: hi[1] - lo[1] + 1, c0: lo[0], r0: lo[1],
		edge: [4]bool{lo[0] == 0, hi[0] == g.Cols-1, lo[1] == 0, hi[1] == g.Rows-1}}
	mcells := cells
	if minCell != nil {
		mcells = make([]int, n)
	}
	for i := range n {
		if !sel[i] {
			if minCell != nil {
				mcells[i] = -1
			}
			continue
		}
		cells[i] = (cc[4*i]-ra.c0)*ra.rows + cc[4*i+1] - ra.r0
		if minCell != nil {
			mcells[i] = (cc[4*i+2]-ra.c0)*ra.rows + cc[4*i+3] - ra.r0
		}
	}
	return ra, cells, mcells, nil
}
