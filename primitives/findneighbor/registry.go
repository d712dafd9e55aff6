package findneighbor

import (
	"cmp"
	"errors"
	"fmt"
	"math"
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

// CPU returns the registered "cpu" backend, which package
// primitives/findneighbor/cpu registers when a program imports it (pctk
// and the tests' kits do); it panics when none is registered. Code that
// imports the cpu package calls cpu.Backend instead.
func CPU() Backend {
	b, err := Get("cpu")
	if err != nil {
		panic(err)
	}
	return b
}

// PriorityBound is implemented by backends that know, without probing,
// the highest priority their Probe can report (a GPU backend's priority
// when its GPU is usable). Auto leaves such a backend unprobed once it has
// a usable backend it would prefer anyway, so that "auto" on a machine with
// a GPU does not pay for starting every GPU library.
type PriorityBound interface {
	MaxPriority() int
}

// Auto returns the usable backend of highest priority; of equal priorities,
// the one registered first. Backends are probed from the highest bound
// (PriorityBound; none: probed first) down, and those that cannot beat the
// best usable one so far are not probed.
func Auto() (Backend, error) {
	return pickAuto(Backends())
}

// pickAuto is Auto over list, in registration order.
func pickAuto(list []Backend) (Backend, error) {
	bound := func(b Backend) int {
		if p, ok := b.(PriorityBound); ok {
			return p.MaxPriority()
		}
		return math.MaxInt
	}
	order := make([]int, len(list))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(bound(list[b]), bound(list[a])) })
	best, bestPri := -1, 0
	for _, i := range order {
		if best >= 0 && (bound(list[i]) < bestPri || bound(list[i]) == bestPri && i > best) {
			continue // cannot win: not worth probing
		}
		info, err := list[i].Probe()
		if err != nil {
			continue
		}
		if best < 0 || info.Priority > bestPri || info.Priority == bestPri && i < best {
			best, bestPri = i, info.Priority
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("%w: no backend can run here", ErrUnavailable)
	}
	return list[best], nil
}
