package cpu

import (
	"slices"

	"golang.org/x/sys/cpu"
)

// hasAVX2 reports that the kernels of avx2_amd64.s can run: AVX2 (with
// the operating system saving the registers) and POPCNT. The grid's
// radius counts and DBSCAN's core links use them then, the Go loops
// otherwise (docs/avx512.md).
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

// countSpanAVX2 is countSpanGo's loop on 8 points at a time over the n ≥ 8
// points of the arrays xs, ys, zs: the same operations in the same order
// (no fused multiply-add), so the same count. The last step takes the
// last 8 points and drops those the full steps counted.
//
//go:noescape
func countSpanAVX2(xs, ys, zs *float32, n int, x, y, z, e2 float32) uint32

// countSpan counts the points of one span within ε (e2 = ε²) of (x, y, z),
// the hot loop of Counts: with AVX2 where the CPU has it, else (and on
// spans shorter than a vector) countSpanGo.
func countSpan(xs, ys, zs []float32, x, y, z, e2 float32) uint32 {
	n := len(xs)
	if !hasAVX2 || n < 8 {
		return countSpanGo(xs, ys, zs, x, y, z, e2)
	}
	ys, zs = ys[:n], zs[:n]
	return countSpanAVX2(&xs[0], &ys[0], &zs[0], n, x, y, z, e2)
}

// coreWithinAVX2 is coreWithinGo's loop on 8 points at a time over the n
// ≥ 8 points of the arrays xs, ys, zs and their core flags (0 or 1): it
// writes to out the positions lo+j of the core points within squared
// distance e2 of (x, y, z), in order, and returns their number. Each step
// stores 8 positions, those kept first, and advances by the number kept,
// so out must have room for n+8. The distances are coreWithinGo's to the
// bit (no fused multiply-add); the last step takes the last 8 points and
// drops those the full steps tested.
//
//go:noescape
func coreWithinAVX2(out *int32, xs, ys, zs *float32, core *uint8, n int, lo int32, x, y, z, e2 float32) int

// compressLanes is coreWithinAVX2's table: for each 8-bit mask of kept
// lanes, their lane numbers in increasing order, one a byte, then zeros.
// Added to the step's first position, they are the positions to store.
var compressLanes = func() (t [256]uint64) {
	for m := range t {
		k := 0
		for lane := range 8 {
			if m>>lane&1 != 0 {
				t[m] |= uint64(lane) << (8 * k)
				k++
			}
		}
	}
	return t
}()

// coreWithin sets buf to the sorted positions lo..hi-1 of core points
// (core[j] = 1) within squared distance e2 of (x, y, z), without a branch
// on the tests: with AVX2 where the CPU has it, else (and on spans shorter
// than a vector) coreWithinGo.
func coreWithin(buf []int32, xs, ys, zs []float32, core []uint8, lo, hi int32, x, y, z, e2 float32) []int32 {
	n := int(hi) - int(lo)
	if !hasAVX2 || n < 8 {
		return coreWithinGo(buf, xs, ys, zs, core, lo, hi, x, y, z, e2)
	}
	buf = slices.Grow(buf[:0], n+8)
	xs, ys, zs, core = xs[lo:hi], ys[lo:hi][:n], zs[lo:hi][:n], core[lo:hi][:n]
	m := coreWithinAVX2(&buf[:1][0], &xs[0], &ys[0], &zs[0], &core[0], n, lo, x, y, z, e2)
	return buf[:m]
}
