package denoise

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestKNNDistancesExact checks the finite-radius search against plain kNN
// (ε = +Inf) on brute force: the same distance sums for every point, on
// clouds that force every path (far isolated points that need the radius
// doubled, duplicates, flat and one-dimensional clouds, K beyond n).
func TestKNNDistancesExact(t *testing.T) {
	seed := uint64(7)
	r := rand.New(rand.NewPCG(seed, 3))
	blobs := randomCloud(seed, 3000)
	// Far outliers at growing distances: some need several doublings,
	// the farthest the unbounded search.
	for i := range 12 {
		d := float32(math.Pow(4, float64(i)))
		blobs = append(blobs, d, -d, d/2)
	}
	dups := make([]float32, 0, 3*800)
	for range 800 {
		p := r.IntN(50)
		dups = append(dups, float32(p%7), float32(p/7), 0)
	}
	flat := make([]float32, 3*1000)
	for i := range 1000 {
		flat[3*i], flat[3*i+1] = r.Float32()*100, r.Float32()*3
	}
	clouds := []struct {
		name string
		xyz  []float32
	}{
		{"blobs and far points", blobs}, {"duplicates", dups}, {"flat", flat},
		{"line", line(0, 1, 3, 7, 15, 31, 63)}, {"coincident", line(2, 2, 2, 2)},
	}
	ref := brute(t)
	be := peerBackend(t, false)
	for _, c := range clouds {
		n := len(c.xyz) / 3
		for _, k := range []int{1, 5, 50} {
			k = min(k, n-1)
			want, wantN := make([]float64, n), make([]int, n)
			got, gotN := make([]float64, n), make([]int, n)
			ix, err := ref.Build(c.xyz, float32(math.Inf(1)), findneighbor.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			idx, dist := make([]int32, n*k), make([]float32, n*k)
			if err := ix.KNearest(nil, k, idx, dist); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				for j := i * k; j < (i+1)*k && idx[j] >= 0; j++ {
					want[i] += float64(dist[j])
					wantN[i]++
				}
			}
			if err := knnDistances(c.xyz, be, k, findneighbor.BuildOptions{}, got, gotN); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if got[i] != want[i] || gotN[i] != wantN[i] {
					t.Fatalf("%s, k=%d, %s backend, seed %d: point %d: got sum %g of %d distances, want %g of %d", c.name, k, be.Name(), seed, i, got[i], gotN[i], want[i], wantN[i])
				}
			}
		}
	}
}
