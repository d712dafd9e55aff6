package sample

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// cellSlack widens the grid's cells over Radius so that two points closer
// than Radius are never two cells apart along an axis, whatever the
// rounding of the cell coordinates: a float64 product of 2.2e-16
// relative, at most 5e-7 cells for the 2³¹ cells an axis may have.
const cellSlack = 1e-5

// maxAxisCells bounds the cells along an axis.
const maxAxisCells = 1 << 31

// Options configure Poisson and NewSampler.
type Options struct {
	// Radius is the smallest distance between kept points, PDAL's radius.
	Radius float64
	// Progress, when not nil, is called now and then by Poisson with the
	// fraction of the points done.
	Progress func(done float64)
	// MaxBytes, when > 0, bounds the memory a Sampler holds (the kept
	// points and the grid of their cells): an Add that would need more
	// fails with a *MemoryError instead.
	MaxBytes int64
}

// progressEvery is how many points Poisson decides between Progress calls.
const progressEvery = 1 << 16

// Validate reports whether the options make sense: a radius out of its
// limits is a *findneighbor.ParamError naming "radius".
func (o Options) Validate() error {
	if err := findneighbor.CheckRadius("sample", "radius", o.Radius, false); err != nil {
		return err
	}
	if o.MaxBytes < 0 {
		return fmt.Errorf("sample: MaxBytes %d: want a size in bytes, or 0 for no limit", o.MaxBytes)
	}
	return nil
}

// Points are the coordinates of the points to thin, as read (absolute,
// float64: PDAL measures in them), one slice per axis as core.Cloud holds
// them; Z nil places every point at z 0 (thinning in plan view).
type Points struct {
	X, Y, Z []float64
}

// Len returns the number of points.
func (p Points) Len() int { return len(p.X) }

// at returns point i.
func (p Points) at(i int) [3]float64 {
	if p.Z == nil {
		return [3]float64{p.X[i], p.Y[i], 0}
	}
	return [3]float64{p.X[i], p.Y[i], p.Z[i]}
}

// check returns the number of points, or a *findneighbor.ParamError when
// the axes differ in length or hold more points than int32 numbers.
func (p Points) check() (int, error) {
	n := len(p.X)
	if len(p.Y) != n || (p.Z != nil && len(p.Z) != n) {
		return 0, &findneighbor.ParamError{Op: "sample", Param: "points", Value: fmt.Sprintf("of %d x, %d y and %d z", n, len(p.Y), len(p.Z)),
			Want: "one x, y and z per point (z nil for none)"}
	}
	if n > math.MaxInt32 {
		return 0, &findneighbor.ParamError{Op: "sample", Param: "points", Value: fmt.Sprint(n), Want: fmt.Sprintf("at most %d points", math.MaxInt32)}
	}
	return n, nil
}

// Result says which points Poisson keeps.
type Result struct {
	// Keep[i] is true when point i is kept.
	Keep []bool
	// Kept counts the kept points.
	Kept int
}

