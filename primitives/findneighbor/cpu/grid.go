package cpu

import (
	"math"
	"sync"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

// The cpu backend's uniform grid. Points are sorted by the key of their
// cell in row-major (z, y, x) order, so that:
//   - the points of one cell are contiguous, and so are those of a run of
//     cells along x (a row): the cells x-r..x+r of the row through a query
//     form ONE contiguous range of the sorted arrays, whatever cells in
//     between are empty; a query scans at most (2r+1)² ranges;
//   - a worker sweeping the sorted points visits the rows of three
//     neighbouring z-slabs in order, a stencil sweep that streams through
//     the cache.
//
// Only occupied cells and rows are stored (sorted keys, offsets, and a hash
// of row keys), so memory is O(N) whatever the extent/ε ratio. Cells are
// about ε/r wide, laid out by hostkit.Layout.

const (
	// pruneSlack widens ε by a relative 1e-5, as the layout widens cells,
	// when cells or rows are skipped by their distance from the query: a
	// pair the float32 test accepts may exceed ε by a few ulps.
	pruneSlack = 1e-5
	// maxR is the largest number of cells per ε the grid supports.
	maxR = 2
)

// grid is the index structure of the cpu backend for a finite ε.
type grid struct {
	// xs, ys, zs are the points in cell order; perm maps a sorted position
	// to the point's original index.
	xs, ys, zs []float32
	perm       []int32
	hostkit.Layout
	r int // window radius in cells: h·r ≥ ε
	// cellStart[c]..cellStart[c+1] are the sorted positions of occupied
	// cell c (cells in key order); cellX[c] is its x coordinate.
	cellStart []int32
	cellX     []int32
	// rowStart[k]..rowStart[k+1] are the cells of occupied row k; rows maps
	// a row key (z·ny + y) to k.
	rowStart []int32
	rows     rowHash
	eps, e2  float32 // ε and ε² as the distance test uses them
	lim2     float64 // ε² widened by pruneSlack, for pruning
	// sums are Σp and Σ p pᵀ (upper triangle) over all points in float64,
	// made on first use, for queries that have every point within ε.
	sumsOnce sync.Once
	s1       [3]float64
	s2       [6]float64
}

// newGrid sorts the points into cells of about ε/r laid out over their
// box or frame (order), into new arrays, or with reuse into xyz itself.
func newGrid(xyz []float32, frame *findneighbor.Box, eps float32, r int, nw int, reuse bool) *grid {
	n := len(xyz) / 3
	g := &grid{eps: eps, e2: eps * eps, r: r}
	g.lim2 = float64(eps) * float64(eps) * (1 + pruneSlack) * (1 + pruneSlack)
	perm, keys, starts := g.order(xyz, frame, nw, !reuse)
	g.perm = perm
	g.index(keys, starts)
	if reuse {
		toSortedColumns(xyz, perm)
		g.xs, g.ys, g.zs = xyz[:n:n], xyz[n:2*n:2*n], xyz[2*n:]
		return g
	}
	g.xs, g.ys, g.zs = make([]float32, n), make([]float32, n), make([]float32, n)
	_ = hostkit.Parallel(n, nw, nil, func(_, lo, hi int) error {
		for j := lo; j < hi; j++ {
			p := 3 * int(perm[j])
			g.xs[j], g.ys[j], g.zs[j] = xyz[p], xyz[p+1], xyz[p+2]
		}
		return nil
	})
	return g
}

// order lays out cells of about ε/r (g.eps, g.r) over the bounding box of
// xyz, or over frame when not nil (which holds xyz), and sorts the points
// by cell (hostkit.Layout.Order); spare is as Order takes it.
func (g *grid) order(xyz []float32, frame *findneighbor.Box, nw int, spare bool) (perm []int32, keys []uint64, starts []int32) {
	var lo, hi [3]float32
	if frame != nil {
		lo, hi = frame.Min, frame.Max
	} else {
		lo, hi = hostkit.Bounds(xyz)
	}
	g.Layout = hostkit.NewLayout(lo, hi, g.eps, g.r)
	return g.Layout.Order(xyz, nw, spare)
}

// toSortedColumns rearranges interleaved xyz in place into three columns,
// all x, then all y, then all z, each in sorted order: slot a·n + j gets
// coordinate a of point perm[j]. It follows the permutation's cycles,
// pulling each slot's value from its source and marking filled slots in a
// bitmap (1 bit per value), so it needs no inverse permutation.
func toSortedColumns(xyz []float32, perm []int32) {
	n := len(perm)
	done := make([]uint64, (3*n+63)/64)
	for s := range 3 * n {
		if done[s>>6]&(1<<(s&63)) != 0 {
			continue
		}
		first := xyz[s]
		for t := s; ; {
			done[t>>6] |= 1 << (t & 63)
			src := 3*int(perm[t%n]) + t/n
			if src == s {
				xyz[t] = first
				break
			}
			xyz[t] = xyz[src]
			t = src
		}
	}
}

// index builds the cell and row tables from the occupied cells' keys, in
// increasing order, and their starts in sorted order.
func (g *grid) index(keys []uint64, starts []int32) {
	g.cellStart = starts
	g.cellX = make([]int32, len(keys))
	nx := uint64(g.Dim[0])
	rows := 0
	for c, k := range keys {
		g.cellX[c] = int32(k % nx)
		if c == 0 || k/nx != keys[c-1]/nx {
			rows++
		}
	}
	g.rowStart = make([]int32, 0, rows+1)
	g.rows = newRowHash(rows)
	for c, k := range keys {
		if c == 0 || k/nx != keys[c-1]/nx {
			g.rows.put(k/nx, int32(len(g.rowStart)))
			g.rowStart = append(g.rowStart, int32(c))
		}
	}
	g.rowStart = append(g.rowStart, int32(len(keys)))
}

// rowHash maps row keys to row numbers by open addressing.
type rowHash struct {
	keys  []uint64 // key+1; 0 marks an empty slot
	vals  []int32
	shift uint
}

func newRowHash(n int) rowHash {
	size, shift := 1, uint(64)
	for size < 2*n {
		size <<= 1
		shift--
	}
	return rowHash{keys: make([]uint64, size), vals: make([]int32, size), shift: shift}
}

func (t *rowHash) slot(k uint64) uint64 {
	return ((k + 1) * 0x9e3779b97f4a7c15) >> t.shift & uint64(len(t.keys)-1)
}

func (t *rowHash) put(k uint64, v int32) {
	for s := t.slot(k); ; s = (s + 1) & uint64(len(t.keys)-1) {
		if t.keys[s] == 0 {
			t.keys[s], t.vals[s] = k+1, v
			return
		}
	}
}

func (t *rowHash) get(k uint64) (int32, bool) {
	if len(t.keys) == 0 {
		return 0, false
	}
	for s := t.slot(k); ; s = (s + 1) & uint64(len(t.keys)-1) {
		switch t.keys[s] {
		case k + 1:
			return t.vals[s], true
		case 0:
			return 0, false
		}
	}
}

// span is a contiguous range of sorted positions to scan.
type span struct{ lo, hi int32 }

// window caches, for one query cell, where the cells x-r..x+r of each of
// the (2r+1)² rows around it start in the sorted arrays.
type window struct {
	cx, cy, cz int64
	ok         bool
	// bound[row][t] is the first sorted position of cell x-r+t of the row
	// or later; bound[row][2r+1] ends the row's run.
	bound [(2*maxR + 1) * (2*maxR + 1)][2*maxR + 2]int32
	has   [(2*maxR + 1) * (2*maxR + 1)]bool
}

// fill computes the window of cell (cx, cy, cz), which lies within r cells
// of the grid.
func (g *grid) fill(w *window, cx, cy, cz int64) {
	w.cx, w.cy, w.cz, w.ok = cx, cy, cz, true
	r := int64(g.r)
	k := 0
	for dz := -r; dz <= r; dz++ {
		for dy := -r; dy <= r; dy++ {
			y, z := cy+dy, cz+dz
			w.has[k] = false
			if y >= 0 && y < g.Dim[1] && z >= 0 && z < g.Dim[2] {
				if row, ok := g.rows.get(uint64(z*g.Dim[1] + y)); ok {
					w.has[k] = true
					g.rowBounds(&w.bound[k], row, cx)
				}
			}
			k++
		}
	}
}

// rowBounds fills b with the first sorted position of cells cx-r+t (t =
// 0..2r+1) of row, or of the next occupied cell after it.
func (g *grid) rowBounds(b *[2*maxR + 2]int32, row int32, cx int64) {
	cs, ce := int(g.rowStart[row]), int(g.rowStart[row+1])
	xs := g.cellX[cs:ce]
	// First cell with x ≥ cx-r: binary search, then walk.
	x0 := cx - int64(g.r)
	i, j := 0, len(xs)
	for i < j {
		m := int(uint(i+j) >> 1)
		if int64(xs[m]) < x0 {
			i = m + 1
		} else {
			j = m
		}
	}
	for t := 0; t <= 2*g.r+1; t++ {
		for i < len(xs) && int64(xs[i]) < x0+int64(t) {
			i++
		}
		b[t] = g.cellStart[cs+i]
	}
}

// gap is the distance from offset l (within a cell of size h) to the
// nearest face of the cell d steps away along one axis.
func gap(d int, l, h float64) float64 {
	switch {
	case d > 0:
		return max(float64(d)*h-l, 0)
	case d < 0:
		return max(l+float64(-d-1)*h, 0)
	}
	return 0
}

// gaps holds, for one query, the squared distances from it to the slabs
// of cells d = -r..r away along each axis (index d+r).
type gaps struct{ x, y, z [2*maxR + 1]float64 }

// locate finds the cell of (x, y, z), fills w for it if needed and
// computes the query's gaps; ok is false when no cell is within ε.
func (g *grid) locate(x, y, z float32, w *window, gp *gaps) (ok bool) {
	fx, fy, fz := g.CellF(x, y, z)
	r := float64(g.r)
	if fx < -r || fy < -r || fz < -r || fx > float64(g.Dim[0]-1)+r || fy > float64(g.Dim[1]-1)+r || fz > float64(g.Dim[2]-1)+r {
		return false
	}
	cx, cy, cz := int64(fx), int64(fy), int64(fz)
	if !w.ok || cx != w.cx || cy != w.cy || cz != w.cz {
		g.fill(w, cx, cy, cz)
	}
	lx := float64(x) - g.Org[0] - float64(cx)*g.H
	ly := float64(y) - g.Org[1] - float64(cy)*g.H
	lz := float64(z) - g.Org[2] - float64(cz)*g.H
	for d := -g.r; d <= g.r; d++ {
		gp.x[d+g.r], gp.y[d+g.r], gp.z[d+g.r] = sq(gap(d, lx, g.H)), sq(gap(d, ly, g.H)), sq(gap(d, lz, g.H))
	}
	return true
}

// rowSpan returns the range of sorted positions of the cells of window row
// whose slab along x is within rest (squared) of the query: the row's run
// clipped at both ends, never beyond the query's own column.
func (g *grid) rowSpan(w *window, gp *gaps, row int, rest float64) span {
	a, b := 0, 2*g.r
	for a < g.r && gp.x[a] > rest {
		a++
	}
	for b > g.r && gp.x[b] > rest {
		b--
	}
	return span{w.bound[row][a], w.bound[row][b+1]}
}

// spans appends to out the ranges of sorted positions that may hold points
// within ε of (x, y, z): the x-runs of the rows around its cell, clipped to
// the cells whose box is within ε. w caches the cell lookups between
// queries in the same cell.
func (g *grid) spans(x, y, z float32, w *window, out []span) []span {
	out = out[:0]
	var gp gaps
	if !g.locate(x, y, z, w, &gp) {
		return out
	}
	k := 0
	for dz := 0; dz <= 2*g.r; dz++ {
		for dy := 0; dy <= 2*g.r; dy++ {
			row := k
			k++
			rest := g.lim2 - gp.y[dy] - gp.z[dz]
			if !w.has[row] || rest < 0 {
				continue
			}
			if sp := g.rowSpan(w, &gp, row, rest); sp.lo < sp.hi {
				out = append(out, sp)
				if dy == g.r && dz == g.r {
					// The query's own row first.
					last := len(out) - 1
					out[0], out[last] = out[last], out[0]
				}
			}
		}
	}
	return out
}

// rowVisit is a window row waiting for a kNN scan with its squared
// distance from the query.
type rowVisit struct {
	d2  float64
	row int
}

// nearest is nearestKeys as kents keyed by distance and index, in key
// order when sorted, in s.kc (valid until the next call).
func (g *grid) nearest(s *scratch, k int, sorted bool, x, y, z float32, self int32) []hostkit.Kent {
	s.kc = toKents(s.kc[:0], g.nearestKeys(s, k, x, y, z, self), g.perm)
	if sorted {
		sortKents(s.kc)
	}
	return s.kc
}

// nearestKeys returns the position keys of the k nearest points within ε
// of (x, y, z) (k = math.MaxInt: all of them), except sorted position
// self, ties at the k-th distance broken by the smaller index, in no
// particular order, in s.keys (valid until the next call). It visits the
// rows around the query's cell nearest first, gathers their points within
// the bound without branching on the distance test, and whenever 2k+16
// are gathered keeps the k nearest (keepK) and shrinks the bound to the
// k-th distance: later rows are clipped to the cells within it, and the
// first row beyond it ends the scan, so that a kNN scans little more than
// the k-th distance's ball, not ε's.
func (g *grid) nearestKeys(s *scratch, k int, x, y, z float32, self int32) []uint64 {
	buf := s.keys[:0]
	defer func() { s.keys = buf }()
	var gp gaps
	if k == 0 || !g.locate(x, y, z, &s.w, &gp) {
		return buf
	}
	w := &s.w
	rs := s.rows[:0]
	row := 0
	for dz := 0; dz <= 2*g.r; dz++ {
		for dy := 0; dy <= 2*g.r; dy++ {
			if d2 := gp.y[dy] + gp.z[dz]; w.has[row] && d2 <= g.lim2 {
				rs = append(rs, rowVisit{d2, row})
			}
			row++
		}
	}
	// At most (2r+1)² rows: insertion sort, nearest first.
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].d2 < rs[j-1].d2; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	s.rows = rs
	// The pruning bound: the k-th squared distance, widened like lim2
	// (float32 rounding of the distance test) plus a floor far above the
	// float64 error of the gaps, so that no point the test would accept,
	// exact ties included, is skipped.
	floor := 1e-8 * g.H * g.H
	lim, bound := g.e2, g.lim2
	for _, rv := range rs {
		rest := bound - rv.d2
		if rest < 0 {
			break // rows are nearest first: none later can hold a candidate
		}
		sp := g.rowSpan(w, &gp, rv.row, rest)
		if sp.lo >= sp.hi {
			continue
		}
		buf = gatherKeys(buf, g.xs, g.ys, g.zs, sp.lo, sp.hi, x, y, z, lim, self)
		if (len(buf)-16)/2 >= k { // 2k+16 gathered (no overflow at k = MaxInt)
			buf, lim = keepK(buf, k, lim)
			bound = min(g.lim2, float64(lim)*(1+pruneSlack)*(1+pruneSlack)+floor)
		}
	}
	buf, _, s.kc = rankKeys(buf, k, lim, g.perm, s.kc)
	return buf
}

