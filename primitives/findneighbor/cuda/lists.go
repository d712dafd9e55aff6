package cuda

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pctk/pctk/primitives/findneighbor"
	rt "github.com/pctk/pctk/rt/cuda"
)

// cand is a neighbour with its squared distance, ordered as the CPU
// backend orders candidates: by distance², ties by the smaller index.
type cand struct {
	d2  float32
	idx int32
}

func cmpCand(a, b cand) int {
	if c := cmp.Compare(a.d2, b.d2); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

func sqrt32(v float32) float32 { return float32(math.Sqrt(float64(v))) }

// Neighbors returns the neighbour lists in CSR form. Counts and lists come
// from the device, in windows of queries whose lists fit in about half the
// free device memory; each list is then ordered (and capped) on the host.
func (ix *index) Neighbors(q []float32, opts findneighbor.NeighborOptions) (*findneighbor.CSR, error) {
	nq, err := ix.numQueries(q)
	if err != nil {
		return nil, err
	}
	if opts.Cap < 0 {
		return nil, fmt.Errorf("cuda backend: Cap = %d, want ≥ 0", opts.Cap)
	}
	counts := make([]uint32, nq)
	if err := ix.Counts(q, counts); err != nil {
		return nil, err
	}
	csr, err := findneighbor.NewCSR(counts, opts)
	if err != nil {
		return nil, err
	}
	// full[i] is where query i's uncapped list starts in the device order.
	full := make([]int64, nq+1)
	for i, c := range counts {
		full[i+1] = full[i] + int64(c)
	}
	needD2 := opts.WithDist || opts.Sorted || opts.Cap > 0
	perEntry := uint64(4)
	if needD2 {
		perEntry = 8
	}
	var hostIdx []int32
	var hostD2 []float32
	scratch := make([][]cand, ix.nworkers()) // per worker of parallelFor
	err = ix.do(func(t *rt.Thread) error {
		free, _, err := t.MemInfo()
		if err != nil {
			return err
		}
		next := func(lo int, limit uint64) int {
			// Queries while their entries fit the limit, at least one.
			hi := lo + 1
			for hi < nq && uint64(full[hi+1]-full[lo])*perEntry+uint64(hi+1-lo)*(8+queryBytes) <= limit {
				hi++
			}
			return hi
		}
		return ix.windows(t, q, nq, free/2, next, func(tmp *rt.Allocs, w window) error {
			m := w.hi - w.lo
			lo := w.base
			entries := full[lo+m] - full[lo]
			var bufs [3]rt.DevicePtr
			for i, size := range []uint64{uint64(8 * m), uint64(4 * entries), uint64(4 * entries)} {
				if i == 2 && !needD2 {
					break
				}
				p, err := tmp.Alloc(t, size)
				if err != nil {
					return err
				}
				bufs[i] = p
			}
			dOff, dIdx, dD2 := bufs[0], bufs[1], bufs[2]
			if err := rt.Upload(t, dOff, full[lo:lo+m], ix.stream); err != nil {
				return err
			}
			p := ix.params(w).Ptr(dOff).U64(uint64(full[lo])).Ptr(dIdx).Ptr(dD2)
			if err := ix.launch(t, ix.k.fill, w.nq, p); err != nil {
				return err
			}
			hostIdx = slices.Grow(hostIdx[:0], int(entries))[:entries]
			if err := fetch(ix, t, hostIdx, dIdx); err != nil {
				return err
			}
			if needD2 {
				hostD2 = slices.Grow(hostD2[:0], int(entries))[:entries]
				if err := fetch(ix, t, hostD2, dD2); err != nil {
					return err
				}
			}
			ix.orderLists(csr, opts, lo, lo+m, full, hostIdx, hostD2, scratch)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return csr, nil
}

// orderLists moves the lists of queries [lo, hi), as the device wrote them
// (idx and d2 from full[lo] on), into csr: by index, or by distance when
// sorted, keeping the Cap nearest when capped.
func (ix *index) orderLists(csr *findneighbor.CSR, opts findneighbor.NeighborOptions, lo, hi int, full []int64,
	idx []int32, d2 []float32, scratch [][]cand) {
	base := full[lo]
	ix.parallelFor(hi-lo, func(w, a, b int) {
		for i := lo + a; i < lo+b; i++ {
			src := idx[full[i]-base : full[i+1]-base]
			dst := csr.Indices[csr.Offsets[i]:csr.Offsets[i+1]]
			if d2 == nil {
				copy(dst, src)
				slices.Sort(dst)
				continue
			}
			c := scratch[w][:0]
			for j, v := range src {
				c = append(c, cand{d2: d2[full[i]-base+int64(j)], idx: v})
			}
			if opts.Sorted || opts.Cap > 0 {
				slices.SortFunc(c, cmpCand)
			}
			c = c[:len(dst)]
			if !opts.Sorted {
				slices.SortFunc(c, func(a, b cand) int { return cmp.Compare(a.idx, b.idx) })
			}
			for j, x := range c {
				dst[j] = x.idx
				if csr.Dist != nil {
					csr.Dist[csr.Offsets[i]+int64(j)] = sqrt32(x.d2)
				}
			}
			if cap(c) != cap(scratch[w]) {
				scratch[w] = c // rarely: the workers' headers share cache lines
			}
		}
	})
}

// knnFromLists serves KNearest for k > maxK: capped, sorted lists.
func (ix *index) knnFromLists(q []float32, nq, k int, idx []int32, dist []float32) error {
	csr, err := ix.Neighbors(q, findneighbor.NeighborOptions{Cap: k, Sorted: true, WithDist: dist != nil})
	if err != nil {
		return err
	}
	for i := range nq {
		lo, hi := csr.Offsets[i], csr.Offsets[i+1]
		for j := range k {
			at := i*k + j
			if int64(j) < hi-lo {
				idx[at] = csr.Indices[lo+int64(j)]
				if dist != nil {
					dist[at] = csr.Dist[lo+int64(j)]
				}
				continue
			}
			idx[at] = -1
			if dist != nil {
				dist[at] = float32(math.Inf(1))
			}
		}
	}
	return nil
}

// momentsFromLists serves Moments for k > maxK from capped lists and the
// points copied back from the device.
func (ix *index) momentsFromLists(q []float32, nq, k int, out []findneighbor.Moment) error {
	csr, err := ix.Neighbors(q, findneighbor.NeighborOptions{Cap: k, Sorted: true, WithDist: true})
	if err != nil {
		return err
	}
	xyz, err := ix.hostPoints()
	if err != nil {
		return err
	}
	if q == nil {
		q = xyz
	}
	ix.parallelFor(nq, func(_, a, b int) {
		for i := a; i < b; i++ {
			var m findneighbor.Moment
			for e := csr.Offsets[i]; e < csr.Offsets[i+1]; e++ {
				j := csr.Indices[e]
				m.AddNearest(xyz[3*j], xyz[3*j+1], xyz[3*j+2], q[3*i], q[3*i+1], q[3*i+2], csr.Dist[e])
			}
			out[i] = m
		}
	})
	return nil
}

// hostPoints copies the indexed points back from the device, in index
// order.
func (ix *index) hostPoints() ([]float32, error) {
	pos := make([]float32, 4*ix.n)
	if err := ix.ctx.Do(func(t *rt.Thread) error { return rt.Download(t, pos, ix.pos, ix.stream) }); err != nil {
		return nil, err
	}
	xyz := make([]float32, 3*ix.n)
	for s := range ix.n {
		i := int(math.Float32bits(pos[4*s+3]))
		copy(xyz[3*i:3*i+3], pos[4*s:4*s+3])
	}
	return xyz, nil
}
