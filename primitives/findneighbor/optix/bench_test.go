package optix

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// benchSizes returns the cloud sizes of BenchmarkOptiX: $PCTK_BENCH_SIZES
// (comma-separated point counts) or one million.
func benchSizes(b *testing.B) []int {
	s := os.Getenv("PCTK_BENCH_SIZES")
	if s == "" {
		return []int{1_000_000}
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("PCTK_BENCH_SIZES: %q is not a point count", f)
		}
		out = append(out, n)
	}
	return out
}

// benchCloud returns n uniform points in a cube of side 100 and the ε that
// gives each about nb neighbours.
func benchCloud(n, nb int) ([]float32, float32) {
	const side = 100
	rho := float64(n) / (side * side * side)
	eps := math.Cbrt(float64(nb) / (rho * 4 / 3 * math.Pi))
	return fntest.Uniform(fntest.Rand(uint64(n)), n, side), float32(eps)
}

// BenchmarkOptiX times, on the same uniform clouds, the build and a Counts
// query of every point of: both OptiX variants with Morton-sorted and with
// unsorted query order, the cuda grid backend and the cpu backend (where
// registered; cpu only up to 1M points). Metrics: build-ms (wall time of
// Build), for OptiX also order-ms (host Morton sort), gas-ms (AABBs, GAS
// build and compaction), gas-MB and compact-MB; ns/op is one Counts call
// (queries launched, counts copied back).
func BenchmarkOptiX(b *testing.B) {
	gpu(b, Config{})
	for _, n := range benchSizes(b) {
		for _, nb := range []int{30, 250} {
			xyz, eps := benchCloud(n, nb)
			for _, name := range []string{"optix", "optix-sphere", "cuda", "cpu"} {
				if name == "cpu" && n > 1_000_000 {
					continue
				}
				be, err := findneighbor.Get(name)
				if err != nil {
					continue // not registered or not usable here
				}
				b.Run(fmt.Sprintf("n=%d/nb=%d/%s", n, nb, name), func(b *testing.B) {
					benchBackend(b, be, xyz, eps)
				})
			}
		}
	}
}

func benchBackend(b *testing.B, be findneighbor.Backend, xyz []float32, eps float32) {
	t0 := time.Now()
	ix, err := be.Build(xyz, eps, findneighbor.BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	build := time.Since(t0)
	defer ix.Close()
	out := make([]uint32, len(xyz)/3)
	query := func(b *testing.B) {
		if err := ix.Counts(nil, out); err != nil { // warm-up, not timed
			b.Fatal(err)
		}
		for b.Loop() {
			if err := ix.Counts(nil, out); err != nil {
				b.Fatal(err)
			}
		}
		var sum float64
		for _, c := range out {
			sum += float64(c)
		}
		b.ReportMetric(sum/float64(len(out)), "neighbours")
		// after the loop: b.Loop's timer reset drops metrics reported before it
		b.ReportMetric(float64(build.Microseconds())/1000, "build-ms")
		if o, ok := ix.(*Index); ok {
			s := o.Stats()
			b.ReportMetric(float64(s.Order.Microseconds())/1000, "order-ms")
			b.ReportMetric(float64(s.GAS.Microseconds())/1000, "gas-ms")
			b.ReportMetric(float64(s.GASBytes)/(1<<20), "gas-MB")
			b.ReportMetric(float64(s.CompactBytes)/(1<<20), "compact-MB")
		}
	}
	o, ok := ix.(*Index)
	if !ok {
		query(b)
		return
	}
	b.Run("sorted", query)
	o.cfg.Unsorted = true
	b.Run("unsorted", query)
	o.cfg.Unsorted = false
}
