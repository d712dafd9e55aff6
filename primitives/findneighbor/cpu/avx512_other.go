//go:build !amd64

package cpu

import "github.com/pctk/pctk/primitives/findneighbor"

// hasAVX512 is false off amd64: every kernel is its Go loop.
const hasAVX512 = false

// gatherKeys appends to buf the position keys of the points lo..hi-1 of
// the sorted arrays xs, ys, zs within squared distance lim of (x, y, z),
// except position self, in position order (gatherKeysGo).
func gatherKeys(buf []uint64, xs, ys, zs []float32, lo, hi int32, x, y, z, lim float32, self int32) []uint64 {
	return gatherKeysGo(buf, xs, ys, zs, lo, hi, x, y, z, lim, self)
}

// sumNearest adds the offsets and distances from (x, y, z) to the points
// of the position keys in the keys' order (sumNearestGo).
func sumNearest(xs, ys, zs []float32, x, y, z float32, keys []uint64) findneighbor.Moment {
	return sumNearestGo(xs, ys, zs, x, y, z, keys)
}

// sortKeys sorts the distinct position keys a (sortKeysGo) and reports
// that two of them may lie at the same squared distance.
func sortKeys(a []uint64) (ties bool) {
	sortKeysGo(a)
	return true
}

// gatherNear is gatherNearGo over nearPrefix.
func (t *kdtree) gatherNear(s *leafScratch, buf []uint64, x, y, z, lim float32, self int32) []uint64 {
	return t.gatherNearGo(s.nearPrefix(lim), buf, x, y, z, lim, self)
}

// nodeBounds is nodeBoundsGo.
func nodeBounds(pts []kdPoint) [6]float32 { return nodeBoundsGo(pts) }

// keepK reduces buf (len > k, squared distances within lim) to its k
// smallest position keys plus the ties at the k-th distance, and returns
// it with that distance (keepKGo).
func keepK(buf []uint64, k int, _ float32) ([]uint64, float32) { return keepKGo(buf, k) }

// buckets stores in out the bucket of each point of xyz (bucketsGo).
func (top *kdTop) buckets(xyz []float32, out []uint16) { top.bucketsGo(xyz, out) }

// momentSpans adds to m the offsets from (x, y, z) to the points of the
// spans sp within ε (e2 = ε²), except sorted position self
// (momentSpansGo).
func momentSpans(m *findneighbor.Moment, xs, ys, zs []float32, sp []span, x, y, z, e2 float32, self int32) {
	momentSpansGo(m, xs, ys, zs, sp, x, y, z, e2, self)
}
