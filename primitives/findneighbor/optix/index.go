package optix

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/rt/cuda"
	rt "github.com/pctk/pctk/rt/optix"
)

// Index is an OptiX neighbour index: the points, ordered along a Morton
// curve, in device memory, and their GAS. It keeps no reference to the
// caller's points.
type Index struct {
	eng    *engine
	cfg    Config
	n      int
	eps    float32
	eps2   float32
	radius float32
	order  []int32 // GAS position -> caller's index

	allocs    cuda.Allocs // points, original indices, sphere radius
	pts, orig cuda.DevicePtr
	radiusBuf cuda.DevicePtr
	gas       rt.GAS
	stats     BuildStats

	mu     sync.Mutex
	closed bool
}

// Len returns the number of indexed points.
func (ix *Index) Len() int { return ix.n }

// Eps returns the search radius.
func (ix *Index) Eps() float32 { return ix.eps }

// Stats returns the measurements of the index's build.
func (ix *Index) Stats() BuildStats { return ix.stats }

// Close frees the index's device memory.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed || ix.eng == nil {
		return nil
	}
	ix.closed = true
	return ix.eng.ctx.Do(func(t *cuda.Thread) error {
		err := ix.allocs.Free(t)
		if e := ix.gas.Free(t); err == nil {
			err = e
		}
		return err
	})
}

// hostQueries is the host side of one operation's query set.
type hostQueries struct {
	nq   int
	self bool
	q    []float32 // query points in launch order (nil when self)
	perm []int32   // launch order -> caller's query index (nil: identity)
}

// prepare validates q and orders it for launching.
func (ix *Index) prepare(q []float32) (hostQueries, error) {
	if ix.closed {
		return hostQueries{}, fmt.Errorf("optix: index used after Close")
	}
	if q == nil {
		return hostQueries{nq: ix.n, self: true}, nil
	}
	if len(q)%3 != 0 {
		return hostQueries{}, fmt.Errorf("optix: %d query coordinates is not a multiple of 3", len(q))
	}
	if err := findneighbor.CheckFinite(pkg, "query", q); err != nil {
		return hostQueries{}, err
	}
	h := hostQueries{nq: len(q) / 3, q: q}
	if !ix.cfg.Unsorted && ix.n > 0 {
		h.perm = mortonOrder(q)
		h.q = gather(q, h.perm)
	}
	return h, nil
}

// upload puts the query set on the device and returns the launch parameters
// that address it and the index; tmp receives the allocations.
func (ix *Index) upload(t *cuda.Thread, h hostQueries, tmp *cuda.Allocs) (launchParams, error) {
	s := ix.eng.stream
	p := launchParams{
		Handle: ix.gas.Handle, Pts: uint64(ix.pts), Orig: uint64(ix.orig),
		Eps2: ix.eps2, Radius: ix.radius,
	}
	if ix.eng.spheres {
		p.Spheres = 1
	}
	if h.self {
		p.Q, p.QOut, p.Self = p.Pts, p.Orig, 1
		if ix.cfg.Unsorted {
			// launch index = caller's index; find its GAS position
			inv := make([]int32, ix.n)
			for i, o := range ix.order {
				inv[o] = int32(i)
			}
			d, err := cuda.UploadNew(t, tmp, inv, s)
			if err != nil {
				return p, err
			}
			p.LaunchToQuery = uint64(d)
		}
		return p, nil
	}
	d, err := cuda.UploadNew(t, tmp, h.q, s)
	if err != nil {
		return p, err
	}
	p.Q = uint64(d)
	if h.perm != nil {
		d, err := cuda.UploadNew(t, tmp, h.perm, s)
		if err != nil {
			return p, err
		}
		p.QOut = uint64(d)
	}
	return p, nil
}

// run prepares q and runs f on the device thread with the query set's launch
// parameters and a scratch allocator freed afterwards.
func (ix *Index) run(q []float32, check func(nq int) error, f func(t *cuda.Thread, p launchParams, nq int, tmp *cuda.Allocs) error) error {
	h, err := ix.prepare(q)
	if err != nil {
		return err
	}
	if err := check(h.nq); err != nil {
		return err
	}
	if h.nq == 0 || ix.n == 0 {
		return f(nil, launchParams{}, h.nq, nil)
	}
	return ix.eng.ctx.Do(func(t *cuda.Thread) error {
		var tmp cuda.Allocs
		defer tmp.Free(t)
		p, err := ix.upload(t, h, &tmp)
		if err != nil {
			return err
		}
		return f(t, p, h.nq, &tmp)
	})
}

