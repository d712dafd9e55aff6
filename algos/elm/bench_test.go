package elm

import (
	"testing"

	"github.com/pctk/pctk/algos/algotest"
)

// BenchmarkELM times ELM (float64 from Pos) on autzen_trim.las (110,000
// points) with PDAL's defaults and reports, as pdal-ms, the wall time
// of PDAL 2.9.2 running the same filters.elm (reading and writing the LAS
// included).
//
//	go test -run XXX -bench ELM -benchtime 5x ./algos/elm
func BenchmarkELM(b *testing.B) {
	file := algotest.SharedFile(b, "pdal/las/autzen_trim.las")
	l := algotest.ReadLocal(b, file)
	xyz, pos := l.XYZ, l.Pos
	_, ptook := algotest.PDALFilter(b, file, map[string]any{"type": "filters.elm"})
	for b.Loop() {
		if _, err := ELM(xyz, nil, Options{Pos: pos}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ptook.Milliseconds()), "pdal-ms")
}
