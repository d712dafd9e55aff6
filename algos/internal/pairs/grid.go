package pairs

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pctk/pctk/algos/internal/cellsort"
	"github.com/pctk/pctk/internal/par"
)

// grid bins points, in float64, in cells of side r/√dims, so that every
// pair closer than r lies in one cell or in two cells less than 3 apart
// on every axis (√dims < 2). It only orders the search: every pair
// Forest or Counts relies on is tested in float64 (near), so the cell
// boundaries' rounding cannot change an answer.
type grid struct {
	p     []float64 // the points' coordinates in cell order, 3 a point
	dims  int
	r2    float64
	cells []cell  // sorted by row, then x
	order []int32 // the points in cell order: cells[c].start ≤ k < cells[c+1].start
	// rows lists the offsets of the other rows that may hold a cell's
	// points' neighbours (dz·ny + dy for dz, dy within reach), in
	// increasing order: those after its row are the positive ones.
	rows []int64
}

// cell is one occupied cell: its row (z·ny + y, y offset by reach so that
// no row offset wraps), its x and the first of its points in order.
type cell struct {
	row, x int64
	start  int32
}

// before orders cells by row, then x.
func (c cell) before(row, x int64) bool { return c.row < row || c.row == row && c.x < x }

// reach is the number of cells a neighbour may lie away on an axis.
const reach = 2

// newGrid bins the points xyz (pos their float64 coordinates, or nil)
// for pairs strictly closer than r in dims (2: XY, 3) dimensions.
func newGrid(xyz []float32, pos []float64, dims int, r float64) (*grid, error) {
	if pos != nil && len(pos) != len(xyz) {
		return nil, fmt.Errorf("%d float64 coordinates for %d points", len(pos), len(xyz)/3)
	}
	at := func(i, a int) float64 {
		if pos != nil {
			return pos[3*i+a]
		}
		return float64(xyz[3*i+a])
	}
	g := &grid{dims: dims, r2: r * r}
	n := len(xyz) / 3
	side := r / math.Sqrt(float64(dims))
	rs := par.Ranges(n, par.Grain)
	los, his := make([][3]float64, len(rs)), make([][3]float64, len(rs))
	par.For(rs, func(w, from, to int) {
		lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
		hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		for i := from; i < to; i++ {
			for a := range dims {
				lo[a], hi[a] = min(lo[a], at(i, a)), max(hi[a], at(i, a))
			}
		}
		los[w], his[w] = lo, hi
	})
	lo, hi := los[0], his[0]
	for w := range rs {
		for a := range dims {
			lo[a], hi[a] = min(lo[a], los[w][a]), max(hi[a], his[w][a])
		}
	}
	// Cells on each axis, y padded by reach on both sides.
	var span [3]float64
	for a := range dims {
		span[a] = math.Floor((hi[a]-lo[a])/side) + 1
	}
	ny := span[1] + 2*reach
	if n > 0 && !(span[0] < 1<<62 && ny*max(span[2], 1) < 1<<62) {
		return nil, fmt.Errorf("radius %g: too small for the cloud's extent (%g by %g by %g cells)", r, span[0], span[1], span[2])
	}
	keys := make([][3]int64, n)
	cellOf := func(i, a int) int64 { return int64((at(i, a) - lo[a]) / side) }
	par.For(rs, func(_, from, to int) {
		for i := from; i < to; i++ {
			keys[i] = [3]int64{0, cellOf(i, 1), cellOf(i, 0)}
			if dims == 3 {
				keys[i][0] = cellOf(i, 2)
			}
		}
	})
	order, starts := cellsort.Order(keys)
	g.order = order
	g.p = make([]float64, 3*n)
	par.For(rs, func(_, from, to int) {
		for k := from; k < to; k++ {
			for a := range dims {
				g.p[3*k+a] = at(int(order[k]), a)
			}
		}
	})
	g.cells = make([]cell, 0, len(starts))
	for _, k := range starts[:len(starts)-1] {
		key := keys[order[k]]
		g.cells = append(g.cells, cell{row: key[0]*int64(ny) + key[1] + reach, x: key[2], start: k})
	}
	g.cells = append(g.cells, cell{start: int32(n)}) // sentinel
	lz := 0
	if dims == 3 {
		lz = reach
	}
	for dz := -lz; dz <= lz; dz++ {
		for dy := -reach; dy <= reach; dy++ {
			if dz != 0 || dy != 0 {
				g.rows = append(g.rows, int64(dz)*int64(ny)+int64(dy))
			}
		}
	}
	return g, nil
}

// near reports whether the points at k and l in cell order are strictly
// closer than r in float64: nanoflann's L2_Simple_Adaptor::evalMetric,
// the squared differences added in axis order from 0, each product
// rounded (the conversion forbids a fused multiply-add).
func (g *grid) near(k, l int32) bool {
	p, q := g.p[3*k:3*k+3], g.p[3*l:3*l+3]
	d2 := 0.0
	for a := range g.dims {
		d := p[a] - q[a]
		d2 += float64(d * d)
	}
	return d2 < g.r2
}

