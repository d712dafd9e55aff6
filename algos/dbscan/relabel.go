package dbscan

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/pctk/pctk/internal/par"
)

// coreFlags sets core[i] when point i, with counts[i] other points within
// ε, is a core point for minPts (the point itself counted), and returns the
// number of core points. It runs on all cores.
func coreFlags(counts []uint32, minPts int, core []bool) int {
	rs := par.Ranges(len(counts), par.Grain)
	n := make([]int, len(rs))
	par.For(rs, func(r, lo, hi int) {
		k := 0 // local: neighbouring n[r] share cache lines
		for i := lo; i < hi; i++ {
			// c+1 ≥ m without overflow for c = MaxUint32.
			core[i] = uint64(counts[i])+1 >= uint64(minPts)
			if core[i] {
				k++
			}
		}
		n[r] = k
	})
	total := 0
	for _, c := range n {
		total += c
	}
	return total
}

// relabel turns ClusterCores' labels (the smallest core index of each
// component) into cluster numbers 0..C−1 in order of each cluster's smallest
// point index, drops clusters smaller than minSize, and fills Sizes and
// NoiseCount. It checks the backend's labels on the way: a label must be
// Noise (never for a core point) or the index of a core point, and a core
// point's label is at most its own index; the first offending point is
// reported.
//
// It runs in passes over ranges of points on all cores: check the labels
// and find each label's first point (an atomic minimum in scratch); collect,
// range by range and so in point order, the points that are their label's
// first, which numbers the clusters; then renumber every point and count
// the sizes. The result does not depend on the number of cores.
func (r *Result) relabel(scratch []int32, minSize int) error {
	n := len(r.Labels)
	rs := par.Ranges(n, par.Grain)
	par.For(rs, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			scratch[i] = math.MaxInt32
		}
	})
	errs := make([]error, len(rs))
	par.For(rs, func(k, lo, hi int) {
		for i := lo; i < hi; i++ {
			l := r.Labels[i]
			if err := r.checkLabel(i, l); err != nil {
				errs[k] = err
				return
			}
			if l == Noise {
				continue
			}
			for first := &scratch[l]; ; {
				cur := atomic.LoadInt32(first)
				if int32(i) >= cur || atomic.CompareAndSwapInt32(first, cur, int32(i)) {
					break
				}
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	// The points that come first in their cluster, in point order.
	firsts := make([][]int32, len(rs))
	par.For(rs, func(k, lo, hi int) {
		for i := lo; i < hi; i++ {
			if l := r.Labels[i]; l != Noise && scratch[l] == int32(i) {
				firsts[k] = append(firsts[k], int32(i))
			}
		}
	})
	// scratch[label] becomes the cluster number; a label is a point index
	// and only labels are read from here on.
	c := int32(0)
	for _, f := range firsts {
		for _, i := range f {
			scratch[r.Labels[i]] = c
			c++
		}
	}
	sizes := r.renumber(rs, scratch, int(c))
	if minSize > 1 {
		// Renumber the kept clusters in their existing order.
		keep := scratch[:len(sizes)]
		var kept []int
		for c, s := range sizes {
			if s < minSize {
				keep[c] = Noise
				r.Dropped++
				continue
			}
			keep[c] = int32(len(kept))
			kept = append(kept, s)
		}
		par.For(rs, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				if l := r.Labels[i]; l >= 0 {
					r.Labels[i] = keep[l]
				}
			}
		})
		sizes = kept
	}
	r.Sizes = sizes
	if r.Sizes == nil {
		r.Sizes = []int{}
	}
	r.NoiseCount = n
	for _, s := range sizes {
		r.NoiseCount -= s
	}
	return nil
}

// renumber replaces each label by its cluster number, scratch[label], and
// returns the clusters' sizes. Each range counts into its own array when
// those fit in 4 bytes a point (a few clusters, or short clouds), else into
// shared counters with atomic adds: one shared counter per cluster would
// have every core contend for the large clusters' cache lines.
func (r *Result) renumber(rs [][2]int, scratch []int32, clusters int) []int {
	sizes := make([]int, clusters)
	if clusters*len(rs) <= len(r.Labels) {
		local := make([][]int32, len(rs))
		par.For(rs, func(k, lo, hi int) {
			cnt := make([]int32, clusters)
			for i := lo; i < hi; i++ {
				if l := r.Labels[i]; l != Noise {
					r.Labels[i] = scratch[l]
					cnt[scratch[l]]++
				}
			}
			local[k] = cnt
		})
		for _, cnt := range local {
			for c, m := range cnt {
				sizes[c] += int(m)
			}
		}
		return sizes
	}
	shared := make([]int64, clusters)
	par.For(rs, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			if l := r.Labels[i]; l != Noise {
				r.Labels[i] = scratch[l]
				atomic.AddInt64(&shared[scratch[l]], 1)
			}
		}
	})
	for c, m := range shared {
		sizes[c] = int(m)
	}
	return sizes
}

// checkLabel reports a label ClusterCores may not give point i.
func (r *Result) checkLabel(i int, l int32) error {
	n := len(r.Labels)
	switch {
	case l == Noise:
		if r.Core[i] {
			return fmt.Errorf("core point %d labelled noise", i)
		}
	case l < 0 || int(l) >= n:
		return fmt.Errorf("point %d has label %d outside [-1, %d)", i, l, n)
	case !r.Core[l]:
		return fmt.Errorf("point %d has label %d, which is not a core point", i, l)
	case r.Core[i] && int(l) > i:
		return fmt.Errorf("core point %d has label %d, not its component's smallest index", i, l)
	}
	return nil
}
