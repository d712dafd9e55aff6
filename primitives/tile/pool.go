package tile

import (
	"sync"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// Pool returns a backend that stands for the backends bs (one per GPU,
// say; at least one): for everything but the tiles of a tiled run it is
// bs[0] (its Name, Probe and Build), and tiled runs (Each, and through it
// every driver of this package and the algorithms' tiled runs) compute
// their tiles on all of them at once, one worker per backend. The backends
// must give the same answers (one backend kind on several devices), so
// that a tile's result does not depend on where it ran.
func Pool(bs ...findneighbor.Backend) findneighbor.Backend {
	if len(bs) == 1 {
		return bs[0]
	}
	return pool(bs)
}

// pool is Pool's backend.
type pool []findneighbor.Backend

func (s pool) Name() string                      { return s[0].Name() }
func (s pool) Probe() (findneighbor.Info, error) { return s[0].Probe() }
func (s pool) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	return s[0].Build(xyz, eps, opts)
}

// InFrame frames every backend of the pool (findneighbor.Framer).
func (s pool) InFrame(f findneighbor.Frame) findneighbor.Backend {
	bs := make(pool, len(s))
	for i, b := range s {
		bs[i] = findneighbor.InFrame(b, f)
	}
	return bs
}

// Backends returns the backends b stands for: those of a Pool, else b.
func Backends(b findneighbor.Backend) []findneighbor.Backend {
	if s, ok := b.(pool); ok {
		return s
	}
	return []findneighbor.Backend{b}
}

// InMemory returns the most tiles Each holds at once on b (running or
// waiting for their merge): one on a single backend, two per worker on a
// Pool of several. Out of core, a tile's share of the memory budget is
// the budget over this.
func InMemory(b findneighbor.Backend) int {
	if n := len(Backends(b)); n > 1 {
		return 2 * n
	}
	return 1
}

// Each runs the n tiles of a tiled run: work(w, k) computes tile k on the
// backend w, and merge(k, r) takes its result, in increasing order of k
// whatever order the works finish in, one call at a time, so that a run's
// merge sees the same sequence on any number of backends and its output
// is the same bytes. With a Pool of several backends (Backends), one
// worker per backend runs works concurrently (work must allow that: each
// tile's own data, shared data read only or locked), and at most two tiles
// per worker are running or waiting for their merge at once, which bounds
// the memory of results; otherwise the tiles run one after another on b.
// The first error in tile order (work's or merge's) ends the run, after the
// works already started have returned, and is returned: the error a run
// on one backend would return.
func Each[R any](b findneighbor.Backend, n int, work func(w findneighbor.Backend, k int) (R, error), merge func(k int, r R) error) error {
	bs := Backends(b)
	if len(bs) == 1 || n <= 1 {
		for k := range n {
			r, err := work(bs[0], k)
			if err == nil {
				err = merge(k, r)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	type outcome struct {
		r   R
		err error
	}
	done := make([]chan outcome, n) // tile k's outcome, sent once
	for k := range done {
		done[k] = make(chan outcome, 1)
	}
	next := make(chan int)
	stop := make(chan struct{})
	window := make(chan struct{}, InMemory(b)) // a token per tile not yet merged
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(next)
		for k := range n {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case next <- k:
			case <-stop:
				return
			}
		}
	})
	for _, w := range bs {
		wg.Go(func() {
			for k := range next {
				r, err := work(w, k)
				done[k] <- outcome{r, err}
			}
		})
	}
	var err error
	for k := range n {
		o := <-done[k]
		if err = o.err; err == nil {
			err = merge(k, o.r)
		}
		if err != nil {
			break
		}
		<-window
	}
	close(stop)
	wg.Wait()
	return err
}
