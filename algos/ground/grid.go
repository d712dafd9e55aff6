package ground

import (
	"math"
	"slices"
	"sync"

	"github.com/pctk/pctk/internal/par"
)

// Grid is a raster frame in the XY plane of the coordinates the filters are
// given: cell (c, r) covers [X0+c·cell, X0+(c+1)·cell) × [Y0+r·cell,
// Y0+(r+1)·cell). A tiled run passes the whole run's Grid to every tile,
// so that the tiles' cells are the whole run's cells.
type Grid struct {
	// X0, Y0 are the lower-left corner of cell (0, 0): PDAL takes the
	// minimum X and Y of the points it classifies.
	X0, Y0 float64
	// Cols and Rows are the number of cells along X and Y: PDAL takes
	// int((maxX-X0)/cell)+1 and int((maxY-Y0)/cell)+1.
	Cols, Rows int
}

// PDALGrid returns the grid PDAL's SMRFilter::run and PMFFilter lay over
// the points sel selects (nil: all) of pos (interleaved x, y, z): its
// origin the points' minimum X and Y, as many cells as int(extent/cell)+1.
func PDALGrid(pos []float64, sel []bool, cell float64) Grid {
	minx, miny := math.Inf(1), math.Inf(1)
	maxx, maxy := math.Inf(-1), math.Inf(-1)
	for i := 0; i < len(pos)/3; i++ {
		if sel != nil && !sel[i] {
			continue
		}
		x, y := pos[3*i], pos[3*i+1]
		minx, maxx = math.Min(minx, x), math.Max(maxx, x)
		miny, maxy = math.Min(miny, y), math.Max(maxy, y)
	}
	if minx > maxx {
		return Grid{}
	}
	return Grid{X0: minx, Y0: miny, Cols: int((maxx-minx)/cell) + 1, Rows: int((maxy-miny)/cell) + 1}
}

// raster is the part of a Grid the points of one call cover, stored column
// by column as PDAL stores its rasters (index c·rows + r), with its place in
// the whole Grid.
type raster struct {
	cols, rows int
	// c0, r0 are the grid column and row of the raster's cell (0, 0).
	c0, r0 int
	// edge says, for the left, right, bottom and top sides, whether the
	// raster's side is the whole grid's side (the morphology and the
	// gradients clip there in both, so a dependence may reach it).
	edge [4]bool
}

func (g raster) n() int { return g.cols * g.rows }

// whole reports whether the raster is the whole grid.
func (g raster) whole() bool { return g.edge == [4]bool{true, true, true, true} }

// rings calls visit for every cell of the raster on the square ring at
// Chebyshev distance k around (c, r), and reports whether the ring met any
// cell of the raster.
func (g raster) ring(c, r, k int, visit func(cc, rr int)) bool {
	met := false
	cell := func(cc, rr int) {
		if cc >= 0 && cc < g.cols && rr >= 0 && rr < g.rows {
			met = true
			visit(cc, rr)
		}
	}
	if k == 0 {
		cell(c, r)
		return met
	}
	for cc := c - k; cc <= c+k; cc++ {
		cell(cc, r-k)
		cell(cc, r+k)
	}
	for rr := r - k + 1; rr <= r+k-1; rr++ {
		cell(c-k, rr)
		cell(c+k, rr)
	}
	return met
}

// cand is a filled cell near an empty one: its squared distance in cells
// and its raster index.
type cand struct {
	d2  int
	idx int
}

func (a cand) less(b cand) bool { return a.d2 < b.d2 || a.d2 == b.d2 && a.idx < b.idx }

// nearest returns the k filled cells nearest to the cell (c, r) of g
// (ok says which are filled), by distance between cell centres and then by
// raster index (the order of the whole grid's index, column-major, since
// the raster is a window of it), fewer when the raster holds fewer.
func (g raster) nearest(c, r, fillK int, ok func(i int) bool, buf []cand) []cand {
	best := buf[:0]
	for k := 1; ; k++ {
		met := g.ring(c, r, k, func(cc, rr int) {
			i := cc*g.rows + rr
			if !ok(i) {
				return
			}
			dc, dr := cc-c, rr-r
			x := cand{dc*dc + dr*dr, i}
			if len(best) == fillK && !x.less(best[fillK-1]) {
				return
			}
			if len(best) < fillK {
				best = append(best, x)
			}
			j := len(best) - 1
			for ; j > 0 && x.less(best[j-1]); j-- {
				best[j] = best[j-1]
			}
			best[j] = x
		})
		// A cell beyond ring k is more than k cells away.
		if !met || len(best) == fillK && best[fillK-1].d2 <= k*k {
			return best
		}
	}
}

