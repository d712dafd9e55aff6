package neighborclassifier

import (
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// BenchmarkClassify times Classify (cpu, float64 distances) on
// sample_c.las (14,408 points), every point voting with k 8, and reports,
// as pdal-ms, the wall time of PDAL 2.9.2 running the same
// filters.neighborclassifier (reading and writing included).
//
//	go test -run XXX -bench Classify -benchtime 5x ./algos/neighborclassifier
func BenchmarkClassify(b *testing.B) {
	c := read(b, "pdal/las/sample_c.las")
	_, ptook := algotest.PDALFilter(b, algotest.SharedFile(b, "pdal/las/sample_c.las"), map[string]any{"type": "filters.neighborclassifier", "k": 8})
	for b.Loop() {
		if _, err := Classify(c.xyz, c.class, findneighbor.CPU(), Options{K: 8, Pos: c.pos}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ptook.Milliseconds()), "pdal-ms")
}
