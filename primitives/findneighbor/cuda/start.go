package cuda

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor"
	rt "github.com/pctk/pctk/rt/cuda"
)

// device is one GPU as the backend uses it: probed once, and started in
// the background (a startup) until Stop releases it.
type device struct {
	ordinal int

	probeOnce sync.Once
	info      findneighbor.Info
	probeErr  error

	mu sync.Mutex
	// current is the start-up in force: nil before the first start and
	// after stop.
	current *startup
	// last is the latest start-up, kept after stop for Started.
	last *startup

	// busy is the device time of every index's build and queries so far
	// (ns, from their CUDA events): the backend's DeviceTime.
	busy atomic.Int64
}

// startup is one start of a device, from start until stop: a context of its
// own on the GPU's primary context (its own device thread), the loaded
// kernels and the pinned staging buffers every index's large copies go
// through (nil when pinned memory could not be had: copies are then
// direct).
type startup struct {
	done  chan struct{} // closed once started (or failed)
	ctx   *rt.Context
	k     *kernels
	st    *rt.Stager
	err   error
	times StartTimes
}

func newDevice(ordinal int) *device { return &device{ordinal: ordinal} }

// devices holds the device of each ordinal that a backend named (deviceOn).
var devices struct {
	mu sync.Mutex
	m  map[int]*device
}

// deviceOn returns the device of GPU ordinal; nothing is started.
func deviceOn(ordinal int) *device {
	devices.mu.Lock()
	defer devices.mu.Unlock()
	if devices.m == nil {
		devices.m = map[int]*device{}
	}
	d := devices.m[ordinal]
	if d == nil {
		d = newDevice(ordinal)
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
// Calling it again does nothing until Stop.
func Start() { deviceOn(0).start() }

// Start is the backend's hook for callers that know they will build an
// index soon: it starts the backend's GPU as the package function Start
// starts GPU 0.
func (b backend) Start() { b.d.start() }

// Stop releases every GPU the backend started (the package's devices, all
// of which a tiled run over several GPUs uses): the staging buffers
// (pinned memory) and the context, with everything still allocated in it.
// It waits for a start-up under way first. A process that exits with a
// context alive has the driver tear it down in its exit, after the
// command's last output, where the user waits for it; a command calls Stop
// as soon as its device work is over, alongside writing its output,
// instead. Indexes built before Stop must not be used after it (their
// calls fail: the context is closed); a later Start or Build starts the
// GPU again. Stop without a start-up does nothing.
func Stop() {
	devices.mu.Lock()
	all := make([]*device, 0, len(devices.m))
	for _, d := range devices.m {
		all = append(all, d)
	}
	devices.mu.Unlock()
	var wg sync.WaitGroup
	for _, d := range all {
		wg.Go(d.stop)
	}
	wg.Wait()
}

// Stop is the backend's hook for callers whose device work is over: it
// releases every GPU the package started, as the package function Stop.
func (backend) Stop() { Stop() }

// start starts the device in the background unless a start-up is in force,
// and returns the start-up.
func (d *device) start() *startup {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.current == nil {
		s := &startup{done: make(chan struct{})}
		d.current, d.last = s, s
		go func() {
			defer close(s.done)
			s.err = d.startUp(s)
		}()
	}
	return d.current
}

// stop releases the device's start-up in force, if any (see Stop).
func (d *device) stop() {
	d.mu.Lock()
	s := d.current
	d.current = nil
	d.mu.Unlock()
	if s == nil {
		return
	}
	<-s.done
	if s.err != nil {
		return
	}
	if s.st != nil {
		s.ctx.Do(s.st.Free)
	}
	s.ctx.Close()
}

// ready starts the device if needed and waits until it is started.
func (d *device) ready() (*startup, error) {
	s := d.start()
	<-s.done
	return s, s.err
}

// Started reports the step times of GPU 0's latest start-up, starting it
// if it never was and waiting for the start-up to finish; ok is false when
// the GPU could not be started.
func Started() (st StartTimes, ok bool) {
	d := deviceOn(0)
	d.mu.Lock()
	s := d.last
	d.mu.Unlock()
	if s == nil {
		s = d.start()
	}
	<-s.done
	return s.times, s.err == nil
}

// startUp starts the device into s: the probe (the driver), a context of
// its own on the GPU's primary context (rt.NewContext, closed by stop; the
// optix backend's rt.Default is the same primary context), the kernels and
// the staging buffers, recording each step's time.
func (d *device) startUp(s *startup) error {
	t0 := time.Now()
	defer func() { s.times.Total = time.Since(t0) }()
	if _, err := d.probe(); err != nil {
		return err
	}
	t1 := time.Now()
	s.times.Driver = t1.Sub(t0)
	ctx, err := rt.NewContext(d.ordinal)
	if err != nil {
		return err
	}
	t2 := time.Now()
	s.times.Context = t2.Sub(t1)
	s.ctx = ctx
	err = ctx.Do(func(t *rt.Thread) error {
		k, image, err := loadKernels(t)
		if err != nil {
			return err
		}
		s.k, s.times.Image = k, image
		t3 := time.Now()
		s.times.Module = t3.Sub(t2)
		// Pinned memory is an optimisation: without it copies are direct.
		s.st, _ = t.NewStager(rt.DefaultStageChunk)
		s.times.Staging = time.Since(t3)
		return nil
	})
	if err != nil {
		ctx.Close()
	}
	return err
}