// fill replaces every NaN of v by the running mean (SMRFilter::knnfill's
// M1 += (z-M1)/j) of its fillK nearest non-NaN cells (SMRF's 8, PMF's 1),
// taken in the order
// nearest returns them, and returns for each cell the distance in cells to
// the farthest cell its value came from (0 for a cell that had a value).
// With no value at all, v stays NaN and every reach is +Inf.
func (g raster) fill(v []float64, fillK int) []float64 {
	reach := make([]float64, len(v))
	empty := []int{}
	for i, z := range v {
		if math.IsNaN(z) {
			empty = append(empty, i)
		}
	}
	if len(empty) == 0 {
		return reach
	}
	if len(empty) == len(v) {
		for i := range reach {
			reach[i] = math.Inf(1)
		}
		return reach
	}
	// A k-d tree over the filled cells' integer positions: distances are
	// exact, and the canonical search orders ties by raster index.
	var xs, ys, zs []float64
	var at []int
	for i, z := range v {
		if !math.IsNaN(z) {
			xs = append(xs, float64(i/g.rows))
			ys = append(ys, float64(i%g.rows))
			zs = append(zs, z)
			at = append(at, i)
		}
	}
	t := newFlann(xs, ys)
	t.canonical = true
	k := min(fillK, len(zs))
	par.For(par.Ranges(len(empty), 256), func(_, lo, hi int) {
		res := newKNN(k)
		for _, i := range empty[lo:hi] {
			t.nearest(float64(i/g.rows), float64(i%g.rows), res)
			m := 0.0
			for j, n := range res.idx[:res.n] {
				m += (zs[n] - m) / float64(j+1)
			}
			v[i] = m
			reach[i] = math.Sqrt(res.dist[res.n-1])
			if res.n < fillK && !g.whole() {
				// The whole grid may hold more cells beyond the raster.
				reach[i] = math.Inf(1)
			}
		}
	})
	return reach
}

// erode and dilate are PDAL's math::erodeDiamond and math::dilateDiamond:
// iterations times, each cell takes the minimum (maximum) of itself and its
// four edge neighbours inside the raster, which amounts to the minimum
// (maximum) over the diamond |dc|+|dr| ≤ iterations clipped to the raster.
func (g raster) erode(v []float64, iterations int) { g.morph(v, iterations, false) }

func (g raster) dilate(v []float64, iterations int) { g.morph(v, iterations, true) }

func (g raster) morph(v []float64, iterations int, dilate bool) {
	if iterations == 0 {
		return
	}
	step := erodeStep
	if dilate {
		step = dilateStep
	}
	if !slices.ContainsFunc(v, math.IsNaN) {
		// No NaN, and none can appear: Go's min and max give the same
		// extremes without a branch per comparison (3x faster: the
		// branches of PDAL's comparisons mispredict on terrain), in any
		// order, so that a diamond of many steps can be taken at once.
		if iterations >= diamondMin {
			g.diamond(v, iterations, dilate)
			return
		}
		step = minStep
		if dilate {
			step = maxStep
		}
	}
	g.steps(v, iterations, step)
}

// steps applies step iterations times to every column of v.
func (g raster) steps(v []float64, iterations int, step func(out, col, left, right []float64)) {
	rows := g.rows
	buf := scratch(len(v))
	defer pool.Put(buf)
	src, dst := v, *buf
	for range iterations {
		par.For(par.Ranges(g.cols, max(1, par.Grain/max(1, rows))), func(_, lo, hi int) {
			for c := lo; c < hi; c++ {
				// A column at the raster's side stands in for its missing
				// neighbour: the extreme with itself changes nothing.
				col := src[c*rows : (c+1)*rows]
				left, right := col, col
				if c > 0 {
					left = src[(c-1)*rows : c*rows]
				}
				if c < g.cols-1 {
					right = src[(c+1)*rows : (c+2)*rows]
				}
				step(dst[c*rows:(c+1)*rows], col, left, right)
			}
		})
		src, dst = dst, src
	}
	if &src[0] != &v[0] {
		copy(v, src)
	}
}

// diamondMin is the fewest iterations diamond takes over from steps: a
// diamond costs about 7 steps (8-9 ms against 1.2 ms a step on a 1177 x
// 562 raster of smooth terrain, 2 cores).
const diamondMin = 7

