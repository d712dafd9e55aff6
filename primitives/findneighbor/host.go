package findneighbor

// OnHost reports whether b computes on the host's CPU cores (the cpu and
// brute backends), with goroutines bounded by BuildOptions.Workers, and
// builds indexes that may run side by side from several goroutines: tiled
// runs then run several tiles at once, each on its share of the workers
// (tile.Share). Other backends (GPUs, or ones this package does not know)
// report false.
func OnHost(b Backend) bool {
	_, ok := unwrap(b).(OnHoster)
	return ok
}

// OnHoster is implemented by the backends OnHost reports: the cpu backend
// (package cpu) and brute force. OnHost is a marker; it does nothing.
type OnHoster interface{ OnHost() }

func (bruteBackend) OnHost() {}

// PlainKNN reports whether b's index built with ε = +Inf answers the k
// nearest faster than finite radii do (the cpu backend's kd-tree,
// PlainKNNer): KNearestAdaptive runs a single round on it, and tiled
// k-nearest runs (tile.MomentsTiled) build their tiles' indexes so.
func PlainKNN(b Backend) bool {
	_, ok := unwrap(b).(PlainKNNer)
	return ok
}

// Wrapper is a backend that stands for another, building that one's
// indexes with options of its own (tile.Share's stand-ins, each with its
// share of the workers): OnHost and PlainKNN report what the other is.
type Wrapper interface {
	Backend
	Unwrap() Backend
}

// unwrap returns the backend b stands for, through any Wrapper.
func unwrap(b Backend) Backend {
	for {
		w, ok := b.(Wrapper)
		if !ok {
			return b
		}
		b = w.Unwrap()
	}
}
