package cuda

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// benchCloud returns n uniform points in a cube and the ε that gives each
// about nb neighbours (4/3 π ε³ ρ = nb; fewer at the faces).
func benchCloud(n, nb int) ([]float32, float32) {
	const side = 1000
	xyz := fntest.Uniform(fntest.Rand(uint64(n)), n, side)
	return xyz, side * float32(math.Cbrt(float64(nb)/(4.0/3*math.Pi*float64(n))))
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// BenchmarkCUDAvsCPU times DBSCAN's steps on uniform clouds of 1M, 8M and
// 16M points with ~30 and ~250 neighbours, cpu backend against cuda
// backend, in one run: Build, Counts (stage 1) and ClusterCores (stage 2,
// min_pts nb/3), each timed on its own. Each sub-benchmark repeats the
// steps (cuda 5 times, cpu 3 times at 1M, once above, to keep the run
// short) and reports medians: for cuda the device times of upload, build,
// counts and cluster (CUDA events, each including its copies to and from
// the host) and, for the whole of algos/dbscan's Cluster (upload, core
// flags and relabelling on the host included), the wall time; for cpu the
// wall times. Run it with -benchtime=1x (docs/benchmarks.md has the
// command).
func BenchmarkCUDAvsCPU(b *testing.B) {
	for _, n := range []int{1 << 20, 8 << 20, 16 << 20} {
		for _, nb := range []int{30, 250} {
			var xyz []float32
			var eps float32
			for _, name := range []string{"cpu", Name} {
				b.Run(fmt.Sprintf("n=%dM/nb=%d/%s", n>>20, nb, name), func(b *testing.B) {
					be, err := findneighbor.Get(name)
					if err != nil {
						b.Skipf("%s backend unavailable: %v", name, err)
					}
					if xyz == nil {
						xyz, eps = benchCloud(n, nb)
					}
					reps := 5
					if name != Name {
						reps = 1
						if n <= 1<<20 {
							reps = 3
						}
					}
					for b.Loop() {
						benchSteps(b, be, xyz, eps, nb/3, reps)
					}
				})
			}
		}
	}
}

func benchSteps(b *testing.B, be findneighbor.Backend, xyz []float32, eps float32, minPts, reps int) {
	n := len(xyz) / 3
	counts := make([]uint32, n)
	isCore := make([]bool, n)
	labels := make([]int32, n)
	var upload, build, query, cluster, dbWall []float64
	for range reps {
		t0 := time.Now()
		ix, err := be.Build(xyz, eps, findneighbor.BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := ix.Counts(nil, counts); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		gi, onGPU := ix.(*index)
		if onGPU {
			tm := gi.Timings()
			upload, build, query = append(upload, float64(tm.Upload)), append(build, float64(tm.Build)), append(query, float64(tm.Query))
		} else {
			build, query = append(build, ms(t1.Sub(t0))), append(query, ms(t2.Sub(t1)))
		}
		for i, c := range counts {
			isCore[i] = int(c)+1 >= minPts
		}
		t3 := time.Now()
		if err := findneighbor.ClusterCores(ix, xyz, isCore, labels); err != nil {
			b.Fatal(err)
		}
		if onGPU {
			cluster = append(cluster, float64(gi.Timings().Query))
		} else {
			cluster = append(cluster, ms(time.Since(t3)))
		}
		ix.Close()
		if onGPU {
			t4 := time.Now()
			if _, err := dbscan.Cluster(xyz, be, dbscan.Options{Eps: float64(eps), MinPts: []int{minPts}}); err != nil {
				b.Fatal(err)
			}
			dbWall = append(dbWall, ms(time.Since(t4)))
		}
	}
	var sum float64
	for _, c := range counts {
		sum += float64(c)
	}
	b.ReportMetric(sum/float64(n), "neighbours")
	if upload != nil {
		b.ReportMetric(median(upload), "upload-ms")
		b.ReportMetric(median(dbWall), "dbscan-wall-ms")
	}
	b.ReportMetric(median(build), "build-ms")
	b.ReportMetric(median(query), "counts-ms")
	b.ReportMetric(median(cluster), "cluster-ms")
}

// BenchmarkQueryOps splits the query operations pctk bench times (counts,
// k nearest with k = 4 and 16, radius moments, moments of the 16 nearest)
// on 1M uniform points with ~30 neighbours into the index's own timings:
// the wall time of the call, the device time (CUDA events, its copies back
// included) and the wall time of those copies. Medians of 5.
func BenchmarkQueryOps(b *testing.B) {
	be, err := findneighbor.Get(Name)
	if err != nil {
		b.Skipf("%s backend unavailable: %v", Name, err)
	}
	n := 1 << 20
	xyz, eps := benchCloud(n, 30)
	ix, err := be.Build(xyz, eps, findneighbor.BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	gi := ix.(*index)
	counts := make([]uint32, n)
	idx, dist := make([]int32, 16*n), make([]float32, 16*n)
	moments := make([]findneighbor.Moment, n)
	for _, op := range []struct {
		name string
		run  func() error
	}{
		{"counts", func() error { return ix.Counts(nil, counts) }},
		{"knn4", func() error { return ix.KNearest(nil, 4, idx[:4*n], dist[:4*n]) }},
		{"knn16", func() error { return ix.KNearest(nil, 16, idx, dist) }},
		{"knn16-noDist", func() error { return ix.KNearest(nil, 16, idx, nil) }},
		{"moments", func() error { return gi.Moments(nil, 0, moments) }},
		{"kmoments16", func() error { return gi.Moments(nil, 16, moments) }},
	} {
		b.Run(op.name, func(b *testing.B) {
			var wall, dev, down []float64
			for b.Loop() {
				for range 5 {
					t0 := time.Now()
					if err := op.run(); err != nil {
						b.Fatal(err)
					}
					wall = append(wall, ms(time.Since(t0)))
					tm := gi.Timings()
					dev, down = append(dev, float64(tm.Query)), append(down, float64(tm.Download))
				}
			}
			b.ReportMetric(median(wall), "wall-ms")
			b.ReportMetric(median(dev), "device-ms")
			b.ReportMetric(median(down), "download-ms")
		})
	}
}
