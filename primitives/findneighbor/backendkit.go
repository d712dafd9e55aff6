package findneighbor

// Helpers for backends that live in other packages (the GPU backends), so
// that every backend sizes its CSR results and sums its moments one way.

// NewCSR sizes a CSR for per-query neighbour counts, with opts.Cap applied
// (and Capped set), and fails with ErrTooLarge before allocating the lists
// when the capped total exceeds opts.MaxEntries (> 0).
func NewCSR(counts []uint32, opts NeighborOptions) (*CSR, error) { return newCSR(counts, opts) }

// AddOffset adds to m the offset from query (qx, qy, qz) to point
// (px, py, pz), in float64 from the float32 coordinates.
func (m *Moment) AddOffset(px, py, pz, qx, qy, qz float32) { m.addOffset(px, py, pz, qx, qy, qz) }