// Poisson thins the points pts to a Poisson-disk sample, as PDAL's filters.sample with a
// radius does (filters/SampleFilter.cpp, voxelize): in input order, a
// point is kept unless a point kept before it lies closer than Radius.
// Kept points are thus at least Radius apart, every dropped point lies
// closer than Radius to a kept one, and the result depends only on the
// points and their order.
//
// Like PDAL it walks the points once, in order, over a grid of cells at
// least Radius wide that holds the kept points, so each point is tested
// against the kept points of its cell and the 26 around it only; the test
// is PDAL's, dx²+dy²+dz² < Radius² in float64 from the float64
// coordinates. It needs no neighbour index: docs/sample.md has the
// measurements that chose this over neighbour lists from a backend. The
// cost is O(N), whatever the density. A Sampler draws the same sample from
// points given a chunk at a time, holding the kept points alone; Poisson,
// which numbers every point's cell first, is faster on a whole cloud
// (docs/sample.md).
func Poisson(pts Points, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	n, err := pts.check()
	if err != nil {
		return nil, err
	}
	res := &Result{Keep: make([]bool, n)}
	if n == 0 {
		return res, nil
	}
	if pts.Z == nil {
		pts.Z = make([]float64, n) // no branch per point
	}
	// Cells of side R holding fewer than two points each on average are
	// sparse: then each point looks its neighbours up in cells of twice the
	// side, of which it needs 8, not 27 (octant). The cells of side 2R are
	// made first: when they are sparse by that measure, so are those of
	// side R (at least as many), and those are not made.
	side := opts.Radius * (1 + cellSlack)
	lo, err := lowerCorner(pts, side)
	if err != nil {
		return nil, err
	}
	g := newGrid(pts, lo, 2*side)
	sparse := 2*len(g.key) > n
	if !sparse {
		fine := newGrid(pts, lo, side)
		if sparse = 2*len(fine.key) > n; !sparse {
			g = fine
			g.nbr, g.done = make([][27]int32, len(g.key)), make([]bool, len(g.key))
		}
	}
	r2 := opts.Radius * opts.Radius
	// The kept points, interleaved (kept[3j:]: the j-th kept), and next,
	// which links those of a cell, newest first; -1 ends a list.
	// Sparse, most points are kept: room for all of them, so that appends
	// never copy (the pages of the room left unused are never touched).
	room := n/16 + 64
	if sparse {
		room = n
	}
	kept, next := make([]float64, 0, 3*room), make([]int32, 0, room)
	x, y, z := pts.X, pts.Y[:n], pts.Z[:n]
	// Sparse, the neighbour look-ups of a block of points are made first,
	// on all cores (the table is only read then), and the block decided
	// after, in order.
	var lists [][8]int32
	if sparse {
		lists = make([][8]int32, min(n, lookupBlock))
	}
	for b0 := 0; b0 < n; b0 += lookupBlock {
		b1 := min(b0+lookupBlock, n)
		if sparse {
			par.For(par.Ranges(b1-b0, lookupGrain), func(_, lo, hi int) {
				for j := lo; j < hi; j++ {
					i := b0 + j
					g.octant(g.key[g.cell[i]], [3]float64{x[i], y[i], z[i]}, &lists[j])
				}
			})
		}
		for i := b0; i < b1; i++ {
			if opts.Progress != nil && i%progressEvery == 0 {
				opts.Progress(float64(i) / float64(n))
			}
			c, p := g.cell[i], [3]float64{x[i], y[i], z[i]}
			var nb []int32
			if sparse {
				nb = lists[i-b0][:]
			} else {
				nb = g.around(c)[:]
			}
			if !covered(p, nb, g.head, next, kept, r2) {
				kept, next = append(kept, p[:]...), append(next, g.head[c])
				g.head[c] = int32(res.Kept)
				res.Keep[i] = true
				res.Kept++
			}
		}
	}
	return res, nil
}

// lookupBlock is the number of points whose neighbour look-ups Poisson
// makes at once where cells keep no lists (an [8]int32 each: 512 KB),
// lookupGrain the fewest a core takes.
const (
	lookupBlock = 1 << 14
	lookupGrain = 1 << 10
)

// grid numbers the occupied cells of a cloud (integer coordinates from
// its lower corner, cells of a given side) and holds the newest kept
// point of each. A cell's 27 neighbours (itself included) are looked up
// in a table of the occupied cells; where cells hold two points or more
// on average, once per cell, when a point in it first needs them, and
// kept (108 bytes a cell): one lookup per point and 27 per occupied cell.
// (Go's map for the table, or a lookup per neighbour and point, measured
// slower than PDAL's own pass written in Go: docs/sample.md.) Sparser
// clouds take cells of side 2R, of which each point looks up the 8 that
// can hold a point closer than R (octant).
type grid struct {
	table
	lo   [3]float64 // the lower corner
	inv  float64    // 1 / the cells' side
	cell []int32    // cell[i]: the number of point i's cell
	key  [][3]int32
	nbr  [][27]int32 // nbr[c]: cell c's neighbours once done[c]; nil on sparse clouds (octant)
	done []bool
	head []int32 // head[c]: the newest kept point in cell c, or -1
}

