package cpu

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

// Name is the backend's registered name.
const Name = "cpu"

// Priority is the backend's priority for "auto": above brute force's, below
// the GPU backends'.
const Priority = 10

func init() { findneighbor.Register(Backend()) }

// Backend returns the "cpu" backend: a uniform grid of cells about ε wide
// (kd-tree for ε = +Inf), points reordered cell by cell, queries in
// parallel on GOMAXPROCS goroutines. It runs everywhere and has priority
// 10, so "auto" picks it unless a GPU backend is usable. docs/findneighbor.md
// describes the design and its measurements.
func Backend() findneighbor.Backend { return cpuBackend{} }

// cpuBackend is the cpu backend; frame, when not nil, is the whole run's
// box its grids are laid out over (InFrame).
type cpuBackend struct{ frame *findneighbor.Box }

// InFrame returns the cpu backend laying its grids out over f.Box.
func (cpuBackend) InFrame(f findneighbor.Frame) findneighbor.Backend { return cpuBackend{&f.Box} }

func (cpuBackend) Name() string { return Name }

// PlainKNN marks the backend whose ε = +Inf index, a kd-tree searched leaf
// by leaf, serves plain kNN best (findneighbor.PlainKNNer).
func (cpuBackend) PlainKNN() {}

// OnHost marks a backend that computes on the host's cores (OnHoster).
func (cpuBackend) OnHost() {}

func (cpuBackend) Probe() (findneighbor.Info, error) {
	return findneighbor.HostInfo(Name, "uniform grid of ε cells in row-major order; kd-tree for ε = +Inf", Priority), nil
}

// Build sorts a copy of the points into the grid (or the kd-tree when ε is
// +Inf), keeping 16 bytes per point plus a few per occupied cell; with
// BuildOptions.Reuse and a finite ε it rearranges xyz in place into the
// grid's order instead of copying it, keeping 4 bytes per point more than
// the caller's slice.
func (b cpuBackend) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	if err := findneighbor.CheckBuild(pkgName, xyz, eps); err != nil {
		return nil, err
	}
	c := &cpuIndex{n: len(xyz) / 3, eps: eps, opts: opts, nw: hostkit.Workers(opts.Workers)}
	if math.IsInf(float64(eps), 1) {
		c.tree = newKDTree(xyz, c.nw)
		return c, nil
	}
	if f := b.frame; f != nil && len(xyz) > 0 && !f.Holds(findneighbor.BoxOf(xyz)) {
		return nil, fmt.Errorf("findneighbor: cpu: the frame %v does not hold the points' box %v", *f, findneighbor.BoxOf(xyz))
	}
	c.g = newGrid(xyz, b.frame, eps, cellsPerEps, c.nw, opts.Reuse)
	return c, nil
}

// TileHalo returns the halo a tile needs around its owned box (in XY; Z
// uncut) so that the cpu backend's index of the tile, built for ε in the
// whole run's Frame (findneighbor.InFrame), of largest side extent
// (or an upper bound of it), gives its owned points the moments (Index
// Moments and MomentsFunc with the indexed points as queries) that the
// whole run's index gives them, to the bit: ε plus one grid cell, widened
// like the grid's pruning. A query reads every point of the cells within ε
// of it, and adds them in the order of their positions in those cells
// (with AVX-512, in lanes by position): the tile must hold those cells'
// points whole, not only those within ε. It is about 2ε.
func TileHalo(eps float32, extent float64) float64 {
	return float64(eps)*(1+pruneSlack) + hostkit.CellSize(eps, cellsPerEps, extent)
}

// pkgName prefixes the errors of the argument checks, as it did when the
// backend lived in package findneighbor.
const pkgName = "findneighbor"

// cellsPerEps is the number of grid cells per ε along an axis (the window
// radius r): 1 scans the 27 cells around a query, clipped to those within ε.
const cellsPerEps = 1

type cpuIndex struct {
	n    int
	eps  float32
	opts findneighbor.BuildOptions
	nw   int
	g    *grid   // finite ε
	tree *kdtree // ε = +Inf
}

func (c *cpuIndex) Len() int     { return c.n }
func (c *cpuIndex) Eps() float32 { return c.eps }

func (c *cpuIndex) Close() error {
	c.g, c.tree = nil, nil
	return nil
}

