package tile

import (
	"runtime"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// Share returns the backend to run n tiles on with b and the given
// workers (0: GOMAXPROCS) through Each. For a backend that computes on
// the host's cores (findneighbor.OnHost: cpu, brute) and several tiles, it
// is a Pool of min(workers, n) stand-ins for b, each building its
// indexes with its share of the workers, so that Each runs that many
// tiles at once: with many tiles every tile runs on one worker, its index,
// counts and union-find free of the synchronisation that one small tile
// spread over every core pays, and the cores stay busy (docs/scale.md has
// the profile). Otherwise it is b: a GPU backend runs one tile at a time,
// a Pool of GPUs one per GPU.
//
// Several tiles at once hold several tiles' indexes at once: at most one
// per worker, and Each keeps at most two tiles' results per worker.
func Share(b findneighbor.Backend, workers, n int) findneighbor.Backend {
	if !findneighbor.OnHost(b) {
		return b
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	atOnce := min(workers, n)
	if atOnce <= 1 {
		return b
	}
	bs := make([]findneighbor.Backend, atOnce)
	for i := range bs {
		bs[i] = shared{b, workers / atOnce}
	}
	return Pool(bs...)
}

// shared is b building its indexes with workers workers, whatever its
// callers ask: one of Share's stand-ins.
type shared struct {
	findneighbor.Backend
	workers int
}

// InFrame frames the backend the stand-in stands for (findneighbor.Framer).
func (s shared) InFrame(f findneighbor.Frame) findneighbor.Backend {
	return shared{findneighbor.InFrame(s.Backend, f), s.workers}
}

// Unwrap returns the backend the stand-in stands for
// (findneighbor.Wrapper).
func (s shared) Unwrap() findneighbor.Backend { return s.Backend }

func (s shared) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	opts.Workers = s.workers
	return s.Backend.Build(xyz, eps, opts)
}
