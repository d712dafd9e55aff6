package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

// TestGatherKeysMatchesGo checks gatherKeys (AVX-512 where the CPU has it)
// against gatherKeysGo bit for bit: spans of every length up to 100 (full
// steps and every tail), limits that take none, some and all points, ties
// at the limit, the query's own position inside and outside the span, and
// keys appended after earlier ones.
func TestGatherKeysMatchesGo(t *testing.T) {
	if !hasAVX512 {
		t.Log("no AVX-512 here: gatherKeys is gatherKeysGo")
	}
	const seed = 11
	rng := rand.New(rand.NewPCG(seed, 1))
	const n = 300
	xs, ys, zs := latticePoints(rng, n)
	for trial := range 20000 {
		lo := int32(rng.IntN(n))
		hi := lo + int32(rng.IntN(min(101, n-int(lo)+1)))
		q := int32(rng.IntN(n))
		x, y, z := xs[q], ys[q], zs[q]
		if trial%3 == 0 {
			x, y, z = rng.Float32()*2, rng.Float32()*2, rng.Float32()*2
		}
		self := q
		if trial%5 == 0 {
			self = -1
		}
		lim := []float32{0, 0.0625, 0.25, 0.5, 1, 3, rng.Float32()}[trial%7]
		prefix := make([]uint64, rng.IntN(5), 200)
		for i := range prefix {
			prefix[i] = rng.Uint64()
		}
		want := gatherKeysGo(slices.Clone(prefix), xs, ys, zs, lo, hi, x, y, z, lim, self)
		got := gatherKeys(slices.Clone(prefix), xs, ys, zs, lo, hi, x, y, z, lim, self)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (seed %d): span [%d, %d), query (%g, %g, %g), lim %g, self %d:\ngot  %x\nwant %x", trial, seed, lo, hi, x, y, z, lim, self, got, want)
		}
	}
}

func BenchmarkGatherKeys(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 1 << 12
	xs, ys, zs := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range n {
		xs[i], ys[i], zs[i] = rng.Float32(), rng.Float32(), rng.Float32()
	}
	buf := make([]uint64, 0, 64)
	for _, impl := range []struct {
		name string
		fn   func([]uint64, []float32, []float32, []float32, int32, int32, float32, float32, float32, float32, int32) []uint64
	}{{"go", gatherKeysGo}, {"dispatch", gatherKeys}} {
		b.Run(impl.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				lo := int32(i % (n/40 - 1) * 40)
				// A 40-point leaf, a third of it within the limit.
				buf = impl.fn(buf[:0], xs, ys, zs, lo, lo+40, 0.5, 0.5, 0.5, 0.06, -1)
			}
		})
	}
}

// TestSumNearestMatchesGo checks sumNearest (AVX-512 where the CPU has
// it) against sumNearestGo bit for bit: both add each key's terms in the
// keys' order, for every key count up to 70, on offsets far from the
// query and on lattice points (zero offsets, the query among the keys).
func TestSumNearestMatchesGo(t *testing.T) {
	const seed = 12
	rng := rand.New(rand.NewPCG(seed, 1))
	const n = 500
	lx, ly, lz := latticePoints(rng, n)
	ox, oy, oz := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range n {
		ox[i], oy[i], oz[i] = 100+rng.Float32(), -50+rng.Float32()*3, rng.Float32()*0.01
	}
	for trial := range 5000 {
		xs, ys, zs := lx, ly, lz
		if trial%2 == 1 {
			xs, ys, zs = ox, oy, oz
		}
		q := rng.IntN(n)
		x, y, z := xs[q], ys[q], zs[q]
		var keys []uint64
		for range trial % 71 {
			p := rng.IntN(n)
			keys = append(keys, uint64(math.Float32bits(dist2(xs[p]-x, ys[p]-y, zs[p]-z)))<<32|uint64(p))
		}
		if got, want := sumNearest(xs, ys, zs, x, y, z, keys), sumNearestGo(xs, ys, zs, x, y, z, keys); got != want {
			t.Fatalf("trial %d (seed %d), %d keys:\ngot  %+v\nwant %+v", trial, seed, len(keys), got, want)
		}
	}
}

