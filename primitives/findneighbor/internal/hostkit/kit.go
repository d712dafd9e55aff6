// Package hostkit holds what the backends that compute on the host's
// cores share: package findneighbor's brute force and generic fallbacks,
// and package cpu's grid and kd-tree. Parallel loops over index ranges,
// the k-best candidate keeper, the lock-free union-find of DBSCAN's second
// stage, and the grid layout with its stable spatial sort.
package hostkit

import (
	"cmp"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// ErrInfEps is returned by operations that would list every pair when the
// index was built with ε = +Inf.
var ErrInfEps = errors.New("findneighbor: ε is +Inf: only KNearest and Moments with k > 0 are defined")

// Workers returns the parallelism to use: w, or GOMAXPROCS when w ≤ 0.
func Workers(w int) int {
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return max(w, 1)
}

// Parallel runs fn over [0, n) in chunks on up to nw goroutines; fn gets
// the worker number (for per-worker scratch) and a half-open range. The
// first error stops the hand-out of further chunks and is returned.
// progress, when not nil, is called with the fraction of chunks done.
func Parallel(n, nw int, progress func(float64), fn func(w, lo, hi int) error) error {
	return ParallelChunks(n, max(16, n/(nw*32)), nw, progress, fn)
}

// ParallelChunks is Parallel with chunks of the given size: 1 for a few
// large work items, such as subtrees to build.
func ParallelChunks(n, chunk, nw int, progress func(float64), fn func(w, lo, hi int) error) error {
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

// Point returns the i-th triple of xyz.
func Point(xyz []float32, i int) (x, y, z float32) {
	p := xyz[3*i : 3*i+3 : 3*i+3]
	return p[0], p[1], p[2]
}

// Cand is a neighbour candidate: squared distance and original index.
type Cand struct {
	D2  float32
	Idx int32
}

// Before orders candidates by distance, ties by the smaller index.
func (a Cand) Before(b Cand) bool {
	return a.D2 < b.D2 || (a.D2 == b.D2 && a.Idx < b.Idx)
}

// Kent is a candidate kept by KBest: Key orders candidates by distance,
// ties by the smaller index, in ONE unsigned comparison (the float32 bits of
// the squared distance, never negative nor NaN, so ordered like the value,
// in the high half; the index in the low half); pos is the backend's own
// position of the point.
type Kent struct {
	Key uint64
	Pos int32
}

// KentKey is the key of a candidate at squared distance d2 with index idx.
func KentKey(d2 float32, idx int32) uint64 {
	return uint64(math.Float32bits(d2))<<32 | uint64(uint32(idx))
}

func (e Kent) D2() float32  { return math.Float32frombits(uint32(e.Key >> 32)) }
func (e Kent) Idx() int32   { return int32(uint32(e.Key)) }
func CmpKent(a, b Kent) int { return cmp.Compare(a.Key, b.Key) }

// KBest keeps the k best candidates seen so far. For a small k it keeps
// them sorted by insertion; for a larger k insertion would cost O(k) per
// candidate, so it keeps a max-heap (worst on top) and sorts in finish; for
// "all" (k = MaxInt) it collects every candidate and sorts once in finish.
// worstSq tells the caller the distance to beat in every mode.
type KBest struct {
	k    int
	mode int // kbInsert, kbHeap or kbAll
	C    []Kent
}

const (
	kbInsert = iota
	kbHeap
	kbAll
)

// kbestInsertMax is the largest k kept by insertion.
const kbestInsertMax = 32

func (b *KBest) Reset(k int) {
	b.k = k
	switch {
	case k == math.MaxInt:
		b.mode = kbAll
	case k > kbestInsertMax:
		b.mode = kbHeap
	default:
		b.mode = kbInsert
	}
	b.C = b.C[:0]
}

// Full reports whether k candidates are held, so that only candidates
// before the worst can still enter.
func (b *KBest) Full() bool { return b.mode != kbAll && len(b.C) >= b.k }

// WorstSq returns the squared distance a candidate must not exceed to
// enter: +Inf until k candidates are held.
func (b *KBest) WorstSq() float32 {
	switch {
	case !b.Full():
		return float32(math.Inf(1))
	case b.mode == kbHeap:
		return b.C[0].D2()
	}
	return b.C[len(b.C)-1].D2()
}

// Add offers a candidate.
func (b *KBest) Add(x Kent) {
	switch b.mode {
	case kbAll:
		b.C = append(b.C, x)
		return
	case kbHeap:
		b.push(x)
		return
	}
	c := b.C
	n := len(c)
	if n >= b.k {
		if b.k == 0 || x.Key >= c[n-1].Key {
			return
		}
		n-- // the last one drops out
	} else {
		c = append(c, x)
	}
	// Shift by hand: a copy call costs more than the few moves.
	i := n
	for i > 0 && x.Key < c[i-1].Key {
		c[i] = c[i-1]
		i--
	}
	c[i] = x
	b.C = c
}

// push adds x to the max-heap, replacing the worst when k are held.
func (b *KBest) push(x Kent) {
	c := b.C
	if len(c) < b.k {
		c = append(c, x)
		for i := len(c) - 1; i > 0; {
			p := (i - 1) / 2
			if c[p].Key >= c[i].Key {
				break
			}
			c[p], c[i] = c[i], c[p]
			i = p
		}
		b.C = c
		return
	}
	if x.Key >= c[0].Key {
		return
	}
	c[0] = x
	for i := 0; ; {
		w, l, r := i, 2*i+1, 2*i+2
		if l < len(c) && c[w].Key < c[l].Key {
			w = l
		}
		if r < len(c) && c[w].Key < c[r].Key {
			w = r
		}
		if w == i {
			return
		}
		c[i], c[w] = c[w], c[i]
		i = w
	}
}

// Finish brings the candidates into distance order and keeps the k best.
// sorted false skips the sort where the caller does not need the order
// and every candidate is kept (k = MaxInt).
func (b *KBest) Finish(sorted bool) {
	if b.mode == kbInsert || (b.mode == kbAll && !sorted) {
		return
	}
	slices.SortFunc(b.C, CmpKent)
}

// StoreKNearest writes the candidates of b into one query's KNearest slots,
// padding with -1 and +Inf.
func StoreKNearest(b []Kent, idx []int32, dist []float32) {
	for j := range idx {
		if j < len(b) {
			idx[j] = b[j].Idx()
			if dist != nil {
				dist[j] = Sqrt32(b[j].D2())
			}
			continue
		}
		idx[j] = -1
		if dist != nil {
			dist[j] = float32(math.Inf(1))
		}
	}
}

func Sqrt32(v float32) float32 { return float32(math.Sqrt(float64(v))) }

// FillList writes one query's list into a CSR's slots at off (indices,
// and dist unless nil): the Cap nearest (already in b, sorted by
// distance) in index order unless sorted.
func FillList(indices []int32, dist []float32, off int64, b []Kent, sorted bool) {
	if !sorted {
		slices.SortFunc(b, func(x, y Kent) int { return int(x.Idx()) - int(y.Idx()) })
	}
	for j, c := range b {
		indices[off+int64(j)] = c.Idx()
		if dist != nil {
			dist[off+int64(j)] = Sqrt32(c.D2())
		}
	}
}

// UnionFind is a disjoint-set forest over point indices whose roots are
// always the smallest index of their set (a union links the larger root
// under the smaller). Its operations are safe for concurrent use: links are
// made by compare-and-swap on a root, so concurrent unions never lose a link.
type UnionFind []atomic.Int32

func NewUnionFind(n int) UnionFind {
	u := make(UnionFind, n)
	for i := range u {
		u[i].Store(int32(i))
	}
	return u
}

// Find returns the root of i, halving the path on the way.
func (u UnionFind) Find(i int32) int32 {
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

// Union merges the sets of a and b.
func (u UnionFind) Union(a, b int32) {
	for {
		a, b = u.Find(a), u.Find(b)
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
