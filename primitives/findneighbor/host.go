package findneighbor

// OnHost reports whether b computes on the host's CPU cores (the cpu and
// brute backends), with goroutines bounded by BuildOptions.Workers, and
// builds indexes that may run side by side from several goroutines: tiled
// runs then run several tiles at once, each on its share of the workers
// (tile.Share). Other backends (GPUs, or ones this package does not know)
// report false.
func OnHost(b Backend) bool {
	_, ok := b.(onHost)
	return ok
}

// onHost marks the backends OnHost reports.
type onHost interface{ onHost() }

func (cpuBackend) onHost()   {}
func (bruteBackend) onHost() {}

// PlainKNN reports whether b's index built with ε = +Inf answers the k
// nearest faster than finite radii do (the cpu backend's kd-tree,
// plainKNN): KNearestAdaptive runs a single round on it, and tiled
// k-nearest runs (tile.MomentsTiled) build their tiles' indexes so.
func PlainKNN(b Backend) bool {
	_, ok := b.(plainKNN)
	return ok
}
