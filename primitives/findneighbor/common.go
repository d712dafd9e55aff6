package findneighbor

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// errInfEps is returned by operations that would list every pair when the
// index was built with ε = +Inf.
var errInfEps = errors.New("findneighbor: ε is +Inf: only KNearest and Moments with k > 0 are defined")

// checkBuild is CheckBuild for this package's backends.
func checkBuild(xyz []float32, eps float32) error { return CheckBuild(pkgName, xyz, eps) }

// checkMoments is CheckMoments for this package's backends.
func checkMoments(nq, k int, out []Moment) error { return CheckMoments(pkgName, nq, k, out) }

// numQueries is CheckQueries for this package's backends.
func numQueries(q []float32, n int) (int, error) { return CheckQueries(pkgName, q, n) }

// checkLen is CheckLen for this package's backends.
func checkLen(what string, got, want int) error { return CheckLen(pkgName, what, got, want) }

// checkKNearest is CheckKNearest for this package's backends.
func checkKNearest(nq, k int, idx []int32, dist []float32) error {
	return CheckKNearest(pkgName, nq, k, idx, dist)
}

// pkgName prefixes the errors of this package's own checks.
const pkgName = "findneighbor"

// checkClusterCores is CheckClusterCores for this package's backends.
func checkClusterCores(n int, isCore []bool, label []int32) error {
	return CheckClusterCores(pkgName, n, isCore, label)
}

// workers returns the parallelism to use: w, or GOMAXPROCS when w ≤ 0.
func workers(w int) int {
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return max(w, 1)
}

// parallel runs fn over [0, n) in chunks on up to nw goroutines; fn gets
// the worker number (for per-worker scratch) and a half-open range. The
// first error stops the hand-out of further chunks and is returned.
// progress, when not nil, is called with the fraction of chunks done.
func parallel(n, nw int, progress func(float64), fn func(w, lo, hi int) error) error {
	return parallelChunks(n, max(16, n/(nw*32)), nw, progress, fn)
}

