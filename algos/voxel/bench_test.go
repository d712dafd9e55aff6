package voxel

import (
	"testing"

	"github.com/pctk/pctk/algos/algotest"
)

// BenchmarkCenterNearest times CenterNearest (float64 positions) on
// autzen_trim.las (110,000 points) at cell 10, PDAL's unit-test case, and
// reports, as pdal-ms, the wall time of PDAL 2.9.2 running the same
// filters.voxelcenternearestneighbor (reading and writing included).
//
//	go test -run XXX -bench CenterNearest -benchtime 5x ./algos/voxel
func BenchmarkCenterNearest(b *testing.B) {
	_, xyz, pos, file := autzen(b)
	_, ptook := algotest.PDALFilter(b, file, map[string]any{"type": "filters.voxelcenternearestneighbor", "cell": 10})
	for b.Loop() {
		if _, err := CenterNearest(xyz, Options{Cell: 10, Pos: pos}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ptook.Milliseconds()), "pdal-ms")
}
