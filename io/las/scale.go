package las

import (
	"fmt"
	"math"
	"slices"

	"github.com/pctk/pctk/core"
)

// Limits of the automatic scale: the coarsest scale tried for data on a
// decimal grid, the finest scale ever chosen, and the coarsest that keeps
// millimetres (coarser ones come with a warning).
const (
	coarsestGrid = -2 // 0.01
	finestScale  = -9 // 1e-9
	mmScale      = 1e-3
	// gridTol is how far, in units of the scale, a coordinate may lie from
	// the grid and still count as on it: float64 rounding of raw*scale+offset.
	gridTol = 1e-6
)

// quantize returns v as a reader gets it back with scale s and offset o.
func quantize(v, s, o float64) float64 { return math.Round((v-o)/s)*s + o }

// fits reports whether every coordinate within b maps to a 32-bit integer
// with the given scale and offset.
func fits(b core.Bounds, scale, offset [3]float64) bool {
	for k := range 3 {
		for _, v := range [2]float64{b.Min[k], b.Max[k]} {
			r := math.Round((v - offset[k]) / scale[k])
			if !(r >= math.MinInt32 && r <= math.MaxInt32) {
				return false
			}
		}
	}
	return true
}

// chooseScale picks a scale and offset per axis for points within b.
//
// First choice: the coarsest power of ten from 0.01 down, with offset 0 or
// the box centre rounded to a whole unit, at which raw·scale+offset gives
// back every coordinate of c bit for bit, as it does for data already on a
// decimal grid (LAS, survey output) read through another format.
//
// Otherwise the offset is the rounded centre and the scale the coarsest
// power of ten that reproduces every coordinate to within float64 rounding;
// failing that, the finest power of ten (down to 1e-9) at which the box,
// widened room times around its centre, still fits 32-bit integers. When
// even 1 mm does not fit, the scale is coarser and a warning says so.
func chooseScale(b core.Bounds, c *core.Cloud, room float64) (scale, offset [3]float64) {
	for k, vs := range [3][]float64{c.X, c.Y, c.Z} {
		o := math.Round((b.Min[k] + b.Max[k]) / 2)
		if math.Abs(o) < 1 {
			o = 0
		}
		if s, eo, ok := exactScale(b, k, vs, o, room); ok {
			scale[k], offset[k] = s, eo
			continue
		}
		r := max(b.Max[k]-o, o-b.Min[k], 0) * room
		// The finest power of ten whose integers reach r, with a margin
		// for rounding.
		eMin := finestScale
		for r/math.Pow10(eMin) > math.MaxInt32-2 {
			eMin++
		}
		s := math.Pow10(eMin)
		for e := coarsestGrid; e >= eMin; e-- {
			if onGrid(vs, math.Pow10(e), o, gridTol) {
				s = math.Pow10(e)
				break
			}
		}
		if s > mmScale*1.5 && s == math.Pow10(eMin) {
			WarningHandler(fmt.Sprintf("%c spans %g units: scale %g, coarser than 1 mm, keeps it in 32-bit integers", "XYZ"[k], b.Max[k]-b.Min[k], s))
		}
		scale[k], offset[k] = s, o
	}
	return scale, offset
}

// exactScale looks for the coarsest power of ten and an offset at which
// axis k of the box fits 32-bit integers and every value of vs comes back
// bit for bit. Offsets tried are 0, the centre, and the box minimum and
// centre rounded down and to the nearest multiple of each power of ten up
// to 1e9: the offsets LAS writers choose, so a file that went through
// another format usually gets its original offset back.
func exactScale(b core.Bounds, k int, vs []float64, centre, room float64) (scale, offset float64, ok bool) {
	offsets := []float64{0, centre}
	for m := 1; m <= 9; m++ {
		p := math.Pow10(m)
		for _, o := range [3]float64{math.Floor(b.Min[k]/p) * p, math.Round(centre/p) * p, math.Floor(centre/p) * p} {
			if !slices.Contains(offsets, o) {
				offsets = append(offsets, o)
			}
		}
	}
	for e := coarsestGrid; e >= finestScale; e-- {
		s := math.Pow10(e)
		for _, o := range offsets {
			r := max(b.Max[k]-o, o-b.Min[k], 0) * room
			if r/s > math.MaxInt32-2 || !onGrid(vs, s, o, 0) {
				continue
			}
			return s, o, true
		}
	}
	return 0, 0, false
}

// onGrid reports whether every finite value of vs comes back through scale
// s and offset o to within tol·s: with tol 0, bit for bit.
func onGrid(vs []float64, s, o, tol float64) bool {
	for _, v := range vs {
		if !(math.Abs(quantize(v, s, o)-v) <= s*tol) && !math.IsNaN(v) && !math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
