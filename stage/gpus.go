package stage

import (
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cuda"
	"github.com/pctk/pctk/primitives/tile"
)

// GPUsOption is --gpus of the tiled filters (runner.go).
var GPUsOption = &Option{Kind: Int, Name: "gpus", Usage: "with --backend cuda (or auto on a GPU), the number of GPUs `N` that run the tiles of --tile-size, --max-memory and tile collections at once, a tile per GPU at a time (0: every usable GPU of those CUDA_VISIBLE_DEVICES leaves visible); the same output on any number (docs/scale.md)"}

// GPUBackends returns the backends over which a tiled run on b spreads
// its tiles for --gpus n (0: all usable), b first: for the cuda backend b
// and cuda.On(i) for the next usable GPUs (a GPU the backend cannot use,
// too old say, is left out), for other backends b alone. Tests replace it
// to spread tiles over other backends.
var GPUBackends = func(b findneighbor.Backend, n int) ([]findneighbor.Backend, error) {
	if b.Name() != cuda.Name {
		return []findneighbor.Backend{b}, nil
	}
	bs := []findneighbor.Backend{b}
	for i := 1; i < cuda.Devices() && (n == 0 || len(bs) < n); i++ {
		if g := cuda.On(i); probes(g) {
			bs = append(bs, g)
		}
	}
	if n > len(bs) {
		return nil, Usagef("--gpus %d: only %s usable here (CUDA_VISIBLE_DEVICES chooses which)", n, Count(len(bs), "GPU"))
	}
	return bs, nil
}

// probes reports whether b can run here.
func probes(b findneighbor.Backend) bool {
	_, err := b.Probe()
	return err == nil
}

// pool returns the backend of a tiled run on b: a tile.Pool over the
// backends of --gpus (GPUBackends), whose devices it starts at once, so
// that the tiles run on every GPU; b itself when that is one backend.
func (s *step) pool(b findneighbor.Backend) (findneighbor.Backend, error) {
	bs, err := GPUBackends(b, s.gpus)
	if err != nil {
		return nil, err
	}
	for _, w := range bs[1:] {
		if st, ok := w.(starter); ok {
			st.Start()
		}
	}
	if len(bs) > 1 {
		msg.Debugf("tiles on %d backends (--gpus)", len(bs))
	}
	return tile.Pool(bs...), nil
}
