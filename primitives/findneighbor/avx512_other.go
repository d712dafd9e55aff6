//go:build !amd64

package findneighbor

// hasAVX512 is false off amd64: gatherKeys is gatherKeysGo.
const hasAVX512 = false

// gatherKeys appends to buf the position keys of the points lo..hi-1 of
// the sorted arrays xs, ys, zs within squared distance lim of (x, y, z),
// except position self, in position order (gatherKeysGo).
func gatherKeys(buf []uint64, xs, ys, zs []float32, lo, hi int32, x, y, z, lim float32, self int32) []uint64 {
	return gatherKeysGo(buf, xs, ys, zs, lo, hi, x, y, z, lim, self)
}

// keysMoment sums the offsets and distances from (x, y, z) to the points
// of the position keys (keysMomentGo).
func keysMoment(xs, ys, zs []float32, x, y, z float32, keys []uint64) Moment {
	return keysMomentGo(xs, ys, zs, x, y, z, keys)
}

// boxMaskAVX512 is never called off amd64 (hasAVX512 is false).
func boxMaskAVX512(boxes *float32, stride, n int, x, y, z, lim float32, masks *uint16) {
	panic("findneighbor: boxMaskAVX512 without AVX-512")
}

// boundsAVX512 is never called off amd64 (hasAVX512 is false).
func boundsAVX512(pts *kdPoint, n int, out *[8]float32) {
	panic("findneighbor: boundsAVX512 without AVX-512")
}

// gatherSpans is never called off amd64 (hasAVX512 is false).
func gatherSpans(buf []uint64, xs, ys, zs []float32, spans []int32, total int, x, y, z, lim float32, self int32) []uint64 {
	panic("findneighbor: gatherSpans without AVX-512")
}
