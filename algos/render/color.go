package render

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/pctk/pctk/core"
)

// coloring gives each point its colour. prepare, when set, runs once the
// z-buffer is full (the cluster colouring needs to know which clusters
// touch); legend, when set, draws the legend or colour bar into a rectangle.
type coloring struct {
	of      func(i int) color.RGBA
	prepare func(p *plot)
	legend  func(img *image.RGBA, r image.Rectangle)
}

// Needs returns the attributes the colouring mode reads, for a reader that
// can leave the others out (X, Y, Z are always needed); nil means it may
// need any (cluster: one of ClusterID, ClusterID_5, ...).
func Needs(mode string) []string {
	switch mode {
	case "", "z":
		return []string{}
	case "intensity":
		return []string{core.DimIntensity}
	case "classification":
		return []string{core.DimClassification}
	case "cluster":
		return nil
	case "normal":
		return []string{core.DimNormalX, core.DimNormalY, core.DimNormalZ}
	case "rgb":
		return []string{core.DimRed, core.DimGreen, core.DimBlue}
	}
	return []string{mode}
}

func newColoring(c *core.Cloud, mode string) (*coloring, error) {
	attr := func(name string) (*core.Attribute, error) {
		a := c.Attr(name)
		if a == nil {
			return nil, fmt.Errorf("%w: --color %s needs the attribute %s, which the cloud does not have", ErrOptions, mode, name)
		}
		return a, nil
	}
	attr3 := func(names ...string) (as [3]*core.Attribute, err error) {
		for k, name := range names {
			if as[k], err = attr(name); err != nil {
				return as, err
			}
		}
		return as, nil
	}
	switch mode {
	case "z":
		return ramp("Z", c.Z), nil
	case "classification":
		a, err := attr(core.DimClassification)
		if err != nil {
			return nil, err
		}
		return classColoring(a), nil
	case "cluster":
		// DBSCAN with several min_pts values writes ClusterID_5, ...:
		// the first of them stands in for a missing ClusterID.
		name := core.DimClusterID
		for _, a := range c.Attrs {
			if c.Attr(name) == nil && strings.HasPrefix(a.Name, core.DimClusterID+"_") {
				name = a.Name
			}
		}
		a, err := attr(name)
		if err != nil {
			return nil, err
		}
		return clusterColoring(a), nil
	case "normal":
		xyz, err := attr3(core.DimNormalX, core.DimNormalY, core.DimNormalZ)
		if err != nil {
			return nil, err
		}
		return &coloring{of: func(i int) color.RGBA {
			return color.RGBA{unit8((xyz[0].Float64(i) + 1) / 2), unit8((xyz[1].Float64(i) + 1) / 2), unit8((xyz[2].Float64(i) + 1) / 2), 255}
		}}, nil
	case "rgb":
		rgb, err := attr3(core.DimRed, core.DimGreen, core.DimBlue)
		if err != nil {
			return nil, err
		}
		// LAS stores 16-bit colour; files with 8-bit values in it are common.
		full := 255.0
		if maxOf(rgb) > 255 {
			full = 65535
		}
		return &coloring{of: func(i int) color.RGBA {
			return color.RGBA{unit8(rgb[0].Float64(i) / full), unit8(rgb[1].Float64(i) / full), unit8(rgb[2].Float64(i) / full), 255}
		}}, nil
	}
	if mode == "intensity" {
		mode = core.DimIntensity
	}
	a := c.Attr(mode)
	if a == nil {
		names := []string{"z", "intensity", "classification", "cluster", "normal", "rgb"}
		for _, a := range c.Attrs {
			names = append(names, a.Name)
		}
		return nil, fmt.Errorf("%w: --color %s: not a colouring nor an attribute of the cloud (one of %s)", ErrOptions, mode, strings.Join(names, ", "))
	}
	values := make([]float64, a.Len())
	for i := range values {
		values[i] = a.Float64(i)
	}
	return ramp(a.Name, values), nil
}

func maxOf(as [3]*core.Attribute) float64 {
	m := 0.0
	for _, a := range as {
		for i := range a.Len() {
			m = max(m, a.Float64(i))
		}
	}
	return m
}

func unit8(v float64) uint8 {
	if !(v > 0) {
		return 0
	}
	return uint8(math.Round(255 * min(v, 1)))
}

// viridis is matplotlib's viridis colour map at nine evenly spaced stops.
var viridis = []color.RGBA{
	{68, 1, 84, 255}, {71, 44, 122, 255}, {59, 81, 139, 255}, {44, 113, 142, 255}, {33, 144, 141, 255},
	{39, 173, 129, 255}, {92, 200, 99, 255}, {170, 220, 50, 255}, {253, 231, 37, 255},
}

