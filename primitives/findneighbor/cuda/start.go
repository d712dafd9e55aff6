package cuda

import (
	"sync"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor"
	rt "github.com/pctk/pctk/rt/cuda"
)

// device is one GPU as the backend uses it: its context, the loaded
// kernels and the pinned staging buffers every index's large copies go
// through (nil when pinned memory could not be had: copies are then
// direct), started once, in the background.
type device struct {
	ordinal int
	// context returns the device's context: the process-wide one of the
	// ordinal (rt.Shared), or in tests one of its own.
	context func() (*rt.Context, error)

	probeOnce sync.Once
	info      findneighbor.Info
	probeErr  error

	startOnce sync.Once
	done      chan struct{} // closed once started (or failed)
	ctx       *rt.Context
	k         *kernels
	st        *rt.Stager
	err       error
	times     StartTimes
}

func newDevice(ordinal int, context func() (*rt.Context, error)) *device {
	return &device{ordinal: ordinal, context: context, done: make(chan struct{})}
}

// devices holds the device of each ordinal that a backend named (deviceOn).
var devices struct {
	mu sync.Mutex
	m  map[int]*device
}

// deviceOn returns the device of GPU ordinal, on the ordinal's shared
// context; nothing is started.
func deviceOn(ordinal int) *device {
	devices.mu.Lock()
	defer devices.mu.Unlock()
	if devices.m == nil {
		devices.m = map[int]*device{}
	}
	d := devices.m[ordinal]
	if d == nil {
		d = newDevice(ordinal, func() (*rt.Context, error) { return rt.Shared(ordinal) })
		devices.m[ordinal] = d
	}
	return d
}

// StartTimes are the wall times of the GPU's start-up steps, for reports.
type StartTimes struct {
	// Driver is opening libcuda, cuInit and the device query (Probe).
	Driver time.Duration
	// Context is retaining the primary context and starting its thread.
	Context time.Duration
	// Module is loading the kernels (a cubin of the fatbin, or the PTX
	// compiled by the driver).
	Module time.Duration
	// Staging is allocating the pinned staging buffers.
	Staging time.Duration
	// Total is the whole start-up, from Start to ready.
	Total time.Duration
	// Image says which code was loaded: the fatbin, or the PTX for a GPU
	// the fatbin has no machine code for.
	Image string
}

// Start begins starting GPU 0 in the background: the driver, the context,
// the kernels and the staging buffers, which together take a noticeable
// fraction of a second. Commands call it before reading their input, so
// that the start-up overlaps the read; Build waits for it to finish.
// Calling it again does nothing.
func Start() { deviceOn(0).start() }

// Start is the backend's hook for callers that know they will build an
// index soon: it starts the backend's GPU as the package function Start
// starts GPU 0.
func (b backend) Start() { b.d.start() }

func (d *device) start() {
	d.startOnce.Do(func() {
		go func() {
			defer close(d.done)
			d.err = d.startUp()
		}()
	})
}

// ready starts the GPU if needed and waits until it is started.
func (d *device) ready() error {
	d.start()
	<-d.done
	return d.err
}

// Started reports the start-up's step times of GPU 0, waiting for it to
// finish; ok is false when the GPU could not be started.
func Started() (st StartTimes, ok bool) {
	d := deviceOn(0)
	err := d.ready()
	return d.times, err == nil
}

func (d *device) startUp() error {
	t0 := time.Now()
	defer func() { d.times.Total = time.Since(t0) }()
	if _, err := d.probe(); err != nil {
		return err
	}
	t1 := time.Now()
	d.times.Driver = t1.Sub(t0)
	ctx, err := d.context()
	if err != nil {
		return err
	}
	t2 := time.Now()
	d.times.Context = t2.Sub(t1)
	d.ctx = ctx
	return ctx.Do(func(t *rt.Thread) error {
		k, image, err := loadKernels(t)
		if err != nil {
			return err
		}
		d.k, d.times.Image = k, image
		t3 := time.Now()
		d.times.Module = t3.Sub(t2)
		// Pinned memory is an optimisation: without it copies are direct.
		d.st, _ = t.NewStager(rt.DefaultStageChunk)
		d.times.Staging = time.Since(t3)
		return nil
	})
}
