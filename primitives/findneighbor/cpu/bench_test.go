package cpu_test

import (
	"fmt"
	"math"
	"sync"
	"syscall"
	"testing"
	"time"

	fn "github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// Benchmarks of the cpu backend on uniform clouds in the unit cube with
// about 30 and about 250 neighbours per point. Run, on an idle machine:
//
//	go test -run '^$' -bench 'CPU/N=1M' -benchtime 3x ./primitives/findneighbor/cpu/
//
// N=10M needs about 1 GiB; docs/findneighbor.md records the results and
// BenchmarkVsCKDTree the side-by-side comparison with scipy.

// Results are kept in package variables so the work is not optimised away.
var (
	sinkIndex   fn.Index
	sinkCounts  []uint32
	sinkIdx     []int32
	sinkDist    []float32
	sinkMoments []fn.Moment
)

// benchCloud caches the generated clouds: 10M points take a while.
var benchCloud = struct {
	sync.Mutex
	m map[int][]float32
}{m: map[int][]float32{}}

// uniformCloud returns n points uniform in the unit cube (seed 1).
func uniformCloud(n int) []float32 {
	benchCloud.Lock()
	defer benchCloud.Unlock()
	if c, ok := benchCloud.m[n]; ok {
		return c
	}
	c := fntest.Uniform(fntest.Rand(1), n, 1)
	benchCloud.m[n] = c
	return c
}

// epsFor returns the radius that gives about k neighbours per point to n
// points uniform in the unit cube: n·(4/3)πε³ = k.
func epsFor(n, k int) float32 {
	return float32(math.Cbrt(3 * float64(k) / (4 * math.Pi * float64(n))))
}

// touch writes every page of the output slices, so that first-touch page
// faults (the kernel's work, not the search's) stay out of the timing.
func touch[T any](idx []int32, out []T) {
	var zero T
	for i := range idx {
		idx[i] = -1
	}
	for i := range out {
		out[i] = zero
	}
}

// cpuTime returns the user plus system time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var benchSizes = []struct {
	name string
	n    int
}{{"1M", 1_000_000}, {"10M", 10_000_000}}

func BenchmarkCPU(b *testing.B) {
	be := cpu.Backend()
	for _, sz := range benchSizes {
		for _, k := range []int{30, 250} {
			b.Run(fmt.Sprintf("N=%s/k=%d", sz.name, k), func(b *testing.B) {
				benchOps(b, be, uniformCloud(sz.n), epsFor(sz.n, k))
			})
		}
		b.Run(fmt.Sprintf("N=%s/eps=Inf", sz.name), func(b *testing.B) {
			benchKNN(b, be, uniformCloud(sz.n))
		})
	}
}

// benchKNN times plain kNN (ε = +Inf, the kd-tree): Build and KNearest(16).
func benchKNN(b *testing.B, be fn.Backend, xyz []float32) {
	n := len(xyz) / 3
	inf := float32(math.Inf(1))
	var ix fn.Index
	b.Run("Build", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			var err error
			if ix, err = be.Build(xyz, inf, fn.BuildOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/point")
	})
	if ix == nil { // Build filtered out by -bench
		var err error
		if ix, err = be.Build(xyz, inf, fn.BuildOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("KNearest16", func(b *testing.B) {
		sinkIdx, sinkDist = make([]int32, 16*n), make([]float32, 16*n)
		touch(sinkIdx, sinkDist)
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			if err := ix.KNearest(nil, 16, sinkIdx, sinkDist); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/point")
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/point")
		sinkIdx, sinkDist = nil, nil
	})
}

// benchOps runs Build, Counts, KNearest(16) and Moments as sub-benchmarks,
// reporting nanoseconds per point, wall and CPU (user+system time of all
// threads: on a machine shared with other jobs the wall time varies with
// their load, the CPU time much less).
func benchOps(b *testing.B, be fn.Backend, xyz []float32, eps float32) {
	n := len(xyz) / 3
	var cpu0 time.Duration
	perPoint := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/point")
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/point")
	}
	b.Run("Build", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 = cpuTime()
		for b.Loop() {
			ix, err := be.Build(xyz, eps, fn.BuildOptions{})
			if err != nil {
				b.Fatal(err)
			}
			sinkIndex = ix
		}
		perPoint(b)
	})
	ix, err := be.Build(xyz, eps, fn.BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	sinkCounts = make([]uint32, n)
	touch(nil, sinkCounts)
	b.Run("Counts", func(b *testing.B) {
		b.ReportAllocs()
		cpu0 = cpuTime()
		for b.Loop() {
			if err := ix.Counts(nil, sinkCounts); err != nil {
				b.Fatal(err)
			}
		}
		perPoint(b)
		var sum uint64
		for _, c := range sinkCounts {
			sum += uint64(c)
		}
		b.ReportMetric(float64(sum)/float64(n), "neighbours")
	})
	sinkCounts = nil
	b.Run("KNearest16", func(b *testing.B) {
		sinkIdx, sinkDist = make([]int32, 16*n), make([]float32, 16*n)
		touch(sinkIdx, sinkDist)
		b.ReportAllocs()
		cpu0 = cpuTime()
		for b.Loop() {
			if err := ix.KNearest(nil, 16, sinkIdx, sinkDist); err != nil {
				b.Fatal(err)
			}
		}
		perPoint(b)
		sinkIdx, sinkDist = nil, nil
	})
	b.Run("Moments", func(b *testing.B) {
		sinkMoments = make([]fn.Moment, n)
		for i := range sinkMoments {
			sinkMoments[i].N = 1 // fault the pages in before timing
		}
		b.ReportAllocs()
		cpu0 = cpuTime()
		for b.Loop() {
			if err := fn.Moments(ix, xyz, nil, 0, sinkMoments); err != nil {
				b.Fatal(err)
			}
		}
		perPoint(b)
		sinkMoments = nil
	})
}
