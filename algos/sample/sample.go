package sample

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// cellSlack widens the grid's cells over Radius so that two points closer
// than Radius are never two cells apart along an axis, whatever the
// rounding of the cell coordinates: a float64 product of 2.2e-16
// relative, at most 2.4e-7 cells for the 2³⁰ cells either side of the
// origin an axis may have.
const cellSlack = 1e-5

// maxCell bounds the cell coordinates along an axis, either side of the
// origin: far inside int32, so that a cell's neighbours never overflow.
const maxCell = 1 << 30

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

// Result says which points Poisson keeps.
type Result struct {
	// Keep[i] is true when point i is kept.
	Keep []bool
	// Kept counts the kept points.
	Kept int
}

// Poisson thins the points xyz (interleaved x, y, z, float32 relative to a
// local origin) to a Poisson-disk sample, as PDAL's filters.sample with a
// radius does (filters/SampleFilter.cpp, voxelize): in input order, a
// point is kept unless a point kept before it lies closer than Radius.
// Kept points are thus at least Radius apart, every dropped point lies
// closer than Radius to a kept one, and the result depends only on the
// points and their order.
//
// It is a Sampler given all the points: one pass in order over a grid of
// cells at least Radius wide that holds the kept points, so each point is
// tested against the kept points of its cell and the 26 around it only;
// the test is exact, dx²+dy²+dz² < Radius² in float64 from the float32
// coordinates. It needs no neighbour index: docs/sample.md has the
// measurements that chose this over neighbour lists from a backend. The
// cost is O(N), whatever the density.
func Poisson(xyz []float32, opts Options) (*Result, error) {
	s, err := NewSampler(opts)
	if err != nil {
		return nil, err
	}
	n, err := findneighbor.CheckPoints("sample", xyz)
	if err != nil {
		return nil, err
	}
	keep := make([]bool, 0, n)
	for i := 0; i < n; i += progressEvery {
		if opts.Progress != nil {
			opts.Progress(float64(i) / float64(n))
		}
		if keep, err = s.Add(xyz[3*i:3*min(n, i+progressEvery)], keep); err != nil {
			return nil, err
		}
	}
	return &Result{Keep: keep, Kept: s.Kept()}, nil
}

// Sampler draws Poisson's sample from points given a chunk at a time, in
// input order, so that a cloud need never be held whole (pctk sample
// --max-memory): it holds the kept points alone, with the grid of the
// cells their neighbours fall in, and the chunks of a cloud give the
// flags Poisson gives the whole of it.
//
// The grid numbers the occupied cells as points reach them (integer
// coordinates from the origin, cells Radius·(1+1e-5) wide) in an
// open-addressing table (linear probing, grown at a load of 1/2), and
// keeps each cell's 27 neighbours (itself included; 108 bytes a cell),
// looked up when a point of it first needs them: one lookup per point
// (none while points stay in one cell, as scans do) and 27 per occupied
// cell. A neighbour that appears later is added to the lists made before
// it when it gets its first kept point, from its own list, with no lookup.
// (Go's map for the table, or a lookup per neighbour and point, measured
// slower than PDAL's own pass written in Go: docs/sample.md.) Every
// occupied cell lies next to a cell with a kept point, so the cells are
// at most 27 per kept point, about one on a surface.
//
// A Sampler is not safe for concurrent use; after an error it is spent.
type Sampler struct {
	r2, inv float64
	max     int64 // Options.MaxBytes
	bytes   int64 // held by the slices below
	points  int64 // decided so far

	table []slot      // the occupied cells, by hash; len a power of 2
	key   [][3]int32  // key[c]: cell c's coordinates
	head  []int32     // head[c]: the newest kept point in cell c, or -1
	nbr   [][27]int32 // nbr[c]: cell c's neighbours, -1 for none; nbr[c][13] = c once made, -1 before
	last  slot        // the previous point's cell: scans run cell after cell

	xyz  []float32 // the kept points
	next []int32   // next[j]: the kept point before j in its cell, or -1
}

// slot is an entry of Sampler.table: cell id+1 (0: empty) at coordinates k.
type slot struct {
	k  [3]int32
	id int32
}

// Bytes each slice of a Sampler holds per element.
const (
	slotBytes = 16
	cellBytes = 12 + 4 + 27*4 // key, head, nbr
	keptBytes = 12 + 4        // xyz, next
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
	if err := s.reserve(1024 * slotBytes); err != nil {
		return nil, err
	}
	s.table = make([]slot, 1024)
	return s, nil
}

// Kept returns the number of points kept so far.
func (s *Sampler) Kept() int { return len(s.next) }

// Bytes returns the memory the Sampler holds: its kept points and grid.
func (s *Sampler) Bytes() int64 { return s.bytes }

// Add decides the points xyz (interleaved x, y, z, float32 relative to
// the local origin of all of them), which follow those of the earlier
// calls in input order, and appends one flag per point to keep, true for
// a kept point. On an error (a coordinate not finite, or too far from the
// origin for the radius, a *MemoryError) keep holds the flags of the
// points before the one that failed.
func (s *Sampler) Add(xyz []float32, keep []bool) ([]bool, error) {
	n, err := findneighbor.CheckPoints("sample", xyz)
	if err != nil {
		return keep, err
	}
	for i := range n {
		p := xyz[3*i : 3*i+3 : 3*i+3]
		var k [3]int32
		for a, v := range p {
			f := math.Floor(float64(v) * s.inv)
			if !(math.Abs(f) < maxCell) {
				return keep, s.coordError(p)
			}
			k[a] = int32(f)
		}
		if s.last.id == 0 || k != s.last.k {
			if s.last, err = s.cell(k); err != nil {
				return keep, err
			}
		}
		c := s.last.id - 1
		nb := s.around(c)
		kept := true
	search:
		for _, nc := range nb {
			if nc < 0 {
				continue
			}
			for j := s.head[nc]; j >= 0; j = s.next[j] {
				if closer(p, s.xyz[3*j:3*j+3:3*j+3], s.r2) {
					kept = false
					break search
				}
			}
		}
		if kept {
			if err := s.keep(c, p, nb); err != nil {
				return keep, err
			}
		}
		keep = append(keep, kept)
		s.points++
	}
	return keep, nil
}

