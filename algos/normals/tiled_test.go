package normals

import (
	"errors"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTiledEqualsInMemory runs Estimate on tiles, at several tile sizes
// down to 2R, in kNN, radius and hybrid modes, and holds it to the
// in-memory run bit for bit on the brute and cpu backends
// (algotest.CheckTiled).
func TestTiledEqualsInMemory(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(r float64) Options
	}{
		{"knn", func(float64) Options { return Options{K: 8, Orient: OrientUp} }},
		{"radius", func(r float64) Options { return Options{Radius: r, Eigenvalues: true} }},
		{"hybrid", func(r float64) Options {
			return Options{Radius: r, K: 6, Orient: OrientViewpoint, Viewpoint: [3]float64{1, 2, 300}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			algotest.CheckTiled(t, "../..", func(c algotest.TileCloud, b findneighbor.Backend, size float64) (*Result, error) {
				o := tc.opts(c.R)
				o.TileSize = size
				return Estimate(c.XYZ, b, o)
			}, func(t *testing.T, got, want *Result) {
				if got.Undefined != want.Undefined {
					t.Errorf("%d undefined normals, in memory %d", got.Undefined, want.Undefined)
				}
				cols := [][2][]float32{{got.NormalX, want.NormalX}, {got.NormalY, want.NormalY}, {got.NormalZ, want.NormalZ},
					{got.Curvature, want.Curvature}, {got.Eigenvalues[0], want.Eigenvalues[0]}, {got.Eigenvalues[2], want.Eigenvalues[2]}}
				for ci, col := range cols {
					if n, d := algotest.Differ(col[0], col[1]); n > 0 {
						t.Errorf("column %d: %d values differ from the in-memory run's (largest by %g)", ci, n, d)
					}
				}
			})
		})
	}
}

func TestTiledRefusesConsistent(t *testing.T) {
	o := Options{K: 8, Orient: OrientConsistent, TileSize: 10}
	if err := o.Validate(); !errors.Is(err, ErrTiledConsistent) {
		t.Fatalf("Validate = %v, want ErrTiledConsistent", err)
	}
}
