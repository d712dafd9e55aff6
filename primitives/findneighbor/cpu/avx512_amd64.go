package cpu

import (
	"math"
	"math/bits"
	"slices"

	"github.com/pctk/pctk/primitives/findneighbor"
	"golang.org/x/sys/cpu"
)

// hasAVX512 reports that the kernels of avx512_amd64.s can run: AVX-512F
// and VL (with the operating system saving the registers) and BMI2. The
// kd-tree's build and batched search and the k-nearest moments use them
// then, the Go loops otherwise (docs/avx512.md).
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2

// gatherSpansAVX512 is gatherKeysGo's loop on 16 points at a time for
// the spans [spans[2j], spans[2j+1]) of the arrays xs, ys, zs whose bit j
// is set in masks (bit j%16 of masks[j/16], j < 16·nmasks): it writes the
// position keys of the points within squared distance lim of (x, y, z),
// except position skip, to out in the spans' order and returns their
// number. out must have room for all the masked spans' points and 8 keys
// more.
//
//go:noescape
func gatherSpansAVX512(out *uint64, xs, ys, zs *float32, spans *int32, masks *uint16, nmasks int, x, y, z, lim float32, skip uint32) int

// gatherKeys appends to buf the position keys of the points lo..hi-1 of
// the sorted arrays xs, ys, zs within squared distance lim of (x, y, z),
// except position self, in position order: with AVX-512 where the CPU has
// it, else gatherKeysGo.
func gatherKeys(buf []uint64, xs, ys, zs []float32, lo, hi int32, x, y, z, lim float32, self int32) []uint64 {
	if !hasAVX512 || hi <= lo {
		return gatherKeysGo(buf, xs, ys, zs, lo, hi, x, y, z, lim, self)
	}
	return gatherSpans(buf, xs, ys, zs, []int32{lo, hi}, []uint16{1}, int(hi-lo), x, y, z, lim, self)
}

// gatherSpans appends to buf the position keys of the points of the spans
// [spans[2j], spans[2j+1]) whose bit j is set in masks, total points at
// most in all, within squared distance lim of (x, y, z), except position
// self, in order (AVX-512 only).
func gatherSpans(buf []uint64, xs, ys, zs []float32, spans []int32, masks []uint16, total int, x, y, z, lim float32, self int32) []uint64 {
	if len(masks) == 0 {
		return buf
	}
	n := len(buf)
	buf = slices.Grow(buf, total+8)
	m := gatherSpansAVX512(&buf[:n+1][n], &xs[0], &ys[0], &zs[0], &spans[0], &masks[0], len(masks), x, y, z, lim, uint32(self))
	return buf[:n+m]
}

// sumNearestAVX512 is sumNearestGo's loop with the sums of each key's
// terms in the lanes of a vector, each lane adding them in the keys'
// order: the same sums to the bit. It stores the three offset sums, the
// six products and the distance sum in out.
//
//go:noescape
func sumNearestAVX512(keys *uint64, n int, xs, ys, zs *float32, x, y, z float32, out *[10]float64)

// sumNearest adds the offsets and distances from (x, y, z) to the points
// of the position keys in the keys' order: with AVX-512 where the CPU has
// it, else sumNearestGo.
func sumNearest(xs, ys, zs []float32, x, y, z float32, keys []uint64) findneighbor.Moment {
	if !hasAVX512 || len(keys) == 0 {
		return sumNearestGo(xs, ys, zs, x, y, z, keys)
	}
	var s [10]float64
	sumNearestAVX512(&keys[0], len(keys), &xs[0], &ys[0], &zs[0], x, y, z, &s)
	return findneighbor.Moment{N: uint32(len(keys)), Sum: [3]float64{s[0], s[1], s[2]}, Outer: [6]float64{s[3], s[4], s[5], s[6], s[7], s[8]}, Dist: s[9]}
}

// rankSortAVX512 sorts the n distinct keys (1 ≤ n ≤ rankSortMax) in
// place, each to its rank, the number of keys smaller than it (n·n/8
// comparisons, 8 a step, without a branch on the keys), and reports
// whether two neighbours in the sorted keys share their high half (a
// squared distance).
//
//go:noescape
func rankSortAVX512(keys *uint64, n int) (ties bool)

// rankSortMax is the most keys rankSortAVX512 sorts (four registers);
// beyond, its n² comparisons would cost more than a comparison sort's
// branches.
const rankSortMax = 32

// sortKeys sorts the distinct position keys a, with AVX-512 where the CPU
// has it and a is short (rankSortAVX512), else with sortKeysGo, and
// reports whether two of them may lie at the same squared distance (false
// only where none do).
func sortKeys(a []uint64) (ties bool) {
	if !hasAVX512 || len(a) < 2 || len(a) > rankSortMax {
		sortKeysGo(a)
		return true
	}
	return rankSortAVX512(&a[0], len(a))
}

// boxMaskAVX512 sets bit j of masks[j/16] when the squared distance from
// (x, y, z) to box j of n, as boxDistSq computes it, is within lim; the
// boxes are six rows of stride floats (min x, y, z, max x, y, z), masks
// has (n+15)/16 entries.
//
//go:noescape
func boxMaskAVX512(boxes *float32, stride, n int, x, y, z, lim float32, masks *uint16)

// boundsAVX512 stores the minimum coordinates of the n ≥ 1 points at pts
// in out[0..2] and the maximum in out[4..6], 4 points at a time.
//
//go:noescape
func boundsAVX512(pts *kdPoint, n int, out *[8]float32)