// pkg prefixes the errors of the argument checks shared with the other
// backends (findneighbor.CheckLen, ...).
const pkg = "optix"

// Counts stores in out[i] the number of points within ε of query i.
func (ix *Index) Counts(q []float32, out []uint32) error {
	return ix.run(q, func(nq int) error { return findneighbor.CheckLen(pkg, "out", len(out), nq) },
		func(t *cuda.Thread, p launchParams, nq int, tmp *cuda.Allocs) error {
			if t == nil {
				clear(out)
				return nil
			}
			return ix.counts(t, p, nq, tmp, out)
		})
}

// counts runs the counting pass into out.
func (ix *Index) counts(t *cuda.Thread, p launchParams, nq int, tmp *cuda.Allocs, out []uint32) error {
	d, err := tmp.Alloc(t, uint64(nq)*4)
	if err != nil {
		return err
	}
	p.Mode, p.Counts = modeCount, uint64(d)
	if err := ix.eng.launch(t, raygenNeighbor, &p, nq); err != nil {
		return err
	}
	return cuda.Download(t, out, d, ix.eng.stream)
}

// Neighbors returns the neighbour lists in CSR form: a counting pass, a
// prefix sum on the host, and a pass that writes every list in place; the
// lists are then ordered (and capped) on the host.
func (ix *Index) Neighbors(q []float32, opts findneighbor.NeighborOptions) (*findneighbor.CSR, error) {
	if opts.Cap < 0 {
		return nil, fmt.Errorf("optix: Cap = %d, want ≥ 0", opts.Cap)
	}
	var csr *findneighbor.CSR
	err := ix.run(q, func(int) error { return nil },
		func(t *cuda.Thread, p launchParams, nq int, tmp *cuda.Allocs) error {
			counts := make([]uint32, nq)
			if t != nil {
				if err := ix.counts(t, p, nq, tmp, counts); err != nil {
					return err
				}
			}
			var err error
			if csr, err = findneighbor.NewCSR(counts, opts); err != nil || t == nil {
				return err
			}
			return ix.fill(t, p, nq, tmp, counts, csr, opts)
		})
	return csr, err
}

// fill runs the list-writing pass and orders the lists into csr.
func (ix *Index) fill(t *cuda.Thread, p launchParams, nq int, tmp *cuda.Allocs, counts []uint32, csr *findneighbor.CSR, opts findneighbor.NeighborOptions) error {
	s := ix.eng.stream
	off := make([]int64, nq+1)
	for i, c := range counts {
		off[i+1] = off[i] + int64(c)
	}
	total := off[nq]
	if total == 0 {
		return nil
	}
	dOff, err := cuda.UploadNew(t, tmp, off, s)
	if err != nil {
		return err
	}
	dNbr, err := tmp.Alloc(t, uint64(total)*4)
	if err != nil {
		return err
	}
	dD2, err := tmp.Alloc(t, uint64(total)*4)
	if err != nil {
		return err
	}
	p.Mode, p.Offsets, p.Nbr, p.NbrD2 = modeFill, uint64(dOff), uint64(dNbr), uint64(dD2)
	if err := ix.eng.launch(t, raygenNeighbor, &p, nq); err != nil {
		return err
	}
	nbr := make([]int32, total)
	d2 := make([]float32, total)
	if err := cuda.Download(t, nbr, dNbr, s); err != nil {
		return err
	}
	if err := cuda.Download(t, d2, dD2, s); err != nil {
		return err
	}
	parallelFor(nq, func(from, to int) {
		var c []cand
		for i := from; i < to; i++ {
			c = c[:0]
			for j := off[i]; j < off[i+1]; j++ {
				c = append(c, cand{d2[j], nbr[j]})
			}
			if opts.Sorted || opts.Cap > 0 {
				slices.SortFunc(c, cmpCand)
			}
			if n := int(csr.Offsets[i+1] - csr.Offsets[i]); len(c) > n {
				c = c[:n]
			}
			if !opts.Sorted {
				slices.SortFunc(c, func(a, b cand) int { return int(a.idx) - int(b.idx) })
			}
			o := csr.Offsets[i]
			for j, x := range c {
				csr.Indices[o+int64(j)] = x.idx
				if csr.Dist != nil {
					csr.Dist[o+int64(j)] = sqrt32(x.d2)
				}
			}
		}
	})
	return nil
}

