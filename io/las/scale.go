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
//
// It is a ScaleFit fed c whole: one pass decides.
func chooseScale(b core.Bounds, c *core.Cloud, room float64) (scale, offset [3]float64) {
	f := newScaleFit(&b, room)
	for f.Add(c); f.Next(); f.Add(c) {
	}
	return f.Scale()
}

// ScaleFit chooses the scale and offset that Encode chooses for a cloud
// from another format (chooseScale), from its points fed in chunks, in
// one pass or more: an out-of-core writer finds the in-memory writer's
// scale without holding the cloud. Feed every point with Add, in chunks
// of any size, then call Next; while Next reports true, feed every point
// again (in any order and chunks); then Scale returns the choice.
//
// Each axis has its candidates (scale, offset, tolerance) in chooseScale's
// order of preference: the exact ones of exactScale, then the rounded
// centre with each scale down to the finest that fits the box, to within
// float64 rounding, then that finest scale, which takes any value. The
// choice is the first candidate that every value passes. A chunk is
// tested against the first candidate not yet failed, and against the next
// ones only while it fails them, so that data on a grid costs one test a
// value; a candidate skipped for a chunk (while an earlier one held) is
// not known to pass it, and when the first candidate left at the end of a
// pass is such a one, Next asks for another pass. Each such pass rules out
// a candidate at least; most clouds are decided by the first.
type ScaleFit struct {
	room  float64
	known bool // the bounds are known: given, or found by a first pass
	found bool // the bounds pass saw a finite point
	b     core.Bounds
	axes  [3][]scaleCandidate
	fed   int // chunks fed in this pass
}

// scaleCandidate is one scale and offset an axis may get.
type scaleCandidate struct {
	scale, offset float64
	tol           float64 // how far from the grid a value may lie, in units of scale (onGrid)
	any           bool    // takes every value: the finest scale that fits the box
	warn          bool    // coarser than 1 mm: Scale warns
	failed        bool
	tested        int // chunks of this pass tested against it
}

// NewScaleFit returns a ScaleFit for points bounded by b, which must then
// be their bounds as core.Cloud.Bounds gives them; with b nil, the first
// pass finds them and Next asks for a second.
func NewScaleFit(b *core.Bounds) *ScaleFit { return newScaleFit(b, 1) }

// newScaleFit is NewScaleFit for a box widened room times around its
// centre (Encoder.Write's first chunk leaves room for later ones).
func newScaleFit(b *core.Bounds, room float64) *ScaleFit {
	f := &ScaleFit{room: room}
	if b != nil {
		f.b, f.known, f.found = *b, true, true
		f.plan()
	}
	return f
}

// Add feeds the coordinates of c's points (its attributes play no part).
func (f *ScaleFit) Add(c *core.Cloud) {
	if !f.known {
		b, ok := c.Bounds()
		if !ok {
			return
		}
		if !f.found {
			f.b, f.found = b, true
			return
		}
		f.b.Add(b.Min)
		f.b.Add(b.Max)
		return
	}
	f.fed++
	for k, vs := range [3][]float64{c.X, c.Y, c.Z} {
		for i := range f.axes[k] {
			cd := &f.axes[k][i]
			if cd.failed {
				continue
			}
			cd.tested++
			if cd.any || onGrid(vs, cd.scale, cd.offset, cd.tol) {
				break
			}
			cd.failed = true
		}
	}
}

// Next ends a pass and reports whether the points must be fed again.
func (f *ScaleFit) Next() bool {
	if !f.known {
		f.known = true
		if f.found {
			f.plan()
		}
		return f.found
	}
	again := false
	for k := range 3 {
		if cd := f.choice(k); cd != nil && cd.tested < f.fed {
			again = true
		}
	}
	if again {
		f.fed = 0
		for k := range 3 {
			for i := range f.axes[k] {
				f.axes[k][i].tested = 0
			}
		}
	}
	return again
}

// Scale returns the scale and offset chosen, once Next reported false:
// those of the first candidate of each axis that every value passed; 1 mm
// and offset 0 when no point was fed (as Encode writes an empty cloud).
// It warns when a scale is coarser than 1 mm.
func (f *ScaleFit) Scale() (scale, offset [3]float64) {
	if !f.found {
		return noPointsScale, [3]float64{}
	}
	for k := range 3 {
		cd := f.choice(k)
		if cd.warn {
			WarningHandler(fmt.Sprintf("%c spans %g units: scale %g, coarser than 1 mm, keeps it in 32-bit integers", "XYZ"[k], f.b.Max[k]-f.b.Min[k], cd.scale))
		}
		scale[k], offset[k] = cd.scale, cd.offset
	}
	return scale, offset
}

// noPointsScale is the scale of a file with no points.
var noPointsScale = [3]float64{mmScale, mmScale, mmScale}

// choice returns axis k's first candidate not failed (nil before plan).
func (f *ScaleFit) choice(k int) *scaleCandidate {
	for i := range f.axes[k] {
		if !f.axes[k][i].failed {
			return &f.axes[k][i]
		}
	}
	return nil
}

// plan lists each axis's candidates for the box f.b.
func (f *ScaleFit) plan() {
	b, room := f.b, f.room
	for k := range 3 {
		o := math.Round((b.Min[k] + b.Max[k]) / 2)
		if math.Abs(o) < 1 {
			o = 0
		}
		cs := exactCandidates(b, k, o, room)
		r := max(b.Max[k]-o, o-b.Min[k], 0) * room
		// The finest power of ten whose integers reach r, with a margin
		// for rounding.
		eMin := finestScale
		for r/math.Pow10(eMin) > math.MaxInt32-2 {
			eMin++
		}
		sMin := math.Pow10(eMin)
		warn := sMin > mmScale*1.5
		for e := coarsestGrid; e >= eMin; e-- {
			s := math.Pow10(e)
			cs = append(cs, scaleCandidate{scale: s, offset: o, tol: gridTol, warn: warn && s == sMin})
		}
		f.axes[k] = append(cs, scaleCandidate{scale: sMin, offset: o, any: true, warn: warn})
	}
}

// exactCandidates lists, coarsest first, the powers of ten and offsets at
// which axis k of the box fits 32-bit integers, for values to come back
// bit for bit. Offsets tried are 0, the centre, and the box minimum and
// centre rounded down and to the nearest multiple of each power of ten up
// to 1e9: the offsets LAS writers choose, so a file that went through
// another format usually gets its original offset back.
func exactCandidates(b core.Bounds, k int, centre, room float64) []scaleCandidate {
	offsets := []float64{0, centre}
	for m := 1; m <= 9; m++ {
		p := math.Pow10(m)
		for _, o := range [3]float64{math.Floor(b.Min[k]/p) * p, math.Round(centre/p) * p, math.Floor(centre/p) * p} {
			if !slices.Contains(offsets, o) {
				offsets = append(offsets, o)
			}
		}
	}
	var cs []scaleCandidate
	for e := coarsestGrid; e >= finestScale; e-- {
		s := math.Pow10(e)
		for _, o := range offsets {
			r := max(b.Max[k]-o, o-b.Min[k], 0) * room
			if r/s > math.MaxInt32-2 {
				continue
			}
			cs = append(cs, scaleCandidate{scale: s, offset: o})
		}
	}
	return cs
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
