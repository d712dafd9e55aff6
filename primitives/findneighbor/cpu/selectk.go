package cpu

import (
	"cmp"
	"math"
	"slices"

	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

// The k-nearest searches of the grid and of the batched kd-tree gather
// their candidates as one uint64 each, a position key: the float32 bits of
// the squared distance (never negative nor NaN, so ordered like the value)
// in the high half and the point's sorted position in the low half. That
// is half a Kent and needs no index lookup per candidate, so gathering and
// selecting are cheaper; it orders ties by position, and rankKeys then
// settles the ties at the k-th distance by index, as the API asks.

// posKeyD2 returns the squared distance bits of a position key.
func posKeyD2(e uint64) uint32 { return uint32(e >> 32) }

// gatherKeysGo appends to buf the position keys of the points lo..hi-1 of
// the sorted arrays xs, ys, zs within squared distance lim of (x, y, z),
// except position self, in position order. It stores every point and
// advances past those in, so that the loop never branches on the test
// (whether a point is in is random). gatherKeys runs it, or the same with
// AVX-512.
func gatherKeysGo(buf []uint64, xs, ys, zs []float32, lo, hi int32, x, y, z, lim float32, self int32) []uint64 {
	n := len(buf)
	buf = slices.Grow(buf, int(hi-lo))[:n+int(hi-lo)]
	out := buf[n:]
	xs = xs[lo:hi]
	ys, zs = ys[lo:hi], zs[lo:hi]
	ys, zs, out = ys[:len(xs)], zs[:len(xs)], out[:len(xs)]
	skip := self - lo // out of range unless self is in the span
	m := 0
	for j, px := range xs {
		d2 := dist2(px-x, ys[j]-y, zs[j]-z)
		out[m] = uint64(math.Float32bits(d2))<<32 | uint64(uint32(lo)+uint32(j))
		in := 0
		if d2 <= lim {
			in = 1
		}
		if int32(j) == skip {
			in = 0
		}
		m += in
	}
	return buf[:n+m]
}

// selectKeys reorders a so that a[:k] holds its k smallest keys, in no
// particular order: a quickselect whose partition never branches on a
// comparison (which ones hold is random, and mispredicted branches were
// most of its cost), with a median-of-three pivot. Keys are distinct.
func selectKeys(a []uint64, k int) {
	for len(a) > 3 {
		x, y, z := a[0], a[len(a)/2], a[len(a)-1]
		pivot := max(min(x, y), min(max(x, y), z))
		// Lomuto's scheme: a[:i] < pivot ≤ a[i:j].
		i := 0
		for j, e := range a {
			a[j] = a[i]
			a[i] = e
			// i++ when e < pivot, as arithmetic: keys are below 2^63, so
			// the difference's sign is the comparison.
			i += int(uint64(int64(e)-int64(pivot)) >> 63)
		}
		switch {
		case k < i:
			a = a[:i]
		case k > i:
			// Everything in a[:i] is among the k smallest; select what
			// is still missing from a[i:].
			a, k = a[i:], k-i
		default:
			return
		}
	}
	slices.Sort(a)
}

// keepKGo reduces buf (len > k) to its k smallest position keys plus
// every other candidate at the same squared distance as the k-th (a tie
// whose rank by index is not known yet), and returns it with that
// distance: a quickselect, then a scan for the ties. keepK runs it, or
// the same with AVX-512.
func keepKGo(buf []uint64, k int) ([]uint64, float32) {
	selectKeys(buf, k)
	t := uint32(0)
	for _, e := range buf[:k] {
		t = max(t, posKeyD2(e))
	}
	m := k
	for _, e := range buf[k:] {
		buf[m] = e
		tie := 0
		if posKeyD2(e) == t {
			tie = 1
		}
		m += tie
	}
	return buf[:m], math.Float32frombits(t)
}

// rankKeys reduces the candidates buf (within squared distance lim) to the
// k nearest (all of them if there are no more than k), ties at the k-th
// distance broken by the smaller index, as position keys in no particular
// order, in buf's memory, and returns them with the largest of their
// squared distances (0 for none); kc is scratch for the ties, returned for
// reuse.
func rankKeys(buf []uint64, k int, lim float32, perm []int32, kc []hostkit.Kent) ([]uint64, float32, []hostkit.Kent) {
	if len(buf) <= k {
		t := uint64(0)
		for _, e := range buf {
			t = max(t, e)
		}
		return buf, math.Float32frombits(posKeyD2(t)), kc
	}
	buf, t := keepK(buf, k, lim)
	if len(buf) == k {
		return buf, t, kc
	}
	// Ties at the k-th distance: the smaller indices win.
	kc = toKents(kc[:0], buf, perm)
	slices.SortFunc(kc, hostkit.CmpKent)
	for j, e := range kc[:k] {
		buf[j] = posKey(e)
	}
	return buf[:k], t, kc
}

// toKents appends to out the kents of the position keys.
func toKents(out []hostkit.Kent, keys []uint64, perm []int32) []hostkit.Kent {
	for _, e := range keys {
		pos := int32(uint32(e))
		out = append(out, hostkit.Kent{Key: e&^math.MaxUint32 | uint64(uint32(perm[pos])), Pos: pos})
	}
	return out
}

// posKey returns the position key of a Kent.
func posKey(e hostkit.Kent) uint64 { return e.Key&^math.MaxUint32 | uint64(uint32(e.Pos)) }

// sortKents sorts a short run by key (insertion sort; slices.SortFunc
// beyond a few dozen).
func sortKents(a []hostkit.Kent) {
	if len(a) > 48 {
		slices.SortFunc(a, hostkit.CmpKent)
		return
	}
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for j > 0 && x.Key < a[j-1].Key {
			a[j] = a[j-1]
			j--
		}
		a[j] = x
	}
}

// dist2 is the squared length of the offset (dx, dy, dz).
func dist2(dx, dy, dz float32) float32 { return dx*dx + dy*dy + dz*dz }

// canonicalKeys sorts the position keys of a query's k nearest (perm maps
// positions to indices) into the order KNearest reports them: by squared
// distance, ties by the smaller index. They come in an order of their own
// (rankKeys' selection, a kd-tree's insertion by index): sorted by key
// (sortKeys), then by index within each run of equal distances, which are
// rare.
func canonicalKeys(keys []uint64, perm []int32) {
	if !sortKeys(keys) {
		return
	}
	for i := 0; i+1 < len(keys); {
		d, j := posKeyD2(keys[i]), i+1
		for j < len(keys) && posKeyD2(keys[j]) == d {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(keys[i:j], func(a, b uint64) int { return cmp.Compare(perm[uint32(a)], perm[uint32(b)]) })
		}
		i = j
	}
}

// sortKeysGo sorts keys (insertion sort; slices.Sort beyond a few
// dozen). sortKeys runs it, or ranks them with AVX-512.
func sortKeysGo(a []uint64) {
	if len(a) > 48 {
		slices.Sort(a)
		return
	}
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for j > 0 && x < a[j-1] {
			a[j] = a[j-1]
			j--
		}
		a[j] = x
	}
}