// TestCanonicalKeys checks canonicalKeys (and sortKeys, AVX-512 where the
// CPU has it, under it) against sorting the candidates by squared distance
// and index: sets of every size up to 80 drawn from lattice points, whose
// distances tie often, with positions and indices in unrelated orders.
func TestCanonicalKeys(t *testing.T) {
	const seed = 13
	rng := rand.New(rand.NewPCG(seed, 1))
	const n = 600
	xs, ys, zs := latticePoints(rng, n)
	perm := rng.Perm(n)
	perm32 := make([]int32, n)
	for i, p := range perm {
		perm32[i] = int32(p)
	}
	for trial := range 3000 {
		q := rng.IntN(n)
		var keys []uint64
		var want []hostkit.Kent
		for _, p := range rng.Perm(n)[:trial%81] {
			d2 := dist2(xs[p]-xs[q], ys[p]-ys[q], zs[p]-zs[q])
			keys = append(keys, uint64(math.Float32bits(d2))<<32|uint64(p))
			want = append(want, hostkit.Kent{Key: hostkit.KentKey(d2, perm32[p]), Pos: int32(p)})
		}
		slices.SortFunc(want, hostkit.CmpKent)
		canonicalKeys(keys, perm32)
		for j, e := range want {
			if keys[j] != posKey(e) {
				t.Fatalf("trial %d (seed %d), %d keys: key %d is %#x, want %#x", trial, seed, len(keys), j, keys[j], posKey(e))
			}
		}
	}
}

// latticePoints returns n random points of a coarse lattice (8 values per
// axis, a quarter apart), on which exact ties at a limit are common.
func latticePoints(rng *rand.Rand, n int) (xs, ys, zs []float32) {
	xs, ys, zs = make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range n {
		xs[i], ys[i], zs[i] = float32(rng.IntN(8))/4, float32(rng.IntN(8))/4, float32(rng.IntN(8))/4
	}
	return xs, ys, zs
}

// TestMomentSpansMatchesGo checks momentSpans (with AVX-512 where the CPU
// has it) against momentSpansGo: the same count, the sums equal to
// rounding (the kernel adds in lanes), over up to 8 spans of every length
// up to 50 (full steps and every tail), the query's own position inside
// and outside them, on lattice points whose distances tie ε exactly and on
// offset points far from the origin.
func TestMomentSpansMatchesGo(t *testing.T) {
	const seed = 24
	rng := rand.New(rand.NewPCG(seed, 1))
	const n = 400
	lx, ly, lz := latticePoints(rng, n)
	ox, oy, oz := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range n {
		ox[i], oy[i], oz[i] = 100+rng.Float32(), -50+rng.Float32(), rng.Float32()*0.01
	}
	for trial := range 4000 {
		xs, ys, zs := lx, ly, lz
		if trial%2 == 1 {
			xs, ys, zs = ox, oy, oz
		}
		var sp []span
		for range rng.IntN(9) {
			lo := int32(rng.IntN(n))
			sp = append(sp, span{lo, lo + int32(rng.IntN(min(50, n-int(lo))+1))})
		}
		q := int32(rng.IntN(n))
		self := []int32{q, -1}[trial%3/2]
		e2 := []float32{0, 0.0625, 0.25, 0.5, 3}[trial%5]
		if trial%2 == 1 {
			e2 *= 1e-4
		}
		var got, want findneighbor.Moment
		momentSpans(&got, xs, ys, zs, sp, xs[q], ys[q], zs[q], e2, self)
		momentSpansGo(&want, xs, ys, zs, sp, xs[q], ys[q], zs[q], e2, self)
		tr := want.Outer[0] + want.Outer[3] + want.Outer[5]
		close := func(a, b, scale float64) bool { return math.Abs(a-b) <= 1e-12*scale }
		ok := got.N == want.N
		for a := range 3 {
			ok = ok && close(got.Sum[a], want.Sum[a], math.Sqrt(float64(want.N)*tr)+1e-30)
		}
		for a := range 6 {
			ok = ok && close(got.Outer[a], want.Outer[a], tr)
		}
		if !ok {
			t.Fatalf("trial %d (seed %d): spans %v, query %d (self %d), e2 %g:\ngot  %+v\nwant %+v", trial, seed, sp, q, self, e2, got, want)
		}
	}
}
