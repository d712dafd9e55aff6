package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// kernelRand skips t where the CPU has no AVX-512, saying that goPath runs
// instead, and returns the random source of seed.
func kernelRand(t *testing.T, seed uint64, goPath string) *rand.Rand {
	t.Helper()
	if !hasAVX512 {
		t.Skip("no AVX-512 here: " + goPath)
	}
	return rand.New(rand.NewPCG(seed, 1))
}

// TestBoxMaskMatchesBoxDistSq checks boxMaskAVX512 against boxDistSq on
// random boxes, queries inside and outside them, limits at exact box
// distances (ties), for every count up to 40 (full steps and every tail).
func TestBoxMaskMatchesBoxDistSq(t *testing.T) {
	const seed = 14
	rng := kernelRand(t, seed, "gatherNear tests boxes with boxDistSq")
	for trial := range 3000 {
		n := trial % 41
		stride := n + rng.IntN(3)
		boxes := make([]float32, 6*stride)
		bbs := make([][6]float32, n)
		for j := range n {
			for a := range 3 {
				lo, hi := rng.Float32()*4, rng.Float32()*4
				bbs[j][a], bbs[j][3+a] = min(lo, hi), max(lo, hi)
			}
			for a := range 6 {
				boxes[a*stride+j] = bbs[j][a]
			}
		}
		x, y, z := rng.Float32()*5-0.5, rng.Float32()*5-0.5, rng.Float32()*5-0.5
		lim := rng.Float32() * 4
		if n > 0 && trial%2 == 0 {
			lim = boxDistSq(&bbs[rng.IntN(n)], x, y, z) // a tie
		}
		masks := make([]uint16, (n+15)/16+1)
		boxMaskAVX512(&append(boxes, 0)[0], stride, n, x, y, z, lim, &masks[0])
		for j := range n {
			want := boxDistSq(&bbs[j], x, y, z) <= lim
			if got := masks[j/16]>>(j%16)&1 == 1; got != want {
				t.Fatalf("trial %d (seed %d): box %d of %d %v, query (%g, %g, %g), lim %g: in = %v, boxDistSq says %v", trial, seed, j, n, bbs[j], x, y, z, lim, got, want)
			}
		}
		if masks[len(masks)-1] != 0 {
			t.Fatalf("trial %d: wrote beyond (n+15)/16 masks", trial)
		}
	}
}

// TestBoundsMatchesGo checks boundsAVX512 against a loop over the points,
// for every count up to 70 (full steps and every tail) at every offset.
func TestBoundsMatchesGo(t *testing.T) {
	const seed = 16
	rng := kernelRand(t, seed, "the kd-tree build scans boxes in Go")
	pts := make([]kdPoint, 200)
	for i := range pts {
		pts[i] = kdPoint{[3]float32{rng.Float32()*2 - 1, rng.Float32() * 100, -rng.Float32()}, int32(rng.IntN(1 << 30))}
	}
	for n := 1; n <= 70; n++ {
		for lo := range 5 {
			var o [8]float32
			boundsAVX512(&pts[lo], n, &o)
			for a := range 3 {
				mn, mx := pts[lo].c[a], pts[lo].c[a]
				for _, p := range pts[lo : lo+n] {
					mn, mx = min(mn, p.c[a]), max(mx, p.c[a])
				}
				if o[a] != mn || o[4+a] != mx {
					t.Fatalf("n %d at %d, axis %d (seed %d): bounds %g..%g, want %g..%g", n, lo, a, seed, o[a], o[4+a], mn, mx)
				}
			}
		}
	}
}

