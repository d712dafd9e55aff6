package normals

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTiledEqualsInMemory runs Estimate on tiles, at several tile sizes
// down to 2R, in kNN, radius and hybrid modes, and holds it to the
// in-memory run: bit for bit on the brute backend, whose moment sums follow
// the neighbours' order (distance, then index) in tiles as in the whole
// cloud; on the cpu backend, whose sums follow its index's internal order,
// the same neighbourhoods give normals within a few float32 roundings.
func TestTiledEqualsInMemory(t *testing.T) {
	for _, c := range algotest.TileClouds(t, "../..") {
		for _, o := range []Options{{K: 8, Orient: OrientUp}, {Radius: c.R, Eigenvalues: true}, {Radius: c.R, K: 6, Orient: OrientViewpoint, Viewpoint: [3]float64{1, 2, 300}}} {
			for _, b := range []findneighbor.Backend{findneighbor.Brute(), findneighbor.CPU()} {
				if b.Name() == "brute" && len(c.XYZ) > 3*5000 {
					continue // O(N²)
				}
				want, err := Estimate(c.XYZ, b, o)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range algotest.TileSizes(c.R) {
					t.Run(fmt.Sprintf("%s/%s/k%d_r%g/tile%g", c.Name, b.Name(), o.K, o.Radius, s), func(t *testing.T) {
						o := o
						o.TileSize = s
						got, err := Estimate(c.XYZ, b, o)
						if err != nil {
							t.Fatal(err)
						}
						ulps := 0.0
						if b.Name() != "brute" {
							ulps = 4
						}
						if got.Undefined != want.Undefined {
							t.Errorf("%d undefined normals, in memory %d", got.Undefined, want.Undefined)
						}
						cols := [][2][]float32{{got.NormalX, want.NormalX}, {got.NormalY, want.NormalY}, {got.NormalZ, want.NormalZ}, {got.Curvature, want.Curvature}, {got.Eigenvalues[0], want.Eigenvalues[0]}, {got.Eigenvalues[2], want.Eigenvalues[2]}}
						for ci, col := range cols {
							if n, d := algotest.Differ(col[0], col[1], ulps); n > 0 {
								t.Errorf("column %d: %d values differ from the in-memory run's (largest by %g)", ci, n, d)
							}
						}
					})
				}
			}
		}
	}
}

func TestTiledRefusesConsistent(t *testing.T) {
	o := Options{K: 8, Orient: OrientConsistent, TileSize: 10}
	if err := o.Validate(); !errors.Is(err, ErrTiledConsistent) {
		t.Fatalf("Validate = %v, want ErrTiledConsistent", err)
	}
}
