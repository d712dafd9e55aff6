package cpu_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	fn "github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
)

// TestKNearestTiesOnALattice checks the k nearest on points of an integer
// lattice, where many candidates lie at exactly the k-th distance (LAS
// coordinates are integers times a scale, so real data has such ties):
// the cpu backend's grid (finite ε) and kd-tree (ε = +Inf, leaf batches)
// must keep the smaller indices among them, as brute force does, in
// KNearest and in Moments (the same sums to the bit).
func TestKNearestTiesOnALattice(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 11))
		n := 3000
		xyz := make([]float32, 3*n)
		for i := range xyz {
			xyz[i] = float32(r.IntN(12)) // about 1.7 points per lattice site
		}
		for _, eps := range []float32{float32(math.Inf(1)), 3} {
			got, err := cpu.Backend().Build(xyz, eps, fn.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want, err := fn.Brute().Build(xyz, eps, fn.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []int{1, 6, 19, 50} {
				gi, wi := make([]int32, n*k), make([]int32, n*k)
				gd, wd := make([]float32, n*k), make([]float32, n*k)
				gm, wm := make([]fn.Moment, n), make([]fn.Moment, n)
				for _, x := range []struct {
					ix fn.Index
					i  []int32
					d  []float32
					m  []fn.Moment
				}{{got, gi, gd, gm}, {want, wi, wd, wm}} {
					if err := x.ix.KNearest(nil, k, x.i, x.d); err != nil {
						t.Fatal(err)
					}
					if err := fn.Moments(x.ix, xyz, nil, k, x.m); err != nil {
						t.Fatal(err)
					}
				}
				for i := range n {
					s := i * k
					if !slices.Equal(gi[s:s+k], wi[s:s+k]) || !slices.Equal(gd[s:s+k], wd[s:s+k]) {
						t.Fatalf("seed %d, ε %g, k %d: point %d: got %v at %v, want %v at %v", seed, eps, k, i, gi[s:s+k], gd[s:s+k], wi[s:s+k], wd[s:s+k])
					}
					if gm[i] != wm[i] {
						t.Fatalf("seed %d, ε %g, k %d: point %d: moments %+v, want %+v", seed, eps, k, i, gm[i], wm[i])
					}
				}
			}
			got.Close()
			want.Close()
		}
	}
}
