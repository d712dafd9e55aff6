package cluster

import (
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// BenchmarkCluster times Cluster (cpu backend, float64 distances from
// Pos) on autzen_trim.las (110,000 points) at tolerance 2 and reports, as
// pdal-ms, the wall time of PDAL 2.9.2 running the same filters.cluster
// (reading and writing the LAS included).
//
//	go test -run XXX -bench Cluster -benchtime 3x ./algos/cluster
func BenchmarkCluster(b *testing.B) {
	file := algotest.SharedFile(b, "pdal/las/autzen_trim.las")
	l := algotest.ReadLocal(b, file)
	xyz, pos := l.XYZ, l.Pos
	_, ptook := algotest.PDALFilter(b, file, map[string]any{"type": "filters.cluster", "tolerance": 2})
	o := Options{Tolerance: 2, Pos: pos}
	for b.Loop() {
		if _, err := Cluster(xyz, findneighbor.CPU(), o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ptook.Milliseconds()), "pdal-ms")
}