// coordError is the error of a point p Add cannot place in the grid.
func (s *Sampler) coordError(p []float32) error {
	for _, v := range p {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("sample: point %d has a coordinate that is not finite (%g, %g, %g)", s.points, p[0], p[1], p[2])
		}
	}
	return fmt.Errorf("sample: radius %g is too small for point %d at (%g, %g, %g) from the origin (more than 2³⁰ cells)", math.Sqrt(s.r2), s.points, p[0], p[1], p[2])
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
// its capacity by half (at least 64) and accounting for it when full.
func room[T any](s *Sampler, v []T, m int, size int64) ([]T, error) {
	if len(v)+m <= cap(v) {
		return v, nil
	}
	c := max(cap(v)+cap(v)/2, len(v)+m, 64)
	if err := s.reserve(int64(c-cap(v)) * size); err != nil {
		return nil, err
	}
	w := make([]T, len(v), c)
	copy(w, v)
	return w, nil
}

// cell returns the slot of cell k, which it numbers when it is new.
func (s *Sampler) cell(k [3]int32) (slot, error) {
	if sl := s.find(k); sl.id != 0 {
		return *sl, nil
	}
	if 2*(len(s.key)+1) > len(s.table) {
		if err := s.grow(); err != nil {
			return slot{}, err
		}
	}
	var err error
	if s.key, err = room(s, s.key, 1, 12); err != nil {
		return slot{}, err
	}
	if s.head, err = room(s, s.head, 1, 4); err != nil {
		return slot{}, err
	}
	if s.nbr, err = room(s, s.nbr, 1, 27*4); err != nil {
		return slot{}, err
	}
	sl := s.find(k)
	sl.k, sl.id = k, int32(len(s.key))+1
	s.key, s.head = append(s.key, k), append(s.head, -1)
	var nb [27]int32
	nb[13] = -1
	s.nbr = append(s.nbr, nb)
	return *sl, nil
}

// grow doubles the table.
func (s *Sampler) grow() error {
	if err := s.reserve(int64(len(s.table)) * slotBytes); err != nil {
		return err
	}
	old := s.table
	s.table = make([]slot, 2*len(old))
	for _, sl := range old {
		if sl.id != 0 {
			*s.find(sl.k) = sl
		}
	}
	return nil
}

// find returns the slot of cell k: its own, or the empty one where it
// belongs (linear probing).
func (s *Sampler) find(k [3]int32) *slot {
	mask := uint64(len(s.table) - 1)
	h := (uint64(uint32(k[0]))*0x9E3779B97F4A7C15 ^ uint64(uint32(k[1]))*0xC2B2AE3D27D4EB4F ^ uint64(uint32(k[2]))*0x165667B19E3779F9) >> 20
	for j := h & mask; ; j = (j + 1) & mask {
		if sl := &s.table[j]; sl.id == 0 || sl.k == k {
			return sl
		}
	}
}

// around returns the numbers of the 27 cells around cell c, itself
// included (index 13), -1 for cells no point has reached, made at the
// first call for c.
func (s *Sampler) around(c int32) *[27]int32 {
	nb := &s.nbr[c]
	if nb[13] == c {
		return nb
	}
	k, j := s.key[c], 0
	for dz := int32(-1); dz <= 1; dz++ {
		for dy := int32(-1); dy <= 1; dy++ {
			for dx := int32(-1); dx <= 1; dx++ {
				nb[j] = s.find([3]int32{k[0] + dx, k[1] + dy, k[2] + dz}).id - 1
				j++
			}
		}
	}
	return nb
}

// keep keeps point p of cell c, whose neighbours are nb. At the first
// point c keeps, the neighbours whose lists were made before c existed
// learn of it; those made since already hold it, and nb holds every
// neighbour made before c (made at c's first point, when c appeared).
func (s *Sampler) keep(c int32, p []float32, nb *[27]int32) error {
	var err error
	if s.xyz, err = room(s, s.xyz, 3, 4); err != nil {
		return err
	}
	if s.next, err = room(s, s.next, 1, 4); err != nil {
		return err
	}
	if s.head[c] < 0 {
		for m, o := range nb {
			if o >= 0 && s.nbr[o][13] == o {
				s.nbr[o][26-m] = c
			}
		}
	}
	s.xyz = append(s.xyz, p...)
	s.next = append(s.next, s.head[c])
	s.head[c] = int32(len(s.next) - 1)
	return nil
}

// closer reports whether points p and q are closer than √r2, in float64
// (where the float32 differences are exact unless the coordinates differ
// in scale by 2²⁹); the explicit conversions keep the compiler from
// fusing the multiply-adds, so every processor gives the same answer.
func closer(p, q []float32, r2 float64) bool {
	dx := float64(p[0]) - float64(q[0])
	dy := float64(p[1]) - float64(q[1])
	dz := float64(p[2]) - float64(q[2])
	return float64(dx*dx)+float64(dy*dy)+float64(dz*dz) < r2
}
