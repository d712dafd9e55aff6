package features

import (
	"fmt"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTiledEqualsInMemory runs Compute on tiles, at several tile sizes
// down to 2R, with k and with a radius, and holds it to the in-memory run:
// bit for bit on the brute backend (moments summed in the neighbours'
// order, distance then index, in tiles as in the whole cloud), within a
// few float32 roundings on the cpu backend (sums in its index's order).
func TestTiledEqualsInMemory(t *testing.T) {
	all := []Feature{}
	for f := range Feature(numFeatures) {
		all = append(all, f)
	}
	for _, c := range algotest.TileClouds(t, "../..") {
		for _, o := range []Options{{K: 8, Features: all}, {Radius: c.R, Features: all, Mode: Normalized}} {
			for _, b := range []findneighbor.Backend{findneighbor.Brute(), findneighbor.CPU()} {
				if b.Name() == "brute" && len(c.XYZ) > 3*5000 {
					continue // O(N²)
				}
				if b.Name() != "brute" && c.Name == "random/collinear" {
					// Covariances of rank 1: a rounding of the sums moves
					// the eigenvalues near 0, and features made of them,
					// far in relative terms; the brute run holds the
					// neighbourhoods to the bit.
					continue
				}
				want, err := Compute(c.XYZ, b, o)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range algotest.TileSizes(c.R) {
					t.Run(fmt.Sprintf("%s/%s/k%d_r%g/tile%g", c.Name, b.Name(), o.K, o.Radius, s), func(t *testing.T) {
						o := o
						o.TileSize = s
						got, err := Compute(c.XYZ, b, o)
						if err != nil {
							t.Fatal(err)
						}
						ulps := 0.0
						if b.Name() != "brute" {
							ulps = 4
						}
						if got.Skipped != want.Skipped {
							t.Errorf("%d points skipped, in memory %d", got.Skipped, want.Skipped)
						}
						for j, f := range got.Features {
							if n, d := algotest.Differ(got.Values[j], want.Values[j], ulps); n > 0 {
								t.Errorf("%v: %d values differ from the in-memory run's (largest by %g)", f, n, d)
							}
						}
					})
				}
			}
		}
	}
}
