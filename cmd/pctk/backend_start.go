package main

import (
	"strings"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// starter is implemented by backends that can start their device (driver,
// context, kernels) in the background ahead of their first Build.
type starter interface{ Start() }

// pendingBackend is a backend being resolved and started in the background
// while the command reads its input: probing a GPU backend (the driver's
// cuInit) and starting it take a noticeable fraction of a second, which
// then overlaps the read instead of preceding it. Every method waits for
// the resolution; a backend that cannot run makes Build fail with the
// reason, so a backend named explicitly still never falls back silently.
type pendingBackend struct {
	name string // as asked for
	done chan struct{}
	b    findneighbor.Backend
	err  error
}

// startBackend checks that name is "auto", empty or a registered backend,
// then resolves it (findneighbor.Get) and starts it in the background.
func startBackend(name string) (findneighbor.Backend, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n != "" && n != "auto" && !registered(n) {
		return findneighbor.Get(name) // the registry's "unknown backend" error
	}
	// Start the device of every backend name could resolve to (the one
	// named, or for auto every backend that has a device to start) now,
	// alongside the probe rather than after it: both take a fraction of a
	// second, and the probe's driver initialisation is shared.
	for _, b := range findneighbor.Backends() {
		if s, ok := b.(starter); ok && (n == "" || n == "auto" || b.Name() == n) {
			s.Start()
		}
	}
	p := &pendingBackend{name: name, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		if p.b, p.err = findneighbor.Get(name); p.err == nil {
			debugf("backend: %s", p.b.Name())
		}
	}()
	if observeBackend != nil {
		return observeBackend(p), nil
	}
	return p, nil
}

// observeBackend, when set (by bench --e2e), wraps the backend every
// command gets, to time its steps.
var observeBackend func(findneighbor.Backend) findneighbor.Backend

func registered(name string) bool {
	for _, b := range findneighbor.Backends() {
		if b.Name() == name {
			return true
		}
	}
	return false
}

// wait returns the resolved backend.
func (p *pendingBackend) wait() (findneighbor.Backend, error) {
	<-p.done
	return p.b, p.err
}

// Name is the resolved backend's name, or the name asked for when it
// cannot run.
func (p *pendingBackend) Name() string {
	if b, err := p.wait(); err == nil {
		return b.Name()
	}
	if p.name == "" {
		return "auto"
	}
	return p.name
}

// Probe is the resolved backend's probe, or the reason it cannot run.
func (p *pendingBackend) Probe() (findneighbor.Info, error) {
	b, err := p.wait()
	if err != nil {
		return findneighbor.Info{Name: p.Name()}, err
	}
	return b.Probe()
}

// Build builds with the resolved backend once it is started.
func (p *pendingBackend) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	b, err := p.wait()
	if err != nil {
		return nil, err
	}
	return b.Build(xyz, eps, opts)
}
