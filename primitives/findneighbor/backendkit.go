package findneighbor

// Helpers for backends that live in other packages (the GPU backends), so
// that every backend sizes its CSR results and sums its moments one way.

// NewCSR sizes a CSR for per-query neighbour counts, with opts.Cap applied
// (and Capped set), and fails with ErrTooLarge before allocating the lists
// when the capped total exceeds opts.MaxEntries (> 0).
func NewCSR(counts []uint32, opts NeighborOptions) (*CSR, error) { return newCSR(counts, opts) }

// AddNearest adds to m one of the query's k nearest: the offset, as
// AddOffset, and its distance dist (as KNearest reports it) to Dist.
func (m *Moment) AddNearest(px, py, pz, qx, qy, qz, dist float32) {
	m.addOffset(px, py, pz, qx, qy, qz)
	m.Dist += float64(dist)
}
