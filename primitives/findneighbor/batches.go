package findneighbor

import (
	"fmt"
	"slices"
)

// Batches streams neighbour lists that would not fit in memory at once: it
// counts first (O(queries) memory), then calls fn with the CSR of
// consecutive query ranges holding at most maxEntries entries each (a
// single query with more gets a batch of its own), first being the number
// of the batch's first query. The lists equal those of ix.Neighbors(q,
// opts); opts.MaxEntries is ignored. It works with every backend.
//
// xyz must be the points ix was built on: with q == nil (self mode) they
// are queried in ranges, and Batches drops each point's own hit. fn must
// not keep the CSR: a later batch may reuse nothing, but the caller should
// treat it as valid only during the call. An error from fn stops the
// stream and is returned.
func Batches(ix Index, xyz, q []float32, opts NeighborOptions, maxEntries int64, fn func(first int, csr *CSR) error) error {
	if maxEntries <= 0 {
		return fmt.Errorf("findneighbor: Batches: maxEntries = %d, want > 0", maxEntries)
	}
	self := q == nil
	if self {
		if len(xyz) != 3*ix.Len() {
			return fmt.Errorf("findneighbor: Batches: %d coordinates for an index of %d points", len(xyz), ix.Len())
		}
		q = xyz
	}
	nq, err := numQueries(q, ix.Len())
	if err != nil {
		return err
	}
	counts := make([]uint32, nq)
	if self {
		err = ix.Counts(nil, counts)
	} else {
		err = ix.Counts(q, counts)
	}
	if err != nil {
		return err
	}
	sub := opts
	sub.MaxEntries = 0
	if self && opts.Cap > 0 {
		// One more, in distance order, so that the cap holds after the
		// point's own hit (distance 0) is dropped.
		sub.Cap, sub.Sorted = opts.Cap+1, true
	}
	entries := func(i int) int64 {
		c := int64(counts[i])
		if opts.Cap > 0 {
			c = min(c, int64(opts.Cap))
		}
		if self {
			c++ // the own hit, dropped afterwards
		}
		return c
	}
	for first := 0; first < nq; {
		last, sum := first+1, entries(first)
		for last < nq && sum+entries(last) <= maxEntries {
			sum += entries(last)
			last++
		}
		csr, err := ix.Neighbors(q[3*first:3*last], sub)
		if err != nil {
			return err
		}
		if self {
			dropSelf(csr, first, counts[first:last], opts)
		}
		if err := fn(first, csr); err != nil {
			return err
		}
		first = last
	}
	return nil
}

// dropSelf removes from the lists of queries first, first+1, ... (indexed
// points queried as a separate set) each point's own hit, in place, and
// brings them to the shape asked for by opts: with a cap the lists came
// sorted by distance with one extra entry, which is then the one to drop
// when the own hit is not among them (more than Cap copies of the point
// with smaller indices).
func dropSelf(csr *CSR, first int, counts []uint32, opts NeighborOptions) {
	var w int64
	for i := range len(csr.Offsets) - 1 {
		lo, hi := csr.Offsets[i], csr.Offsets[i+1]
		csr.Offsets[i] = w
		drop := hi // no own hit: keep everything (cannot happen without a cap)
		for j := lo; j < hi; j++ {
			if csr.Indices[j] == int32(first+i) {
				drop = j
				break
			}
		}
		if drop == hi && opts.Cap > 0 && hi-lo > int64(opts.Cap) {
			drop = hi - 1
		}
		start := w
		for j := lo; j < hi; j++ {
			if j == drop {
				continue
			}
			csr.Indices[w] = csr.Indices[j]
			if csr.Dist != nil {
				csr.Dist[w] = csr.Dist[j]
			}
			w++
		}
		if opts.Cap > 0 {
			csr.Capped[i] = int(counts[i]) > opts.Cap
			if !opts.Sorted {
				sortByIndex(csr, start, w)
			}
		}
	}
	csr.Offsets[len(csr.Offsets)-1] = w
	csr.Indices = csr.Indices[:w]
	if csr.Dist != nil {
		csr.Dist = csr.Dist[:w]
	}
}

// sortByIndex orders entries [lo, hi) of csr by index, distances alongside.
func sortByIndex(csr *CSR, lo, hi int64) {
	if csr.Dist == nil {
		slices.Sort(csr.Indices[lo:hi])
		return
	}
	type e struct {
		i int32
		d float32
	}
	es := make([]e, hi-lo)
	for k := range es {
		es[k] = e{csr.Indices[lo+int64(k)], csr.Dist[lo+int64(k)]}
	}
	slices.SortFunc(es, func(a, b e) int { return int(a.i) - int(b.i) })
	for k, x := range es {
		csr.Indices[lo+int64(k)], csr.Dist[lo+int64(k)] = x.i, x.d
	}
}

// NeighborsSize tells up front what ix.Neighbors(q, opts) would allocate:
// the number of entries and the bytes of the CSR (offsets, indices,
// distances when asked for, capped flags when capped). It costs one Counts
// pass and O(queries) memory, never the lists.
func NeighborsSize(ix Index, q []float32, opts NeighborOptions) (entries, bytes int64, err error) {
	nq, err := numQueries(q, ix.Len())
	if err != nil {
		return 0, 0, err
	}
	counts := make([]uint32, nq)
	if err := ix.Counts(q, counts); err != nil {
		return 0, 0, err
	}
	for _, c := range counts {
		if opts.Cap > 0 {
			c = min(c, uint32(opts.Cap))
		}
		entries += int64(c)
	}
	per := int64(4) // an int32 index
	if opts.WithDist {
		per += 4
	}
	bytes = 8*int64(nq+1) + per*entries
	if opts.Cap > 0 {
		bytes += int64(nq)
	}
	return entries, bytes, nil
}
