package cpu_test

import (
	"math"
	"slices"
	"testing"

	fn "github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestPlainKNNExact checks plain kNN (ε = +Inf, the kd-tree) on clouds of
// many leaves (fntest's checks cut +Inf cases to a few hundred points)
// against brute force: the same indices (ties by the smaller index),
// distances and moments (the same sums to the bit: both add the k nearest
// in the order KNearest reports them), for the indexed points and for
// separate queries.
func TestPlainKNNExact(t *testing.T) {
	const n, seed = 8192, 7
	clouds := fntest.Clouds(seed, n)[:6] // those with n points
	ks := []int{1, 16, 100}
	if testing.Short() {
		clouds, ks = clouds[1:3], ks[1:] // clustered, duplicated (ties)
	}
	inf := float32(math.Inf(1))
	for _, c := range clouds {
		got, err := cpu.Backend().Build(c.XYZ, inf, fn.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want, err := fn.Brute().Build(c.XYZ, inf, fn.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Queries: every 5th point, nudged off it.
		var q []float32
		for i := 0; i < len(c.XYZ); i += 15 {
			q = append(q, c.XYZ[i]+0.01, c.XYZ[i+1], c.XYZ[i+2])
		}
		for _, k := range ks {
			for _, qs := range [][]float32{nil, q} {
				nq := n
				if qs != nil {
					nq = len(qs) / 3
				}
				gi, wi := make([]int32, nq*k), make([]int32, nq*k)
				gd, wd := make([]float32, nq*k), make([]float32, nq*k)
				gm, wm := make([]fn.Moment, nq), make([]fn.Moment, nq)
				for _, ix := range []struct {
					x fn.Index
					i []int32
					d []float32
					m []fn.Moment
				}{{got, gi, gd, gm}, {want, wi, wd, wm}} {
					if err := ix.x.KNearest(qs, k, ix.i, ix.d); err != nil {
						t.Fatal(err)
					}
					if err := fn.Moments(ix.x, c.XYZ, qs, k, ix.m); err != nil {
						t.Fatal(err)
					}
				}
				for i := range nq {
					if g, w := gi[i*k:(i+1)*k], wi[i*k:(i+1)*k]; !slices.Equal(g, w) || !slices.Equal(gd[i*k:(i+1)*k], wd[i*k:(i+1)*k]) {
						t.Errorf("cloud %s, k %d, %d queries (nil: self): query %d: got %v at %v, want %v at %v", c.Name, k, len(qs)/3, i, g, gd[i*k:(i+1)*k], w, wd[i*k:(i+1)*k])
						break
					}
					if gm[i] != wm[i] {
						t.Errorf("cloud %s, k %d, %d queries: query %d: Moments %+v, want %+v", c.Name, k, len(qs)/3, i, gm[i], wm[i])
						break
					}
				}
			}
		}
		got.Close()
	}
}