// diamond sets each cell of v (no NaN) to the minimum (maximum when
// dilate) over the diamond |dc| + |dr| ≤ r around it clipped to the raster,
// as r steps of minStep (maxStep) do, in a time that does not grow with r.
// On the raster padded by r cells of +Inf (-Inf) the clipping is free, and
// a diamond is a sum of shapes (Minkowski): for odd r, the 5-cell cross of
// one step and the two diagonal segments of half-length (r-1)/2 (in
// coordinates u = dc+dr, v = dc-dr the diamond is the points of |u|, |v| ≤ r
// with u, v of one parity: the segments give the even ones up to r-1, the
// cross adds the odd ones); for even r, two crosses and the segments of
// (r-2)/2. Each segment is a sliding extreme along the diagonals (van Herk
// and Gil-Werman: three comparisons a cell, whatever its length). Minima
// and maxima do not round, and Go's order -0 < +0 is total without NaN, so
// the result is the steps' to the bit.
func (g raster) diamond(v []float64, r int, dilate bool) {
	fill, step := math.Inf(1), minStep
	if dilate {
		fill, step = math.Inf(-1), maxStep
	}
	p := raster{rows: g.rows + 2*r, cols: g.cols + 2*r}
	buf := scratch(p.rows * p.cols)
	defer pool.Put(buf)
	a := *buf // every cell set below
	grain := max(1, par.Grain/p.rows)
	par.For(par.Ranges(p.cols, grain), func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			col := a[c*p.rows : (c+1)*p.rows]
			if c < r || c >= r+g.cols {
				for i := range col {
					col[i] = fill
				}
				continue
			}
			for i := range r {
				col[i], col[len(col)-1-i] = fill, fill
			}
			copy(col[r:], v[(c-r)*g.rows:(c-r+1)*g.rows])
		}
	})
	crosses := 2 - r%2
	p.steps(a, crosses, step)
	if h := (r - crosses) / 2; h > 0 {
		p.diagonal(a, h, 1, dilate)
		p.diagonal(a, h, -1, dilate)
	}
	par.For(par.Ranges(g.cols, grain), func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			copy(v[c*g.rows:(c+1)*g.rows], a[(c+r)*p.rows+r:])
		}
	})
}

// diagonal sets each cell of a to the minimum (maximum when dilate) of
// the cells (c+t, r+dir·t), |t| ≤ h, inside the raster. A maximum is taken
// as the negated minimum of the negated values (exact, and -0 < +0 turns
// over with the rest).
func (g raster) diagonal(a []float64, h, dir int, dilate bool) {
	// The diagonals start in the first column, or on the first row (dir
	// 1) or last row (dir -1) of the others.
	starts := g.rows + g.cols - 1
	stride := g.rows + dir
	sign := 1.0
	if dilate {
		sign = -1
	}
	par.For(par.Ranges(starts, 64), func(_, lo, hi int) {
		w := 2*h + 1
		var ext, pre, suf []float64
		for s := lo; s < hi; s++ {
			c, r := 0, s
			if s >= g.rows {
				c, r = s-g.rows+1, 0
				if dir < 0 {
					r = g.rows - 1
				}
			}
			n := min(g.cols-c, g.rows-r)
			if dir < 0 {
				n = min(g.cols-c, r+1)
			}
			at := c*g.rows + r
			// ext: the line between h cells of +Inf at each end.
			ext = ext[:0]
			for range h {
				ext = append(ext, math.Inf(1))
			}
			for t := range n {
				ext = append(ext, sign*a[at+t*stride])
			}
			for range h {
				ext = append(ext, math.Inf(1))
			}
			// pre and suf: the minima from the start of ext's block of w
			// to i, and from i to the block's end.
			pre, suf = slices.Grow(pre[:0], len(ext))[:len(ext)], slices.Grow(suf[:0], len(ext))[:len(ext)]
			for b := 0; b < len(ext); b += w {
				e := min(b+w, len(ext))
				m := ext[b]
				for i := b; i < e; i++ {
					m = min(m, ext[i])
					pre[i] = m
				}
				m = ext[e-1]
				for i := e - 1; i >= b; i-- {
					m = min(m, ext[i])
					suf[i] = m
				}
			}
			for t := range n {
				a[at+t*stride] = sign * min(suf[t], pre[t+w-1])
			}
		}
	})
}

// pool holds the morphology's scratch rasters (*[]float64): smrf and pmf
// take dozens of openings of one raster, and a fresh one each time cost
// as much as a step (zeroing, page faults).
var pool sync.Pool

// scratch returns a raster of n cells from pool, their values any.
func scratch(n int) *[]float64 {
	p, _ := pool.Get().(*[]float64)
	if p == nil {
		p = new([]float64)
	}
	*p = slices.Grow((*p)[:0], n)[:n]
	return p
}

