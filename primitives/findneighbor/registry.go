package findneighbor

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// EnvBackend is the environment variable that chooses a backend when the
// caller does not ("cpu", "cuda", "optix", "auto", ...).
const EnvBackend = "PCTK_BACKEND"

var (
	regMu    sync.RWMutex
	backends []Backend
)

// Register makes a backend available by name. GPU backends call it from
// their package's init; it panics on a duplicate name.
func Register(b Backend) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, c := range backends {
		if c.Name() == b.Name() {
			panic("findneighbor: backend " + b.Name() + " registered twice")
		}
	}
	backends = append(backends, b)
}

// Backends returns every registered backend in registration order.
func Backends() []Backend {
	regMu.RLock()
	defer regMu.RUnlock()
	return slices.Clone(backends)
}

// Get returns the backend named name. "" means the value of $PCTK_BACKEND,
// or "auto" when unset. "auto" picks the usable backend of highest
// priority. A named backend that cannot run here is an error wrapping
// ErrUnavailable: a backend asked for by name never silently falls back.
func Get(name string) (Backend, error) {
	if name == "" {
		name = os.Getenv(EnvBackend)
	}
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" || name == "auto" {
		return Auto()
	}
	var names []string
	for _, b := range Backends() {
		if b.Name() == name {
			if _, err := b.Probe(); err != nil {
				if errors.Is(err, ErrUnavailable) {
					return nil, err // the backend already says which and why
				}
				return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, name, err)
			}
			return b, nil
		}
		names = append(names, b.Name())
	}
	return nil, fmt.Errorf("findneighbor: unknown backend %q (known: auto, %s)", name, strings.Join(names, ", "))
}

// Auto returns the usable backend of highest priority.
func Auto() (Backend, error) {
	var best Backend
	bestPri := 0
	for _, b := range Backends() {
		info, err := b.Probe()
		if err != nil {
			continue
		}
		if best == nil || info.Priority > bestPri {
			best, bestPri = b, info.Priority
		}
	}
	if best == nil {
		return nil, fmt.Errorf("%w: no backend can run here", ErrUnavailable)
	}
	return best, nil
}
