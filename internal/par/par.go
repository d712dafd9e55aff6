// Package par runs loops over ranges of indices on all cores, with results
// that do not depend on the number of cores: each range keeps its own
// result, merged in order by the caller.
package par

import (
	"runtime"
	"sync"
)

// Grain is a good least range size for light per-item work (a few
// nanoseconds an item): below it, a goroutine costs more than it saves.
const Grain = 1 << 16

// Ranges cuts [0, n) into consecutive ranges of at least grain items,
// about four per core (a single range for small n).
func Ranges(n, grain int) [][2]int {
	procs := runtime.GOMAXPROCS(0)
	size := max(grain, (n+4*procs-1)/(4*procs), 1)
	var rs [][2]int
	for lo := 0; lo < n || lo == 0; lo += size {
		rs = append(rs, [2]int{lo, min(lo+size, n)})
	}
	return rs
}

// For calls fn(i, lo, hi) for every range i of rs, on up to
// GOMAXPROCS goroutines (on the caller's alone for a single range).
// Callers keep a result per range and merge them in order, so results do
// not depend on the number of cores.
func For(rs [][2]int, fn func(i, lo, hi int)) {
	if len(rs) == 1 {
		fn(0, rs[0][0], rs[0][1])
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range min(runtime.GOMAXPROCS(0), len(rs)) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(rs) {
					return
				}
				fn(i, rs[i][0], rs[i][1])
			}
		})
	}
	wg.Wait()
}

// Each calls fn(i) for every i in [0, n), on up to GOMAXPROCS goroutines
// (on the caller's alone when n is 1; not at all when n is 0): for a few
// large pieces of work, one an item, each keeping its own result.
func Each(n int, fn func(i int)) {
	if n == 0 {
		return
	}
	For(Ranges(n, 1), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			fn(i)
		}
	})
}

// First returns the lowest index in [0, n) that find reports, or -1:
// find(lo, hi) scans [lo, hi) and returns the first index it is looking
// for there, or -1. Ranges of Grain items at least are scanned on all
// cores; the answer is that of one scan from 0.
func First(n int, find func(lo, hi int) int) int {
	rs := Ranges(n, Grain)
	found := make([]int, len(rs))
	For(rs, func(r, lo, hi int) { found[r] = find(lo, hi) })
	for _, i := range found {
		if i >= 0 {
			return i
		}
	}
	return -1
}

// Copy copies src into dst, as the built-in copy does, on all cores,
// Grain items at least a range: a fresh destination's page faults and the
// copy itself, which take one core about a second for a few GiB, are
// spread over all of them. It returns the number of items copied.
func Copy[T any](dst, src []T) int {
	n := min(len(dst), len(src))
	For(Ranges(n, Grain), func(_, lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
	return n
}

// Clone returns a copy of s made by Copy; nil for nil.
func Clone[T any](s []T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	Copy(out, s)
	return out
}