// dilateStep and erodeStep set out[i] to the extreme (maximum, minimum)
// of col[i] and its four edge neighbours: left[i], right[i], col[i-1] and
// col[i+1] inside the column, in one pass. PDAL's comparisons: a NaN
// never replaces a value and is never replaced, so the result does not
// depend on their order (a NaN cell stays NaN, any other takes the extreme
// of itself and its non-NaN neighbours).
func dilateStep(out, col, left, right []float64) {
	n := len(col)
	out, left, right = out[:n], left[:n], right[:n]
	for i, m := range col {
		if x := left[i]; x > m {
			m = x
		}
		if x := right[i]; x > m {
			m = x
		}
		if i > 0 {
			if x := col[i-1]; x > m {
				m = x
			}
		}
		if i+1 < n {
			if x := col[i+1]; x > m {
				m = x
			}
		}
		out[i] = m
	}
}

// maxStep and minStep are dilateStep and erodeStep for columns without
// NaN, with Go's max and min (which would let a NaN neighbour win); a zero
// may come out with the other sign, which no comparison tells apart.
func maxStep(out, col, left, right []float64) {
	n := len(col)
	out, left, right = out[:n], left[:n], right[:n]
	if n == 1 {
		out[0] = max(col[0], left[0], right[0])
		return
	}
	out[0] = max(col[0], left[0], right[0], col[1])
	for i := 1; i < n-1; i++ {
		out[i] = max(col[i], left[i], right[i], col[i-1], col[i+1])
	}
	out[n-1] = max(col[n-1], left[n-1], right[n-1], col[n-2])
}

func minStep(out, col, left, right []float64) {
	n := len(col)
	out, left, right = out[:n], left[:n], right[:n]
	if n == 1 {
		out[0] = min(col[0], left[0], right[0])
		return
	}
	out[0] = min(col[0], left[0], right[0], col[1])
	for i := 1; i < n-1; i++ {
		out[i] = min(col[i], left[i], right[i], col[i-1], col[i+1])
	}
	out[n-1] = min(col[n-1], left[n-1], right[n-1], col[n-2])
}

func erodeStep(out, col, left, right []float64) {
	n := len(col)
	out, left, right = out[:n], left[:n], right[:n]
	for i, m := range col {
		if x := left[i]; x < m {
			m = x
		}
		if x := right[i]; x < m {
			m = x
		}
		if i > 0 {
			if x := col[i-1]; x < m {
				m = x
			}
		}
		if i+1 < n {
			if x := col[i+1]; x < m {
				m = x
			}
		}
		out[i] = m
	}
}

// progressive is SMRFilter::progressiveFilter: open z with diamonds of
// radius 1 .. ceil(maxWindow/cell) cells (the erosion carried from one
// radius to the next), and flag as object every cell where an opening
// drops more than slope·cell·radius below the previous one.
func (g raster) progressive(z []float64, slope, maxWindow, cell float64) []bool {
	maxRadius := int(math.Ceil(maxWindow / cell))
	obj := make([]bool, len(z))
	prev := append([]float64(nil), z...)
	erosion := append([]float64(nil), z...)
	open := make([]float64, len(z))
	rs := par.Ranges(len(z), par.Grain)
	for radius := 1; radius <= maxRadius; radius++ {
		g.erode(erosion, 1)
		par.Copy(open, erosion)
		g.dilate(open, radius)
		threshold := slope * cell * float64(radius)
		par.For(rs, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				if math.Abs(prev[i]-open[i]) > threshold {
					obj[i] = true
				}
			}
		})
		prev, open = open, prev
	}
	return obj
}

// slope returns the gradient magnitude of v/cell (SMRFilter::classifyGround's
// gsurfs: math::gradX and gradY, central differences inside, one-sided at the
// raster's sides, as MATLAB's gradient).
func (g raster) slope(v []float64, cell float64) []float64 {
	s := make([]float64, len(v))
	par.For(par.Ranges(len(v), par.Grain), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			s[i] = v[i] / cell
		}
	})
	out := make([]float64, len(v))
	diff := func(at func(k int) float64, k, n int) float64 {
		switch {
		case n < 2:
			return 0
		case k == 0:
			return at(1) - at(0)
		case k == n-1:
			return at(n-1) - at(n-2)
		}
		return 0.5 * (at(k+1) - at(k-1))
	}
	par.For(par.Ranges(g.cols, max(1, par.Grain/max(1, g.rows))), func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			for r := 0; r < g.rows; r++ {
				gx := diff(func(k int) float64 { return s[k*g.rows+r] }, c, g.cols)
				gy := diff(func(k int) float64 { return s[c*g.rows+k] }, r, g.rows)
				// The products are rounded before the sum, as Eigen's
				// cwiseProduct then + does (no fused multiply-add).
				out[c*g.rows+r] = math.Sqrt(float64(gx*gx) + float64(gy*gy))
			}
		}
	})
	return out
}
