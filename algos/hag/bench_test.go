package hag

import (
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// BenchmarkPDAL times Compute (cpu backend) on autzen_trim.las (110,000
// points) for hag_nn (count 6) and hag_delaunay (count 10), and logs the
// whole PDAL process running the same stage between readers.las and
// writers.null (reading included: PDAL times no stage alone).
//
//	go test -run XXX -bench PDAL -benchtime 3x -v ./algos/hag
func BenchmarkPDAL(b *testing.B) {
	c, loc, _ := algotest.SharedCloud(b, autzenLAS)
	autzen, _ := peers.SharedData(autzenLAS)
	class := classes(c)
	for _, s := range []pdalStage{
		{map[string]any{"type": "filters.hag_nn", "count": 6}, Options{Count: 6}},
		{map[string]any{"type": "filters.hag_delaunay"}, Options{Method: Delaunay}},
	} {
		b.Run(s.stage["type"].(string), func(b *testing.B) {
			t := algotest.Timed(b, func() {
				if _, err := Compute(loc.XYZ, class, findneighbor.CPU(), s.opts); err != nil {
					b.Fatal(err)
				}
			})
			run, err := peers.PDALPipeline(b.TempDir(), autzen, s.stage, map[string]any{"type": "writers.null"})
			if err != nil {
				b.Logf("pctk %v (cpu %v); PDAL: %v", t[0], t[1], err)
				return
			}
			b.Logf("%d points: pctk %v wall (%v cpu); PDAL 2.9.2 process %v wall (%v cpu), reading included", c.Len(), t[0], t[1], run.Process, run.CPU)
		})
	}
}