// rampColor returns viridis at t in [0, 1].
func rampColor(t float64) color.RGBA {
	t = min(max(t, 0), 1) * float64(len(viridis)-1)
	i := min(int(t), len(viridis)-2)
	f := t - float64(i)
	a, b := viridis[i], viridis[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + f*(float64(y)-float64(x)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// ramp colours a continuous value with viridis between its 1st and 99th
// percentiles, so that a few outliers do not flatten the picture; values
// beyond take the ends' colours. NaN is grey.
func ramp(name string, values []float64) *coloring {
	lo, hi := percentiles(values)
	return &coloring{
		of: func(i int) color.RGBA {
			v := values[i]
			if math.IsNaN(v) {
				return color.RGBA{128, 128, 128, 255}
			}
			if hi <= lo {
				return rampColor(0.5)
			}
			return rampColor((v - lo) / (hi - lo))
		},
		legend: func(img *image.RGBA, r image.Rectangle) { colorBar(img, r, name, lo, hi) },
	}
}

// percentiles returns the 1st and 99th percentiles of the finite values,
// from a sample of at most 1<<20 of them.
func percentiles(values []float64) (lo, hi float64) {
	step := max(1, len(values)>>20)
	var s []float64
	for i := 0; i < len(values); i += step {
		if v := values[i]; !math.IsNaN(v) && !math.IsInf(v, 0) {
			s = append(s, v)
		}
	}
	if len(s) == 0 {
		return 0, 0
	}
	slices.Sort(s)
	return s[len(s)/100], s[len(s)-1-len(s)/100]
}

// asprs are the colours of the ASPRS classification codes (core.ClassName
// names them) in the common conventions of LiDAR viewers.
var asprs = map[int]color.RGBA{
	0:  {170, 170, 170, 255},
	1:  {200, 200, 200, 255},
	2:  {166, 118, 60, 255},
	3:  {180, 230, 120, 255},
	4:  {90, 190, 70, 255},
	5:  {20, 120, 40, 255},
	6:  {220, 60, 50, 255},
	7:  {255, 0, 255, 255},
	9:  {40, 110, 230, 255},
	10: {120, 80, 160, 255},
	11: {110, 110, 110, 255},
	13: {255, 200, 0, 255},
	14: {255, 235, 0, 255},
	15: {255, 140, 0, 255},
	16: {230, 180, 0, 255},
	17: {150, 150, 210, 255},
	18: {255, 0, 170, 255},
}

// categorical is a palette of 12 colours far apart (Tableau's 10 and two
// more), for clusters and for classes without a conventional colour.
var categorical = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {188, 189, 34, 255},
	{23, 190, 207, 255}, {174, 199, 232, 255}, {255, 187, 120, 255}, {152, 223, 138, 255},
}

// noiseColor is the colour of DBSCAN's noise (ClusterID −1).
var noiseColor = color.RGBA{110, 110, 110, 255}

func classColoring(a *core.Attribute) *coloring {
	colorOf := func(k int) color.RGBA {
		if c, ok := asprs[k]; ok {
			return c
		}
		return categorical[k%len(categorical)]
	}
	present := map[int]bool{}
	for i := range a.Len() {
		present[int(a.Float64(i))] = true
	}
	var entries []legendEntry
	for k := range 256 {
		if present[k] {
			name := fmt.Sprintf("%d", k)
			if _, ok := asprs[k]; ok {
				name += " " + core.ClassName(k)
			}
			entries = append(entries, legendEntry{colorOf(k), name})
		}
	}
	return &coloring{
		of:     func(i int) color.RGBA { return colorOf(int(a.Float64(i))) },
		legend: func(img *image.RGBA, r image.Rectangle) { legendBox(img, r, "Classification", entries) },
	}
}

// clusterColoring colours ClusterID. Each cluster's colour is its id modulo
// the palette's size unless a neighbour already has it: once the z-buffer is
// full, clusters seen in the same or neighbouring cells of a coarse grid
// over the picture (cells of 1/64 of its width, at least 8 pixels) are
// linked, and each cluster in order of id takes, from its own colour on
// round the palette, the first colour none of its already coloured
// neighbours has (or the one fewest of them have).
func clusterColoring(a *core.Attribute) *coloring {
	assigned := map[int64]int{}
	var ids []int64 // the clusters seen, in order
	cc := &coloring{}
	id := func(i int) int64 { return int64(a.Float64(i)) }
	cc.of = func(i int) color.RGBA {
		k := id(i)
		if k < 0 {
			return noiseColor
		}
		return categorical[assigned[k]]
	}
	cc.prepare = func(p *plot) {
		// The clusters seen in each cell of a coarse grid over the plot.
		g := max(8, p.w/64)
		cw, ch := (p.w+g-1)/g, (p.h+g-1)/g
		cells := make([][]int64, cw*ch)
		for y := range p.h {
			for x := range p.w {
				k := p.keys[y*p.w+x]
				if k == empty {
					continue
				}
				if id := id(int(uint32(k))); id >= 0 {
					cell := &cells[y/g*cw+x/g]
					if !slices.Contains(*cell, id) {
						*cell = append(*cell, id)
					}
				}
			}
		}
		adj := map[int64]map[int64]bool{}
		for _, cell := range cells {
			for _, k := range cell {
				if adj[k] == nil {
					adj[k] = map[int64]bool{}
				}
			}
		}
		for cy := range ch {
			for cx := range cw {
				for _, d := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {-1, 1}} {
					x, y := cx+d[0], cy+d[1]
					if x < 0 || x >= cw || y >= ch {
						continue
					}
					for _, k := range cells[cy*cw+cx] {
						for _, o := range cells[y*cw+x] {
							if o != k {
								adj[k][o], adj[o][k] = true, true
							}
						}
					}
				}
			}
		}
		for k := range adj {
			ids = append(ids, k)
		}
		slices.Sort(ids)
		for _, k := range ids {
			var used [12]int
			for o := range adj[k] {
				if c, ok := assigned[o]; ok {
					used[c]++
				}
			}
			best := int(k % int64(len(categorical)))
			for c := range used {
				if used[best] == 0 {
					break
				}
				if c2 := (int(k) + c) % len(categorical); used[c2] < used[best] {
					best = c2
				}
			}
			assigned[k] = best
		}
	}
	cc.legend = func(img *image.RGBA, r image.Rectangle) {
		entries := []legendEntry{{noiseColor, "noise (-1)"}}
		for _, k := range ids[:min(len(ids), 8)] {
			entries = append(entries, legendEntry{categorical[assigned[k]], fmt.Sprintf("cluster %d", k)})
		}
		entries = append(entries, legendEntry{color.RGBA{}, fmt.Sprintf("%d clusters shown", len(ids))})
		legendBox(img, r, "ClusterID", entries)
	}
	return cc
}
