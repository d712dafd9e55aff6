package findneighbor

import (
	"slices"

	"golang.org/x/sys/cpu"
)

// hasAVX512 reports that gatherKeys can use gatherKeysAVX512: AVX-512F
// (with the operating system saving its registers) and BMI2.
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasBMI2

// gatherKeysAVX512 is gatherKeysGo's loop on 16 points at a time for the
// n points at xs, ys, zs (positions pos0, pos0+1, ...): it writes the
// position keys of those within squared distance lim of (x, y, z), except
// position skip, to out in position order and returns their number. out
// must have room for n+8 keys.
//
//go:noescape
func gatherKeysAVX512(out *uint64, xs, ys, zs *float32, n int, x, y, z, lim float32, pos0, skip uint32) int

// gatherKeys appends to buf the position keys of the points lo..hi-1 of
// the sorted arrays xs, ys, zs within squared distance lim of (x, y, z),
// except position self, in position order: with AVX-512 where the CPU has
// it, else gatherKeysGo.
func gatherKeys(buf []uint64, xs, ys, zs []float32, lo, hi int32, x, y, z, lim float32, self int32) []uint64 {
	if !hasAVX512 || hi <= lo {
		return gatherKeysGo(buf, xs, ys, zs, lo, hi, x, y, z, lim, self)
	}
	n := len(buf)
	xs, ys, zs = xs[lo:hi], ys[lo:hi], zs[lo:hi]
	buf = slices.Grow(buf, len(xs)+8)
	m := gatherKeysAVX512(&buf[:n+1][n], &xs[0], &ys[0], &zs[0], len(xs), x, y, z, lim, uint32(lo), uint32(self))
	return buf[:n+m]
}
