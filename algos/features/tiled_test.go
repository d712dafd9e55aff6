package features

import (
	"fmt"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTiledEqualsInMemory runs Compute on tiles, at several tile sizes
// down to 2R, with k and with a radius, and holds it to the in-memory run
// (algotest.CheckTiled): bit for bit on the brute backend, within a few
// float32 roundings on the cpu backend.
func TestTiledEqualsInMemory(t *testing.T) {
	all := []Feature{}
	for f := range Feature(numFeatures) {
		all = append(all, f)
	}
	// Covariances of rank 1: a rounding of the sums moves the eigenvalues
	// near 0, and features made of them, far in relative terms; the brute
	// run holds the neighbourhoods to the bit.
	skip := func(c algotest.TileCloud, b findneighbor.Backend) bool {
		return b.Name() != "brute" && c.Name == "random/collinear"
	}
	for j, opts := range []func(r float64) Options{
		func(float64) Options { return Options{K: 8, Features: all} },
		func(r float64) Options { return Options{Radius: r, Features: all, Mode: Normalized} },
	} {
		t.Run(fmt.Sprint(j), func(t *testing.T) {
			algotest.CheckTiled(t, "../..", skip, func(c algotest.TileCloud, b findneighbor.Backend, size float64) (*Result, error) {
				o := opts(c.R)
				o.TileSize = size
				return Compute(c.XYZ, b, o)
			}, func(t *testing.T, got, want *Result, ulps float64) {
				if got.Skipped != want.Skipped {
					t.Errorf("%d points skipped, in memory %d", got.Skipped, want.Skipped)
				}
				for j, f := range got.Features {
					if n, d := algotest.Differ(got.Values[j], want.Values[j], ulps); n > 0 {
						t.Errorf("%v: %d values differ from the in-memory run's (largest by %g)", f, n, d)
					}
				}
			})
		})
	}
}
