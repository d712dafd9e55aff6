package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// avx2Case is a kind of cloud for the AVX2 kernels' tests: how to draw a
// coordinate and the squared radii to try.
type avx2Case struct {
	name  string
	coord func(rng *rand.Rand) float32
	e2    []float32
}

// avx2Cases are the clouds the AVX2 kernels must agree with the Go loops
// on: integer lattices whose squared distances tie the integral e2
// exactly (a < for <= shows there), values where IEEE arithmetic is at
// its edges (NaN, ±Inf, -0, squares that overflow to +Inf or underflow to
// 0, subnormals), plain fractions, and radii that take nothing (NaN,
// negative) or everything finite (+Inf).
var avx2Cases = []avx2Case{
	{
		name:  "lattice",
		coord: func(rng *rand.Rand) float32 { return float32(rng.IntN(7) - 3) },
		e2:    []float32{0, 1, 2, 3, 4, 5, 6, 8, 9, 12},
	},
	{
		name: "specials",
		coord: func(rng *rand.Rand) float32 {
			specials := []float32{
				float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
				float32(math.Copysign(0, -1)), 0,
				1e19, -1e19, // squares 1e38: the sum of three still finite
				2e19, -3e30, math.MaxFloat32, // squares beyond MaxFloat32: +Inf
				math.SmallestNonzeroFloat32, 1e-20, // subnormal, squares underflow to 0
			}
			if rng.IntN(2) == 0 {
				return float32(rng.IntN(5) - 2)
			}
			return specials[rng.IntN(len(specials))]
		},
		e2: []float32{0, 1, 2, 4, 1e38, 3e38, math.MaxFloat32, float32(math.Inf(1))},
	},
	{
		name:  "fractions",
		coord: func(rng *rand.Rand) float32 { return rng.Float32()*2 - 1 },
		e2:    []float32{0.01, 0.25, 0.5, 1},
	},
	{
		name:  "nothing or everything",
		coord: func(rng *rand.Rand) float32 { return float32(rng.IntN(5) - 2) },
		e2: []float32{
			float32(math.NaN()), -1, float32(math.Copysign(0, -1)),
			float32(math.Inf(1)), math.MaxFloat32,
		},
	},
}

// avx2Trial is one query of the AVX2 kernels' tests: a span at a random
// offset of a random length up to 70 (every full step and every tail,
// unaligned loads), a query that is one of the points (distance 0, and
// exact ties with its lattice neighbours) or drawn like them, and e2: one
// of the case's, or in a third of the trials the squared distance of one
// of the span's points, as the Go loops compute it.
type avx2Trial struct {
	lo, hi  int32
	x, y, z float32
	e2      float32
}

// avx2Trials draws the trials for case c over n points xs, ys, zs;
// about one in ten has hi < lo or hi = lo.
func avx2Trials(rng *rand.Rand, c avx2Case, xs, ys, zs []float32, count int) []avx2Trial {
	n := len(xs)
	tr := make([]avx2Trial, count)
	for i := range tr {
		lo := rng.IntN(n + 1)
		hi := lo + rng.IntN(min(71, n-lo+1))
		if rng.IntN(10) == 0 {
			hi = lo - rng.IntN(3)
		}
		x, y, z := c.coord(rng), c.coord(rng), c.coord(rng)
		if q := rng.IntN(n); rng.IntN(2) == 0 {
			x, y, z = xs[q], ys[q], zs[q]
		}
		e2 := c.e2[rng.IntN(len(c.e2))]
		if hi > lo && rng.IntN(3) == 0 {
			// A tie with one of the span's points, to the bit: a sum
			// rounded otherwise (fused, reassociated) misses it.
			j := lo + rng.IntN(hi-lo)
			dx, dy, dz := xs[j]-x, ys[j]-y, zs[j]-z
			e2 = dx*dx + dy*dy + dz*dz
		}
		tr[i] = avx2Trial{int32(lo), int32(hi), x, y, z, e2}
	}
	return tr
}

// avx2Cloud draws n points of case c.
func avx2Cloud(rng *rand.Rand, c avx2Case, n int) (xs, ys, zs []float32) {
	xs, ys, zs = make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range n {
		xs[i], ys[i], zs[i] = c.coord(rng), c.coord(rng), c.coord(rng)
	}
	return xs, ys, zs
}

// TestCountSpanMatchesGo checks countSpan (AVX2 where the CPU has it)
// against countSpanGo on every case of avx2Cases. The lattice must give
// many exact ties (distance² = e2), so that a strict comparison fails.
func TestCountSpanMatchesGo(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 here: countSpan is countSpanGo")
	}
	for ci, c := range avx2Cases {
		t.Run(c.name, func(t *testing.T) {
			seed := uint64(40 + ci)
			rng := rand.New(rand.NewPCG(seed, 2))
			xs, ys, zs := avx2Cloud(rng, c, 500)
			ties := 0
			for i, tr := range avx2Trials(rng, c, xs, ys, zs, 20000) {
				if tr.hi < tr.lo {
					continue // spans are never reversed
				}
				sx, sy, sz := xs[tr.lo:tr.hi], ys[tr.lo:tr.hi], zs[tr.lo:tr.hi]
				want := countSpanGo(sx, sy, sz, tr.x, tr.y, tr.z, tr.e2)
				got := countSpan(sx, sy, sz, tr.x, tr.y, tr.z, tr.e2)
				if got != want {
					t.Fatalf("trial %d (seed %d): span [%d, %d), query (%g, %g, %g), e2 %g: got %d, want %d",
						i, seed, tr.lo, tr.hi, tr.x, tr.y, tr.z, tr.e2, got, want)
				}
				ties += countTies(sx, sy, sz, tr.x, tr.y, tr.z, tr.e2)
			}
			if c.name == "lattice" && ties < 10000 {
				t.Fatalf("only %d points at distance² = e2 exactly: the test no longer tells <= from <", ties)
			}
		})
	}
}

