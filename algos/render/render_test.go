package render

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"runtime"
	"testing"

	"github.com/pctk/pctk/core"
)

// twoClusters is a cloud of two 10×10 squares of points 5 units apart in
// X, ClusterID 0 and 1, with a third point above the first square's corner.
func twoClusters() *core.Cloud {
	c := core.New(0)
	var ids []int64
	for k := range 2 {
		for i := range 10 {
			for j := range 10 {
				c.X = append(c.X, float64(15*k+i))
				c.Y = append(c.Y, float64(j))
				c.Z = append(c.Z, 0)
				ids = append(ids, int64(k))
			}
		}
	}
	c.X, c.Y, c.Z = append(c.X, 0), append(c.Y, 0), append(c.Z, 5)
	ids = append(ids, -1)
	c.Attrs = append(c.Attrs, &core.Attribute{Name: core.DimClusterID, Type: core.Int64, Data: ids})
	return c
}

func at(img image.Image, x, y int) color.RGBA {
	return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
}

// TestRenderPNG draws two clusters from the top, writes and decodes the
// PNG, and checks its size, the background between the clusters, two
// different cluster colours, the noise point drawn over the cluster below
// it, and a legend.
func TestRenderPNG(t *testing.T) {
	img, err := Render(twoClusters(), Options{Width: 264, Splat: 1, Color: "cluster"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// Plot 240 px wide for 24 units: 10 px per unit, 9 units high.
	const plotH = 91
	if w, h := got.Bounds().Dx(), got.Bounds().Dy(); w != 264+legendWidth || h != plotH+2*margin+scaleBarHeight {
		t.Fatalf("size %dx%d, want %dx%d", w, h, 264+legendWidth, plotH+2*margin+scaleBarHeight)
	}
	px := func(x, y float64) color.RGBA { // a cloud coordinate's pixel
		return at(got, margin+int(x*239/24+0.5), margin+plotH-1-int(y*239/24+0.5))
	}
	a, b, gap, noise := px(5, 5), px(20, 5), px(12, 5), px(0, 0)
	if a == Background || b == Background {
		t.Fatalf("cluster pixels are background: %v %v", a, b)
	}
	if a == b {
		t.Errorf("both clusters drawn in %v", a)
	}
	if gap != Background {
		t.Errorf("pixel between the clusters is %v, want the background", gap)
	}
	if noise != noiseColor {
		t.Errorf("the point on top is %v, want the noise colour %v", noise, noiseColor)
	}
	legend := 0
	for y := range got.Bounds().Dy() {
		for x := 264; x < got.Bounds().Dx(); x++ {
			if at(got, x, y) != Background {
				legend++
			}
		}
	}
	if legend < 200 {
		t.Errorf("legend panel has %d drawn pixels, want a legend", legend)
	}
}

// TestRenderDeterministic checks that the z-buffer's result does not depend
// on the number of goroutines, with points at equal depth fighting for the
// same pixels.
func TestRenderDeterministic(t *testing.T) {
	c := core.New(50000)
	for i := range c.X {
		c.X[i], c.Y[i], c.Z[i] = float64(i%97), float64(i%89), float64(i%3)
	}
	one := func(procs int) []byte {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		img, err := Render(c, Options{View: Front, Splat: 3, Width: 300})
		if err != nil {
			t.Fatal(err)
		}
		return img.Pix
	}
	if !bytes.Equal(one(1), one(8)) {
		t.Error("1 and 8 goroutines drew different pictures")
	}
}

func TestRenderErrors(t *testing.T) {
	c := twoClusters()
	for _, o := range []Options{{Width: 3}, {Splat: 100}, {Splat: -1}, {Color: "classification"}, {Color: "nosuch"}, {View: 7}} {
		if _, err := Render(c, o); err == nil {
			t.Errorf("Render(%+v): no error", o)
		}
	}
	if _, err := ParseView("bottom"); err == nil {
		t.Error("ParseView(bottom): no error")
	}
}

func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{0, "0"}, {123.456, "123.5"}, {2230738.84, "2230739"}, {-0.5, "-0.5000"}, {1e12, "1e+12"}} {
		if got := number(tc.v); got != tc.want {
			t.Errorf("number(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestClusterColorsOfNeighbours checks that touching clusters whose ids
// pick the same palette colour are drawn in different colours.
func TestClusterColorsOfNeighbours(t *testing.T) {
	c := twoClusters()
	ids := c.Attr(core.DimClusterID).Data.([]int64)
	for i := range ids[:200] {
		c.X[i] = float64(i / 10) // two squares side by side, 1 unit apart
		ids[i] = int64(len(categorical) * (i / 100))
	}
	img, err := Render(c, Options{Width: 264, Splat: 1, Color: "cluster"})
	if err != nil {
		t.Fatal(err)
	}
	scale := 239.0 / 19
	plotH := int(math.Ceil(9*scale)) + 1
	p := func(x float64) color.RGBA { return at(img, margin+int(x*scale+0.5), margin+plotH-1-int(5*scale+0.5)) }
	if a, b := p(3), p(15); a == b || a == Background || b == Background {
		t.Errorf("touching clusters 0 and %d drawn in %v and %v", len(categorical), a, b)
	}
}
