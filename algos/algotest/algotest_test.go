package algotest

import (
	"math"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestCheckCatches runs Check on a neighbour count that is right, wrong on
// every backend, and wrong only off the cpu backend (brute here), and
// requires it to pass the first and catch the others.
func TestCheckCatches(t *testing.T) {
	xyz := []float32{0, 0, 0, 1, 0, 0, 2, 0, 0, 10, 0, 0}
	want := Counts(xyz, 1.5)
	for _, tc := range []struct {
		name   string
		defect func(b findneighbor.Backend, c []uint32)
		caught bool
	}{
		{"right", func(findneighbor.Backend, []uint32) {}, false},
		{"wrong everywhere", func(_ findneighbor.Backend, c []uint32) { c[3]++ }, true},
		{"wrong off cpu", func(b findneighbor.Backend, c []uint32) {
			if b.Name() != "cpu" {
				c[0]++
			}
		}, true},
	} {
		r := &fntest.Recorder{TB: t}
		Check(r, tc.name, func(b findneighbor.Backend) ([]uint32, error) {
			c, err := findneighbor.Counts(b, xyz, 1.5, findneighbor.BuildOptions{})
			if err == nil {
				tc.defect(b, c)
			}
			return c, err
		}, want, Exact[uint32])
		if caught := len(r.Errs) > 0; caught != tc.caught {
			t.Errorf("%s: caught %v (%q), want %v", tc.name, caught, r.Errs, tc.caught)
		}
	}
	if want[0] != 1 || want[1] != 2 || want[2] != 1 || want[3] != 0 {
		t.Errorf("Counts = %v, want [1 2 1 0]", want)
	}
}

func TestNear(t *testing.T) {
	near := Near[float64](1e-6)
	for _, tc := range []struct {
		a, b float64
		want bool
	}{{1, 1 + 1e-7, true}, {1, 1.01, false}, {0, 1e-7, true}, {math.NaN(), math.NaN(), true}, {math.NaN(), 1, false}} {
		if got := near(tc.a, tc.b); got != tc.want {
			t.Errorf("Near(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