// span returns the points of cell c, in cell order.
func (g *grid) span(c int) (from, to int32) { return g.cells[c].start, g.cells[c+1].start }

// around calls fn(c, cells) for every cell c in [from, to), in order,
// cells listing the occupied cells whose points may be neighbours of c's
// (less than reach+1 cells apart on every axis): with ahead, only those
// after c; else all of them, c first. A cursor per row offset, set by a
// binary search at from, walks the cells once.
func (g *grid) around(from, to int, ahead bool, fn func(c int, cells []int32)) {
	m := len(g.cells) - 1
	rows := g.rows
	if ahead {
		rows = rows[len(rows)/2:]
	}
	cursor := make([]int, len(rows))
	var cells []int32
	for c := from; c < to; c++ {
		row, x := g.cells[c].row, g.cells[c].x
		cells = cells[:0]
		if !ahead {
			cells = append(cells, int32(c))
			for d := c - 1; d >= 0 && g.cells[d].row == row && g.cells[d].x >= x-reach; d-- {
				cells = append(cells, int32(d))
			}
		}
		for d := c + 1; d < m && g.cells[d].row == row && g.cells[d].x <= x+reach; d++ {
			cells = append(cells, int32(d))
		}
		for o, off := range rows {
			r := row + off
			d := cursor[o]
			if c == from {
				d, _ = slices.BinarySearchFunc(g.cells[:m], cell{row: r, x: x - reach}, func(e, t cell) int {
					if e.before(t.row, t.x) {
						return -1
					}
					return 1
				})
			}
			for d < m && g.cells[d].before(r, x-reach) {
				d++
			}
			cursor[o] = d
			for ; d < m && g.cells[d].row == r && g.cells[d].x <= x+reach; d++ {
				cells = append(cells, int32(d))
			}
		}
		fn(c, cells)
	}
}

// Forest calls fn(i, j) for pairs of the points xyz (float32, interleaved;
// pos their float64 coordinates relative to the same origin, or nil) with
// dx²+dy²(+dz² unless flat) < r² in float64, enough of them that their
// connected components are those of all such pairs: at most one pair
// fewer than the points. fn gets each pair once, i and j in no particular
// order (which pairs of a component it gets may change from run to run;
// the components do not). An error from fn stops the calls.
//
// It tests no pair it need not: the points of a cell (side r/√dims) are
// linked to its first point, and two cells whose points are already one
// component are not searched; on dense clouds, where a point has hundreds
// of neighbours, that is a few tests a point. It works on workers
// goroutines (0: GOMAXPROCS) over a lock-free union-find.
func Forest(xyz []float32, pos []float64, flat bool, r float64, workers int, fn func(i, j int) error) error {
	g, _, links, err := forest(xyz, pos, flat, r, workers, true)
	if err != nil {
		return err
	}
	for _, ls := range links {
		for e := 0; e < len(ls); e += 2 {
			if err := fn(int(g.order[ls[e]]), int(g.order[ls[e+1]])); err != nil {
				return err
			}
		}
	}
	return nil
}

// Components returns, for every point of xyz, the smallest index of the
// points of its component: the connected components of the pairs closer
// than r that Forest links (same arguments), labelled on all cores from
// its union-find, with no pair handed over.
func Components(xyz []float32, pos []float64, flat bool, r float64, workers int) ([]int32, error) {
	g, u, _, err := forest(xyz, pos, flat, r, workers, false)
	if err != nil {
		return nil, err
	}
	n, workers := len(g.order), threads(workers)
	least := make([]int32, n) // at a root (a position in cell order)
	eachChunk(n, workers, func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			least[k] = math.MaxInt32
		}
	})
	// Every point's parent becomes its root (the unions are done), so the
	// labelling pass reads it without a find.
	eachChunk(n, workers, func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			r := u.find(int32(k))
			atomic.StoreInt32(&u[k], r)
			lower(&least[r], g.order[k])
		}
	})
	label := make([]int32, n)
	eachChunk(n, workers, func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			label[g.order[k]] = least[u[k]]
		}
	})
	return label, nil
}

// lower sets *at to i when i is smaller, atomically.
func lower(at *int32, i int32) {
	for v := atomic.LoadInt32(at); i < v; v = atomic.LoadInt32(at) {
		if atomic.CompareAndSwapInt32(at, v, i) {
			return
		}
	}
}

