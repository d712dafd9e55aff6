package main

import (
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cuda"
	"github.com/pctk/pctk/primitives/tile"
	"github.com/urfave/cli/v2"
)

// gpusFlag is --gpus of the tiled filters (runner.go).
var gpusFlag = &cli.IntFlag{Name: "gpus", Usage: "with --backend cuda, run the tiles of --tile-size, --max-memory and tile collections on `N` GPUs at once, one tile per GPU at a time (0: every GPU CUDA_VISIBLE_DEVICES leaves visible); the same output on any number (docs/scale.md)"}

// gpuBackends returns the backends of a tiled run on n GPUs (n <= 0:
// all) whose first is b, and the GPUs visible; tests replace it to spread
// tiles over other backends.
var gpuBackends = func(b findneighbor.Backend, n int) ([]findneighbor.Backend, int) {
	visible := cuda.Devices()
	if n <= 0 {
		n = visible
	}
	if n > visible {
		return nil, visible
	}
	bs := []findneighbor.Backend{b}
	for i := 1; i < n; i++ {
		bs = append(bs, cuda.On(i))
	}
	return bs, visible
}

// spread returns the backend of a tiled run on b: for the cuda backend, a
// tile.Spread over --gpus GPUs (b on GPU 0, cuda.On(i) on the others,
// started at once), so that tiles run on every GPU; b for other backends.
func (s *step) spread(b findneighbor.Backend) (findneighbor.Backend, error) {
	if b.Name() != cuda.Name {
		return b, nil
	}
	bs, visible := gpuBackends(b, s.gpus)
	if bs == nil {
		return nil, usagef("--gpus %d: only %s visible (CUDA_VISIBLE_DEVICES chooses which)", s.gpus, count(visible, "GPU"))
	}
	for _, w := range bs[1:] {
		if st, ok := w.(starter); ok {
			st.Start()
		}
	}
	if len(bs) > 1 {
		debugf("tiles on %d GPUs", len(bs))
	}
	return tile.Spread(bs...), nil
}
