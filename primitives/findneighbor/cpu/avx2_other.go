//go:build !amd64

package cpu

// hasAVX2 is false off amd64: countSpan and coreWithin are their Go loops.
const hasAVX2 = false

// countSpan counts the points of one span within ε (e2 = ε²) of (x, y, z)
// (countSpanGo).
func countSpan(xs, ys, zs []float32, x, y, z, e2 float32) uint32 {
	return countSpanGo(xs, ys, zs, x, y, z, e2)
}

// coreWithin sets buf to the sorted positions lo..hi-1 of core points
// within squared distance e2 of (x, y, z) (coreWithinGo).
func coreWithin(buf []int32, xs, ys, zs []float32, core []uint8, lo, hi int32, x, y, z, e2 float32) []int32 {
	return coreWithinGo(buf, xs, ys, zs, core, lo, hi, x, y, z, e2)
}
