package render

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/pctk/pctk/core"
)

// View is the direction the picture is taken from.
type View int

// The views: Top looks down −Z (X right, Y up), Front looks along +Y (X
// right, Z up) and Side looks along −X (Y right, Z up).
const (
	Top View = iota
	Front
	Side
)

// ParseView returns the view named "top", "front" or "side".
func ParseView(s string) (View, error) {
	switch s {
	case "top":
		return Top, nil
	case "front":
		return Front, nil
	case "side":
		return Side, nil
	}
	return 0, fmt.Errorf("%w: view %q, want top, front or side", ErrOptions, s)
}

// Options say how to draw a cloud. The zero value draws a top view 1024
// pixels wide, coloured by height.
type Options struct {
	View View
	// Width is the width of the plot in pixels (the legend adds a panel
	// to its right); 0 means 1024. The height follows the cloud's aspect.
	Width int
	// Splat is the side of the square drawn for each point, in pixels; 0
	// picks it from the points' density: half the side of the plot's area
	// per point, 1 to 4 pixels.
	Splat int
	// Color is what the colours show: "z" (height, the default),
	// "intensity", "classification", "cluster" (ClusterID), "normal",
	// "rgb", or the name of any attribute.
	Color string
	// Unit is the name of the cloud's length unit for the scale bar; ""
	// means the unit of the cloud's CRS: degrees when it is geographic,
	// feet (ft, US ft) when it says so, else metres.
	Unit string
}

// ErrOptions is wrapped by the errors of options that cannot draw the cloud.
var ErrOptions = errors.New("render: invalid options")

// Limits on the picture.
const (
	MaxWidth  = 16384
	MaxSplat  = 64
	maxPoints = math.MaxUint32 // the z-buffer keeps a point's index in 32 bits
)

func (o *Options) defaults() error {
	if o.Width == 0 {
		o.Width = 1024
	}
	if o.Color == "" {
		o.Color = "z"
	}
	switch {
	case o.Width < 16 || o.Width > MaxWidth:
		return fmt.Errorf("%w: width %d, want 16 to %d pixels", ErrOptions, o.Width, MaxWidth)
	case o.Splat < 0 || o.Splat > MaxSplat:
		return fmt.Errorf("%w: splat %d, want 1 to %d pixels", ErrOptions, o.Splat, MaxSplat)
	case o.View < Top || o.View > Side:
		return fmt.Errorf("%w: view %d", ErrOptions, o.View)
	}
	return nil
}

// Background is the colour of pixels where no point falls.
var Background = color.RGBA{16, 16, 20, 255}

// margin is the empty border around the plot, in pixels.
const margin = 12

// project returns point i's picture coordinates (right, up) and its depth
// (smaller is nearer) for view v.
func project(c *core.Cloud, v View, i int) (u, w, depth float64) {
	switch v {
	case Front:
		return c.X[i], c.Z[i], c.Y[i]
	case Side:
		return c.Y[i], c.Z[i], -c.X[i]
	}
	return c.X[i], c.Y[i], -c.Z[i]
}

