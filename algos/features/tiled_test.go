package features

import (
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTiledEqualsInMemory runs Compute on tiles, at several tile sizes
// down to 2R, with a radius and with k, on random clouds, a lattice and
// real scans, and holds it to the in-memory run (algotest.CheckTiled):
// every feature bit for bit on the brute backend, and on the cpu backend
// with a radius; within a few float32 roundings on the cpu backend with k
// nearest alone, whose in-memory sums follow the whole cloud's kd-tree
// (docs/scale.md).
func TestTiledEqualsInMemory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    func(r float64) Options
		cpuUlps float64
	}{
		{"radius", func(r float64) Options { return Options{Radius: r, Features: All(), Mode: Normalized} }, 0},
		{"radius-sqrt-mink", func(r float64) Options { return Options{Radius: 1.5 * r, Features: All(), MinK: 5} }, 0},
		{"knn", func(float64) Options { return Options{K: 8, Features: All()} }, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Covariances of rank 1: a rounding of the sums moves the
			// eigenvalues near 0, and features made of them, far in
			// relative terms; where the sums are not the in-memory ones
			// to the bit, the brute run holds the neighbourhoods.
			skip := func(c algotest.TileCloud, b findneighbor.Backend) bool {
				return tc.cpuUlps > 0 && b.Name() != "brute" && c.Name == "random/collinear"
			}
			algotest.CheckTiled(t, "../..", tc.cpuUlps, skip, func(c algotest.TileCloud, b findneighbor.Backend, size float64) (*Result, error) {
				o := tc.opts(c.R)
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
