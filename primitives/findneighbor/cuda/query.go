package cuda

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/pctk/pctk/primitives/findneighbor"
	rt "github.com/pctk/pctk/rt/cuda"
)

// maxK is the largest k the device's per-thread buffers hold (fn_knn128).
const maxK = 128

// minWindow is the fewest queries a window is cut down to after running
// out of device memory; failing at that size is an error. (A variable for
// tests.)
var minWindow = 1024

// window is a range of queries on the device, as the query kernels take it.
type window struct {
	qs     rt.DevicePtr // queries in cell order, float4
	nq     int          // threads to launch
	self   bool         // the queries are the indexed points
	lo, hi int          // query indices the kernel handles (others exit)
	base   int          // the global query index of output slot 0
}

// params starts a query kernel's argument list.
func (ix *index) params(w window) *rt.Params {
	self := int32(0)
	if w.self {
		self = 1
	}
	return rt.NewParams().Struct(ix.grid.bytes()).Ptr(ix.pos).Ptr(ix.start).Ptr(ix.ids).
		Ptr(w.qs).I32(int32(w.nq)).I32(self).I32(int32(w.lo)).I32(int32(w.hi))
}

// numQueries validates q and returns the number of queries.
func (ix *index) numQueries(q []float32) (int, error) {
	if ix.ctx == nil {
		return 0, errors.New("cuda backend: index used after Close")
	}
	if len(q)/3 > math.MaxInt32 {
		return 0, fmt.Errorf("%s: %d queries exceed the int32 index range", pkg, len(q)/3)
	}
	return findneighbor.CheckQueries(pkg, q, ix.n)
}

// pkg prefixes the errors of the argument checks shared with the other
// backends (findneighbor.CheckLen, ...).
const pkg = "cuda backend"

// do runs f on the device thread, timing it with the index's events.
func (ix *index) do(f func(t *rt.Thread) error) error {
	return ix.ctx.Do(func(t *rt.Thread) error {
		ix.timing.Download = 0
		if err := t.Record(ix.ev[0], ix.stream); err != nil {
			return err
		}
		if err := f(t); err != nil {
			return err
		}
		if err := t.Record(ix.ev[1], ix.stream); err != nil {
			return err
		}
		ms, err := t.Elapsed(ix.ev[0], ix.ev[1])
		ix.timing.Query = ms
		ix.addBusy(ms)
		return err
	})
}

// fetch copies a result from the device into dst through the staging
// buffers, once the work queued before it has run, and adds the copy's
// wall time to the index's Download timing.
func fetch[T any](ix *index, t *rt.Thread, dst []T, src rt.DevicePtr) error {
	if err := t.StreamSync(ix.stream); err != nil {
		return err
	}
	t0 := time.Now()
	err := rt.StageDownload(t, ix.st, dst, src, ix.stream)
	ix.timing.Download += float32(time.Since(t0).Seconds() * 1000)
	return err
}

// windowLimit, when > 0, caps the memory budget of every window; tests set
// it to exercise windowed runs on small clouds.
var windowLimit uint64

