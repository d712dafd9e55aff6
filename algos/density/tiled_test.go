package density

import (
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTiledEqualsInMemory holds Radial and KnnMeanDistance on tiles, at
// several tile sizes down to 2R, to the in-memory results, bit for bit.
func TestTiledEqualsInMemory(t *testing.T) {
	same32 := func(a, b []float32) bool {
		return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
	}
	// results are one run of Radial and of KnnMeanDistance (k 6, and k 6
	// within R) at one tile size.
	type results struct {
		radial    []float64
		knn, knnR []float32
	}
	algotest.CheckTiled(t, "../..", func(c algotest.TileCloud, b findneighbor.Backend, size float64) (res results, err error) {
		if res.radial, err = Radial(c.XYZ, b, RadialOptions{Radius: c.R, TileSize: size}); err != nil {
			return res, err
		}
		if res.knn, err = KnnMeanDistance(c.XYZ, b, 6, 0, size, findneighbor.BuildOptions{}); err != nil {
			return res, err
		}
		res.knnR, err = KnnMeanDistance(c.XYZ, b, 6, c.R, size, findneighbor.BuildOptions{})
		return res, err
	}, func(t *testing.T, got, want results) {
		if !slices.Equal(got.radial, want.radial) {
			t.Error("Radial differs from the in-memory run's")
		}
		if !same32(got.knn, want.knn) {
			t.Error("KnnMeanDistance (k 6) differs from the in-memory run's")
		}
		if !same32(got.knnR, want.knnR) {
			t.Error("KnnMeanDistance (k 6 within R) differs from the in-memory run's")
		}
	})
}
