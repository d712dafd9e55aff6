package knn

import (
	"fmt"

	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// Nearest calls fn, from several goroutines, with every point p of xyz
// and its neighbourhood as PDAL's KD3Index::neighbors(p, k, stride) lists
// it: p itself, then every stride-th of its nearest other points (the
// positions 0, stride, ... (k-1)·stride of the sorted list that starts
// with p), as many as the cloud has, nanoflann's list: ranked in float64
// from pos among (k−1)·stride + Spare float32 candidates (Table.Ranked).
// It returns the Reach, the float32 distance to the farthest candidate.
// op names the caller in errors.
func Nearest(op string, xyz []float32, pos []float64, b findneighbor.Backend, k, stride int, opts findneighbor.BuildOptions, fn func(p int, ids []int32)) ([]float64, error) {
	t, err := Find(op, xyz, b, (k-1)*stride+Spare, opts)
	if err != nil {
		return nil, err
	}
	t = t.Ranked(pos, (k-1)*stride)
	n := len(xyz) / 3
	par.For(par.Ranges(n, par.Grain/max(t.K, 1)), func(_, lo, hi int) {
		ids := make([]int32, 0, k)
		for p := lo; p < hi; p++ {
			idx, _ := t.Of(p)
			ids = append(ids[:0], int32(p))
			for j := stride - 1; j < len(idx); j += stride {
				ids = append(ids, idx[j])
			}
			fn(p, ids)
		}
	})
	return t.Kth(n), nil
}

// maxEntries bounds the neighbour lists of a radius search held at once.
const maxEntries = 1 << 24

// Within calls fn, from several goroutines, with every point p of xyz and
// the points within r of it (findneighbor's rule: d² ≤ r² in float32) as
// PDAL's KD3Index::radius(p, r) lists them: sorted by distance, p itself
// (at 0) first, ties by the smaller index. The points' outputs then depend
// on those within r alone, and on their order: a Reach of r.
func Within(op string, xyz []float32, b findneighbor.Backend, r float64, opts findneighbor.BuildOptions, fn func(p int, ids []int32)) error {
	if len(xyz) == 0 {
		return nil
	}
	ix, err := b.Build(xyz, float32(r), opts)
	if err != nil {
		return fmt.Errorf("%s: build %s index: %w", op, b.Name(), err)
	}
	defer ix.Close()
	err = findneighbor.Batches(ix, xyz, nil, findneighbor.NeighborOptions{Sorted: true}, maxEntries, func(first int, csr *findneighbor.CSR) error {
		nq := len(csr.Offsets) - 1
		par.For(par.Ranges(nq, par.Grain/16), func(_, lo, hi int) {
			var ids []int32
			for q := lo; q < hi; q++ {
				ids = append(append(ids[:0], int32(first+q)), csr.Indices[csr.Offsets[q]:csr.Offsets[q+1]]...)
				fn(first+q, ids)
			}
		})
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: neighbours within %g (%s): %w", op, r, b.Name(), err)
	}
	return nil
}