func sq(v float64) float64 { return v * v }

// momentAll is the Moment of a query that has every point within ε, from
// the sums over all points instead of a pass over them (what keeps a huge ε
// from costing O(N²) in Moments): with d = p − q, Σd = Σp − n·q and
// Σ d dᵀ = Σ p pᵀ − q (Σp)ᵀ − (Σp) qᵀ + n·q qᵀ. Coordinates are local (the
// cloud's centre at the origin), so the cancellation costs few digits of
// float64. self says the query is an indexed point, whose own zero offset
// adds to the sums nothing but must not count.
func (g *grid) momentAll(x, y, z float32, self bool) findneighbor.Moment {
	g.sumsOnce.Do(func() {
		for j := range g.xs {
			p := [3]float64{float64(g.xs[j]), float64(g.ys[j]), float64(g.zs[j])}
			g.s1[0] += p[0]
			g.s1[1] += p[1]
			g.s1[2] += p[2]
			g.s2[0] += p[0] * p[0]
			g.s2[1] += p[0] * p[1]
			g.s2[2] += p[0] * p[2]
			g.s2[3] += p[1] * p[1]
			g.s2[4] += p[1] * p[2]
			g.s2[5] += p[2] * p[2]
		}
	})
	n := float64(len(g.xs))
	q := [3]float64{float64(x), float64(y), float64(z)}
	m := findneighbor.Moment{N: uint32(len(g.xs))}
	if self {
		m.N--
	}
	for a := range 3 {
		m.Sum[a] = g.s1[a] - n*q[a]
	}
	k := 0
	for a := range 3 {
		for b := a; b < 3; b++ {
			m.Outer[k] = g.s2[k] - q[a]*g.s1[b] - g.s1[a]*q[b] + n*q[a]*q[b]
			k++
		}
	}
	return m
}

// allWithin reports whether every indexed point is certainly within ε of
// (x, y, z) (the farthest corner of their bounding box is), so that a
// count needs no distance test: what keeps a huge ε from costing O(N²).
func (g *grid) allWithin(x, y, z float32) bool {
	if !(g.e2 >= 1e-30) {
		return false // ε² near float32's underflow: leave it to the exact test
	}
	far := 0.0
	q := [3]float32{x, y, z}
	for a := range 3 {
		far += sq(max(math.Abs(float64(q[a])-float64(g.Lo[a])), math.Abs(float64(g.Hi[a])-float64(q[a]))))
	}
	e := float64(g.eps) * (1 - pruneSlack)
	return far <= e*e
}
