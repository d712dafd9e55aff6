package findneighbor

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

// fallbackEntries bounds the neighbour entries the generic ClusterCores and
// Moments ask Batches for at a time (4 bytes each, plus 4 for distances).
const fallbackEntries = 1 << 24

// Moments stores in out[i] the first and second moments of the offsets
// from query i to its neighbours within ε of ix, or to its k nearest
// within ε when k > 0: what PCA normals need, without the lists. q is as
// for the Index methods (nil: the indexed points, each without itself);
// ε = +Inf is allowed with k > 0 only.
//
// An index that implements Momenter computes them itself; for any other,
// Moments sums the lists of ix.KNearest (k > 0: in that order, with the
// distances it reports) or ix.Neighbors (k = 0: in index order), one
// offset after another in float64 (Moment.AddNearest). The brute and cpu
// backends' own sums for k > 0 are those, to the bit, whatever the index's
// layout (a tile's, the whole cloud's); brute's for k = 0 too. Other sums
// follow a backend's own order and agree to rounding.
//
// xyz must be the points ix was built on (as Build received them: not an
// index built with BuildOptions.Reuse, which rearranged them); only the
// generic sums read them.
func Moments(ix Index, xyz, q []float32, k int, out []Moment) error {
	if m, ok := ix.(Momenter); ok {
		return m.Moments(q, k, out)
	}
	return genericMoments(ix, xyz, q, k, out)
}

// ClusterCores is DBSCAN's second stage on the indexed points of ix
// (FDBSCAN's union-find; the paper's Algorithm 3, lines 6-17). Given
// isCore, it stores in label:
//   - for a core point, the smallest index of a core point in its
//     component, where core points within ε are connected;
//   - for a non-core point with a core point within ε (a border point),
//     the label of its nearest core neighbour (ties: the smaller index);
//   - -1 for every other point (noise).
//
// An index that implements ClusterCorer runs it itself, where it lives; for
// any other, ClusterCores unites the core pairs of ix's neighbour lists
// (Batches, sorted by distance, so a border point's first core neighbour is
// its nearest) with the same lock-free union-find: the same labels. xyz
// must be the points ix was built on; only the generic stage reads them.
func ClusterCores(ix Index, xyz []float32, isCore []bool, label []int32) error {
	if c, ok := ix.(ClusterCorer); ok {
		return c.ClusterCores(isCore, label)
	}
	return genericClusterCores(ix, xyz, isCore, label)
}

// checkIndexed checks that xyz holds the n points of an index.
func checkIndexed(xyz []float32, n int) error {
	if len(xyz) != 3*n {
		return fmt.Errorf("findneighbor: %d coordinates for an index of %d points", len(xyz), n)
	}
	return nil
}

// genericMoments is Moments for an index without Momenter.
func genericMoments(ix Index, xyz, q []float32, k int, out []Moment) error {
	n := ix.Len()
	if err := checkIndexed(xyz, n); err != nil {
		return err
	}
	nq, err := numQueries(q, n)
	if err != nil {
		return err
	}
	if err := checkMoments(nq, k, out); err != nil {
		return err
	}
	qs := q
	if q == nil {
		qs = xyz
	}
	if k == 0 {
		if math.IsInf(float64(ix.Eps()), 1) {
			return hostkit.ErrInfEps
		}
		return Batches(ix, xyz, q, NeighborOptions{}, fallbackEntries, func(first int, csr *CSR) error {
			for i := range len(csr.Offsets) - 1 {
				qx, qy, qz := hostkit.Point(qs, first+i)
				var m Moment
				for _, j := range csr.Indices[csr.Offsets[i]:csr.Offsets[i+1]] {
					m.addOffset(xyz[3*j], xyz[3*j+1], xyz[3*j+2], qx, qy, qz)
				}
				out[first+i] = m
			}
			return nil
		})
	}
	idx, dist := make([]int32, nq*k), make([]float32, nq*k)
	if err := ix.KNearest(q, k, idx, dist); err != nil {
		return err
	}
	for i := range nq {
		qx, qy, qz := hostkit.Point(qs, i)
		var m Moment
		for s, j := range idx[i*k : (i+1)*k] {
			if j < 0 {
				break
			}
			m.AddNearest(xyz[3*j], xyz[3*j+1], xyz[3*j+2], qx, qy, qz, dist[i*k+s])
		}
		out[i] = m
	}
	return nil
}

// genericClusterCores is ClusterCores for an index without ClusterCorer.
func genericClusterCores(ix Index, xyz []float32, isCore []bool, label []int32) error {
	n := ix.Len()
	if err := checkClusterCores(n, isCore, label); err != nil {
		return err
	}
	if err := checkIndexed(xyz, n); err != nil {
		return err
	}
	if math.IsInf(float64(ix.Eps()), 1) {
		return hostkit.ErrInfEps
	}
	uf := hostkit.NewUnionFind(n)
	nearest := label // a border point's nearest core neighbour, until the labels
	err := Batches(ix, xyz, nil, NeighborOptions{Sorted: true}, fallbackEntries, func(first int, csr *CSR) error {
		return hostkit.Parallel(len(csr.Offsets)-1, hostkit.Workers(0), nil, func(_, lo, hi int) error {
			for r := lo; r < hi; r++ {
				i := first + r
				nb := csr.Indices[csr.Offsets[r]:csr.Offsets[r+1]]
				nearest[i] = -1
				for _, j := range nb {
					if !isCore[j] {
						continue
					}
					if !isCore[i] {
						nearest[i] = j // the list is in distance order
						break
					}
					if int(j) > i {
						uf.Union(int32(i), j)
					}
				}
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	return hostkit.Parallel(n, hostkit.Workers(0), nil, func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			switch {
			case isCore[i]:
				label[i] = uf.Find(int32(i))
			case nearest[i] >= 0:
				label[i] = uf.Find(nearest[i])
			}
		}
		return nil
	})
}
