package findneighbor

import (
	"fmt"
	"github.com/pctk/pctk/internal/par"
	"math"
	"runtime"
)

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

// addOffset accumulates the offset from (qx, qy, qz) to (px, py, pz).
func (m *Moment) addOffset(px, py, pz, qx, qy, qz float32) {
	dx := float64(px) - float64(qx)
	dy := float64(py) - float64(qy)
	dz := float64(pz) - float64(qz)
	m.N++
	m.Sum[0] += dx
	m.Sum[1] += dy
	m.Sum[2] += dz
	m.Outer[0] += dx * dx
	m.Outer[1] += dx * dy
	m.Outer[2] += dx * dz
	m.Outer[3] += dy * dy
	m.Outer[4] += dy * dz
	m.Outer[5] += dz * dz
}

// HostInfo describes a backend that runs on the host's CPU cores, by its
// method of search (Info.Details["method"]).
func HostInfo(name, method string, priority int) Info {
	return Info{
		Name:     name,
		Device:   fmt.Sprintf("%d CPU threads", runtime.GOMAXPROCS(0)),
		Details:  map[string]string{"method": method},
		Priority: priority,
	}
}

// DistSq is the squared distance every CPU backend computes between two
// points (float32 differences, then float32 squares and sums) and orders
// the k nearest by, ties broken by the smaller index: what a search that
// merges KNearest's answers over several indexes must compare to keep
// their order (tile.Leftovers).
func DistSq(ax, ay, az, bx, by, bz float32) float32 { return distSq(ax, ay, az, bx, by, bz) }

// The argument checks every backend makes, shared so that all reject the
// same inputs; name prefixes the error ("findneighbor", "cuda backend",
// "optix").

// CheckFinite reports the first non-finite coordinate of xyz, naming its
// point: what says which points ("point", "query").
func CheckFinite(name, what string, xyz []float32) error {
	// A float32 is NaN or ±Inf when its exponent bits are all ones: test
	// blocks of values without a branch per value, then find the culprit;
	// ranges of blocks on all cores, the first culprit reported.
	const block, exp = 1024, 0x7f800000
	bad := par.First(len(xyz), func(a, b int) int {
		for lo := a; lo < b; lo += block {
			// The missing exponent bits; 0 for NaN or ±Inf.
			miss := uint32(exp)
			for _, v := range xyz[lo:min(b, lo+block)] {
				miss = min(miss, ^math.Float32bits(v)&exp)
			}
			if miss != 0 {
				continue
			}
			for i := lo; ; i++ {
				if math.Float32bits(xyz[i])&exp == exp {
					return i
				}
			}
		}
		return -1
	})
	if bad >= 0 {
		return fmt.Errorf("%s: %s %d has a non-finite coordinate (%g)", name, what, bad/3, xyz[bad])
	}
	return nil
}

// CheckQueries validates the query set q of an index of n points (whole
// points, finite coordinates) and returns the number of queries: n for
// q == nil, the indexed points themselves.
func CheckQueries(name string, q []float32, n int) (int, error) {
	if q == nil {
		return n, nil
	}
	if len(q)%3 != 0 {
		return 0, fmt.Errorf("%s: %d query coordinates is not a multiple of 3", name, len(q))
	}
	if err := CheckFinite(name, "query", q); err != nil {
		return 0, err
	}
	return len(q) / 3, nil
}

// CheckLen reports a caller-sized slice of the wrong length.
func CheckLen(name, what string, got, want int) error {
	if got != want {
		return fmt.Errorf("%s: len(%s) = %d, want %d", name, what, got, want)
	}
	return nil
}

// CheckBuild validates Build's arguments: whole xyz triples, an index that
// fits int32, ε ≥ 0 (NaN is refused) and finite coordinates.
func CheckBuild(name string, xyz []float32, eps float32) error {
	if len(xyz)%3 != 0 {
		return fmt.Errorf("%s: %d coordinates is not a multiple of 3", name, len(xyz))
	}
	if len(xyz)/3 > math.MaxInt32 {
		return fmt.Errorf("%s: %d points exceed the int32 index range", name, len(xyz)/3)
	}
	if !(eps >= 0) {
		return fmt.Errorf("%s: ε = %g, want ≥ 0", name, eps)
	}
	return CheckFinite(name, "point", xyz)
}

// CheckMoments validates Moments' arguments for nq queries: k ≥ 0 and one
// Moment per query.
func CheckMoments(name string, nq, k int, out []Moment) error {
	if k < 0 {
		return fmt.Errorf("%s: k = %d, want ≥ 0", name, k)
	}
	return CheckLen(name, "out", len(out), nq)
}

// CheckClusterCores validates ClusterCores' arguments for an index of n
// points: one flag and one label per point.
func CheckClusterCores(name string, n int, isCore []bool, label []int32) error {
	if err := CheckLen(name, "isCore", len(isCore), n); err != nil {
		return err
	}
	return CheckLen(name, "label", len(label), n)
}

// CheckKNearest validates KNearest's arguments for nq queries.
func CheckKNearest(name string, nq, k int, idx []int32, dist []float32) error {
	if k < 0 {
		return fmt.Errorf("%s: k = %d, want ≥ 0", name, k)
	}
	if err := CheckLen(name, "idx", len(idx), nq*k); err != nil {
		return err
	}
	if dist != nil {
		return CheckLen(name, "dist", len(dist), nq*k)
	}
	return nil
}
