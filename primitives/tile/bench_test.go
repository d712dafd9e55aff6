package tile_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/synth"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// BenchmarkMomentsTiled times the k-nearest moments of a synthetic street
// scene (synth.Street, 1M points, in metres) tiled (MomentsTiled) and in
// memory (findneighbor.KNearestMomentsFunc) on the cpu backend, one after
// the other in every iteration, and reports the ratio of their times
// (tiled/in-memory), which issue #21 wants under 1.3: a ratio from one run
// holds up on a shared machine where times alone do not.
//
//	go test ./primitives/tile -run - -bench MomentsTiled -benchtime 5x
func BenchmarkMomentsTiled(b *testing.B) {
	c, err := synth.Street(synth.Options{Points: 1 << 20, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	xyz := c.Local(false).XYZ
	cpu := findneighbor.CPU()
	sink := func([]int32, []findneighbor.Moment) {}
	for _, k := range []int{10, 30} {
		for _, size := range []float64{10, 25} {
			b.Run(fmt.Sprintf("k%d/tile%g", k, size), func(b *testing.B) {
				var mem, tiled time.Duration
				for b.Loop() {
					t0 := time.Now()
					if err := findneighbor.KNearestMomentsFunc(cpu, xyz, k, findneighbor.BuildOptions{}, sink); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					if err := tile.MomentsTiled(xyz, cpu, 0, k, size, findneighbor.BuildOptions{}, sink); err != nil {
						b.Fatal(err)
					}
					mem, tiled = mem+t1.Sub(t0), tiled+time.Since(t1)
				}
				b.ReportMetric(tiled.Seconds()/mem.Seconds(), "tiled/in-memory")
				b.ReportMetric(mem.Seconds()/float64(b.N), "s-in-memory/op")
			})
		}
	}
}
