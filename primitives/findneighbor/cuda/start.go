package cuda

import (
	"sync"
	"time"

	rt "github.com/pctk/pctk/rt/cuda"
)

// device is the started GPU: the process-wide context, the loaded kernels
// and the pinned staging buffers every index's large copies go through (nil
// when pinned memory could not be had: copies are then direct).
type device struct {
	ctx *rt.Context
	k   *kernels
	st  *rt.Stager
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

var (
	startOnce  sync.Once
	startDone  = make(chan struct{})
	started    device
	startErr   error
	startTimes StartTimes
)

// Start begins starting the GPU in the background: the driver, the
// context, the kernels and the staging buffers, which together take a
// noticeable fraction of a second. Commands call it before reading their
// input, so that the start-up overlaps the read; Build waits for it to
// finish. Calling it again does nothing.
func Start() {
	startOnce.Do(func() {
		go func() {
			defer close(startDone)
			started, startErr = startDevice()
		}()
	})
}

// Start is the backend's hook for callers that know they will build an
// index soon (see the package function Start).
func (backend) Start() { Start() }

// ready starts the GPU if needed and waits until it is started.
func ready() (*device, error) {
	Start()
	<-startDone
	return &started, startErr
}

// Started reports the start-up's step times, waiting for it to finish; ok
// is false when the GPU could not be started.
func Started() (st StartTimes, ok bool) {
	_, err := ready()
	return startTimes, err == nil
}

func startDevice() (device, error) {
	var d device
	t0 := time.Now()
	defer func() { startTimes.Total = time.Since(t0) }()
	if _, err := Backend().Probe(); err != nil {
		return d, err
	}
	t1 := time.Now()
	startTimes.Driver = t1.Sub(t0)
	ctx, err := rt.Default()
	if err != nil {
		return d, err
	}
	t2 := time.Now()
	startTimes.Context = t2.Sub(t1)
	d.ctx = ctx
	err = ctx.Do(func(t *rt.Thread) error {
		k, err := loadKernels(t)
		if err != nil {
			return err
		}
		d.k = k
		t3 := time.Now()
		startTimes.Module = t3.Sub(t2)
		// Pinned memory is an optimisation: without it copies are direct.
		d.st, _ = t.NewStager(rt.DefaultStageChunk)
		startTimes.Staging = time.Since(t3)
		return nil
	})
	return d, err
}
