package findneighbor

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

// checkBuild is CheckBuild for this package's backends.
func checkBuild(xyz []float32, eps float32) error { return CheckBuild(pkgName, xyz, eps) }

// checkMoments is CheckMoments for this package's backends.
func checkMoments(nq, k int, out []Moment) error { return CheckMoments(pkgName, nq, k, out) }

// numQueries is CheckQueries for this package's backends.
func numQueries(q []float32, n int) (int, error) { return CheckQueries(pkgName, q, n) }

// checkLen is CheckLen for this package's backends.
func checkLen(what string, got, want int) error { return CheckLen(pkgName, what, got, want) }

// checkKNearest is CheckKNearest for this package's backends.
func checkKNearest(nq, k int, idx []int32, dist []float32) error {
	return CheckKNearest(pkgName, nq, k, idx, dist)
}

// pkgName prefixes the errors of this package's own checks.
const pkgName = "findneighbor"

// checkClusterCores is CheckClusterCores for this package's backends.
func checkClusterCores(n int, isCore []bool, label []int32) error {
	return CheckClusterCores(pkgName, n, isCore, label)
}

// distSq is the squared distance that defines "within ε" for every CPU
// backend: float32 differences, then float32 squares and sums.
func distSq(ax, ay, az, bx, by, bz float32) float32 {
	dx, dy, dz := ax-bx, ay-by, az-bz
	return dx*dx + dy*dy + dz*dz
}

// moment accumulates the offsets from query (qx, qy, qz) to the indexed
// points listed in nb.
func moment(xyz []float32, qx, qy, qz float32, nb []hostkit.Kent) Moment {
	var m Moment
	for _, c := range nb {
		px, py, pz := hostkit.Point(xyz, int(c.Idx()))
		m.AddNearest(px, py, pz, qx, qy, qz, hostkit.Sqrt32(c.D2()))
	}
	return m
}

// newCSR sizes a CSR from per-query entry counts, failing with ErrTooLarge
// when the total exceeds maxEntries (> 0) before allocating the lists.
func newCSR(counts []uint32, opts NeighborOptions) (*CSR, error) {
	off := make([]int64, len(counts)+1)
	var capped []bool
	if opts.Cap > 0 {
		capped = make([]bool, len(counts))
	}
	var total int64
	for i, c := range counts {
		if opts.Cap > 0 && int(c) > opts.Cap {
			c = uint32(opts.Cap)
			capped[i] = true
		}
		total += int64(c)
		off[i+1] = total
	}
	if opts.MaxEntries > 0 && total > opts.MaxEntries {
		return nil, fmt.Errorf("%w: %d entries, limit %d", ErrTooLarge, total, opts.MaxEntries)
	}
	if total > math.MaxInt {
		return nil, fmt.Errorf("%w: %d entries", ErrTooLarge, total)
	}
	csr := &CSR{Offsets: off, Indices: make([]int32, total), Capped: capped}
	if opts.WithDist {
		csr.Dist = make([]float32, total)
	}
	return csr, nil
}
