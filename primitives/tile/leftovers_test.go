package tile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestLeftovers holds the k-nearest moments of Leftovers, its queries
// offered every tile of a cloud once (in key order and reversed), to brute
// force's (findneighbor.KNearestMoments on Brute), bit for bit, and their
// neighbour counts to Brute's KNearest: on a lattice, where most distances
// tie (broken by index), with stacks of coincident points, points high
// above it and a cloud of fewer than k+1 points; queries told their reach
// (the k-th nearest among some points) or not (+Inf).
func TestLeftovers(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 2))
	var xyz []float32
	for i := range 30 { // a lattice: ties everywhere
		for j := range 30 {
			xyz = append(xyz, float32(i), float32(j), float32((i+j)%3))
		}
	}
	for range 4 { // stacks of 15 coincident points
		x, y := float32(r.IntN(30)), float32(r.IntN(30))
		for range 15 {
			xyz = append(xyz, x, y, 0)
		}
	}
	for range 10 { // high above
		xyz = append(xyz, 30*r.Float32(), 30*r.Float32(), 40+10*r.Float32())
	}
	n := len(xyz) / 3
	var queries []int
	for i := range n {
		if i%17 == 0 || i >= n-70 {
			queries = append(queries, i)
		}
	}
	for _, tc := range []struct {
		name string
		xyz  []float32
		q    []int
	}{
		{"cloud", xyz, queries},
		{"three points", xyz[:9], []int{0, 2}},
	} {
		n := len(tc.xyz) / 3
		for _, k := range []int{1, 6, 20} {
			want := make([]findneighbor.Moment, n)
			if err := findneighbor.KNearestMoments(findneighbor.Brute(), tc.xyz, k, findneighbor.BuildOptions{}, want); err != nil {
				t.Fatal(err)
			}
			ix, err := findneighbor.Brute().Build(tc.xyz, float32(math.Inf(1)), findneighbor.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			kdist := make([]float32, n*k)
			if err := ix.KNearest(nil, k, make([]int32, n*k), kdist); err != nil {
				t.Fatal(err)
			}
			for _, size := range []float64{2.5, 7, 100} {
				for _, reach := range []bool{false, true} {
					g, err := NewGrid(size, 0)
					if err != nil {
						t.Fatal(err)
					}
					tiles := Bin(tc.xyz, g)
					var id []int64
					var q, far []float32
					for _, i := range tc.q {
						f := float32(math.Inf(1))
						if reach {
							// The k-th nearest overall: the tightest
							// reach a caller may give.
							f = kdist[i*k+k-1]
						}
						id, q, far = append(id, int64(i)), append(q, tc.xyz[3*i:3*i+3]...), append(far, f)
					}
					l := NewLeftovers(k, id, q, far)
					for m := range tiles {
						if reach {
							m = len(tiles) - 1 - m
						}
						if err := l.Offer(tiles[m], findneighbor.CPU(), findneighbor.BuildOptions{Workers: 2}); err != nil {
							t.Fatal(err)
						}
					}
					got := l.Moments()
					if len(got) != len(tc.q) {
						t.Fatalf("%d moments back, %d queries", len(got), len(tc.q))
					}
					for j, i := range tc.q {
						if got[j] != want[i] {
							t.Fatalf("%s k %d tile %g reach %v: point %d (%v) has %+v, brute %+v", tc.name, k, size, reach, i, tc.xyz[3*i:3*i+3], got[j], want[i])
						}
						if wn := min(k, n-1); int(got[j].N) != wn {
							t.Fatalf("%s k %d: point %d has %d nearest, want %d", tc.name, k, i, got[j].N, wn)
						}
					}
				}
			}
		}
	}
}