// gatherNear appends to buf the position keys of the points of the near
// leaves s.near within squared distance lim of (x, y, z), except position
// self: with AVX-512 it tests their boxes (which nearBoxes laid out) 16 at
// a time and gathers the points of those within lim in one call, else
// gatherNearGo over nearPrefix.
func (t *kdtree) gatherNear(s *leafScratch, buf []uint64, x, y, z, lim float32, self int32) []uint64 {
	if !hasAVX512 {
		return t.gatherNearGo(s.nearPrefix(lim), buf, x, y, z, lim, self)
	}
	n := len(s.near)
	if n == 0 {
		return buf
	}
	s.masks = slices.Grow(s.masks[:0], (n+15)/16)[:(n+15)/16]
	boxMaskAVX512(&s.boxes[0], n, n, x, y, z, lim, &s.masks[0])
	leaves := 0
	for _, m := range s.masks {
		leaves += bits.OnesCount16(m)
	}
	return gatherSpans(buf, t.xs, t.ys, t.zs, s.spans, s.masks, leaves*s.nearMax, x, y, z, lim, self)
}

// nodeBounds returns the box of the packed points pts (at least one):
// min x, y, z, max x, y, z, with AVX-512 where the CPU has it, else
// nodeBoundsGo.
func nodeBounds(pts []kdPoint) [6]float32 {
	if !hasAVX512 {
		return nodeBoundsGo(pts)
	}
	var o [8]float32
	boundsAVX512(&pts[0], len(pts), &o)
	return [6]float32{o[0], o[1], o[2], o[4], o[5], o[6]}
}

// keepLEAVX512 moves the keys at most lim to the front of the n keys, in
// order, and returns their number and the largest of them.
//
//go:noescape
func keepLEAVX512(keys *uint64, n int, lim uint64) (m int, top uint64)

// keepK reduces buf (len > k, every key's squared distance within lim) to
// its k smallest position keys plus every other candidate at the same
// squared distance as the k-th (a tie whose rank by index is not known
// yet), and returns it with that distance: with AVX-512 where the CPU has
// it (kthDistAVX512, keepLEAVX512), else keepKGo.
func keepK(buf []uint64, k int, lim float32) ([]uint64, float32) {
	if !hasAVX512 {
		return keepKGo(buf, k)
	}
	t := kthDistAVX512(&buf[0], len(buf), k, math.Float32bits(lim))
	m, top := keepLEAVX512(&buf[0], len(buf), uint64(t)<<32|math.MaxUint32)
	return buf[:m], math.Float32frombits(posKeyD2(top))
}

// kthDistAVX512 returns squared-distance bits t such that the keys (n >
// k ≥ 1 of them, every squared distance within lim) within t are the k
// smallest, or, where ties make that impossible, the k-th smallest
// distance itself, so that those within t are the k smallest and the ties
// at the k-th. It searches the distances by counting: no key moves, and
// each probe t compares 8 keys at a time without a branch, counting those
// within t and finding the largest distance within t and the smallest
// beyond it. Where k-1 are within t, the smallest beyond is the k-th;
// otherwise the bracket narrows to those two, so that every probe drops a
// key from it. The probes interpolate between the bracket's ends, as if
// the count grew like the squared distance (as on a surface), every other
// one from the sixth on bisecting, so that by construction a bad guess
// costs at most 70 probes (6 + 2·32 bits). On the benchmark's scan: 2.35
// probes for 45 keys, k = 30 (4.8 counting alone, 108 partition steps for
// the quickselect; measured by replaying 10k recorded candidate sets).
//
//go:noescape
func kthDistAVX512(keys *uint64, n, k int, lim uint32) uint32

// bucketsAVX512 is kdTop.bucketsGo's descent for the n points xyz, 16 at
// a time: the same table entries, the same comparisons.
//
//go:noescape
func bucketsAVX512(xyz *float32, n int, table *uint32, depth int, out *uint16)

// buckets stores in out the bucket of each point of xyz: with AVX-512
// where the CPU has it, else bucketsGo.
func (top *kdTop) buckets(xyz []float32, out []uint16) {
	if !hasAVX512 || len(out) == 0 || top.depth == 0 {
		top.bucketsGo(xyz, out)
		return
	}
	bucketsAVX512(&xyz[0], len(out), &top.table[0], top.depth, &out[0])
}

// momentSpansAVX512 is momentSpansGo's loop on 16 points at a time over
// the spans (nspans of them), with the sums in 8 lanes per half (in another
// order than momentSpan's, equal to rounding): it stores the three offset
// sums and the six products in out and returns the number of points.
//
//go:noescape
func momentSpansAVX512(xs, ys, zs *float32, spans *span, nspans int, x, y, z, e2 float32, self int32, out *[9]float64) int

// momentSpans adds to m the offsets from (x, y, z) to the points of the
// spans sp within ε (e2 = ε²), except sorted position self (-1: none):
// with AVX-512 where the CPU has it, else momentSpansGo.
func momentSpans(m *findneighbor.Moment, xs, ys, zs []float32, sp []span, x, y, z, e2 float32, self int32) {
	if !hasAVX512 || len(sp) == 0 {
		momentSpansGo(m, xs, ys, zs, sp, x, y, z, e2, self)
		return
	}
	var o [9]float64
	m.N += uint32(momentSpansAVX512(&xs[0], &ys[0], &zs[0], &sp[0], len(sp), x, y, z, e2, self, &o))
	for a := range 3 {
		m.Sum[a] += o[a]
	}
	for a := range 6 {
		m.Outer[a] += o[3+a]
	}
}
