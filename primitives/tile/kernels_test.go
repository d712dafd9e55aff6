package tile

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestMomentsTiledKNN holds the k-nearest moments of MomentsTiled (r = 0)
// to the whole cloud's (findneighbor.KNearestMoments), bit for bit, on the
// cpu backend (kd-tree tiles, then a last round for the points whose k-th
// nearest lies beyond what their tile holds) and on brute force (rounds
// of doubling halos), over tiles smaller and larger than the halo, on a
// ground with a wall, isolated points high above it (their k nearest far
// off in Z) and stacks of coincident points (ties broken by index).
func TestMomentsTiledKNN(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 1))
	var xyz []float32
	for range 2500 { // ground
		xyz = append(xyz, 20*r.Float32(), 20*r.Float32(), 0.1*r.Float32())
	}
	for range 600 { // a wall along x = 10
		xyz = append(xyz, 10+0.05*r.Float32(), 20*r.Float32(), 5*r.Float32())
	}
	for range 20 { // isolated points high above
		xyz = append(xyz, 20*r.Float32(), 20*r.Float32(), 30+20*r.Float32())
	}
	for range 5 { // stacks of 20 coincident points
		x, y := 20*r.Float32(), 20*r.Float32()
		for range 20 {
			xyz = append(xyz, x, y, 0.05)
		}
	}
	n := len(xyz) / 3
	for _, b := range []findneighbor.Backend{findneighbor.CPU(), findneighbor.Brute()} {
		for _, k := range []int{4, 25} {
			want := make([]findneighbor.Moment, n)
			if err := findneighbor.KNearestMoments(b, xyz, k, findneighbor.BuildOptions{}, want); err != nil {
				t.Fatal(err)
			}
			for _, size := range []float64{0.3, 2.5, 7, 100} {
				got := make([]findneighbor.Moment, n)
				seen := make([]int, n)
				err := MomentsTiled(xyz, b, 0, k, size, findneighbor.BuildOptions{Workers: 2}, func(pts []int32, m []findneighbor.Moment) {
					for j, i := range pts {
						got[i] = m[j]
						seen[i]++ // calls hold points of their own: no race
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				for i := range n {
					if seen[i] != 1 {
						t.Fatalf("%s k %d tile %g: point %d handed over %d times", b.Name(), k, size, i, seen[i])
					}
				}
				if !reflect.DeepEqual(got, want) {
					for i := range n {
						if got[i] != want[i] {
							t.Fatalf("%s k %d tile %g: point %d (%v) has %+v, in memory %+v", b.Name(), k, size, i, xyz[3*i:3*i+3], got[i], want[i])
						}
					}
				}
			}
		}
	}
}
