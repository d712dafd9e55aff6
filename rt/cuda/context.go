package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// Context is a CUDA context (the device's primary context) served by one
// goroutine locked to an OS thread. All its driver calls run on that thread
// through Do, so Go's scheduler never moves a driver call to a thread where
// the context is not current.
type Context struct {
	dev    DeviceInfo
	handle uintptr
	devID  int32
	work   chan job
	mu     sync.Mutex // guards closed
	closed bool
	done   chan struct{}
	cache  blockCache // device blocks kept for reuse (memory.go)
}

type job struct {
	f   func(t *Thread) error
	err chan error
}

// Thread is the handle on a Context's locked thread that a Do callback
// receives; its methods are the driver operations. It must not be kept or
// used after the callback returns, nor passed to another goroutine.
type Thread struct {
	ctx *Context
}

// ErrClosed reports use of a closed Context.
var ErrClosed = errors.New("cuda: context closed")

// NewContext retains the primary context of GPU ordinal and starts its
// locked thread. Close releases both.
func NewContext(ordinal int) (*Context, error) {
	devs, err := Devices()
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= len(devs) {
		return nil, fmt.Errorf("cuda: no GPU %d (the driver sees %d)", ordinal, len(devs))
	}
	c := &Context{dev: devs[ordinal], work: make(chan job), done: make(chan struct{})}
	started := make(chan error)
	go c.serve(started)
	if err := <-started; err != nil {
		return nil, err
	}
	return c, nil
}

// serve is the context's goroutine: it binds itself to an OS thread, makes
// the context current there and runs jobs until Close.
func (c *Context) serve(started chan<- error) {
	runtime.LockOSThread()
	defer close(c.done)
	err := check("cuDeviceGet", drv.cuDeviceGet(&c.devID, int32(c.dev.Ordinal)))
	if err == nil {
		err = check("cuDevicePrimaryCtxRetain", drv.cuDevicePrimaryCtxRetain(&c.handle, c.devID))
	}
	if err == nil {
		if err = check("cuCtxSetCurrent", drv.cuCtxSetCurrent(c.handle)); err != nil {
			drv.cuDevicePrimaryCtxRelease(c.devID)
		}
	}
	started <- err
	if err != nil {
		// Leave the thread locked: it ends with this goroutine, and a
		// thread whose driver state is unknown is better discarded.
		return
	}
	t := &Thread{ctx: c}
	for j := range c.work {
		j.err <- runJob(t, j.f)
	}
	check("cuCtxSynchronize", drv.cuCtxSynchronize())
	c.cache.release()
	drv.cuCtxSetCurrent(0)
	drv.cuDevicePrimaryCtxRelease(c.devID)
}

// runJob runs f, turning a panic into an error so the locked thread
// survives a faulty callback.
func runJob(t *Thread, f func(*Thread) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cuda: panic on the device thread: %v", r)
		}
	}()
	return f(t)
}

// Do runs f on the context's locked thread, with the context current, and
// returns its error. Calls from several goroutines are served one at a time.
// f must not call Do on the same context (it would wait for itself); use the
// *Thread it receives instead.
func (c *Context) Do(f func(t *Thread) error) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrClosed
	}
	j := job{f: f, err: make(chan error, 1)}
	c.work <- j
	c.mu.Unlock()
	return <-j.err
}

// Close waits for queued work, synchronises the device, releases the
// primary context and ends the locked thread. Later calls return nil.
func (c *Context) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	close(c.work)
	c.mu.Unlock()
	<-c.done
	return nil
}

// Device describes the context's GPU.
func (c *Context) Device() DeviceInfo { return c.dev }

// Handle returns the raw CUcontext, for libraries that take one (OptiX's
// optixDeviceContextCreate). Use it only inside Do.
func (c *Context) Handle() uintptr { return c.handle }

// Context returns the context this thread serves.
func (t *Thread) Context() *Context { return t.ctx }

// shared holds the process-wide context of each GPU ordinal (Shared).
var shared struct {
	mu  sync.Mutex
	ctx map[int]*sharedContext
}

type sharedContext struct {
	once sync.Once
	ctx  *Context
	err  error
}

// Shared returns the process-wide context on GPU ordinal (among those
// CUDA_VISIBLE_DEVICES leaves visible), created on first use and shared by
// the packages that keep a context for the process's life (the optix
// backend, through Default), so they share one device thread and its
// allocations. It is never closed. Contexts of different GPUs are created
// independently, each at its first use. The cuda backend makes its own
// (NewContext) so that it can release it when a command's device work is
// over; all are the GPU's primary context.
func Shared(ordinal int) (*Context, error) {
	shared.mu.Lock()
	if shared.ctx == nil {
		shared.ctx = map[int]*sharedContext{}
	}
	s := shared.ctx[ordinal]
	if s == nil {
		s = &sharedContext{}
		shared.ctx[ordinal] = s
	}
	shared.mu.Unlock()
	s.once.Do(func() { s.ctx, s.err = NewContext(ordinal) })
	return s.ctx, s.err
}

// Default returns Shared(0), the process-wide context on GPU 0 that the
// optix backend uses.
func Default() (*Context, error) { return Shared(0) }

// Synchronize waits until all work queued on the context has finished.
func (t *Thread) Synchronize() error {
	return check("cuCtxSynchronize", drv.cuCtxSynchronize())
}
