package normals

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/algos/internal/eigen"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestEstimateSameWithoutAVX512 checks that the 8-lane solver changes no
// bit of Estimate's result: KNN, radius and hybrid neighbourhoods, with
// eigenvalues, on a noisy sphere (every orientation of surface) and on
// lines and coincident points, solved with and without eigen.Smallest8.
func TestEstimateSameWithoutAVX512(t *testing.T) {
	if !eigen.AVX512 {
		t.Skip("no AVX-512 here: normals are solved one at a time anyway")
	}
	rng := rand.New(rand.NewPCG(21, 1))
	xyz := sphere(rng, [3]float64{3, -2, 1}, 2, 4000, 0.01).xyz
	for i := range 300 { // a line and a clump of coincident points
		xyz = append(xyz, 10+float32(i)*0.01, 0, 0, -10, -10, -10)
	}
	cpu, err := findneighbor.Get("cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{K: 12}, {Radius: 0.3}, {K: 20, Radius: 0.25}} {
		o.Eigenvalues = true
		with, err := Estimate(xyz, cpu, o)
		if err != nil {
			t.Fatal(err)
		}
		eigen.AVX512 = false
		without, err := Estimate(xyz, cpu, o)
		eigen.AVX512 = true
		if err != nil {
			t.Fatal(err)
		}
		cols := [][2][]float32{{with.NormalX, without.NormalX}, {with.NormalY, without.NormalY}, {with.NormalZ, without.NormalZ}, {with.Curvature, without.Curvature}}
		for j := range 3 {
			cols = append(cols, [2][]float32{with.Eigenvalues[j], without.Eigenvalues[j]})
		}
		for c, col := range cols {
			for i := range col[0] {
				if math.Float32bits(col[0][i]) != math.Float32bits(col[1][i]) {
					t.Fatalf("%+v: column %d, point %d: %g with AVX-512, %g without", o, c, i, col[0][i], col[1][i])
				}
			}
		}
	}
}