// parallelChunks is parallel with chunks of the given size: 1 for a few
// large work items, such as subtrees to build.
func parallelChunks(n, chunk, nw int, progress func(float64), fn func(w, lo, hi int) error) error {
	if n == 0 {
		return nil
	}
	chunks := (n + chunk - 1) / chunk
	nw = min(nw, chunks)
	var next, done atomic.Int64
	var firstErr error
	var once sync.Once
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range nw {
		wg.Go(func() {
			for !failed.Load() {
				c := int(next.Add(1) - 1)
				if c >= chunks {
					return
				}
				lo := c * chunk
				if err := fn(w, lo, min(lo+chunk, n)); err != nil {
					once.Do(func() { firstErr = err })
					failed.Store(true)
					return
				}
				if progress != nil {
					progress(float64(done.Add(1)) / float64(chunks))
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// point returns the i-th triple of xyz.
func point(xyz []float32, i int) (x, y, z float32) {
	p := xyz[3*i : 3*i+3 : 3*i+3]
	return p[0], p[1], p[2]
}

// distSq is the squared distance that defines "within ε" for every CPU
// backend: float32 differences, then float32 squares and sums.
func distSq(ax, ay, az, bx, by, bz float32) float32 {
	dx, dy, dz := ax-bx, ay-by, az-bz
	return dx*dx + dy*dy + dz*dz
}

// cand is a neighbour candidate: squared distance, original index, and
// the backend's own position of the point (its sorted position in cpu).
type cand struct {
	d2  float32
	idx int32
	pos int32
}

// before orders candidates by distance, ties by the smaller index.
func (a cand) before(b cand) bool {
	return a.d2 < b.d2 || (a.d2 == b.d2 && a.idx < b.idx)
}

// kent is a candidate kept by kbest: key orders candidates by distance,
// ties by the smaller index, in ONE unsigned comparison (the float32 bits of
// the squared distance, never negative nor NaN, so ordered like the value,
// in the high half; the index in the low half); pos is the backend's own
// position of the point.
type kent struct {
	key uint64
	pos int32
}

// kentKey is the key of a candidate at squared distance d2 with index idx.
func kentKey(d2 float32, idx int32) uint64 {
	return uint64(math.Float32bits(d2))<<32 | uint64(uint32(idx))
}

func (e kent) d2() float32  { return math.Float32frombits(uint32(e.key >> 32)) }
func (e kent) idx() int32   { return int32(uint32(e.key)) }
func cmpKent(a, b kent) int { return cmp.Compare(a.key, b.key) }

// kbest keeps the k best candidates seen so far. For a small k it keeps
// them sorted by insertion; for a larger k insertion would cost O(k) per
// candidate, so it keeps a max-heap (worst on top) and sorts in finish; for
// "all" (k = MaxInt) it collects every candidate and sorts once in finish.
// worstSq tells the caller the distance to beat in every mode.
type kbest struct {
	k    int
	mode int // kbInsert, kbHeap or kbAll
	c    []kent
}

const (
	kbInsert = iota
	kbHeap
	kbAll
)

// kbestInsertMax is the largest k kept by insertion.
const kbestInsertMax = 32

func (b *kbest) reset(k int) {
	b.k = k
	switch {
	case k == math.MaxInt:
		b.mode = kbAll
	case k > kbestInsertMax:
		b.mode = kbHeap
	default:
		b.mode = kbInsert
	}
	b.c = b.c[:0]
}

// full reports whether k candidates are held, so that only candidates
// before the worst can still enter.
func (b *kbest) full() bool { return b.mode != kbAll && len(b.c) >= b.k }

// worstSq returns the squared distance a candidate must not exceed to
// enter: +Inf until k candidates are held.
func (b *kbest) worstSq() float32 {
	switch {
	case !b.full():
		return float32(math.Inf(1))
	case b.mode == kbHeap:
		return b.c[0].d2()
	}
	return b.c[len(b.c)-1].d2()
}

// add offers a candidate.
func (b *kbest) add(x kent) {
	switch b.mode {
	case kbAll:
		b.c = append(b.c, x)
		return
	case kbHeap:
		b.push(x)
		return
	}
	c := b.c
	n := len(c)
	if n >= b.k {
		if b.k == 0 || x.key >= c[n-1].key {
			return
		}
		n-- // the last one drops out
	} else {
		c = append(c, x)
	}
	// Shift by hand: a copy call costs more than the few moves.
	i := n
	for i > 0 && x.key < c[i-1].key {
		c[i] = c[i-1]
		i--
	}
	c[i] = x
	b.c = c
}

// push adds x to the max-heap, replacing the worst when k are held.
func (b *kbest) push(x kent) {
	c := b.c
	if len(c) < b.k {
		c = append(c, x)
		for i := len(c) - 1; i > 0; {
			p := (i - 1) / 2
			if c[p].key >= c[i].key {
				break
			}
			c[p], c[i] = c[i], c[p]
			i = p
		}
		b.c = c
		return
	}
	if x.key >= c[0].key {
		return
	}
	c[0] = x
	for i := 0; ; {
		w, l, r := i, 2*i+1, 2*i+2
		if l < len(c) && c[w].key < c[l].key {
			w = l
		}
		if r < len(c) && c[w].key < c[r].key {
			w = r
		}
		if w == i {
			return
		}
		c[i], c[w] = c[w], c[i]
		i = w
	}
}

// finish brings the candidates into distance order and keeps the k best.
// sorted false skips the sort where the caller does not need the order
// and every candidate is kept (k = MaxInt).
func (b *kbest) finish(sorted bool) {
	if b.mode == kbInsert || (b.mode == kbAll && !sorted) {
		return
	}
	slices.SortFunc(b.c, cmpKent)
}

// offerRange offers kb the points lo..hi-1 of the sorted arrays xs, ys, zs
// (original indices in perm) whose squared distance from (x, y, z) is at
// most lim, except position self, and returns the limit for what follows:
// lim, or less once kb holds k candidates. It branches on the distance
// test, which suits the kd-tree: its leaves are visited nearest first, so
// most of a later leaf's points fail the test, predictably. (The grid
// gathers without branching instead: gatherKeys.)
func offerRange(kb *kbest, xs, ys, zs []float32, perm []int32, lo, hi int32, x, y, z float32, self int32, lim float32) float32 {
	xs = xs[lo:hi]
	ys, zs = ys[lo:hi], zs[lo:hi]
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	for j, px := range xs {
		dx, dy, dz := px-x, ys[j]-y, zs[j]-z
		d2 := dx*dx + dy*dy + dz*dz
		if d2 > lim {
			continue
		}
		pos := lo + int32(j)
		if pos == self {
			continue
		}
		kb.add(kent{kentKey(d2, perm[pos]), pos})
		if kb.full() {
			lim = min(lim, kb.worstSq())
		}
	}
	return lim
}

// storeKNearest writes the candidates of b into one query's KNearest slots,
// padding with -1 and +Inf.
func storeKNearest(b []kent, idx []int32, dist []float32) {
	for j := range idx {
		if j < len(b) {
			idx[j] = b[j].idx()
			if dist != nil {
				dist[j] = sqrt32(b[j].d2())
			}
			continue
		}
		idx[j] = -1
		if dist != nil {
			dist[j] = float32(math.Inf(1))
		}
	}
}

func sqrt32(v float32) float32 { return float32(math.Sqrt(float64(v))) }

// moment accumulates the offsets from query (qx, qy, qz) to the indexed
// points listed in nb.
func moment(xyz []float32, qx, qy, qz float32, nb []kent) Moment {
	var m Moment
	for _, c := range nb {
		px, py, pz := point(xyz, int(c.idx()))
		m.AddNearest(px, py, pz, qx, qy, qz, sqrt32(c.d2()))
	}
	return m
}

// fillCSR writes one query's list into the CSR slots at off: the Cap
// nearest (already in b, sorted by distance) in index order unless sorted.
func fillCSR(csr *CSR, off int64, b []kent, sorted bool) {
	if !sorted {
		slices.SortFunc(b, func(x, y kent) int { return int(x.idx()) - int(y.idx()) })
	}
	for j, c := range b {
		csr.Indices[off+int64(j)] = c.idx()
		if csr.Dist != nil {
			csr.Dist[off+int64(j)] = sqrt32(c.d2())
		}
	}
}

// newCSR sizes a CSR from per-query entry counts, failing with ErrTooLarge
// when the total exceeds maxEntries (> 0) before allocating the lists.
func newCSR(counts []uint32, opts NeighborOptions) (*CSR, error) {
	off := make([]int64, len(counts)+1)
	var capped []bool
	if opts.Cap > 0 {
		capped = make([]bool, len(counts))
	}
	var total int64
	for i, c := range counts {
		if opts.Cap > 0 && int(c) > opts.Cap {
			c = uint32(opts.Cap)
			capped[i] = true
		}
		total += int64(c)
		off[i+1] = total
	}
	if opts.MaxEntries > 0 && total > opts.MaxEntries {
		return nil, fmt.Errorf("%w: %d entries, limit %d", ErrTooLarge, total, opts.MaxEntries)
	}
	if total > math.MaxInt {
		return nil, fmt.Errorf("%w: %d entries", ErrTooLarge, total)
	}
	csr := &CSR{Offsets: off, Indices: make([]int32, total), Capped: capped}
	if opts.WithDist {
		csr.Dist = make([]float32, total)
	}
	return csr, nil
}

// unionFind is a disjoint-set forest over point indices whose roots are
// always the smallest index of their set (a union links the larger root
// under the smaller). Its operations are safe for concurrent use: links are
// made by compare-and-swap on a root, so concurrent unions never lose a link.
type unionFind []atomic.Int32

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i].Store(int32(i))
	}
	return u
}

// find returns the root of i, halving the path on the way.
func (u unionFind) find(i int32) int32 {
	for {
		p := u[i].Load()
		if p == i {
			return i
		}
		gp := u[p].Load()
		if gp != p {
			u[i].CompareAndSwap(p, gp)
		}
		i = p
	}
}

// union merges the sets of a and b.
func (u unionFind) union(a, b int32) {
	for {
		a, b = u.find(a), u.find(b)
		if a == b {
			return
		}
		if a < b {
			a, b = b, a
		}
		// a is the larger root: hang it under b, unless another union
		// re-parented it meanwhile (then retry from the new roots).
		if u[a].CompareAndSwap(a, b) {
			return
		}
	}
}