// radiusError is the *findneighbor.ParamError of a radius r too small for
// the cloud's grid: the cells of side least (the radius plus cellSlack)
// are the smallest it can number; why says for what.
func radiusError(r, least float64, why string) error {
	return &findneighbor.ParamError{Op: "sample", Param: "radius", Value: fmt.Sprint(r),
		Want: fmt.Sprintf("at least %.3g %s", least/(1+cellSlack)*1.001, why)}
}

// lowerCorner returns the lower corner of the points' box (Z not nil), or
// an error where a coordinate is not finite or where the cells of the
// given side would number 2³¹ along an axis (a *findneighbor.ParamError
// naming the radius, side less cellSlack).
func lowerCorner(pts Points, side float64) ([3]float64, error) {
	var lo, hi [3]float64
	for a, v := range [3][]float64{pts.X, pts.Y, pts.Z} {
		lo[a], hi[a] = math.Inf(1), math.Inf(-1)
		nan := false
		for _, x := range v { // plain compares: min and max order NaNs and zeros, slower
			nan = nan || x != x
			if x < lo[a] {
				lo[a] = x
			}
			if x > hi[a] {
				hi[a] = x
			}
		}
		if nan {
			lo[a] = math.NaN()
		}
	}
	for a := range 3 {
		if math.IsNaN(lo[a]) || math.IsInf(lo[a], 0) || math.IsInf(hi[a], 0) {
			return lo, fmt.Errorf("sample: the points' coordinates are not all finite")
		}
		if (hi[a]-lo[a])/side >= maxAxisCells-1 {
			return lo, radiusError(side/(1+cellSlack), (hi[a]-lo[a])/(maxAxisCells-2), fmt.Sprintf("for a cloud %g across (2³¹ cells a side)", hi[a]-lo[a]))
		}
	}
	return lo, nil
}

// newGrid numbers the occupied cells of the given side over pts (Z not
// nil) from the lower corner lo.
func newGrid(pts Points, lo [3]float64, side float64) *grid {
	n := pts.Len()
	inv := 1 / side
	g := &grid{table: newTable(), lo: lo, inv: inv, cell: make([]int32, n)}
	var last slot // the previous point's cell: scans run cell after cell
	x, y, z := pts.X, pts.Y[:n], pts.Z[:n]
	for i := range x {
		k := [3]int32{int32((x[i] - lo[0]) * inv), int32((y[i] - lo[1]) * inv), int32((z[i] - lo[2]) * inv)}
		if last.id == 0 || k != last.k {
			s := g.find(k)
			if s.id == 0 {
				s.k, s.id = k, int32(len(g.key))+1
				g.key = append(g.key, k)
				if 2*len(g.key) > len(g.slots) {
					g.grow()
				}
			}
			last = *s
		}
		g.cell[i] = last.id - 1
	}
	m := len(g.key)
	g.head = make([]int32, m)
	for c := range g.head {
		g.head[c] = -1
	}
	return g
}

// around returns the numbers of the 27 cells around cell c, itself
// included, -1 for empty ones: looked up at c's first call, kept in nbr.
func (g *grid) around(c int32) *[27]int32 {
	if nb := &g.nbr[c]; g.done[c] {
		return nb
	}
	g.done[c] = true
	return g.lookup(g.key[c], &g.nbr[c])
}

