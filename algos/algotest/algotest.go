// Package algotest holds an algorithm to the same answers on every
// findneighbor backend, as fntest does for the backends themselves: a test
// gives a function that runs the algorithm with a backend, and a reference
// computed by brute force; Check runs it on every backend usable here
// (brute and cpu, and the GPU ones on a GPU machine) and compares each
// output with the reference and with the cpu backend's.
package algotest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// Check runs algo with every usable backend and fails t where an output
// differs from want (the brute-force reference; nil to skip) or from the
// cpu backend's output, value by value under eq (Exact or Near). name says
// which case failed. It reports at most a few differing values per
// backend.
func Check[T any](t testing.TB, name string, algo func(b findneighbor.Backend) ([]T, error), want []T, eq func(got, want T) bool) {
	t.Helper()
	cpu, err := algo(findneighbor.CPU())
	if err != nil {
		t.Fatalf("%s: cpu: %v", name, err)
	}
	if want != nil {
		compare(t, name+": cpu against brute force", cpu, want, eq)
	}
	for _, b := range fntest.Usable(t) {
		if b.Name() == "cpu" {
			continue
		}
		got, err := algo(b)
		if err != nil {
			t.Errorf("%s: %s: %v", name, b.Name(), err)
			continue
		}
		if want != nil {
			compare(t, fmt.Sprintf("%s: %s against brute force", name, b.Name()), got, want, eq)
		}
		compare(t, fmt.Sprintf("%s: %s against cpu", name, b.Name()), got, cpu, eq)
	}
}

func compare[T any](t testing.TB, what string, got, want []T, eq func(got, want T) bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
	bad := 0
	for i := range got {
		if eq(got[i], want[i]) {
			continue
		}
		if bad++; bad <= 3 {
			t.Errorf("%s: value %d is %v, want %v", what, i, got[i], want[i])
		}
	}
	if bad > 3 {
		t.Errorf("%s: %d values differ in all", what, bad)
	}
}

// Exact compares values with ==, NaN equal to NaN.
func Exact[T comparable](got, want T) bool {
	return got == want || got != got && want != want
}

// Near returns a comparison of floats within a relative tolerance tol (and
// tol absolute near 0), NaN equal to NaN.
func Near[T float32 | float64](tol float64) func(got, want T) bool {
	return func(got, want T) bool {
		g, w := float64(got), float64(want)
		if math.IsNaN(g) || math.IsNaN(w) {
			return math.IsNaN(g) && math.IsNaN(w)
		}
		return math.Abs(g-w) <= tol*max(1, math.Abs(w))
	}
}

// Within reports whether points i and j of xyz are within r by the rule
// every backend follows: dx²+dy²+dz² ≤ r², computed in float32. It is what
// a brute-force reference counts with.
func Within(xyz []float32, i, j int, r float32) bool {
	dx := xyz[3*i] - xyz[3*j]
	dy := xyz[3*i+1] - xyz[3*j+1]
	dz := xyz[3*i+2] - xyz[3*j+2]
	return dx*dx+dy*dy+dz*dz <= r*r
}

// Counts returns for every point of xyz the number of other points within
// r (Within), in O(N²): the reference for radius-based algorithms.
func Counts(xyz []float32, r float32) []uint32 {
	n := len(xyz) / 3
	out := make([]uint32, n)
	for i := range n {
		for j := i + 1; j < n; j++ {
			if Within(xyz, i, j, r) {
				out[i]++
				out[j]++
			}
		}
	}
	return out
}

// Rel returns a comparison of floats within a relative tolerance tol,
// with no absolute floor (unlike Near): equal values (infinities
// included) and NaN against NaN pass.
func Rel(tol float64) func(got, want float64) bool {
	return func(got, want float64) bool {
		if got == want || math.IsNaN(got) && math.IsNaN(want) {
			return true
		}
		return math.Abs(got-want) <= tol*math.Abs(want)
	}
}

// BruteKNN returns every point's k nearest other points (k reduced to
// n-1), closest first by the float32 squared distance every backend
// compares (findneighbor.DistSq), ties broken by the smaller index: the
// brute-force reference of the k-nearest stages.
func BruteKNN(xyz []float32, k int) [][]int {
	n := len(xyz) / 3
	k = min(k, n-1)
	out := make([][]int, n)
	for i := range n {
		d2 := make([]float32, n)
		o := make([]int, 0, n-1)
		for j := range n {
			d2[j] = findneighbor.DistSq(xyz[3*i], xyz[3*i+1], xyz[3*i+2], xyz[3*j], xyz[3*j+1], xyz[3*j+2])
			if j != i {
				o = append(o, j)
			}
		}
		slices.SortStableFunc(o, func(a, b int) int { return cmp.Compare(d2[a], d2[b]) })
		out[i] = o[:max(k, 0)]
	}
	return out
}
