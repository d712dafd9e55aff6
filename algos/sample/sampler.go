package sample

import (
	"fmt"
	"math"
)

// maxCell bounds a Sampler's cell coordinates along an axis, either side
// of the first point: far inside int32, so that a cell's neighbours never
// overflow. (The rounding of a cell coordinate, 2.4e-7 at most, stays far
// below cellSlack.)
const maxCell = 1 << 30

// Sampler draws Poisson's sample from points given a chunk at a time, in
// input order, so that a cloud need never be held whole (pctk sample
// --max-memory): it holds the kept points alone, with the grid of the
// cells their neighbours fall in, and the chunks of a cloud give the
// flags Poisson gives the whole of it.
//
// The grid numbers the occupied cells as points reach them (integer
// coordinates from the first point, cells Radius·(1+1e-5) wide) in an
// open-addressing table (linear probing, grown at a load of 1/2): one
// lookup per point, none while points stay in one cell, as scans do. A
// cell keeps the list of its 27 neighbours (108 bytes), made at its first
// point while the cells so far hold two points or more on average, at its
// second otherwise (the first looks them up), so that the cells of one
// point of sparse clouds cost no list. A cell that appears after a neighbour's
// list was made is added to it when it gets its first kept point, from its
// own list (which holds every older neighbour), with no lookup. (Go's map
// for the table, or a lookup per neighbour and point, measured slower than
// PDAL's own pass written in Go: docs/sample.md.) Every occupied cell lies
// next to a cell with a kept point, so the cells are at most 27 per kept
// point, about one on a surface. Lists beyond MaxBytes are not made: the
// neighbours are then looked up for each point, which is slower but keeps
// the Sampler going until the kept points and cells alone exceed it.
// Poisson, which numbers the cells of the whole cloud first, is faster on
// a cloud held whole (docs/sample.md).
//
// A Sampler is not safe for concurrent use; after an error it is spent.
type Sampler struct {
	r2, inv float64
	origin  [3]float64 // the first point: the grid's origin
	max     int64      // Options.MaxBytes
	bytes   int64      // held by the slices below
	points  int64      // decided so far

	table             // the occupied cells
	cell  []cell      // cell[c]: cell c
	head  []int32     // head[c]: the newest kept point in cell c, or -1
	cells []int32     // cells[i]: the cell of point i of the chunk
	lists [][27]int32 // neighbours, itself at 13, -1 for none
	// noLists says lists would take the Sampler past MaxBytes (makeList).
	noLists bool
	last    slot // the previous point's cell: scans run cell after cell
	buf     [27]int32

	xyz  []float64 // the kept points
	next []int32   // next[j]: the kept point before j in its cell, or -1
}

// cell is an occupied cell of a Sampler: its coordinates, and its list of
// neighbours in Sampler.lists (-2 before its first point is decided, -1
// after without a list), made when there were made cells.
type cell struct {
	k          [3]int32
	list, made int32
}

// Bytes each slice of a Sampler holds per element.
const (
	slotBytes = 16
	listBytes = 27 * 4
	cellBytes = 20
	keptBytes = 24 + 4 // xyz, next
)

// MemoryError reports that a Sampler would need more memory than
// Options.MaxBytes to go on.
type MemoryError struct {
	Max    int64 // Options.MaxBytes
	Need   int64 // what the Sampler would hold
	Kept   int   // points kept so far
	Points int64 // points decided so far
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("sample: the %d points kept of the first %d and their grid need %d bytes, over the limit of %d", e.Kept, e.Points, e.Need, e.Max)
}

// NewSampler returns a Sampler with no points yet.
func NewSampler(opts Options) (*Sampler, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	s := &Sampler{r2: opts.Radius * opts.Radius, inv: 1 / (opts.Radius * (1 + cellSlack)), max: opts.MaxBytes}
	s.table = newTable()
	if err := s.reserve(int64(len(s.slots)) * slotBytes); err != nil {
		return nil, err
	}
	return s, nil
}

// Kept returns the number of points kept so far.
func (s *Sampler) Kept() int { return len(s.next) }

// Bytes returns the memory the Sampler holds: its kept points and grid.
func (s *Sampler) Bytes() int64 { return s.bytes }

// Add decides the points pts, which follow those of the earlier calls in
// input order, and appends one flag per point to keep, true for
// a kept point. On an error (a coordinate not finite, or too far from the
// first point for the radius, a *MemoryError) keep holds the flags of the
// points before the one that failed.
func (s *Sampler) Add(pts Points, keep []bool) ([]bool, error) {
	n, err := pts.check()
	if err != nil {
		return keep, err
	}
	// Number the chunk's cells first, then decide its points, as Poisson
	// does for the whole cloud: two tight loops.
	if s.cells, err = room(s, s.cells[:0], n, 4); err != nil {
		return keep, err
	}
	s.cells = s.cells[:n]
	if s.points == 0 && n > 0 {
		s.origin = pts.at(0)
	}
	m, cerr := n, error(nil)
	for i := range n {
		if cerr = s.number(pts.at(i), i); cerr != nil {
			m = i
			break
		}
	}
	for i, c := range s.cells[:m] {
		p := pts.at(i)
		var nb *[27]int32
		switch l := s.cell[c].list; {
		case l >= 0:
			nb = &s.lists[l]
		case l == -2 && 2*int64(len(s.cell)) > s.points:
			// Cells of one or two points so far: no list at the first.
			s.cell[c].list, nb = -1, s.lookup(s.cell[c].k, &s.buf)
		default:
			nb = s.makeList(c)
		}
		kept := !covered(p, nb[:], s.head, s.next, s.xyz, s.r2)
		if kept {
			if err := s.keep(c, p, nb); err != nil {
				return keep, err
			}
		}
		keep = append(keep, kept)
		s.points++
	}
	return keep, cerr
}