// windows runs fn over windows of the nq queries (q, or the indexed points
// when q is nil). next(lo, limit) returns the end of the window starting at
// lo; limit starts at initial and halves each time fn runs out of device
// memory, down to a window of minWindow queries.
func (ix *index) windows(t *rt.Thread, q []float32, nq int, initial uint64, next func(lo int, limit uint64) int,
	fn func(tmp *rt.Allocs, w window) error) error {
	limit := initial
	if windowLimit > 0 {
		limit = min(limit, windowLimit)
	}
	for lo := 0; lo < nq; {
		hi := next(lo, limit)
		err := ix.window(t, q, lo, hi, fn)
		if errors.Is(err, rt.ErrOutOfMemory) && hi-lo > minWindow {
			limit /= 2
			continue
		}
		if err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

func (ix *index) window(t *rt.Thread, q []float32, lo, hi int, fn func(*rt.Allocs, window) error) error {
	var tmp rt.Allocs
	defer tmp.Free(t)
	if q == nil {
		return fn(&tmp, window{qs: ix.pos, nq: ix.n, self: true, lo: lo, hi: hi, base: lo})
	}
	m := hi - lo
	qs, err := ix.prepareQueries(t, &tmp, q[3*lo:3*hi])
	if err != nil {
		return err
	}
	return fn(&tmp, window{qs: qs, nq: m, lo: 0, hi: m, base: lo})
}

// queryBytes is the device memory a query of a separate set needs besides
// its outputs: coordinates, float4, keys and values twice over.
const queryBytes = 12 + 16 + 16

// perQuery runs fn over windows sized so that out bytes of output per
// query fit in about half the free device memory.
func (ix *index) perQuery(t *rt.Thread, q []float32, nq int, out uint64, fn func(*rt.Allocs, window) error) error {
	free, _, err := t.MemInfo()
	if err != nil {
		return err
	}
	per := out
	if q != nil {
		per += queryBytes
	}
	limit := max(uint64(minWindow)*per, free/2)
	return ix.windows(t, q, nq, limit, func(lo int, limit uint64) int {
		return lo + int(min(uint64(nq-lo), max(limit/per, uint64(minWindow))))
	}, fn)
}

// prepareQueries uploads a separate query set and sorts it by cell, so
// that neighbouring threads search neighbouring cells.
func (ix *index) prepareQueries(t *rt.Thread, tmp *rt.Allocs, q []float32) (rt.DevicePtr, error) {
	m, s := len(q)/3, ix.stream
	var bufs [4]rt.DevicePtr
	for i, size := range []uint64{uint64(12 * m), uint64(4 * m), uint64(4 * m), uint64(16 * m)} {
		p, err := tmp.Alloc(t, size)
		if err != nil {
			return 0, err
		}
		bufs[i] = p
	}
	dq, keys, vals, qs := bufs[0], bufs[1], bufs[2], bufs[3]
	if err := rt.Upload(t, dq, q, s); err != nil {
		return 0, err
	}
	g := ix.grid.bytes()
	if err := ix.launch(t, ix.k.keys, m, rt.NewParams().Ptr(dq).I32(int32(m)).Struct(g).Ptr(keys).Ptr(vals).Ptr(0)); err != nil {
		return 0, err
	}
	order, err := ix.sortPairs(t, tmp, keys, vals, m, ix.grid.keyBits())
	if err != nil {
		return 0, err
	}
	p := rt.NewParams().Ptr(dq).Ptr(order).I32(int32(m)).Struct(g).Ptr(qs).Ptr(0).Ptr(0)
	return qs, ix.launch(t, ix.k.gather, m, p)
}

// Counts stores the number of neighbours of each query in out.
func (ix *index) Counts(q []float32, out []uint32) error {
	nq, err := ix.numQueries(q)
	if err != nil {
		return err
	}
	if err := findneighbor.CheckLen(pkg, "out", len(out), nq); err != nil {
		return err
	}
	return ix.do(func(t *rt.Thread) error { return ix.counts(t, q, nq, out) })
}

func (ix *index) counts(t *rt.Thread, q []float32, nq int, out []uint32) error {
	return ix.perQuery(t, q, nq, 4, func(tmp *rt.Allocs, w window) error {
		m := w.hi - w.lo
		d, err := tmp.Alloc(t, uint64(4*m))
		if err != nil {
			return err
		}
		if err := ix.launch(t, ix.k.counts, w.nq, ix.params(w).Ptr(d)); err != nil {
			return err
		}
		return fetch(ix, t, out[w.base:w.base+m], d)
	})
}

// KNearest stores the k nearest neighbours within ε of each query.
func (ix *index) KNearest(q []float32, k int, idx []int32, dist []float32) error {
	nq, err := ix.numQueries(q)
	if err != nil {
		return err
	}
	if err := findneighbor.CheckKNearest(pkg, nq, k, idx, dist); err != nil {
		return err
	}
	if k == 0 || nq == 0 {
		return nil
	}
	if k > maxK {
		return ix.knnFromLists(q, nq, k, idx, dist)
	}
	return ix.do(func(t *rt.Thread) error {
		return ix.perQuery(t, q, nq, uint64(8*k), func(tmp *rt.Allocs, w window) error {
			m := w.hi - w.lo
			di, err := tmp.Alloc(t, uint64(4*m*k))
			if err != nil {
				return err
			}
			var dd rt.DevicePtr
			if dist != nil {
				if dd, err = tmp.Alloc(t, uint64(4*m*k)); err != nil {
					return err
				}
			}
			if err := ix.launch(t, ix.knnKernel(k), w.nq, ix.params(w).I32(int32(k)).Ptr(ix.rank).Ptr(di).Ptr(dd).Ptr(0)); err != nil {
				return err
			}
			if err := fetch(ix, t, idx[w.base*k:(w.base+m)*k], di); err != nil {
				return err
			}
			if dist != nil {
				return fetch(ix, t, dist[w.base*k:(w.base+m)*k], dd)
			}
			return nil
		})
	})
}

// knnKernel picks the smallest buffer that holds k: a buffer of K keeps
// the K best, so a candidate must beat the K-th best found so far to enter
// it, and each entry passes down up to K slots; k = 8 (statistical
// removal's, PDAL's eigenvalues') takes the 8-slot buffer, not the 16.
func (ix *index) knnKernel(k int) rt.Function {
	switch {
	case k <= 8:
		return ix.k.knn8
	case k <= 16:
		return ix.k.knn16
	case k <= 64:
		return ix.k.knn64
	}
	return ix.k.knn128
}

// momentBytes is the size of a query's output of the moment kernels
// (struct Acc in kernels/grid.cu): a findneighbor.Moment as Go lays it out,
// which the kernels store so that the copy back goes straight into the
// caller's slice (no buffer and conversion on the host, which cost 2.5 ms
// and, in a fresh heap, 5-100 ms to allocate at 1M queries on the H100).
const momentBytes = 88

// The moment kernels' layout is Moment's: this fails to compile otherwise
// (a constant index out of range, or below zero).
func _() {
	var x [1]struct{}
	var m findneighbor.Moment
	_ = x[unsafe.Sizeof(m)-momentBytes]
	_ = x[unsafe.Offsetof(m.Sum)-8]
	_ = x[unsafe.Offsetof(m.Outer)-32]
	_ = x[unsafe.Offsetof(m.Dist)-80]
}

// Moments stores the moments of each query's neighbourhood in out.
func (ix *index) Moments(q []float32, k int, out []findneighbor.Moment) error {
	nq, err := ix.numQueries(q)
	if err != nil {
		return err
	}
	if err := findneighbor.CheckMoments(pkg, nq, k, out); err != nil {
		return err
	}
	if nq == 0 {
		return nil
	}
	if k > maxK {
		return ix.momentsFromLists(q, nq, k, out)
	}
	return ix.do(func(t *rt.Thread) error {
		return ix.perQuery(t, q, nq, momentBytes, func(tmp *rt.Allocs, w window) error {
			m := w.hi - w.lo
			dm, err := tmp.Alloc(t, uint64(momentBytes*m))
			if err != nil {
				return err
			}
			p := ix.params(w)
			f := ix.k.moments
			if k > 0 {
				f = ix.knnKernel(k)
				p.I32(int32(k)).Ptr(ix.rank).Ptr(0).Ptr(0)
			}
			if err := ix.launch(t, f, w.nq, p.Ptr(dm)); err != nil {
				return err
			}
			// The staged copy runs on all cores: the first touch of out's
			// pages comes with it.
			return fetch(ix, t, out[w.base:w.base+m], dm)
		})
	})
}

// ClusterCores runs DBSCAN's union-find stage on the device.
func (ix *index) ClusterCores(isCore []bool, label []int32) error {
	if ix.ctx == nil {
		return errors.New("cuda backend: index used after Close")
	}
	if err := findneighbor.CheckLen(pkg, "isCore", len(isCore), ix.n); err != nil {
		return err
	}
	if err := findneighbor.CheckLen(pkg, "label", len(label), ix.n); err != nil {
		return err
	}
	n := ix.n
	if n == 0 {
		return nil
	}
	return ix.do(func(t *rt.Thread) error {
		var tmp rt.Allocs
		defer tmp.Free(t)
		var bufs [6]rt.DevicePtr
		for i, size := range []uint64{uint64(n), uint64(n), uint64(4 * n), uint64(4 * n), uint64(4 * n), uint64(4 * n)} {
			p, err := tmp.Alloc(t, size)
			if err != nil {
				return err
			}
			bufs[i] = p
		}
		dIs, core, parent, root, minIdx, dl := bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5]
		if err := rt.StageUpload(t, ix.st, dIs, isCore, ix.stream); err != nil {
			return err
		}
		g := ix.grid.bytes()
		n32 := int32(n)
		type step struct {
			f rt.Function
			p *rt.Params
		}
		steps := []step{{ix.k.ccInit, rt.NewParams().Ptr(ix.pos).I32(n32).Ptr(dIs).Ptr(core).Ptr(parent).Ptr(minIdx)}}
		if ix.grid.cellsLinked() {
			steps = append(steps, step{ix.k.ccLink, rt.NewParams().Struct(g).Ptr(ix.pos).Ptr(ix.start).I32(n32).Ptr(core).Ptr(parent)})
		}
		steps = append(steps,
			step{ix.k.ccUnion, rt.NewParams().Struct(g).Ptr(ix.pos).Ptr(ix.start).Ptr(ix.ids).I32(n32).Ptr(core).Ptr(parent)},
			step{ix.k.ccFlatten, rt.NewParams().Ptr(ix.pos).I32(n32).Ptr(parent).Ptr(root).Ptr(minIdx)},
			step{ix.k.ccLabel, rt.NewParams().Struct(g).Ptr(ix.pos).Ptr(ix.start).Ptr(ix.ids).I32(n32).Ptr(core).Ptr(root).Ptr(minIdx).Ptr(dl)},
		)
		for _, st := range steps {
			if err := ix.launch(t, st.f, n, st.p); err != nil {
				return err
			}
		}
		return fetch(ix, t, label, dl)
	})
}

// nworkers returns the host parallelism: BuildOptions.Workers or
// GOMAXPROCS.
func (ix *index) nworkers() int {
	if ix.workers > 0 {
		return ix.workers
	}
	return runtime.GOMAXPROCS(0)
}

// parallelFor runs fn over [0, n) in chunks on nworkers goroutines; fn
// gets a worker number below nworkers for per-worker scratch.
func (ix *index) parallelFor(n int, fn func(w, lo, hi int)) {
	nw := ix.nworkers()
	chunk := max(256, (n+nw*8-1)/(nw*8))
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for w := range min(nw, (n+chunk-1)/chunk) {
		wg.Go(func() {
			for {
				mu.Lock()
				lo := next
				next += chunk
				mu.Unlock()
				if lo >= n {
					return
				}
				fn(w, lo, min(lo+chunk, n))
			}
		})
	}
	wg.Wait()
}
