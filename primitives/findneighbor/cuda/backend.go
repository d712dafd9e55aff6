package cuda

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
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

// Backend returns the "cuda" backend: GPU 0 (the first of those
// CUDA_VISIBLE_DEVICES leaves visible), On(0).
func Backend() findneighbor.Backend { return On(0) }

// On returns the cuda backend on GPU ordinal (0 to Devices()-1, numbered
// as the driver numbers the GPUs CUDA_VISIBLE_DEVICES leaves visible), with
// its own context, kernels and staging buffers, started in the background
// by its Start method or at its first Build. Its name is "cuda" too: tiled
// runs spread their tiles over several (primitives/tile's Pool, pctk's
// --gpus). An ordinal no GPU has makes Probe and Build fail.
func On(ordinal int) findneighbor.Backend { return backend{d: deviceOn(ordinal)} }

// Devices returns the number of GPUs the driver makes visible (after
// CUDA_VISIBLE_DEVICES), 0 without a driver or a usable GPU 0.
func Devices() int {
	if _, err := Backend().Probe(); err != nil {
		return 0
	}
	devs, err := rt.Devices()
	if err != nil {
		return 0
	}
	return len(devs)
}

// backend is the cuda backend on one GPU; frame, when not nil, is the
// whole run its grids are laid out for (InFrame).
type backend struct {
	d     *device
	frame *findneighbor.Frame
}

// InFrame returns the backend laying its grids out as for the whole run f
// (f.Points > 0; else as for the points indexed).
func (b backend) InFrame(f findneighbor.Frame) findneighbor.Backend {
	return backend{b.d, &f}
}

func (backend) Name() string { return Name }

var _ findneighbor.DeviceTimer = backend{}

// DeviceTime returns the device time of every index built on the backend's
// device so far: their builds and queries, copies included
// (findneighbor.DeviceTimer).
func (b backend) DeviceTime() time.Duration { return time.Duration(b.d.busy.Load()) }

// Probe reports the driver version, GPU, compute capability and memory; it
// fails (wrapping findneighbor.ErrUnavailable) without a driver, without
// the backend's GPU, with a driver older than MinDriverCUDA or a GPU older
// than Turing. The answer is computed once per GPU.
func (b backend) Probe() (findneighbor.Info, error) { return b.d.probe() }

func (d *device) probe() (findneighbor.Info, error) {
	d.probeOnce.Do(func() { d.info, d.probeErr = probe(d.ordinal) })
	return d.info, d.probeErr
}

func probe(ordinal int) (findneighbor.Info, error) {
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
	if ordinal < 0 || ordinal >= len(devs) {
		return unavailable(fmt.Errorf("no GPU %d: the driver sees %d (CUDA_VISIBLE_DEVICES chooses which)", ordinal, len(devs)))
	}
	d := devs[ordinal]
	info.Device = d.Name
	info.Details["gpu"] = d.Name
	info.Details["compute capability"] = d.Capability()
	info.Details["memory"] = fmt.Sprintf("%.1f GiB", float64(d.TotalMem)/(1<<30))
	info.Details["multiprocessors"] = fmt.Sprint(d.Multiprocessors)
	if len(devs) > 1 {
		info.Details["gpus"] = fmt.Sprintf("%d (pctk uses GPU %d; tiled runs use all, --gpus)", len(devs), ordinal)
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

// Build indexes xyz on the backend's GPU. See the package documentation
// for what runs where.
func (b backend) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	if err := findneighbor.CheckBuild(pkg, xyz, eps); err != nil {
		return nil, err
	}
	n := len(xyz) / 3
	if math.IsInf(float64(eps), 1) || n == 0 {
		return hostBuild(xyz, eps, opts)
	}
	dev, err := b.d.ready()
	if err != nil {
		return nil, err
	}
	ctx := dev.ctx
	ix := &index{ctx: ctx, k: dev.k, st: dev.st, n: n, eps: eps, workers: opts.Workers, busy: &b.d.busy}
	if err := ctx.Do(func(t *rt.Thread) error { return ix.build(t, xyz, b.frame) }); err != nil {
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
	return cpu.Backend().Build(xyz, eps, opts)
}

// MaxPriority is Priority, the priority Probe reports when the GPU is
// usable, known without probing (findneighbor.PriorityBound).
func (backend) MaxPriority() int { return Priority }
