package features

import (
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTiledEqualsInMemory runs Compute on tiles, at several tile sizes
// down to 2R, with a radius and with k, on random clouds, a lattice and
// real scans, and holds it to the in-memory run bit for bit on the brute
// and cpu backends (algotest.CheckTiled).
func TestTiledEqualsInMemory(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(r float64) Options
	}{
		{"radius", func(r float64) Options { return Options{Radius: r, Features: All(), Mode: Normalized} }},
		{"radius-sqrt-mink", func(r float64) Options { return Options{Radius: 1.5 * r, Features: All(), MinK: 5} }},
		{"knn", func(float64) Options { return Options{K: 8, Features: All()} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			algotest.CheckTiled(t, "../..", func(c algotest.TileCloud, b findneighbor.Backend, size float64) (*Result, error) {
				o := tc.opts(c.R)
				o.TileSize = size
				return Compute(c.XYZ, b, o)
			}, func(t *testing.T, got, want *Result) {
				if got.Skipped != want.Skipped {
					t.Errorf("%d points skipped, in memory %d", got.Skipped, want.Skipped)
				}
				for j, f := range got.Features {
					if n, d := algotest.Differ(got.Values[j], want.Values[j]); n > 0 {
						t.Errorf("%v: %d values differ from the in-memory run's (largest by %g)", f, n, d)
					}
				}
			})
		})
	}
}
