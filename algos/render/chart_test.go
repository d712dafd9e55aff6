package render

import (
	"errors"
	"image/color"
	"math"
	"testing"
)

// TestChart draws a bar above the reference (10x), one below (0.1x) and one
// at it, and checks where each bar's colour lies: right of the reference
// line for 10x, left of it for 0.1x, over one decade each.
func TestChart(t *testing.T) {
	red, green, blue := color.RGBA{200, 0, 0, 255}, color.RGBA{0, 200, 0, 255}, color.RGBA{0, 0, 200, 255}
	bars := []Bar{{"slow", 10, red}, {"fast", 0.1, green}, {"same", 1, blue}}
	img, err := Chart("ratios", bars, 1)
	if err != nil {
		t.Fatal(err)
	}
	left := chartMargin + len("slow")*glyphWidth + 8
	if w, h := img.Rect.Dx(), img.Rect.Dy(); w != left+chartPlot+7*glyphWidth+chartMargin || h != chartMargin+2*lineHeight+3*(chartBar+chartGap)+2*lineHeight+chartMargin {
		t.Fatalf("chart is %dx%d", w, h)
	}
	// Two decades (0.1 to 10): the reference line at the middle.
	ref := left + chartPlot/2
	decade := chartPlot / 2
	row := func(i int) int { return chartMargin + 2*lineHeight + i*(chartBar+chartGap) + chartBar/2 }
	for _, c := range []struct {
		what string
		x, y int
		want color.RGBA
	}{
		{"10x bar just right of the line", ref + 5, row(0), red},
		{"10x bar near its end", ref + decade - 2, row(0), red},
		{"just past the 10x bar, before its label", ref + decade + 2, row(0), Background},
		{"0.1x bar just left of the line", ref - 5, row(1), green},
		{"0.1x bar near its end", ref - decade + 2, row(1), green},
		{"right of the line on the 0.1x row", ref + 20, row(1), Background},
		{"1x row left of the line", ref - 20, row(2), Background},
	} {
		if got := at(img, c.x, c.y); got != c.want {
			t.Errorf("%s (%d, %d): got %v, want %v", c.what, c.x, c.y, got, c.want)
		}
	}
	for _, bad := range [][]Bar{nil, {{"zero", 0, red}}, {{"nan", math.NaN(), red}}, {{"inf", math.Inf(1), red}}} {
		if _, err := Chart("t", bad, 1); !errors.Is(err, ErrOptions) {
			t.Errorf("bars %v: err %v, want ErrOptions", bad, err)
		}
	}
	if _, err := Chart("t", bars, 0); !errors.Is(err, ErrOptions) {
		t.Errorf("reference 0: err %v, want ErrOptions", err)
	}
}

func TestRatioText(t *testing.T) {
	for v, want := range map[float64]string{1: "1.00x", 12.345: "12.3x", 150: "150x", 0.05: "0.0500x", 2.5: "2.50x"} {
		if got := ratioText(v); got != want {
			t.Errorf("ratioText(%g) = %q, want %q", v, got, want)
		}
	}
}
