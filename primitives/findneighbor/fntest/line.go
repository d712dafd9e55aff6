package fntest

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// line is five points on the x axis, 0, 1, 2, 4, 4 (the last two are
// copies), with ε = 1.5: small enough to work out every answer by hand.
var line = []float32{0, 0, 0, 1, 0, 0, 2, 0, 0, 4, 0, 0, 4, 0, 0}

// CheckLine runs hand-worked cases on backend b: five points on a line.
func CheckLine(t *testing.T, b findneighbor.Backend) {
	t.Helper()
	ix, err := b.Build(line, 1.5, findneighbor.BuildOptions{})
	if err != nil {
		t.Fatalf("%s: Build: %v", b.Name(), err)
	}
	defer ix.Close()
	counts := make([]uint32, 5)
	if err := ix.Counts(nil, counts); err != nil {
		t.Fatal(err)
	}
	if want := []uint32{1, 2, 1, 1, 1}; !slices.Equal(counts, want) {
		t.Errorf("%s: Counts = %v, want %v", b.Name(), counts, want)
	}
	idx, dist := make([]int32, 10), make([]float32, 10)
	if err := ix.KNearest(nil, 2, idx, dist); err != nil {
		t.Fatal(err)
	}
	if want := []int32{1, -1, 0, 2, 1, -1, 4, -1, 3, -1}; !slices.Equal(idx, want) {
		t.Errorf("%s: KNearest idx = %v, want %v", b.Name(), idx, want)
	}
	if want := []float32{1, inf, 1, 1, 1, inf, 0, inf, 0, inf}; !slices.Equal(dist, want) {
		t.Errorf("%s: KNearest dist = %v, want %v", b.Name(), dist, want)
	}
	mom := make([]findneighbor.Moment, 5)
	if err := findneighbor.Moments(ix, line, nil, 0, mom); err != nil {
		t.Fatal(err)
	}
	if m, want := mom[1], (findneighbor.Moment{N: 2, Outer: [6]float64{2}}); m != want {
		t.Errorf("%s: Moments[1] = %+v, want %+v", b.Name(), m, want)
	}
	if m, want := mom[2], (findneighbor.Moment{N: 1, Sum: [3]float64{-1}, Outer: [6]float64{1}}); m != want {
		t.Errorf("%s: Moments[2] = %+v, want %+v", b.Name(), m, want)
	}
	if err := findneighbor.Moments(ix, line, nil, 1, mom); err != nil {
		t.Fatal(err)
	}
	if m, want := mom[1], (findneighbor.Moment{N: 1, Sum: [3]float64{-1}, Outer: [6]float64{1}, Dist: 1}); m != want {
		t.Errorf("%s: Moments(k=1)[1] = %+v, want %+v (the nearer tie is point 0)", b.Name(), m, want)
	}
	csr, err := ix.Neighbors(nil, findneighbor.NeighborOptions{Cap: 1, Sorted: true, WithDist: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := (findneighbor.CSR{Offsets: []int64{0, 1, 2, 3, 4, 5}, Indices: []int32{1, 0, 1, 4, 3}, Dist: []float32{1, 1, 1, 0, 0},
		Capped: []bool{false, true, false, false, false}}); !csrEqual(csr, &want) {
		t.Errorf("%s: Neighbors{Cap 1} = %+v, want %+v", b.Name(), *csr, want)
	}
	csr, err = ix.Neighbors(nil, findneighbor.NeighborOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (findneighbor.CSR{Offsets: []int64{0, 1, 3, 4, 5, 6}, Indices: []int32{1, 0, 2, 1, 4, 3}}); !csrEqual(csr, &want) {
		t.Errorf("%s: Neighbors = %+v, want %+v", b.Name(), *csr, want)
	}
	if _, err := ix.Neighbors(nil, findneighbor.NeighborOptions{MaxEntries: 5}); !errors.Is(err, findneighbor.ErrTooLarge) {
		t.Errorf("%s: Neighbors{MaxEntries 5} of 6 entries: err = %v, want ErrTooLarge", b.Name(), err)
	}
	for _, c := range []struct {
		core []bool
		want []int32
	}{
		{[]bool{false, true, false, true, true}, []int32{1, 1, 1, 3, 3}},
		// 0 and 2 are 2 apart: two clusters; 1 is as near to both and
		// joins the smaller index; 3 and 4 are noise.
		{[]bool{true, false, true, false, false}, []int32{0, 0, 2, -1, -1}},
		{[]bool{false, false, false, false, false}, []int32{-1, -1, -1, -1, -1}},
	} {
		label := make([]int32, 5)
		if err := findneighbor.ClusterCores(ix, line, c.core, label); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(label, c.want) {
			t.Errorf("%s: ClusterCores(%v) = %v, want %v", b.Name(), c.core, label, c.want)
		}
	}
	// A separate query set has no self filter: (4,0,0) finds both copies.
	qc := make([]uint32, 2)
	if err := ix.Counts([]float32{4, 0, 0, 10, 0, 0}, qc); err != nil {
		t.Fatal(err)
	}
	if want := []uint32{2, 0}; !slices.Equal(qc, want) {
		t.Errorf("%s: Counts of queries = %v, want %v", b.Name(), qc, want)
	}
}

func csrEqual(a, b *findneighbor.CSR) bool {
	return slices.Equal(a.Offsets, b.Offsets) && slices.Equal(a.Indices, b.Indices) &&
		slices.Equal(a.Dist, b.Dist) && slices.Equal(a.Capped, b.Capped)
}

// CheckErrors runs the argument checks every CPU backend shares on b.
func CheckErrors(t *testing.T, b findneighbor.Backend) {
	t.Helper()
	nan := float32(math.NaN())
	for _, c := range []struct {
		name string
		xyz  []float32
		eps  float32
	}{
		{"NaN coordinate", []float32{0, 0, 0, 1, nan, 0}, 1},
		{"Inf coordinate", []float32{0, 0, inf}, 1},
		{"partial triple", []float32{0, 0, 0, 1}, 1},
		{"negative ε", []float32{0, 0, 0}, -1},
		{"NaN ε", []float32{0, 0, 0}, nan},
	} {
		if _, err := b.Build(c.xyz, c.eps, findneighbor.BuildOptions{}); err == nil {
			t.Errorf("%s: Build with %s: no error", b.Name(), c.name)
		}
	}
	ix, err := b.Build(line, inf, findneighbor.BuildOptions{})
	if err != nil {
		t.Fatalf("%s: Build with ε = +Inf: %v", b.Name(), err)
	}
	if err := ix.Counts(nil, make([]uint32, 5)); err == nil {
		t.Errorf("%s: Counts with ε = +Inf: no error", b.Name())
	}
	idx := make([]int32, 5)
	if err := ix.KNearest(nil, 1, idx, nil); err != nil {
		t.Errorf("%s: KNearest with ε = +Inf: %v", b.Name(), err)
	} else if want := []int32{1, 0, 1, 4, 3}; !slices.Equal(idx, want) {
		t.Errorf("%s: 1-NN with ε = +Inf = %v, want %v", b.Name(), idx, want)
	}
	if err := ix.KNearest(nil, 2, idx, nil); err == nil {
		t.Errorf("%s: KNearest with a short idx: no error", b.Name())
	}
	if err := ix.KNearest([]float32{0, nan, 0}, 1, idx[:1], nil); err == nil {
		t.Errorf("%s: KNearest with a NaN query: no error", b.Name())
	}
}

// inf is +Inf as a float32.
var inf = float32(math.Inf(1))
