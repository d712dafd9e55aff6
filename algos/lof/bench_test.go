package lof

import (
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// BenchmarkCompute runs PDAL's filters.lof (minpts 10) on autzen_trim
// (110,000 points), what TestPDAL times PDAL on.
func BenchmarkCompute(b *testing.B) {
	s := algotest.ReadLocal(b, algotest.SharedFile(b, "pdal/las/autzen_trim.las"))
	for b.Loop() {
		if _, err := Compute(s.XYZ, findneighbor.CPU(), Options{Pos: s.Pos, Origin: s.Origin}); err != nil {
			b.Fatal(err)
		}
	}
}
