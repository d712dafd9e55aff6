package denoise

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTiledEqualsInMemory holds the radius and statistical filters on
// tiles, at several tile sizes down to 2R, to the in-memory results: the
// same flags, counts, mean distances and statistics, bit for bit.
func TestTiledEqualsInMemory(t *testing.T) {
	b := findneighbor.CPU()
	for _, c := range algotest.TileClouds(t, "../..") {
		ro := RadiusOptions{Radius: c.R, MinNeighbors: 4}
		want, err := Radius(c.XYZ, b, ro)
		if err != nil {
			t.Fatal(err)
		}
		var wantS []*StatisticalResult
		sopts := []StatisticalOptions{{K: 8}, {K: 5, Convention: Open3D, StdRatio: 0.5}}
		for _, so := range sopts {
			w, err := Statistical(c.XYZ, b, so)
			if err != nil {
				t.Fatal(err)
			}
			wantS = append(wantS, w)
		}
		for _, s := range algotest.TileSizes(c.R) {
			t.Run(fmt.Sprintf("%s/tile%g", c.Name, s), func(t *testing.T) {
				ro := ro
				ro.TileSize = s
				got, err := Radius(c.XYZ, b, ro)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("radius: %d outliers, in memory %d", got.Outliers, want.Outliers)
				}
				for i, so := range sopts {
					so.TileSize = s
					got, err := Statistical(c.XYZ, b, so)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, wantS[i]) {
						t.Errorf("statistical %+v: %d outliers, threshold %v; in memory %d, %v", so, got.Outliers, got.Threshold, wantS[i].Outliers, wantS[i].Threshold)
					}
				}
			})
		}
	}
}