// scratch is one worker's reusable memory.
type scratch struct {
	w     window
	sp    []span
	kb    hostkit.KBest
	keys  []uint64
	kc    []hostkit.Kent
	rows  []rowVisit
	pos   []int32
	stack []kdVisit
	_     [128]byte // workers' scratch side by side share no cache line
}

// forQueries calls fn for every query on c.nw workers. In self mode
// (q == nil) the queries are the indexed points in the index's own order
// (for locality) and self is the query's position there; otherwise self is
// -1. out is the query's number in the caller's order.
func (c *cpuIndex) forQueries(q []float32, fn func(s *scratch, out int, x, y, z float32, self int32) error) error {
	xs, ys, zs, perm := c.points()
	nq := c.n
	if q != nil {
		nq = len(q) / 3
	}
	sc := make([]scratch, c.nw)
	return hostkit.Parallel(nq, c.nw, c.opts.Progress, func(w, lo, hi int) error {
		s := &sc[w]
		for i := lo; i < hi; i++ {
			var err error
			if q == nil {
				err = fn(s, int(perm[i]), xs[i], ys[i], zs[i], int32(i))
			} else {
				err = fn(s, i, q[3*i], q[3*i+1], q[3*i+2], -1)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func (c *cpuIndex) points() (xs, ys, zs []float32, perm []int32) {
	if c.tree != nil {
		return c.tree.xs, c.tree.ys, c.tree.zs, c.tree.perm
	}
	return c.g.xs, c.g.ys, c.g.zs, c.g.perm
}

func (c *cpuIndex) Counts(q []float32, out []uint32) error {
	nq, err := findneighbor.CheckQueries(pkgName, q, c.n)
	if err != nil {
		return err
	}
	if err := findneighbor.CheckLen(pkgName, "out", len(out), nq); err != nil {
		return err
	}
	if c.tree != nil {
		return hostkit.ErrInfEps
	}
	return c.counts(q, out)
}

// counts is Counts on a validated q, a finite ε and a len(out) that fits.
func (c *cpuIndex) counts(q []float32, out []uint32) error {
	g := c.g
	return c.forQueries(q, func(s *scratch, i int, x, y, z float32, self int32) error {
		var n uint32
		if g.allWithin(x, y, z) {
			n = uint32(c.n)
		} else {
			s.sp = g.spans(x, y, z, &s.w, s.sp)
			for _, r := range s.sp {
				n += countSpan(g.xs[r.lo:r.hi], g.ys[r.lo:r.hi], g.zs[r.lo:r.hi], x, y, z, g.e2)
			}
		}
		if self >= 0 {
			n-- // the point itself, always at distance 0
		}
		out[i] = n
		return nil
	})
}

// countSpanGo counts the points of one span within ε (e2 = ε²) of (x, y,
// z): the hot loop of Counts, over contiguous float32 arrays (countSpan
// runs it where the CPU lacks AVX2 and on spans too short for a vector).
func countSpanGo(xs, ys, zs []float32, x, y, z, e2 float32) uint32 {
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	var n uint32
	for j, px := range xs {
		dx, dy, dz := px-x, ys[j]-y, zs[j]-z
		// Written so the compiler emits a conditional move: whether a
		// candidate is in is random, and a branch would mispredict often.
		in := uint32(0)
		if dx*dx+dy*dy+dz*dz <= e2 {
			in = 1
		}
		n += in
	}
	return n
}

// nearest returns the k nearest points within ε of a query (k < 0: all of
// them), from the grid or the tree, in distance order unless !sorted; the
// result is valid until the next call with s.
func (c *cpuIndex) nearest(s *scratch, k int, sorted bool, x, y, z float32, self int32) []hostkit.Kent {
	if k < 0 {
		k = math.MaxInt
	}
	if c.tree == nil {
		return c.g.nearest(s, k, sorted, x, y, z, self)
	}
	kb := &s.kb
	kb.Reset(k)
	c.tree.nearest(kb, &s.stack, x, y, z, self)
	kb.Finish(sorted)
	return kb.C
}

// nearestKeys is nearest's k nearest (k > 0) as position keys, in no
// particular order: what the moments need, without the grid's index
// lookups.
func (c *cpuIndex) nearestKeys(s *scratch, k int, x, y, z float32, self int32) []uint64 {
	if c.tree == nil {
		return c.g.nearestKeys(s, k, x, y, z, self)
	}
	s.keys = s.keys[:0]
	for _, e := range c.nearest(s, k, false, x, y, z, self) {
		s.keys = append(s.keys, posKey(e))
	}
	return s.keys
}

func (c *cpuIndex) KNearest(q []float32, k int, idx []int32, dist []float32) error {
	nq, err := findneighbor.CheckQueries(pkgName, q, c.n)
	if err != nil {
		return err
	}
	if err := findneighbor.CheckKNearest(pkgName, nq, k, idx, dist); err != nil || k == 0 {
		return err
	}
	if q == nil {
		return c.knearestSelf(k, idx, dist)
	}
	return c.forQueries(q, func(s *scratch, i int, x, y, z float32, self int32) error {
		nb := c.nearest(s, k, true, x, y, z, self)
		var d []float32
		if dist != nil {
			d = dist[i*k : (i+1)*k]
		}
		hostkit.StoreKNearest(nb, idx[i*k:(i+1)*k], d)
		return nil
	})
}

// knearestBlock is the number of queries whose results knearestSelf
// gathers in a worker's buffer before scattering them to the caller's
// order.
const knearestBlock = 256

// knearestSelf is KNearest(nil, ...): it searches the indexed points in
// the index's order (for locality of the reads). The kd-tree does that
// leaf by leaf (selfNearest) and stores each result in place; the grid,
// block by block, first stores the results contiguously, then copies them
// to their places in the caller's order, away from the search's hot loop.
func (c *cpuIndex) knearestSelf(k int, idx []int32, dist []float32) error {
	xs, ys, zs, perm := c.points()
	if c.tree != nil {
		kcs := make([][]hostkit.Kent, c.nw)
		return c.tree.selfNearest(k, c.nw, c.opts.Progress, func(w int, self int32, keys []uint64) {
			nb := toKents(kcs[w][:0], keys, perm)
			if cap(nb) != cap(kcs[w]) {
				kcs[w] = nb // rarely: the workers' headers share cache lines
			}
			sortKents(nb)
			o := int(perm[self]) * k
			var d []float32
			if dist != nil {
				d = dist[o : o+k]
			}
			hostkit.StoreKNearest(nb, idx[o:o+k], d)
		})
	}
	type blockBuf struct {
		s    scratch
		idx  []int32
		dist []float32
	}
	bufs := make([]blockBuf, c.nw)
	return hostkit.Parallel(c.n, c.nw, c.opts.Progress, func(w, lo, hi int) error {
		bb := &bufs[w]
		if bb.idx == nil {
			bb.idx = make([]int32, knearestBlock*k)
			if dist != nil {
				bb.dist = make([]float32, knearestBlock*k)
			}
		}
		s := &bb.s
		for b0 := lo; b0 < hi; b0 += knearestBlock {
			b1 := min(b0+knearestBlock, hi)
			for i := b0; i < b1; i++ {
				nb := c.nearest(s, k, true, xs[i], ys[i], zs[i], int32(i))
				j := (i - b0) * k
				var d []float32
				if dist != nil {
					d = bb.dist[j : j+k]
				}
				hostkit.StoreKNearest(nb, bb.idx[j:j+k], d)
			}
			for i := b0; i < b1; i++ {
				o, j := int(perm[i])*k, (i-b0)*k
				copy(idx[o:o+k], bb.idx[j:j+k])
				if dist != nil {
					copy(dist[o:o+k], bb.dist[j:j+k])
				}
			}
		}
		return nil
	})
}

// momentsFuncBlock is the number of points whose moments SelfMoments
// collects in a worker's buffer before handing them over.
const momentsFuncBlock = 256

// SelfMoments hands the moments of every indexed point (Moments(nil, k))
// to fn, momentsFuncBlock points at a time from the workers, so that no
// Moment per point is stored and fn reduces each block while it is in
// cache: on the kd-tree (ε = +Inf, k > 0) as its leaf-by-leaf search finds
// the k nearest, on the grid in its sorted order. For k > 0 it hands fn
// the distance of each point's k-th nearest too (+Inf when it has fewer;
// 0 for k = 0), as NearestMomentsFunc describes (SelfMomenter).
func (c *cpuIndex) SelfMoments(k int, fn func(pts []int32, m []findneighbor.Moment, far []float32)) (err error) {
	if c.tree != nil && k == 0 {
		return hostkit.ErrInfEps
	}
	type block struct {
		pts []int32
		m   []findneighbor.Moment
		far []float32
		_   [128 - 72]byte // one worker's slice headers per cache line pair: no false sharing
	}
	bufs := make([]block, c.nw)
	add := func(w int, i int32, m findneighbor.Moment, far float32) {
		b := &bufs[w]
		b.pts = append(b.pts, i)
		b.m = append(b.m, m)
		b.far = append(b.far, far)
		if len(b.pts) == momentsFuncBlock {
			fn(b.pts, b.m, b.far)
			b.pts, b.m, b.far = b.pts[:0], b.m[:0], b.far[:0]
		}
	}
	xs, ys, zs, perm := c.points()
	if c.tree != nil {
		err = c.tree.selfNearest(k, c.nw, c.opts.Progress, func(w int, self int32, keys []uint64) {
			m := keysMoment(xs, ys, zs, perm, xs[self], ys[self], zs[self], keys)
			add(w, perm[self], m, farKey(keys, k))
		})
	} else {
		sc := make([]scratch, c.nw)
		err = hostkit.Parallel(c.n, c.nw, c.opts.Progress, func(w, lo, hi int) error {
			for i := lo; i < hi; i++ {
				if k == 0 {
					add(w, perm[i], c.moment(&sc[w], k, xs[i], ys[i], zs[i], int32(i)), 0)
					continue
				}
				keys := c.nearestKeys(&sc[w], k, xs[i], ys[i], zs[i], int32(i))
				add(w, perm[i], keysMoment(xs, ys, zs, perm, xs[i], ys[i], zs[i], keys), farKey(keys, k))
			}
			return nil
		})
	}
	for _, b := range bufs {
		if err == nil && len(b.pts) > 0 {
			fn(b.pts, b.m, b.far)
		}
	}
	return err
}

// farKey returns the distance of the last of the k nearest keys in
// canonical order (keysMoment sorts them so), +Inf when there are fewer
// than k.
func farKey(keys []uint64, k int) float32 {
	if len(keys) < k {
		return float32(math.Inf(1))
	}
	return hostkit.Sqrt32(math.Float32frombits(posKeyD2(keys[len(keys)-1])))
}

func (c *cpuIndex) Moments(q []float32, k int, out []findneighbor.Moment) error {
	nq, err := findneighbor.CheckQueries(pkgName, q, c.n)
	if err != nil {
		return err
	}
	if err := findneighbor.CheckMoments(pkgName, nq, k, out); err != nil {
		return err
	}
	if q == nil {
		return c.SelfMoments(k, func(pts []int32, m []findneighbor.Moment, _ []float32) {
			for j, i := range pts {
				out[i] = m[j]
			}
		})
	}
	if k == 0 && c.tree != nil {
		return hostkit.ErrInfEps
	}
	return c.forQueries(q, func(s *scratch, i int, x, y, z float32, self int32) error {
		out[i] = c.moment(s, k, x, y, z, self)
		return nil
	})
}

// moment is Moments for the query (x, y, z), sorted position self (-1: a
// separate query): the k nearest's on either index, all within ε's (k =
// 0) on the grid.
func (c *cpuIndex) moment(s *scratch, k int, x, y, z float32, self int32) findneighbor.Moment {
	if k > 0 {
		xs, ys, zs, perm := c.points()
		return keysMoment(xs, ys, zs, perm, x, y, z, c.nearestKeys(s, k, x, y, z, self))
	}
	g := c.g
	if g.allWithin(x, y, z) {
		return g.momentAll(x, y, z, self >= 0)
	}
	var m findneighbor.Moment
	s.sp = g.spans(x, y, z, &s.w, s.sp)
	momentSpans(&m, g.xs, g.ys, g.zs, s.sp, x, y, z, g.e2, self)
	return m
}

func (c *cpuIndex) Neighbors(q []float32, opts findneighbor.NeighborOptions) (*findneighbor.CSR, error) {
	nq, err := findneighbor.CheckQueries(pkgName, q, c.n)
	if err != nil {
		return nil, err
	}
	if c.tree != nil {
		return nil, hostkit.ErrInfEps
	}
	counts := make([]uint32, nq)
	if err := c.counts(q, counts); err != nil {
		return nil, err
	}
	csr, err := findneighbor.NewCSR(counts, opts)
	if err != nil {
		return nil, err
	}
	counts = nil
	k := -1
	if opts.Cap > 0 {
		k = opts.Cap
	}
	err = c.forQueries(q, func(s *scratch, i int, x, y, z float32, self int32) error {
		l := c.nearest(s, k, opts.Sorted, x, y, z, self)
		if int64(len(l)) != csr.Offsets[i+1]-csr.Offsets[i] {
			return fmt.Errorf("findneighbor: cpu: query %d has %d neighbours, counted %d", i, len(l), csr.Offsets[i+1]-csr.Offsets[i])
		}
		hostkit.FillList(csr.Indices, csr.Dist, csr.Offsets[i], l, opts.Sorted)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return csr, nil
}

// ClusterCores joins the core points within ε of each other into
// components and labels every point with the smallest original index of
// its component's core points (a border point: of the nearest core point's
// component, ties by the smaller index; Noise when it has none), as
// findneighbor.ClusterCorer defines. The union-find runs over the grid's
// sorted positions, not the original indices: a query's candidates lie
// near it in the sorted arrays, so its finds and links stay in cache on
// dense clouds, where they are most of the work. The labels are then the
// components' smallest original indices, whatever the forest's shape, so
// they equal the other backends' to the bit.
func (c *cpuIndex) ClusterCores(isCore []bool, label []int32) error {
	if err := findneighbor.CheckClusterCores(pkgName, c.n, isCore, label); err != nil {
		return err
	}
	if c.tree != nil {
		return hostkit.ErrInfEps
	}
	g := c.g
	// Core flags in grid order, so the inner loops read them contiguously.
	core := make([]uint8, c.n)
	for j, p := range g.perm {
		if isCore[p] {
			core[j] = 1
		}
	}
	uf := hostkit.NewUnionFind(c.n)
	err := c.forQueries(nil, func(s *scratch, _ int, x, y, z float32, self int32) error {
		if core[self] == 0 {
			return nil
		}
		s.sp = g.spans(x, y, z, &s.w, s.sp)
		root := uf.Find(self)
		for _, r := range s.sp {
			// Each core pair once: from its earlier point in grid order.
			s.pos = coreWithin(s.pos, g.xs, g.ys, g.zs, core, max(r.lo, self+1), r.hi, x, y, z, g.e2)
			for _, j := range s.pos {
				// A neighbour already in the query's set (the usual case
				// on a dense cloud) needs no link; sets only ever merge, so
				// a root found once stays in the query's set.
				if rj := uf.Find(j); rj != root {
					uf.Union(root, rj)
					root = uf.Find(root)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// low[root]: the smallest original index of the root's component.
	low := make([]atomic.Int32, c.n)
	_ = hostkit.Parallel(c.n, c.nw, nil, func(_, lo, hi int) error {
		for j := lo; j < hi; j++ {
			low[j].Store(math.MaxInt32)
		}
		return nil
	})
	_ = hostkit.Parallel(c.n, c.nw, nil, func(_, lo, hi int) error {
		for j := lo; j < hi; j++ {
			if core[j] != 0 {
				atomicMin(&low[uf.Find(int32(j))], g.perm[j])
			}
		}
		return nil
	})
	return c.forQueries(nil, func(s *scratch, i int, x, y, z float32, self int32) error {
		if core[self] != 0 {
			label[i] = low[uf.Find(self)].Load()
			return nil
		}
		best, at := hostkit.Cand{D2: float32(math.Inf(1)), Idx: -1}, int32(-1)
		s.sp = g.spans(x, y, z, &s.w, s.sp)
		for _, r := range s.sp {
			for j := r.lo; j < r.hi; j++ {
				if core[j] == 0 {
					continue
				}
				dx, dy, dz := g.xs[j]-x, g.ys[j]-y, g.zs[j]-z
				if cd := (hostkit.Cand{D2: dx*dx + dy*dy + dz*dz, Idx: g.perm[j]}); cd.D2 <= g.e2 && cd.Before(best) {
					best, at = cd, j
				}
			}
		}
		label[i] = -1
		if at >= 0 {
			label[i] = low[uf.Find(at)].Load()
		}
		return nil
	})
}

// coreWithinGo sets buf to the sorted positions lo..hi-1 of core points
// (core[j] = 1) within squared distance e2 of (x, y, z), without a branch
// on the tests: on a dense cloud about one candidate in four is in, which
// no branch predictor guesses (coreWithin runs it where the CPU lacks AVX2
// and on spans too short for a vector).
func coreWithinGo(buf []int32, xs, ys, zs []float32, core []uint8, lo, hi int32, x, y, z, e2 float32) []int32 {
	n := max(int(hi)-int(lo), 0)
	buf = slices.Grow(buf[:0], n)[:n]
	if n == 0 {
		return buf
	}
	xs, ys, zs, core = xs[lo:hi], ys[lo:hi][:n], zs[lo:hi][:n], core[lo:hi][:n]
	m := 0
	for j, px := range xs {
		dx, dy, dz := px-x, ys[j]-y, zs[j]-z
		in := int(core[j])
		if !(dx*dx+dy*dy+dz*dz <= e2) {
			in = 0
		}
		buf[m] = lo + int32(j)
		m += in
	}
	return buf[:m]
}

// atomicMin lowers a to v when v is smaller.
func atomicMin(a *atomic.Int32, v int32) {
	for {
		old := a.Load()
		if v >= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}

// keysMoment sums the offsets and distances from (x, y, z) to its k
// nearest, given as position keys into the sorted arrays xs, ys, zs (perm:
// their indices), in any order: it sorts them into the order KNearest
// reports them (canonicalKeys) and adds them one after another, as the
// brute backend does, so that the sums depend on the k nearest alone, not
// on the index that found them (the kd-tree's leaves, the grid's cells, a
// tile's: docs/scale.md), and equal the brute backend's to the bit.
func keysMoment(xs, ys, zs []float32, perm []int32, x, y, z float32, keys []uint64) findneighbor.Moment {
	canonicalKeys(keys, perm)
	return sumNearest(xs, ys, zs, x, y, z, keys)
}

// sumNearestGo adds the offsets and distances from (x, y, z) to the
// points of the position keys with AddNearest, in the keys' order, as the
// brute backend does. sumNearest runs it, or the same with AVX-512.
func sumNearestGo(xs, ys, zs []float32, x, y, z float32, keys []uint64) findneighbor.Moment {
	var m findneighbor.Moment
	for _, e := range keys {
		pos := uint32(e)
		m.AddNearest(xs[pos], ys[pos], zs[pos], x, y, z, hostkit.Sqrt32(math.Float32frombits(posKeyD2(e))))
	}
	return m
}

// momentSpansGo adds to m the offsets from (x, y, z) to the points of the
// spans sp of the sorted arrays xs, ys, zs within ε (e2 = ε²), leaving out
// sorted position self (-1: none). momentSpans runs it, or the same with
// AVX-512.
func momentSpansGo(m *findneighbor.Moment, xs, ys, zs []float32, sp []span, x, y, z, e2 float32, self int32) {
	for _, r := range sp {
		skip := int32(-1)
		if self >= r.lo && self < r.hi {
			skip = self - r.lo
		}
		momentSpan(m, xs[r.lo:r.hi], ys[r.lo:r.hi], zs[r.lo:r.hi], x, y, z, e2, skip)
	}
}

// momentSpan adds to m the offsets from (x, y, z) to the points of one
// span within ε (e2 = ε²), leaving out position skip (-1: none): Moments'
// hot loop, with the sums in registers.
func momentSpan(m *findneighbor.Moment, xs, ys, zs []float32, x, y, z, e2 float32, skip int32) {
	ys, zs = ys[:len(xs)], zs[:len(xs)]
	var n uint32
	var s0, s1, s2, o0, o1, o2, o3, o4, o5 float64
	fx, fy, fz := float64(x), float64(y), float64(z)
	for j, px := range xs {
		py, pz := ys[j], zs[j]
		dx, dy, dz := px-x, py-y, pz-z
		if dx*dx+dy*dy+dz*dz > e2 || int32(j) == skip {
			continue
		}
		ex, ey, ez := float64(px)-fx, float64(py)-fy, float64(pz)-fz
		n++
		s0 += ex
		s1 += ey
		s2 += ez
		o0 += ex * ex
		o1 += ex * ey
		o2 += ex * ez
		o3 += ey * ey
		o4 += ey * ez
		o5 += ez * ez
	}
	m.N += n
	m.Sum[0] += s0
	m.Sum[1] += s1
	m.Sum[2] += s2
	m.Outer[0] += o0
	m.Outer[1] += o1
	m.Outer[2] += o2
	m.Outer[3] += o3
	m.Outer[4] += o4
	m.Outer[5] += o5
}
