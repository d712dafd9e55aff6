package denoise

import (
	"reflect"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTiledEqualsInMemory holds the radius and statistical filters on
// tiles, at several tile sizes down to 2R, to the in-memory results: the
// same flags, counts, mean distances and statistics, bit for bit.
func TestTiledEqualsInMemory(t *testing.T) {
	sopts := []StatisticalOptions{{K: 8}, {K: 5, Convention: Open3D, StdRatio: 0.5}}
	// results are one run of each filter at one tile size.
	type results struct {
		radius      *RadiusResult
		statistical []*StatisticalResult
	}
	algotest.CheckTiled(t, "../..", func(c algotest.TileCloud, b findneighbor.Backend, size float64) (res results, err error) {
		if res.radius, err = Radius(c.XYZ, b, RadiusOptions{Radius: c.R, MinNeighbors: 4, TileSize: size}); err != nil {
			return res, err
		}
		for _, so := range sopts {
			so.TileSize = size
			s, err := Statistical(c.XYZ, b, so)
			if err != nil {
				return res, err
			}
			res.statistical = append(res.statistical, s)
		}
		return res, nil
	}, func(t *testing.T, got, want results) {
		if !reflect.DeepEqual(got.radius, want.radius) {
			t.Errorf("radius: %d outliers, in memory %d", got.radius.Outliers, want.radius.Outliers)
		}
		for i, g := range got.statistical {
			w := want.statistical[i]
			if !reflect.DeepEqual(g, w) {
				t.Errorf("statistical %+v: %d outliers, threshold %v; in memory %d, %v", sopts[i], g.Outliers, g.Threshold, w.Outliers, w.Threshold)
			}
		}
	})
}
