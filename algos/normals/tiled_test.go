package normals

import (
	"errors"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTiledEqualsInMemory runs Estimate on tiles, at several tile sizes
// down to 2R, in kNN, radius and hybrid modes, and holds it to the
// in-memory run (algotest.CheckTiled): bit for bit on the brute backend,
// and on the cpu backend with a radius (alone or with k); within a few
// float32 roundings on the cpu backend with k nearest alone, whose
// in-memory sums follow the whole cloud's kd-tree (docs/scale.md; the
// curvature of a point of the collinear cloud differs in its last bit).
func TestTiledEqualsInMemory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    func(r float64) Options
		cpuUlps float64
	}{
		{"knn", func(float64) Options { return Options{K: 8, Orient: OrientUp} }, 4},
		{"radius", func(r float64) Options { return Options{Radius: r, Eigenvalues: true} }, 0},
		{"hybrid", func(r float64) Options {
			return Options{Radius: r, K: 6, Orient: OrientViewpoint, Viewpoint: [3]float64{1, 2, 300}}
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			algotest.CheckTiled(t, "../..", tc.cpuUlps, nil, func(c algotest.TileCloud, b findneighbor.Backend, size float64) (*Result, error) {
				o := tc.opts(c.R)
				o.TileSize = size
				return Estimate(c.XYZ, b, o)
			}, func(t *testing.T, got, want *Result, ulps float64) {
				if got.Undefined != want.Undefined {
					t.Errorf("%d undefined normals, in memory %d", got.Undefined, want.Undefined)
				}
				cols := [][2][]float32{{got.NormalX, want.NormalX}, {got.NormalY, want.NormalY}, {got.NormalZ, want.NormalZ},
					{got.Curvature, want.Curvature}, {got.Eigenvalues[0], want.Eigenvalues[0]}, {got.Eigenvalues[2], want.Eigenvalues[2]}}
				for ci, col := range cols {
					if n, d := algotest.Differ(col[0], col[1], ulps); n > 0 {
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