// TestCoreWithinMatchesGo checks coreWithin (AVX2 where the CPU has it)
// against coreWithinGo on every case of avx2Cases, with random core flags
// (none, some, all), empty and reversed spans, and buffers that come in
// with other positions in them and too little or plenty of room.
func TestCoreWithinMatchesGo(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 here: coreWithin is coreWithinGo")
	}
	for ci, c := range avx2Cases {
		t.Run(c.name, func(t *testing.T) {
			seed := uint64(50 + ci)
			rng := rand.New(rand.NewPCG(seed, 3))
			const n = 500
			xs, ys, zs := avx2Cloud(rng, c, n)
			core := make([]uint8, n)
			for i, tr := range avx2Trials(rng, c, xs, ys, zs, 20000) {
				if i%500 == 0 {
					// A new share of core points: 0, 1/4, 1/2, 3/4 or 1.
					share := rng.IntN(5)
					for j := range core {
						core[j] = 0
						if rng.IntN(4) < share {
							core[j] = 1
						}
					}
				}
				l := rng.IntN(80)
				junk := make([]int32, l, l+rng.IntN(80))
				for j := range junk {
					junk[j] = rng.Int32()
				}
				want := coreWithinGo(slices.Clone(junk), xs, ys, zs, core, tr.lo, tr.hi, tr.x, tr.y, tr.z, tr.e2)
				got := coreWithin(junk, xs, ys, zs, core, tr.lo, tr.hi, tr.x, tr.y, tr.z, tr.e2)
				if !slices.Equal(got, want) {
					t.Fatalf("trial %d (seed %d): span [%d, %d), query (%g, %g, %g), e2 %g:\ngot  %v\nwant %v",
						i, seed, tr.lo, tr.hi, tr.x, tr.y, tr.z, tr.e2, got, want)
				}
			}
		})
	}
}

// countTies counts the points of a span at squared distance exactly e2
// from (x, y, z), computed as countSpanGo does.
func countTies(xs, ys, zs []float32, x, y, z, e2 float32) int {
	n := 0
	for j := range xs {
		dx, dy, dz := xs[j]-x, ys[j]-y, zs[j]-z
		if dx*dx+dy*dy+dz*dz == e2 {
			n++
		}
	}
	return n
}

// avx2BenchCloud is the benchmarks' cloud: 1<<14 points uniform in the
// unit cube, and core flags set on three in four at random.
func avx2BenchCloud() (xs, ys, zs []float32, core []uint8) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 1 << 14
	xs, ys, zs, core = make([]float32, n), make([]float32, n), make([]float32, n), make([]uint8, n)
	for i := range n {
		xs[i], ys[i], zs[i] = rng.Float32(), rng.Float32(), rng.Float32()
		if rng.IntN(4) != 0 {
			core[i] = 1
		}
	}
	return xs, ys, zs, core
}

// benchSpan is the benchmarks' span length, about a grid row's at
// DBSCAN's usual density, and benchE2 their squared radius, which takes
// about 40% of the unit cube's points around its centre.
const (
	benchSpan = 60
	benchE2   = 0.2
)

// BenchmarkCountSpan times countSpanGo and countSpan (AVX2 where the CPU
// has it) on spans of benchSpan points at offsets that move every call.
func BenchmarkCountSpan(b *testing.B) {
	xs, ys, zs, _ := avx2BenchCloud()
	for _, impl := range []struct {
		name string
		fn   func(xs, ys, zs []float32, x, y, z, e2 float32) uint32
	}{{"go", countSpanGo}, {"dispatch", countSpan}} {
		b.Run(impl.name, func(b *testing.B) {
			var sum uint32
			for i := 0; b.Loop(); i++ {
				lo := i * 61 % (len(xs) - benchSpan)
				sum += impl.fn(xs[lo:lo+benchSpan], ys[lo:lo+benchSpan], zs[lo:lo+benchSpan], 0.5, 0.5, 0.5, benchE2)
			}
			sinkCount = sum
		})
	}
}

// BenchmarkCoreWithin times coreWithinGo and coreWithin (AVX2 where the
// CPU has it) on spans of benchSpan points at offsets that move every call,
// so that the kept lanes' pattern is not learnt.
func BenchmarkCoreWithin(b *testing.B) {
	xs, ys, zs, core := avx2BenchCloud()
	for _, impl := range []struct {
		name string
		fn   func([]int32, []float32, []float32, []float32, []uint8, int32, int32, float32, float32, float32, float32) []int32
	}{{"go", coreWithinGo}, {"dispatch", coreWithin}} {
		b.Run(impl.name, func(b *testing.B) {
			buf := make([]int32, 0, benchSpan+8)
			kept := 0
			for i := 0; b.Loop(); i++ {
				lo := int32(i * 61 % (len(xs) - benchSpan))
				buf = impl.fn(buf, xs, ys, zs, core, lo, lo+benchSpan, 0.5, 0.5, 0.5, benchE2)
				kept += len(buf)
			}
			b.ReportMetric(float64(kept)/float64(b.N), "kept/op")
		})
	}
}

// sinkCount keeps BenchmarkCountSpan's counts live.
var sinkCount uint32
