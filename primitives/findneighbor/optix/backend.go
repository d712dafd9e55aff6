package optix

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
	"github.com/pctk/pctk/rt/cuda"
	rt "github.com/pctk/pctk/rt/optix"
)

// Priorities for findneighbor.Auto. The cuda grid backend registers 50. On
// the H200 (no RT cores) the grid counted neighbours 20-35x faster than
// OptiX, so OptiX stays below it; with RT cores it moves up, still below
// cuda until a measurement on an RTX GPU shows OptiX faster there
// (docs/optix.md).
const (
	priorityNoRTCores = 40
	priorityRTCores   = 45
)

func init() {
	findneighbor.Register(New(Config{}))
	findneighbor.Register(New(Config{Spheres: true}))
}

// Config chooses a variant of the backend.
type Config struct {
	// Spheres uses OptiX built-in spheres and an any-hit program instead of
	// custom AABB primitives and an intersection program.
	Spheres bool
	// Unsorted launches the rays in the callers' query order instead of
	// along a Morton curve (for measurements: sorted is about twice as fast).
	Unsorted bool
}

// Backend is the OptiX findneighbor backend.
type Backend struct {
	cfg       Config
	probeOnce sync.Once
	info      findneighbor.Info
	probeErr  error
}

// New returns an OptiX backend with the configuration cfg. The registered
// ones are "optix" (custom primitives) and "optix-sphere" (built-in spheres),
// both with sorted queries.
func New(cfg Config) *Backend { return &Backend{cfg: cfg} }

// Name returns "optix" or "optix-sphere", with "-unsorted" appended when
// the queries keep the callers' order.
func (b *Backend) Name() string {
	n := "optix"
	if b.cfg.Spheres {
		n += "-sphere"
	}
	if b.cfg.Unsorted {
		n += "-unsorted"
	}
	return n
}

// MaxPriority is the highest priority Probe reports (with RT cores), known
// without probing (findneighbor.PriorityBound): "auto" leaves OptiX
// unprobed when the cuda backend, which ranks above it, is usable.
func (b *Backend) MaxPriority() int { return priorityRTCores }

// Probe checks what OptiX needs without starting it: the CUDA driver and a
// GPU (cuInit, the device query), and libnvoptix.so.1 offering the ABI
// this package speaks (optixQueryFunctionTable). It reports the GPU, the
// driver and the ABI. Starting OptiX (a CUDA context and OptiX's device
// context: 0.2-0.25 s on the H200) is left to the first Build, or to
// ProbeDevice, which reads the RT-core version: until then the priority is
// the one without RT cores, which ranks OptiX below the cuda backend
// either way, and Details say the RT cores were not checked. A device
// context OptiX then refuses fails that Build.
func (b *Backend) Probe() (findneighbor.Info, error) {
	b.probeOnce.Do(func() { b.info, b.probeErr = b.probe() })
	return b.info, b.probeErr
}

// ProbeDevice is Probe with OptiX started: it creates OptiX's device
// context on GPU 0 (what Build would) and reports its RT-core version, with
// the priority that follows from it.
func (b *Backend) ProbeDevice() (findneighbor.Info, error) {
	info, err := b.Probe()
	if err != nil {
		return info, err
	}
	e, err := getEngine(b.cfg.Spheres)
	if err != nil {
		return info, fmt.Errorf("%w: %w", findneighbor.ErrUnavailable, err)
	}
	info.Details = maps.Clone(info.Details)
	rtcore := e.dc.RTCoreVersion()
	info.Details["rt cores"] = strconv.Itoa(int(rtcore))
	if rtcore == 0 {
		info.Details["rt cores"] = "0 (none: OptiX traverses in software here)"
	}
	info.Priority = b.priority(rtcore > 0)
	return info, nil
}

func (b *Backend) probe() (findneighbor.Info, error) {
	info := findneighbor.Info{Name: b.Name(), Details: map[string]string{}}
	devs, err := cuda.Devices()
	if err == nil {
		err = rt.Load()
	}
	if err != nil {
		return info, fmt.Errorf("%w: %w", findneighbor.ErrUnavailable, err)
	}
	info.Device = devs[0].Name
	if v, err := cuda.DriverVersion(); err == nil {
		info.Details["cuda driver"] = cuda.FormatVersion(v)
	}
	info.Details["optix abi"] = strconv.Itoa(rt.ABIVersion) + " (OptiX 7.5)"
	info.Details["rt cores"] = fmt.Sprintf("not checked (OptiX not started; pctk backends --full reads them; priority %d with RT cores)", b.priority(true))
	prim := "custom AABB primitives"
	if b.cfg.Spheres {
		prim = "built-in spheres"
	}
	info.Details["primitives"] = prim
	info.Priority = b.priority(false)
	return info, nil
}

// priority is the variant's priority for auto with or without RT cores.
func (b *Backend) priority(rtCores bool) int {
	p := priorityNoRTCores
	if rtCores {
		p = priorityRTCores
	}
	if b.cfg.Spheres {
		p--
	}
	if b.cfg.Unsorted {
		p -= 2
	}
	return p
}

// Build orders the points along a Morton curve, uploads them and builds the
// GAS. ε = +Inf (plain k nearest neighbours) has no finite primitives: such
// an index is the cpu backend's (its kd-tree), as in the cuda backend;
// findneighbor.KNearestAdaptive keeps plain kNN on the GPU instead.
func (b *Backend) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	if err := findneighbor.CheckBuild(pkg, xyz, eps); err != nil {
		return nil, err
	}
	if math.IsInf(float64(eps), 1) {
		return cpu.Backend().Build(xyz, eps, opts)
	}
	e, err := getEngine(b.cfg.Spheres)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", findneighbor.ErrUnavailable, err)
	}
	if err := e.ready(); err != nil {
		return nil, fmt.Errorf("optix: building the pipeline: %w", err)
	}
	n := len(xyz) / 3
	if maxPrims := e.dc.MaxPrimitivesPerGAS(); uint64(n) > uint64(maxPrims) {
		return nil, fmt.Errorf("optix: %d points exceed this GPU's %d primitives per GAS", n, maxPrims)
	}
	ix := &Index{eng: e, cfg: b.cfg, n: n, eps: eps, eps2: eps * eps}
	if n == 0 {
		return ix, nil
	}
	t0 := time.Now()
	ix.order = mortonOrder(xyz)
	sorted := gather(xyz, ix.order)
	ix.radius = paddedRadius(xyz, eps)
	ix.stats.Order = time.Since(t0)
	err = e.ctx.Do(func(t *cuda.Thread) error {
		t1 := time.Now()
		var err error
		if ix.pts, err = ix.allocs.Alloc(t, uint64(len(sorted))*4); err != nil {
			return err
		}
		if ix.orig, err = ix.allocs.Alloc(t, uint64(n)*4); err != nil {
			return err
		}
		if err := cuda.Upload(t, ix.pts, sorted, e.stream); err != nil {
			return err
		}
		if err := cuda.Upload(t, ix.orig, ix.order, e.stream); err != nil {
			return err
		}
		if err := t.StreamSync(e.stream); err != nil {
			return err
		}
		ix.stats.Upload = time.Since(t1)
		return ix.buildGAS(t)
	})
	if err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}
