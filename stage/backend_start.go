package stage

import (
	"strings"
	"time"

	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// starter is implemented by backends that can start their device (driver,
// context, kernels) in the background ahead of their first Build.
type starter interface{ Start() }

// stopper is implemented by backends that can release their device (its
// context, pinned memory) once the process's device work is over.
type stopper interface{ Stop() }

// ReleaseBackend begins releasing b's device, when it has one, in the
// background and returns a function that waits until it is released. A
// command calls it when its last device work is done and waits before it
// returns, so that releasing overlaps writing OUT: left to the process's
// exit, the driver's teardown comes after the output, on the user's time.
func ReleaseBackend(b findneighbor.Backend) (wait func()) {
	s, ok := b.(stopper)
	if !ok {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Stop()
	}()
	return func() { <-done }
}

// pendingBackend is a backend being resolved and started in the background
// while the command reads its input: probing a GPU backend (the driver's
// cuInit) and starting it take a noticeable fraction of a second, which
// then overlaps the read instead of preceding it. The command resolves it
// after the read (resolve) and hands the algorithms the backend itself, so
// that they see its optional interfaces.
type pendingBackend struct {
	done chan struct{}
	b    findneighbor.Backend
	err  error
}

// startBackend resolves name, "auto" or a registered backend (see
// CheckBackend), in the background, and starts the device of every backend
// name could resolve to (the one named, or for auto every backend that has
// a device to start) at once, alongside the probe rather than after it:
// both take a fraction of a second, and the probe's driver initialisation
// is shared.
func startBackend(name string) *pendingBackend {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, b := range findneighbor.Backends() {
		if s, ok := b.(starter); ok && (n == "" || n == "auto" || b.Name() == n) {
			s.Start()
		}
	}
	p := &pendingBackend{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		if p.b, p.err = findneighbor.Get(name); p.err == nil {
			msg.Debugf("backend: %s", p.b.Name())
		}
	}()
	return p
}

// resolve waits for the backend and returns it with the time waited; a
// backend that cannot run here is an error, never a silent fallback.
func (p *pendingBackend) resolve() (findneighbor.Backend, time.Duration, error) {
	t := time.Now()
	<-p.done
	waited := time.Since(t)
	if p.err != nil {
		return nil, waited, p.err
	}
	if ObserveBackend != nil {
		return ObserveBackend(p.b, waited), waited, nil
	}
	return p.b, waited, nil
}

// ObserveBackend, when set (by bench --e2e), wraps the backend every
// command resolves, to time its steps; waited is how long the command
// waited for the backend's probe after reading its input.
var ObserveBackend func(b findneighbor.Backend, waited time.Duration) findneighbor.Backend