// number sets s.cells[i] to the number of point p's cell, the i-th of
// the chunk, numbering the cell when it is new.
func (s *Sampler) number(p [3]float64, i int) error {
	var k [3]int32
	for a, v := range p {
		f := math.Floor((v - s.origin[a]) * s.inv)
		if !(math.Abs(f) < maxCell) {
			return s.coordError(p, s.points+int64(i))
		}
		k[a] = int32(f)
	}
	if s.last.id == 0 || k != s.last.k {
		var err error
		if s.last, err = s.cellOf(k); err != nil {
			return err
		}
	}
	s.cells[i] = s.last.id - 1
	return nil
}

// coordError is the error of a point p Add cannot place in the grid.
func (s *Sampler) coordError(p [3]float64, i int64) error {
	for _, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("sample: point %d has a coordinate that is not finite (%g, %g, %g)", i, p[0], p[1], p[2])
		}
	}
	far := max(math.Abs(p[0]-s.origin[0]), math.Abs(p[1]-s.origin[1]), math.Abs(p[2]-s.origin[2]))
	return radiusError(math.Sqrt(s.r2), far/(maxCell-1), fmt.Sprintf("for point %d at (%g, %g, %g), %g from the first point (2³⁰ cells)", i, p[0], p[1], p[2], far))
}

// reserve accounts for b more bytes, or fails with a *MemoryError past
// the limit.
func (s *Sampler) reserve(b int64) error {
	if s.max > 0 && s.bytes+b > s.max {
		return &MemoryError{Max: s.max, Need: s.bytes + b, Kept: s.Kept(), Points: s.points}
	}
	s.bytes += b
	return nil
}

// room returns v with room for m more elements of size bytes, growing
// its capacity by half (at least 64) and accounting for it when full; v
// as it was on an error.
func room[T any](s *Sampler, v []T, m int, size int64) ([]T, error) {
	if len(v)+m <= cap(v) {
		return v, nil
	}
	c := max(cap(v)+cap(v)/2, len(v)+m, 64)
	if err := s.reserve(int64(c-cap(v)) * size); err != nil {
		return v, err
	}
	w := make([]T, len(v), c)
	copy(w, v)
	return w, nil
}

// cellOf returns the slot of cell k, which it numbers when it is new.
func (s *Sampler) cellOf(k [3]int32) (slot, error) {
	p := s.find(k)
	if p.id != 0 {
		return *p, nil
	}
	if 2*(len(s.cell)+1) > len(s.slots) {
		if err := s.reserve(int64(len(s.slots)) * slotBytes); err != nil {
			return slot{}, err
		}
		s.grow()
		p = s.find(k)
	}
	var err error
	if len(s.cell) == cap(s.cell) {
		if s.cell, err = room(s, s.cell, 1, cellBytes); err != nil {
			return slot{}, err
		}
		if s.head, err = room(s, s.head, cap(s.cell)-len(s.head), 4); err != nil {
			return slot{}, err
		}
	}
	p.k, p.id = k, int32(len(s.cell))+1
	s.cell, s.head = append(s.cell, cell{k: k, list: -2}), append(s.head, -1)
	return *p, nil
}

// makeList makes the list of the 27 cells around cell c, itself included
// (index 13), -1 for cells no point has reached. The lists only save
// lookups: once they would take the Sampler past MaxBytes, it makes no
// more and looks the neighbours of cells without one up at each point.
func (s *Sampler) makeList(c int32) *[27]int32 {
	if !s.noLists {
		var err error
		if s.lists, err = room(s, s.lists, 1, listBytes); err == nil {
			l := int32(len(s.lists))
			s.cell[c].list, s.cell[c].made = l, int32(len(s.cell))
			s.lists = append(s.lists, [27]int32{})
			return s.lookup(s.cell[c].k, &s.lists[l])
		}
		s.noLists = true
	}
	return s.lookup(s.cell[c].k, &s.buf)
}

// keep keeps point p of cell c, whose neighbours are nb. At the first
// point c keeps, the neighbours whose lists were made before c existed
// (made[o] <= c: cells are numbered in the order they appear) learn of
// it; those made since hold it already, and nb holds every neighbour
// older than c (nb was looked up after c appeared).
func (s *Sampler) keep(c int32, p [3]float64, nb *[27]int32) error {
	var err error
	if s.xyz, err = room(s, s.xyz, 3, 8); err != nil {
		return err
	}
	if s.next, err = room(s, s.next, 1, 4); err != nil {
		return err
	}
	if s.head[c] < 0 {
		for m, o := range nb {
			if o < 0 {
				continue
			}
			if oc := s.cell[o]; oc.list >= 0 && oc.made <= c {
				s.lists[oc.list][26-m] = c
			}
		}
	}
	s.xyz = append(s.xyz, p[:]...)
	s.next = append(s.next, s.head[c])
	s.head[c] = int32(len(s.next) - 1)
	return nil
}
