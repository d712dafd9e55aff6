package tile

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Each runs fn(i, w) for every work item i in [0, n) (a tile), several at
// a time: the workers (0: GOMAXPROCS) are shared out among up to that
// many items running at once, each call getting w of them for its own
// parallel pieces (w ≥ 1: the share to pass on as BuildOptions.Workers).
// With many tiles every tile runs on one worker: a tile's index, counts
// and union-find are then free of the synchronisation that one small tile
// spread over every core pays, and the cores stay busy. Items are handed
// out largest first (size(i), e.g. the tile's point count), so that the
// last to finish are small ones. fn must be safe to call from several
// goroutines at once, each call with an item of its own. The first error
// stops the hand-out and is returned; items already running finish.
//
// Several tiles at once hold several tiles' indexes at once: at most one
// per worker.
func Each(n, workers int, size func(i int) int, fn func(i, w int) error) error {
	if n == 0 {
		return nil
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	atOnce := min(workers, n)
	share := max(1, workers/atOnce)
	if atOnce == 1 {
		for i := range n {
			if err := fn(i, share); err != nil {
				return err
			}
		}
		return nil
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
	var next atomic.Int64
	var failed atomic.Bool
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for range atOnce {
		wg.Go(func() {
			for !failed.Load() {
				k := int(next.Add(1) - 1)
				if k >= n {
					return
				}
				if err := fn(order[k], share); err != nil {
					once.Do(func() { first = err })
					failed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}