// cand is a neighbour: squared distance and caller's index.
type cand struct {
	d2  float32
	idx int32
}

// cmpCand orders by distance, ties by the smaller index.
func cmpCand(a, b cand) int {
	switch {
	case a.d2 < b.d2 || (a.d2 == b.d2 && a.idx < b.idx):
		return -1
	case b.d2 < a.d2 || (a.d2 == b.d2 && b.idx < a.idx):
		return 1
	}
	return 0
}

func sqrt32(v float32) float32 { return float32(math.Sqrt(float64(v))) }

// KNearest stores the k nearest within ε of each query, closest first.
// Each ray keeps its sorted list in the output buffer in device memory.
func (ix *Index) KNearest(q []float32, k int, idx []int32, dist []float32) error {
	return ix.run(q, func(nq int) error { return findneighbor.CheckKNearest(pkg, nq, k, idx, dist) },
		func(t *cuda.Thread, p launchParams, nq int, tmp *cuda.Allocs) error {
			if t == nil || k == 0 {
				for i := range idx {
					idx[i] = -1
				}
				for i := range dist {
					dist[i] = float32(math.Inf(1))
				}
				return nil
			}
			d2, err := ix.knn(t, p, nq, tmp, k, idx)
			if err != nil || dist == nil {
				return err
			}
			for i, v := range d2 {
				dist[i] = sqrt32(v)
			}
			return nil
		})
}

// knn runs the k-nearest pass, storing indices in idx and returning the
// squared distances.
func (ix *Index) knn(t *cuda.Thread, p launchParams, nq int, tmp *cuda.Allocs, k int, idx []int32) ([]float32, error) {
	s := ix.eng.stream
	n := uint64(nq) * uint64(k)
	dIdx, err := tmp.Alloc(t, n*4)
	if err != nil {
		return nil, err
	}
	dD2, err := tmp.Alloc(t, n*4)
	if err != nil {
		return nil, err
	}
	p.Mode, p.K, p.KnnIdx, p.KnnD2 = modeKNN, int32(k), uint64(dIdx), uint64(dD2)
	if err := ix.eng.launch(t, raygenNeighbor, &p, nq); err != nil {
		return nil, err
	}
	d2 := make([]float32, n)
	if err := cuda.Download(t, idx, dIdx, s); err != nil {
		return nil, err
	}
	return d2, cuda.Download(t, d2, dD2, s)
}

// Moments stores the neighbourhood moments of each query. With k = 0 the
// neighbours within ε are listed on the device in the order of their
// index (findneighbor.Batches) and summed on the host in that order: the
// rays meet them in the order of the BVH, which a tile's points build
// differently from the whole cloud's, so sums made as the rays go would
// differ from one index to another in the last bits. With k > 0 the k
// nearest are found on the device and summed on the host, closest first.
func (ix *Index) Moments(q []float32, k int, out []findneighbor.Moment) error {
	if k < 0 {
		return fmt.Errorf("optix: k = %d, want ≥ 0", k)
	}
	if k == 0 {
		return ix.radiusMoments(q, out)
	}
	return ix.run(q, func(nq int) error { return findneighbor.CheckLen(pkg, "out", len(out), nq) },
		func(t *cuda.Thread, p launchParams, nq int, tmp *cuda.Allocs) error {
			clear(out)
			if t == nil {
				return nil
			}
			idx := make([]int32, nq*k)
			d2, err := ix.knn(t, p, nq, tmp, k, idx)
			if err != nil {
				return err
			}
			xyz, err := ix.points(t)
			if err != nil {
				return err
			}
			qs := q
			if qs == nil {
				qs = xyz
			}
			parallelFor(nq, func(from, to int) {
				for i := from; i < to; i++ {
					for r, j := range idx[i*k : (i+1)*k] {
						if j < 0 {
							break
						}
						p, q := xyz[3*j:3*j+3], qs[3*i:3*i+3]
						out[i].AddNearest(p[0], p[1], p[2], q[0], q[1], q[2], sqrt32(d2[i*k+r]))
					}
				}
			})
			return nil
		})
}

// momentBatch bounds the neighbour entries radiusMoments lists at a time
// (4 bytes each).
const momentBatch = 1 << 26