// TestGatherSpansMatchesGo checks one gatherSpans call over the spans a
// mask picks from a list against gatherKeysGo span by span, as the
// batched kd-tree search uses it: lists of up to 40 spans (masks of one
// to three words), empty spans and masks among them.
func TestGatherSpansMatchesGo(t *testing.T) {
	const seed = 17
	rng := kernelRand(t, seed, "the leaves are gathered one by one in Go")
	const n = 400
	xs, ys, zs := latticePoints(rng, n)
	for trial := range 3000 {
		ns := rng.IntN(41)
		spans := make([]int32, 0, 2*ns)
		masks := make([]uint16, (ns+15)/16)
		total := 0
		for j := range ns {
			lo := int32(rng.IntN(n))
			hi := lo + int32(rng.IntN(min(50, n-int(lo))+1))
			spans = append(spans, lo, hi)
			if rng.IntN(3) > 0 {
				masks[j/16] |= 1 << (j % 16)
				total += int(hi - lo)
			}
		}
		q := int32(rng.IntN(n))
		x, y, z, lim := xs[q], ys[q], zs[q], []float32{0, 0.25, 0.5, 1, 3}[trial%5]
		var want []uint64
		for j := range ns {
			if masks[j/16]>>(j%16)&1 == 1 {
				want = gatherKeysGo(want, xs, ys, zs, spans[2*j], spans[2*j+1], x, y, z, lim, q)
			}
		}
		got := gatherSpans(make([]uint64, 0, 1), xs, ys, zs, spans, masks, total, x, y, z, lim, q)
		if !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("trial %d (seed %d): spans %v, masks %x, query %d, lim %g:\ngot  %x\nwant %x", trial, seed, spans, masks, q, lim, got, want)
		}
	}
}

// TestKeepKMatchesGo checks keepK with AVX-512 (kthDistAVX512's counting
// search, keepLEAVX512's compaction) against keepKGo's quickselect: the
// same keys kept, the same k-th distance, on distances spread as on a
// line, a surface and in a volume, limits above the farthest key or equal
// to it, many ties (distances of four values, or of six neighbouring
// floats), every k, and counts on both sides of 8-key steps.
func TestKeepKMatchesGo(t *testing.T) {
	const seed = 18
	rng := kernelRand(t, seed, "keepK is keepKGo")
	for trial := range 100000 {
		n := 2 + rng.IntN(130)
		k := 1 + rng.IntN(n-1)
		lim := float32(1.44e-4)
		dim := float64(1 + trial%3)
		keys := make([]uint64, n, n+8)
		top := float32(0)
		for j := range keys {
			d := float32(math.Pow(rng.Float64(), 2/dim)) * lim
			switch trial % 5 {
			case 0:
				d = float32(rng.IntN(4)) * lim / 4
			case 3:
				// Neighbouring floats: off-by-one-bit bounds show.
				d = math.Float32frombits(math.Float32bits(lim/2) + uint32(rng.IntN(6)))
			}
			top = max(top, d)
			keys[j] = uint64(math.Float32bits(d))<<32 | uint64(rng.IntN(1<<20))<<8 | uint64(j)
		}
		if trial%4 == 1 {
			lim = top
		}
		want, wantT := keepKGo(slices.Clone(keys), k)
		got, gotT := keepK(keys, k, lim)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) || gotT != wantT {
			t.Fatalf("trial %d (seed %d): n %d, k %d, lim %g: kept %d keys to distance %g, keepKGo %d to %g", trial, seed, n, k, lim, len(got), gotT, len(want), wantT)
		}
	}
}

// TestBucketsMatchesGo checks bucketsAVX512 against kdTop.bucketsGo on
// top trees of every depth up to 12, for every count up to 40 (full steps
// and every tail), with points exactly at the splits (ties) and off them.
func TestBucketsMatchesGo(t *testing.T) {
	const seed = 23
	rng := kernelRand(t, seed, "kdTop.buckets is bucketsGo")
	for trial := range 2000 {
		depth := 1 + trial%12
		sample := make([]float32, 3*(1+rng.IntN(3000)))
		for i := range sample {
			sample[i] = float32(rng.IntN(64)) / 8
		}
		top := newKDTop(sample, depth)
		n := trial % 41
		xyz := make([]float32, 3*n+3)
		for i := range xyz {
			xyz[i] = float32(rng.IntN(66)-1) / 8 // on the sample's grid: ties with splits
			if trial%2 == 1 {
				xyz[i] += rng.Float32() / 16
			}
		}
		want := make([]uint16, n+1)
		top.bucketsGo(xyz[:3*n], want[:n])
		got := make([]uint16, n+1)
		got[n], want[n] = 0xbeef, 0xbeef
		if n > 0 {
			bucketsAVX512(&xyz[0], n, &top.table[0], depth, &got[0])
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (seed %d): depth %d, %d points: buckets %v, bucketsGo %v (the last is a guard)", trial, seed, depth, n, got, want)
		}
	}
}
