package cuda

import (
	"sync"
	"time"

	rt "github.com/pctk/pctk/rt/cuda"
)

// device is the started GPU: its context, the loaded kernels
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

// startup is one start of the GPU, from Start until Stop.
type startup struct {
	done  chan struct{} // closed once the start-up has finished
	d     device
	err   error
	times StartTimes
}

var (
	startMu sync.Mutex
	// current is the start-up in force: nil before Start and after Stop.
	current *startup
	// last is the latest start-up, kept after Stop for Started.
	last *startup
)

// Start begins starting the GPU in the background: the driver, a context
// on GPU 0, the kernels and the staging buffers, which together take a
// noticeable fraction of a second. Commands call it before reading their
// input, so that the start-up overlaps the read; Build waits for it to
// finish. Calling it again does nothing until Stop.
func Start() { start() }

func start() *startup {
	startMu.Lock()
	defer startMu.Unlock()
	if current == nil {
		s := &startup{done: make(chan struct{})}
		current, last = s, s
		go func() {
			defer close(s.done)
			s.d, s.err = startDevice(&s.times)
		}()
	}
	return current
}

// Stop releases the GPU that Start started: the staging buffers (pinned
// memory) and the context, with everything still allocated in it. It waits
// for a start-up under way first. A process that exits with a context
// alive has the driver tear it down in its exit, after the command's last
// output, where the user waits for it; a command calls Stop as soon as its
// device work is over, alongside writing its output, instead. Indexes
// built before Stop must not be used after it (their calls fail: the
// context is closed); a later Start or Build starts the GPU again. Stop
// without a start-up does nothing.
func Stop() {
	startMu.Lock()
	s := current
	current = nil
	startMu.Unlock()
	if s == nil {
		return
	}
	<-s.done
	if s.err != nil {
		return
	}
	if s.d.st != nil {
		s.d.ctx.Do(func(t *rt.Thread) error { return s.d.st.Free(t) })
	}
	s.d.ctx.Close()
}

// Stop is the backend's hook for callers whose device work is over (see
// the package function Stop).
func (backend) Stop() { Stop() }

// Start is the backend's hook for callers that know they will build an
// index soon (see the package function Start).
func (backend) Start() { Start() }

// ready starts the GPU if needed and waits until it is started.
func ready() (*device, error) {
	s := start()
	<-s.done
	return &s.d, s.err
}

// Started reports the step times of the latest start-up, starting the GPU
// if it never was and waiting for the start-up to finish; ok is false when
// the GPU could not be started.
func Started() (st StartTimes, ok bool) {
	startMu.Lock()
	s := last
	startMu.Unlock()
	if s == nil {
		s = start()
	}
	<-s.done
	return s.times, s.err == nil
}

// startDevice starts the GPU: the probe (the driver), a context of the
// backend's own on GPU 0's primary context (rt.NewContext, released by
// Stop; the optix backend's rt.Default shares the primary context), the
// kernels and the staging buffers. It records each step's time in st.
func startDevice(st *StartTimes) (device, error) {
	var d device
	t0 := time.Now()
	defer func() { st.Total = time.Since(t0) }()
	if _, err := Backend().Probe(); err != nil {
		return d, err
	}
	t1 := time.Now()
	st.Driver = t1.Sub(t0)
	ctx, err := rt.NewContext(0)
	if err != nil {
		return d, err
	}
	t2 := time.Now()
	st.Context = t2.Sub(t1)
	d.ctx = ctx
	err = ctx.Do(func(t *rt.Thread) error {
		k, image, err := loadKernels(t)
		if err != nil {
			return err
		}
		d.k, st.Image = k, image
		t3 := time.Now()
		st.Module = t3.Sub(t2)
		// Pinned memory is an optimisation: without it copies are direct.
		d.st, _ = t.NewStager(rt.DefaultStageChunk)
		st.Staging = time.Since(t3)
		return nil
	})
	if err != nil {
		ctx.Close()
	}
	return d, err
}