// radiusMoments serves Moments for k = 0: each query's neighbours within
// ε, listed in batches of queries in the order of their index, summed in
// that order.
func (ix *Index) radiusMoments(q []float32, out []findneighbor.Moment) error {
	if ix.closed || len(q)%3 != 0 {
		_, err := ix.prepare(q) // the error Moments' other calls give
		return err
	}
	nq := ix.n
	if q != nil {
		nq = len(q) / 3
	}
	if err := findneighbor.CheckLen(pkg, "out", len(out), nq); err != nil {
		return err
	}
	clear(out)
	if ix.n == 0 || nq == 0 {
		return nil
	}
	var xyz []float32
	if err := ix.eng.ctx.Do(func(t *cuda.Thread) (err error) {
		xyz, err = ix.points(t)
		return err
	}); err != nil {
		return err
	}
	qs := q
	if qs == nil {
		qs = xyz
	}
	return findneighbor.Batches(ix, xyz, q, findneighbor.NeighborOptions{}, momentBatch, func(first int, csr *findneighbor.CSR) error {
		parallelFor(len(csr.Offsets)-1, func(from, to int) {
			for i := from; i < to; i++ {
				m := &out[first+i]
				c := qs[3*(first+i) : 3*(first+i)+3]
				for _, j := range csr.Indices[csr.Offsets[i]:csr.Offsets[i+1]] {
					m.AddNearest(xyz[3*j], xyz[3*j+1], xyz[3*j+2], c[0], c[1], c[2], 0)
				}
			}
		})
		return nil
	})
}

// points copies the indexed points back from the device, in the caller's
// order.
func (ix *Index) points(t *cuda.Thread) ([]float32, error) {
	sorted := make([]float32, 3*ix.n)
	if err := cuda.Download(t, sorted, ix.pts, ix.eng.stream); err != nil {
		return nil, err
	}
	xyz := make([]float32, 3*ix.n)
	parallelFor(ix.n, func(from, to int) {
		for i := from; i < to; i++ {
			o := ix.order[i]
			copy(xyz[3*o:3*o+3], sorted[3*i:3*i+3])
		}
	})
	return xyz, nil
}

// ClusterCores is DBSCAN's union-find stage inside the traversal (the
// paper's Algorithm 3): the ray of each core point unites it with every core
// neighbour of smaller index (lock-free, roots are the smallest index); the
// ray of every other point records its nearest core neighbour. Labels are
// then read off on the host.
func (ix *Index) ClusterCores(isCore []bool, label []int32) error {
	if err := findneighbor.CheckLen(pkg, "isCore", len(isCore), ix.n); err != nil {
		return err
	}
	if err := findneighbor.CheckLen(pkg, "label", len(label), ix.n); err != nil {
		return err
	}
	parent := make([]int32, ix.n)
	border := make([]int32, ix.n)
	err := ix.run(nil, func(int) error { return nil },
		func(t *cuda.Thread, p launchParams, nq int, tmp *cuda.Allocs) error {
			if t == nil {
				return nil
			}
			s := ix.eng.stream
			core := make([]byte, ix.n)
			for i, c := range isCore {
				if c {
					core[i] = 1
				}
				parent[i] = int32(i)
			}
			dCore, err := tmp.Alloc(t, uint64(ix.n))
			if err != nil {
				return err
			}
			dParent, err := tmp.Alloc(t, uint64(ix.n)*4)
			if err != nil {
				return err
			}
			dBorder, err := tmp.Alloc(t, uint64(ix.n)*4)
			if err != nil {
				return err
			}
			if err := cuda.Upload(t, dCore, core, s); err != nil {
				return err
			}
			if err := cuda.Upload(t, dParent, parent, s); err != nil {
				return err
			}
			if err := t.Memset32(dBorder, 0xffffffff, uint64(ix.n), s); err != nil {
				return err
			}
			p.Mode, p.IsCore, p.Parent, p.Border = modeDBSCAN, uint64(dCore), uint64(dParent), uint64(dBorder)
			if err := ix.eng.launch(t, raygenNeighbor, &p, nq); err != nil {
				return err
			}
			if err := cuda.Download(t, parent, dParent, s); err != nil {
				return err
			}
			return cuda.Download(t, border, dBorder, s)
		})
	if err != nil {
		return err
	}
	root := func(i int32) int32 {
		r := i
		for parent[r] != r {
			r = parent[r]
		}
		for parent[i] != r { // compress the path
			next := parent[i]
			parent[i] = r
			i = next
		}
		return r
	}
	for i := range label {
		switch {
		case isCore[i]:
			label[i] = root(int32(i))
		case border[i] >= 0:
			label[i] = root(border[i])
		default:
			label[i] = -1
		}
	}
	return nil
}
