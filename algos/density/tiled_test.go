package density

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestTiledEqualsInMemory holds Radial and KnnMeanDistance on tiles, at
// several tile sizes down to 2R, to the in-memory results, bit for bit.
func TestTiledEqualsInMemory(t *testing.T) {
	b := findneighbor.CPU()
	same32 := func(a, b []float32) bool {
		return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
	}
	for _, c := range algotest.TileClouds(t, "../..") {
		want, err := Radial(c.XYZ, b, RadialOptions{Radius: c.R})
		if err != nil {
			t.Fatal(err)
		}
		wantK, err := KnnMeanDistance(c.XYZ, b, 6, 0, 0, findneighbor.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wantKR, err := KnnMeanDistance(c.XYZ, b, 6, c.R, 0, findneighbor.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range algotest.TileSizes(c.R) {
			t.Run(fmt.Sprintf("%s/tile%g", c.Name, s), func(t *testing.T) {
				got, err := Radial(c.XYZ, b, RadialOptions{Radius: c.R, TileSize: s})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Error("Radial differs from the in-memory run's")
				}
				gotK, err := KnnMeanDistance(c.XYZ, b, 6, 0, s, findneighbor.BuildOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if !same32(gotK, wantK) {
					t.Error("KnnMeanDistance (k 6) differs from the in-memory run's")
				}
				gotKR, err := KnnMeanDistance(c.XYZ, b, 6, c.R, s, findneighbor.BuildOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if !same32(gotKR, wantKR) {
					t.Error("KnnMeanDistance (k 6 within R) differs from the in-memory run's")
				}
			})
		}
	}
}
