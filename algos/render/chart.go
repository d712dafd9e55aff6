package render

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"
)

// Bar is one bar of a Chart: a label, a positive value and a colour.
type Bar struct {
	Label string
	Value float64
	Color color.RGBA
}

// Sizes of a chart, in pixels.
const (
	chartBar    = 14 // height of a bar
	chartGap    = 6  // space between bars
	chartPlot   = 480
	chartMargin = 10
	glyphWidth  = 7 // basicfont.Face7x13's advance
)

// Chart draws bars horizontally on a logarithmic axis around a reference
// line at ref (a ratio chart: ref 1), each bar from the line to its value,
// so values above ref grow right and values below grow left, with its
// label on the left, its value at its end, a title on top and the
// decades marked below. Values that are not positive and finite are an
// error.
func Chart(title string, bars []Bar, ref float64) (*image.RGBA, error) {
	if len(bars) == 0 {
		return nil, fmt.Errorf("%w: a chart needs at least one bar", ErrOptions)
	}
	if !(ref > 0) || math.IsInf(ref, 0) {
		return nil, fmt.Errorf("%w: chart reference %g is not positive and finite", ErrOptions, ref)
	}
	lo, hi := ref, ref
	labelChars := 0
	for _, b := range bars {
		if !(b.Value > 0) || math.IsInf(b.Value, 0) {
			return nil, fmt.Errorf("%w: bar %q has value %g, want positive and finite", ErrOptions, b.Label, b.Value)
		}
		lo, hi = min(lo, b.Value), max(hi, b.Value)
		labelChars = max(labelChars, len([]rune(b.Label)))
	}
	// Whole decades, at least one either side of ref.
	l0 := math.Floor(math.Log10(lo))
	l1 := math.Ceil(math.Log10(hi))
	if l1-l0 < 1 {
		l1 = l0 + 1
	}
	left := chartMargin + labelChars*glyphWidth + 8
	width := left + chartPlot + 7*glyphWidth + chartMargin
	top := chartMargin + 2*lineHeight
	height := top + len(bars)*(chartBar+chartGap) + 2*lineHeight + chartMargin
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	fill(img, img.Rect, Background)
	x := func(v float64) int {
		return left + int(math.Round((math.Log10(v)-l0)/(l1-l0)*chartPlot))
	}
	label(img, chartMargin, chartMargin+lineHeight-3, title)
	grid := color.RGBA{70, 70, 70, 255}
	axisY := top + len(bars)*(chartBar+chartGap)
	for d := l0; d <= l1; d++ {
		v := math.Pow(10, d)
		fill(img, image.Rect(x(v), top-4, x(v)+1, axisY), grid)
		s := ratioText(v)
		label(img, x(v)-len(s)*glyphWidth/2, axisY+lineHeight, s)
	}
	for i, b := range bars {
		y := top + i*(chartBar+chartGap)
		label(img, left-8-len([]rune(b.Label))*glyphWidth, y+chartBar-2, b.Label)
		x0, x1 := x(ref), x(b.Value)
		if x1 < x0 {
			x0, x1 = x1, x0
		}
		fill(img, image.Rect(x0, y, max(x1, x0+1), y+chartBar), b.Color)
		label(img, max(x(ref), x(b.Value))+4, y+chartBar-2, ratioText(b.Value))
	}
	fill(img, image.Rect(x(ref), top-6, x(ref)+2, axisY+2), textColor)
	return img, nil
}

// ratioText writes a ratio with three significant digits (two for whole
// decades and above 100) and an x: "0.0500x", "1.00x", "12.3x", "150x".
func ratioText(v float64) string {
	return strconv.FormatFloat(v, 'f', max(0, 2-int(math.Floor(math.Log10(v)))), 64) + "x"
}
