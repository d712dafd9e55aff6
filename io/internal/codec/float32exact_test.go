package codec

import (
	"math"
	"testing"

	"github.com/pctk/pctk/internal/par"
)

// TestFloat32Exact checks short columns value by value and long ones, which
// are checked in ranges on several goroutines, with the one inexact value
// in the first, a middle or the last range.
func TestFloat32Exact(t *testing.T) {
	long := func(bad int) []float64 {
		c := make([]float64, 5*par.Grain+3)
		for i := range c {
			c[i] = float64(float32(i) * 0.25)
		}
		if bad >= 0 {
			c[bad] = 0.1 // not a float32 value
		}
		return c
	}
	for _, tc := range []struct {
		name string
		cols [][]float64
		want bool
	}{
		{"empty", nil, true},
		{"float32 values", [][]float64{{1.5, -2, float64(float32(0.1))}}, true},
		{"NaN and infinities", [][]float64{{math.NaN(), math.Inf(1), math.Inf(-1)}}, true},
		{"a double", [][]float64{{1}, {0.1}}, false},
		{"long, exact", [][]float64{long(-1), long(-1)}, true},
		{"long, first range", [][]float64{long(-1), long(0)}, false},
		{"long, middle", [][]float64{long(3*par.Grain + 17)}, false},
		{"long, last value", [][]float64{long(5*par.Grain + 2)}, false},
	} {
		if got := Float32Exact(tc.cols...); got != tc.want {
			t.Errorf("%s: Float32Exact = %v, want %v", tc.name, got, tc.want)
		}
	}
}
