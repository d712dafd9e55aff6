package cuda

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/pctk/pctk/primitives/findneighbor"
	rt "github.com/pctk/pctk/rt/cuda"
)

// Name is the backend's registered name.
const Name = "cuda"

// Priority is the backend's priority for "auto" when a GPU is usable: above
// the CPU backend's, so auto picks the GPU where one works.
const Priority = 50

// MinDriverCUDA is the oldest driver, as the CUDA version it reports
// (cuDriverGetVersion), that accepts the embedded PTX: nvcc 13.0 writes PTX
// ISA 9.0, which drivers of the CUDA 13.0 release (r580) and later load.
const MinDriverCUDA = 13000

// MinCompute is the oldest GPU architecture the PTX targets (compute_75,
// Turing), as major*10+minor.
const MinCompute = 75

func init() { findneighbor.Register(Backend()) }

// Backend returns the "cuda" backend.
func Backend() findneighbor.Backend { return backend{} }

type backend struct{}

func (backend) Name() string { return Name }

var (
	probeOnce sync.Once
	probeInfo findneighbor.Info
	probeErr  error
)

// Probe reports the driver version, GPU, compute capability and memory; it
// fails (wrapping findneighbor.ErrUnavailable) without a driver, without a
// GPU, with a driver older than MinDriverCUDA or a GPU older than Turing.
// The answer is computed once.
func (backend) Probe() (findneighbor.Info, error) {
	probeOnce.Do(func() { probeInfo, probeErr = probe() })
	return probeInfo, probeErr
}

func probe() (findneighbor.Info, error) {
	info := findneighbor.Info{Name: Name, Details: map[string]string{}}
	unavailable := func(err error) (findneighbor.Info, error) {
		info.Details["reason"] = err.Error()
		return info, fmt.Errorf("%w: %v", findneighbor.ErrUnavailable, err)
	}
	v, err := rt.DriverVersion()
	if err != nil {
		return unavailable(err)
	}
	info.Details["driver"] = "CUDA " + rt.FormatVersion(v)
	devs, err := rt.Devices()
	if err != nil {
		return unavailable(err)
	}
	d := devs[0]
	info.Device = d.Name
	info.Details["gpu"] = d.Name
	info.Details["compute capability"] = d.Capability()
	info.Details["memory"] = fmt.Sprintf("%.1f GiB", float64(d.TotalMem)/(1<<30))
	info.Details["multiprocessors"] = fmt.Sprint(d.Multiprocessors)
	if len(devs) > 1 {
		info.Details["gpus"] = fmt.Sprintf("%d (pctk uses GPU 0)", len(devs))
	}
	if v < MinDriverCUDA {
		return unavailable(fmt.Errorf("the driver supports CUDA %s; the cuda backend's PTX needs CUDA %s (driver r580 or later)",
			rt.FormatVersion(v), rt.FormatVersion(MinDriverCUDA)))
	}
	if d.Major*10+d.Minor < MinCompute {
		return unavailable(fmt.Errorf("%s has compute capability %s; the cuda backend needs 7.5 (Turing) or later", d.Name, d.Capability()))
	}
	info.Priority = Priority
	return info, nil
}

// Build indexes xyz on GPU 0. See the package documentation for what runs
// where.
func (b backend) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	if len(xyz)%3 != 0 {
		return nil, fmt.Errorf("cuda backend: %d coordinates is not a multiple of 3", len(xyz))
	}
	n := len(xyz) / 3
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("cuda backend: %d points exceed the int32 index range", n)
	}
	if !(eps >= 0) {
		return nil, fmt.Errorf("cuda backend: ε = %g, want ≥ 0", eps)
	}
	if math.IsInf(float64(eps), 1) || n == 0 {
		return hostBuild(xyz, eps, opts)
	}
	dev, err := ready()
	if err != nil {
		return nil, err
	}
	ctx := dev.ctx
	ix := &index{ctx: ctx, k: dev.k, st: dev.st, n: n, eps: eps, workers: opts.Workers}
	if err := ctx.Do(func(t *rt.Thread) error { return ix.build(t, xyz) }); err != nil {
		ctx.Do(ix.free)
		if errors.Is(err, rt.ErrOutOfMemory) {
			return nil, fmt.Errorf("cuda backend: building the index of %d points: %w (use the cpu backend for clouds this large on this GPU)", n, err)
		}
		return nil, err
	}
	if opts.Progress != nil {
		opts.Progress(1)
	}
	return ix, nil
}

// hostBuild serves ε = +Inf, where a grid prunes nothing, and the empty
// cloud: the CPU backend's index.
func hostBuild(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	return findneighbor.CPU().Build(xyz, eps, opts)
}

// MaxPriority is Priority, the priority Probe reports when the GPU is
// usable, known without probing (findneighbor.PriorityBound).
func (backend) MaxPriority() int { return Priority }