// forest links the points as Forest describes and returns their grid, the
// union-find over its order and, with keep, the pairs each worker linked
// (positions in the grid's order).
func forest(xyz []float32, pos []float64, flat bool, r float64, workers int, keep bool) (*grid, unionFind, [][]int32, error) {
	dims := 3
	if flat {
		dims = 2
	}
	g, err := newGrid(xyz, pos, dims, r)
	if err != nil {
		return nil, nil, nil, err
	}
	u := newUnionFind(len(g.order))
	m := len(g.cells) - 1
	// whole[c]: every point of cell c is linked to its first one (always,
	// but for rounding at the cell's corners, when it is searched pair by
	// pair).
	whole := make([]bool, m)
	workers = threads(workers)
	// links[w] holds the pairs worker w linked (in cell order).
	links := make([][]int32, workers)
	link := func(w int, k, l int32) {
		if u.union(k, l) && keep {
			links[w] = append(links[w], k, l)
		}
	}
	// pairwise links the points of [from, to) with those of [from2, to2)
	// wherever they are not yet one component.
	pairwise := func(w int, from, to, from2, to2 int32) {
		for k := from; k < to; k++ {
			for l := max(from2, k+1); l < to2; l++ {
				if u.find(k) != u.find(l) && g.near(k, l) {
					link(w, k, l)
				}
			}
		}
	}
	// First every cell on its own (cells share no point), then the pairs
	// of cells.
	eachChunk(m, workers, func(w, first, last int) {
		for c := first; c < last; c++ {
			from, to := g.span(c)
			whole[c] = true
			for k := from + 1; k < to; k++ {
				if g.near(from, k) {
					link(w, from, k)
				} else {
					whole[c] = false
				}
			}
			if !whole[c] {
				pairwise(w, from, to, from, to)
			}
		}
	})
	eachChunk(m, workers, func(w, first, last int) {
		g.around(first, last, true, func(c int, cells []int32) {
			from, to := g.span(c)
			for _, d := range cells {
				from2, to2 := g.span(int(d))
				if !whole[c] || !whole[d] {
					pairwise(w, from, to, from2, to2)
					continue
				}
				// One pair joins the two components, if any does.
				if u.find(from) == u.find(from2) {
					continue
				}
			search:
				for k := from; k < to; k++ {
					for l := from2; l < to2; l++ {
						if g.near(k, l) {
							link(w, k, l)
							break search
						}
					}
				}
			}
		})
	})
	return g, u, links, nil
}

// threads returns the goroutines to run on for workers (0: GOMAXPROCS),
// findneighbor.BuildOptions.Workers' meaning.
func threads(workers int) int {
	if workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return workers
}

// eachChunk calls fn(w, first, last) for consecutive chunks of [0, m)
// (about 8 a worker, 16 to 1024 cells) on workers goroutines, w the
// worker.
func eachChunk(m, workers int, fn func(w, first, last int)) {
	chunk := min(max(m/(8*workers), 16), 1024)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				first := int(next.Add(int64(chunk))) - chunk
				if first >= m {
					return
				}
				fn(w, first, min(first+chunk, m))
			}
		})
	}
	wg.Wait()
}

// unionFind is a union-find that goroutines may share: a root links under
// the smaller root by compare-and-swap, finds halve paths as they go.
type unionFind []int32

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for k := range u {
		u[k] = int32(k)
	}
	return u
}

func (u unionFind) find(k int32) int32 {
	for {
		p := atomic.LoadInt32(&u[k])
		if p == k {
			return k
		}
		gp := atomic.LoadInt32(&u[p])
		if gp != p {
			atomic.CompareAndSwapInt32(&u[k], p, gp)
		}
		k = gp
	}
}

// union joins the sets of k and l and reports whether they were apart.
func (u unionFind) union(k, l int32) bool {
	for {
		rk, rl := u.find(k), u.find(l)
		if rk == rl {
			return false
		}
		lo, hi := min(rk, rl), max(rk, rl)
		if atomic.CompareAndSwapInt32(&u[hi], hi, lo) {
			return true
		}
	}
}

// Counts stores in counts, for every point of xyz (float32, interleaved;
// pos their float64 coordinates relative to the same origin, or nil), the
// number of other points with dx²+dy²+dz² < r² in float64, or limit where
// there are at least limit (limit ≤ 0: no limit). It works on workers
// goroutines (0: GOMAXPROCS), each point searching its own cell first and
// stopping at limit.
func Counts(xyz []float32, pos []float64, r float64, limit, workers int, counts []uint32) error {
	if len(counts) != len(xyz)/3 {
		return fmt.Errorf("%d counts for %d points", len(counts), len(xyz)/3)
	}
	g, err := newGrid(xyz, pos, 3, r)
	if err != nil {
		return err
	}
	if limit <= 0 {
		limit = math.MaxUint32
	}
	m := len(g.cells) - 1
	eachChunk(m, threads(workers), func(_, first, last int) {
		g.around(first, last, false, func(c int, cells []int32) {
			from, to := g.span(c)
			for k := from; k < to; k++ {
				n := 0
			search:
				for _, d := range cells {
					from2, to2 := g.span(int(d))
					for l := from2; l < to2; l++ {
						if l != k && g.near(k, l) {
							if n++; n == limit {
								break search
							}
						}
					}
				}
				counts[g.order[k]] = uint32(n)
			}
		})
	})
	return nil
}