// octant sets nb to the numbers of the 8 cells that can hold a point
// closer than half a cell's side to p, in cell k (-1 for cells not in the
// table): along each axis its own and the neighbour on the side of the
// cell's half p lies in. A point q that close has |uq - up| < 1/2 in cell
// units u = (x - lo)·inv, less 5e-6 of slack (cellSlack over 2, far above
// the rounding of u, at most 5e-7 for 2³¹ cells); so with p at fraction f
// of its cell, q lies in the cell below only if f < 1/2 and in the one
// above only if f > 1/2.
func (g *grid) octant(k [3]int32, p [3]float64, nb *[8]int32) {
	var d [3]int32
	for a := range 3 {
		u := (p[a] - g.lo[a]) * g.inv
		d[a] = 1
		if u-float64(k[a]) < 0.5 {
			d[a] = -1
		}
	}
	j := 0
	for _, dz := range [2]int32{0, d[2]} {
		for _, dy := range [2]int32{0, d[1]} {
			for _, dx := range [2]int32{0, d[0]} {
				nb[j] = g.find([3]int32{k[0] + dx, k[1] + dy, k[2] + dz}).id - 1
				j++
			}
		}
	}
}

// table numbers occupied cells by their integer coordinates: an
// open-addressing hash table (linear probing) that its owner doubles
// (grow) past a load of 1/2, so that it stays as small as the cells allow
// (fewer cache misses).
type table struct {
	slots []slot // len a power of 2
}

// slot is an entry of a table: cell id+1 (0: empty) at coordinates k.
type slot struct {
	k  [3]int32
	id int32
}

// newTable returns an empty table of 1024 slots.
func newTable() table { return table{slots: make([]slot, 1024)} }

// grow doubles the table.
func (t *table) grow() {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	for _, s := range old {
		if s.id != 0 {
			*t.find(s.k) = s
		}
	}
}

// find returns the slot of cell k: its own, or the empty one where it
// belongs (linear probing).
func (t *table) find(k [3]int32) *slot {
	mask := uint64(len(t.slots) - 1)
	h := (uint64(uint32(k[0]))*0x9E3779B97F4A7C15 ^ uint64(uint32(k[1]))*0xC2B2AE3D27D4EB4F ^ uint64(uint32(k[2]))*0x165667B19E3779F9) >> 20
	for j := h & mask; ; j = (j + 1) & mask {
		if s := &t.slots[j]; s.id == 0 || s.k == k {
			return s
		}
	}
}

// lookup sets nb to the numbers of the 27 cells around cell k, itself
// included (index 13), -1 for cells not in the table, and returns it.
func (t *table) lookup(k [3]int32, nb *[27]int32) *[27]int32 {
	j := 0
	for dz := int32(-1); dz <= 1; dz++ {
		for dy := int32(-1); dy <= 1; dy++ {
			for dx := int32(-1); dx <= 1; dx++ {
				nb[j] = t.find([3]int32{k[0] + dx, k[1] + dy, k[2] + dz}).id - 1
				j++
			}
		}
	}
	return nb
}

// covered reports whether a kept point lies closer than √r2 to p: the
// kept points of the cells nb (-1: none) are listed from head[cell]
// through next, newest first, -1 ending a list, and kept point j lies at
// kept[3j:].
func covered(p [3]float64, nb []int32, head, next []int32, kept []float64, r2 float64) bool {
	for _, c := range nb {
		if c < 0 {
			continue
		}
		for j := head[c]; j >= 0; j = next[j] {
			if closer(p, kept[3*j:3*j+3:3*j+3], r2) {
				return true
			}
		}
	}
	return false
}

// closer reports whether points p and q are closer than √r2, computed as
// PDAL's SampleFilter does, in float64 from the coordinates as read; the
// explicit conversions keep the compiler from fusing the multiply-adds,
// so every processor gives the same answer.
func closer(p [3]float64, q []float64, r2 float64) bool {
	dx, dy, dz := p[0]-q[0], p[1]-q[1], p[2]-q[2]
	return float64(dx*dx)+float64(dy*dy)+float64(dz*dz) < r2
}
