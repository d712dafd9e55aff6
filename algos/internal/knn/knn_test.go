package knn

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTable checks Find, Kth and Hop on four points of a line, k 1 and 2.
func TestTable(t *testing.T) {
	xyz := []float32{0, 0, 0, 1, 0, 0, 3, 0, 0, 7, 0, 0}
	inf := math.Inf(1)
	cases := []struct {
		k        int
		idx      []int32
		kth, hop []float64
	}{
		// k 1: nearest 1, 0, 1, 2; Hop: max(r[p], d + r[o]).
		{1, []int32{1, 0, 1, 2}, []float64{1, 1, 2, 4}, []float64{2, 2, 3, 6}},
		// k 2: {1, 2}, {0, 2}, {1, 0}, {2, 1}.
		{2, []int32{1, 2, 0, 2, 1, 0, 2, 1}, []float64{3, 2, 3, 6}, []float64{6, 5, 6, 8}},
		// k beyond the cloud: all three others, whose number depends on
		// points however far (Short).
		{9, []int32{1, 2, 3, 0, 2, 3, 1, 0, 3, 2, 1, 0}, []float64{inf, inf, inf, inf}, []float64{inf, inf, inf, inf}},
	}
	for _, c := range cases {
		tab, err := Find("test", xyz, findneighbor.Brute(), c.k, findneighbor.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		kth := tab.Kth(4)
		if !slices.Equal(tab.Idx, c.idx) || !slices.Equal(kth, c.kth) || !slices.Equal(tab.Hop(kth), c.hop) {
			t.Errorf("k %d: neighbours %v, kth %v, hop %v; want %v, %v, %v", c.k, tab.Idx, kth, tab.Hop(kth), c.idx, c.kth, c.hop)
		}
	}
}

// TestDist checks PDAL's evaluation order: d0² + d1², then + d2², each
// product rounded.
func TestDist(t *testing.T) {
	pos := []float64{0.1, 0.2, 0.3, 1e8 + 0.5, -0.7, 1.1}
	d0, d1, d2 := 0.1-(1e8+0.5), 0.2-(-0.7), 0.3-1.1
	want := math.Sqrt(float64(d0*d0) + float64(d1*d1) + float64(d2*d2))
	if got := Dist(pos, 0, 1); got != want || Dist(pos, 1, 0) != want {
		t.Errorf("Dist %v, want %v", got, want)
	}
}

// TestPositions checks that Positions adds the origin to Pos or to xyz,
// and refuses a Pos of another length.
func TestPositions(t *testing.T) {
	xyz := []float32{1, 2, 3}
	o := [3]float64{600000, 5e6, 100}
	got, err := Positions("test", xyz, nil, o)
	if err != nil || !slices.Equal(got, []float64{600001, 5000002, 103}) {
		t.Errorf("from xyz: %v, %v", got, err)
	}
	got, err = Positions("test", xyz, []float64{0.25, 0.5, 0.75}, o)
	if err != nil || !slices.Equal(got, []float64{600000.25, 5000000.5, 100.75}) {
		t.Errorf("from pos: %v, %v", got, err)
	}
	var pe *findneighbor.ParamError
	if _, err := Positions("test", xyz, []float64{1}, o); !errors.As(err, &pe) || pe.Param != "pos" {
		t.Errorf("short pos: %v, want a ParamError naming pos", err)
	}
}
