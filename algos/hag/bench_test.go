package hag

import (
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// BenchmarkPDAL times Compute (cpu backend) on autzen_trim.las (110,000
// points) for hag_nn (count 6) and hag_delaunay (count 10), and logs the
// whole PDAL process running the same stage between readers.las and
// writers.null (reading included: PDAL times no stage alone).
//
//	go test -run XXX -bench PDAL -benchtime 3x -v ./algos/hag
func BenchmarkPDAL(b *testing.B) {
	autzen, err := peers.SharedData("pdal/las/autzen_trim.las")
	if err != nil {
		b.Skip(err)
	}
	c, _, err := pcio.ReadFile(autzen)
	if err != nil {
		b.Fatal(err)
	}
	loc := c.Local(false)
	cls := c.Attr(core.DimClassification)
	class := make([]uint8, c.Len())
	for i := range class {
		class[i] = uint8(cls.Uint64(i))
	}
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
