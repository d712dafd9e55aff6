package render

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Sizes of the picture's furniture, in pixels.
const (
	legendWidth    = 200
	scaleBarHeight = 28
	lineHeight     = 16
	swatch         = 10
)

// textColor is the colour of labels.
var textColor = color.RGBA{230, 230, 230, 255}

// label draws s with its baseline's left end at (x, y).
func label(img *image.RGBA, x, y int, s string) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(textColor), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

type legendEntry struct {
	c    color.RGBA // the zero colour draws no swatch
	name string
}

// legendBox draws a title and one swatch and name per entry, from the top
// of r down, as many as fit.
func legendBox(img *image.RGBA, r image.Rectangle, title string, entries []legendEntry) {
	y := r.Min.Y + lineHeight
	label(img, r.Min.X, y, title)
	for _, e := range entries {
		y += lineHeight
		if y > r.Max.Y {
			return
		}
		if e.c.A != 0 {
			fill(img, image.Rect(r.Min.X, y-swatch, r.Min.X+swatch, y), e.c)
		}
		label(img, r.Min.X+swatch+6, y, e.name)
	}
}

// colorBar draws the viridis ramp from lo (bottom) to hi (top) with both
// values written beside it.
func colorBar(img *image.RGBA, r image.Rectangle, title string, lo, hi float64) {
	label(img, r.Min.X, r.Min.Y+lineHeight, title)
	top, bottom := r.Min.Y+2*lineHeight, min(r.Max.Y, r.Min.Y+2*lineHeight+256)
	if bottom-top < 2 {
		bottom = top + 2
	}
	for y := top; y < bottom; y++ {
		fill(img, image.Rect(r.Min.X, y, r.Min.X+16, y+1), rampColor(float64(bottom-1-y)/float64(bottom-1-top)))
	}
	label(img, r.Min.X+22, top+10, number(hi))
	label(img, r.Min.X+22, bottom, number(lo))
}

// number writes v with four significant digits and no exponent for the
// magnitudes point clouds have.
func number(v float64) string {
	if v == 0 {
		return "0"
	}
	if math.Abs(v) >= 1e-3 && math.Abs(v) < 1e9 {
		d := max(0, 3-int(math.Floor(math.Log10(math.Abs(v)))))
		return strconv.FormatFloat(v, 'f', min(d, 6), 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// drawScaleBar draws, below the plot at (x, y), a bar of a round length
// (1, 2 or 5 times a power of ten) near a fifth of the plot's width.
func drawScaleBar(img *image.RGBA, pixelsPerUnit float64, unit string, x, y int) {
	if !(pixelsPerUnit > 0) || math.IsInf(pixelsPerUnit, 0) {
		return
	}
	target := float64(img.Bounds().Dx()-legendWidth) / 5 / pixelsPerUnit
	p := math.Pow(10, math.Floor(math.Log10(target)))
	length := p
	for _, m := range []float64{2, 5, 10} {
		if m*p <= target {
			length = m * p
		}
	}
	w := int(math.Round(length * pixelsPerUnit))
	fill(img, image.Rect(x, y+4, x+w, y+6), textColor)
	fill(img, image.Rect(x, y, x+2, y+10), textColor)
	fill(img, image.Rect(x+w-2, y, x+w, y+10), textColor)
	label(img, x+w+8, y+10, strconv.FormatFloat(length, 'f', -1, 64)+" "+unit)
}

// unitName is the scale bar's unit: the one asked for, else degrees for a
// geographic CRS, else the projected CRS's length unit (linearUnit).
func unitName(c *core.Cloud, unit string) string {
	if unit != "" {
		return unit
	}
	crs := c.Meta.CRS
	wkt := strings.ToUpper(strings.TrimSpace(crs.WKT))
	if crs.EPSG == 4326 || crs.EPSG == 4269 || crs.EPSG == 4258 || strings.HasPrefix(wkt, "GEOGCS") || strings.HasPrefix(wkt, "GEOGCRS") {
		return "deg"
	}
	return linearUnit(crs)
}