// Render draws c as o says.
func Render(c *core.Cloud, o Options) (*image.RGBA, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	n := c.Len()
	if n > maxPoints {
		return nil, fmt.Errorf("%w: %d points, at most %d can be drawn", ErrOptions, n, maxPoints)
	}
	col, err := newColoring(c, o.Color)
	if err != nil {
		return nil, err
	}
	b, ok := c.Bounds()
	if !ok {
		b = core.Bounds{}
	}
	// The picture plane's extent, and pixels per cloud unit.
	var lo, hi [2]float64
	switch o.View {
	case Top:
		lo, hi = [2]float64{b.Min[0], b.Min[1]}, [2]float64{b.Max[0], b.Max[1]}
	case Front:
		lo, hi = [2]float64{b.Min[0], b.Min[2]}, [2]float64{b.Max[0], b.Max[2]}
	case Side:
		lo, hi = [2]float64{b.Min[1], b.Min[2]}, [2]float64{b.Max[1], b.Max[2]}
	}
	plotW := o.Width - 2*margin
	span := max(hi[0]-lo[0], (hi[1]-lo[1])/4, 1e-300) // at most 4 times as high as wide
	scale := float64(plotW-1) / span
	plotH := int(math.Ceil((hi[1]-lo[1])*scale)) + 1
	if o.Splat == 0 {
		perPoint := float64(plotW*plotH) / float64(max(n, 1))
		o.Splat = min(max(int(math.Round(math.Sqrt(perPoint)/2)), 1), 4)
	}
	p := &plot{w: plotW, h: plotH, lo: lo, scale: scale}
	p.draw(c, o)

	legendW := 0
	if col.legend != nil {
		legendW = legendWidth
	}
	img := image.NewRGBA(image.Rect(0, 0, o.Width+legendW, plotH+2*margin+scaleBarHeight))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = Background.R, Background.G, Background.B, Background.A
	}
	p.paint(img, col)
	if col.legend != nil {
		col.legend(img, image.Rect(o.Width, margin, o.Width+legendW-margin, plotH+margin))
	}
	drawScaleBar(img, scale, unitName(c, o.Unit), margin, plotH+2*margin)
	return img, nil
}

// plot is the z-buffer of the picture's plot area.
type plot struct {
	w, h  int
	lo    [2]float64
	scale float64
	keys  []uint64 // per pixel: depth key << 32 | point index; empty is MaxUint64
}

const empty = math.MaxUint64

// depthKey maps a float32 depth to a uint32 of the same order.
func depthKey(d float32) uint64 {
	b := math.Float32bits(d)
	if b>>31 != 0 {
		return uint64(^b)
	}
	return uint64(b | 1<<31)
}

// draw splats every finite point into the z-buffer, from all cores.
func (p *plot) draw(c *core.Cloud, o Options) {
	p.keys = make([]uint64, p.w*p.h)
	for i := range p.keys {
		p.keys[i] = empty
	}
	n := c.Len()
	workers := runtime.GOMAXPROCS(0)
	chunk := (n + workers - 1) / workers
	half := (o.Splat - 1) / 2
	var wg sync.WaitGroup
	for start := 0; start < n; start += chunk {
		wg.Add(1)
		go func(start, end int) {
			defer wg.Done()
			for i := start; i < end; i++ {
				u, v, d := project(c, o.View, i)
				if math.IsNaN(u+v+d) || math.IsInf(u+v+d, 0) {
					continue
				}
				px := int(math.Round((u-p.lo[0])*p.scale)) - half
				py := p.h - 1 - int(math.Round((v-p.lo[1])*p.scale)) - half
				key := depthKey(float32(d))<<32 | uint64(i)
				for y := max(py, 0); y < min(py+o.Splat, p.h); y++ {
					for x := max(px, 0); x < min(px+o.Splat, p.w); x++ {
						k := &p.keys[y*p.w+x]
						for {
							old := atomic.LoadUint64(k)
							if key >= old || atomic.CompareAndSwapUint64(k, old, key) {
								break
							}
						}
					}
				}
			}
		}(start, min(start+chunk, n))
	}
	wg.Wait()
}

// paint colours the plot's pixels into img, offset by the margin.
func (p *plot) paint(img *image.RGBA, col *coloring) {
	if col.prepare != nil {
		col.prepare(p)
	}
	for y := range p.h {
		row := img.PixOffset(margin, margin+y)
		for x := range p.w {
			k := p.keys[y*p.w+x]
			if k == empty {
				continue
			}
			c := col.of(int(uint32(k)))
			img.Pix[row+4*x], img.Pix[row+4*x+1], img.Pix[row+4*x+2], img.Pix[row+4*x+3] = c.R, c.G, c.B, 255
		}
	}
}
