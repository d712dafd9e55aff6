package core

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/pctk/pctk/internal/par"
)

// TestParallelPassesMatchSequential checks the cloud-wide passes that run
// in ranges on several goroutines (Bounds, Local, Validate) against plain
// loops, on a cloud of many ranges, with GOMAXPROCS 1 and 4.
func TestParallelPassesMatchSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 5*par.Grain + 321
	c := New(n)
	for i := range n {
		c.X[i], c.Y[i], c.Z[i] = 500000+rng.NormFloat64()*100, -4e6+rng.Float64(), rng.NormFloat64()
	}
	c.X[7] = math.Inf(1) // non-finite points are left out of the bounds
	want := Bounds{Min: [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, Max: [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	for i := range n {
		if i == 7 {
			continue
		}
		p := [3]float64{c.X[i], c.Y[i], c.Z[i]}
		for k := range 3 {
			want.Min[k], want.Max[k] = min(want.Min[k], p[k]), max(want.Max[k], p[k])
		}
	}
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		b, ok := c.Bounds()
		if !ok || b != want {
			t.Errorf("GOMAXPROCS %d: Bounds = %v, %v, want %v", procs, b, ok, want)
		}
		l := c.Local(false)
		o := want.Center()
		for _, i := range []int{0, par.Grain - 1, par.Grain, 3*par.Grain + 5, n - 1} {
			if got := l.XYZ[3*i+1]; got != float32(c.Y[i]-o[1]) {
				t.Errorf("GOMAXPROCS %d: Local y of point %d = %g, want %g", procs, i, got, float32(c.Y[i]-o[1]))
			}
		}
		c.Z[4*par.Grain+9] = math.NaN()
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "point 7 ") {
			t.Errorf("GOMAXPROCS %d: Validate = %v, want the first bad point, 7", procs, err)
		}
		c.X[7] = 1
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("point %d ", 4*par.Grain+9)) {
			t.Errorf("GOMAXPROCS %d: Validate = %v, want point %d", procs, err, 4*par.Grain+9)
		}
		c.X[7], c.Z[4*par.Grain+9] = math.Inf(1), 0
		runtime.GOMAXPROCS(old)
	}
}

// TestBoundsSignedZeros checks that Bounds orders -0 below +0 as min and
// max do, whichever comes first (a LAS header stores the bits), and leaves
// NaN and infinite coordinates out.
func TestBoundsSignedZeros(t *testing.T) {
	negz := math.Copysign(0, -1)
	for _, xs := range [][]float64{{0, negz, 0}, {negz, 0, negz}, {0, 0}, {negz, math.NaN(), negz}, {math.Inf(-1), negz, 0}} {
		c := New(len(xs))
		copy(c.X, xs)
		b, ok := c.Bounds()
		var lo, hi float64 = math.Inf(1), math.Inf(-1)
		for _, x := range xs {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
		if !ok || math.Float64bits(b.Min[0]) != math.Float64bits(lo) || math.Float64bits(b.Max[0]) != math.Float64bits(hi) {
			t.Errorf("%v: bounds x %v..%v (signbits %v, %v), want %v..%v (%v, %v)", xs, b.Min[0], b.Max[0], math.Signbit(b.Min[0]), math.Signbit(b.Max[0]), lo, hi, math.Signbit(lo), math.Signbit(hi))
		}
	}
}
