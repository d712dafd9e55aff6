package stage

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
	"github.com/pctk/pctk/primitives/tile"
)

// Local is the work of a local stage: one whose outputs at a point depend
// only on the points within a reach of it (a radius, the k nearest, the k
// nearest of the k nearest), and on their order. It is the whole of such a
// stage's computation: the driver runs it in memory, on --tile-size tiles,
// out of core, on tile collections and on every backend, and gives the
// in-memory bytes everywhere (Job.Local). The stage says nothing of tiles.
type Local struct {
	// Columns are the columns Compute returns, in order: names and types.
	// The last Hidden of them are the stage's own, for Outlier or Drop
	// (a voxel's chosen point): not written.
	Columns []core.Dimension
	Hidden  int
	// Halo is the first tiles' halo, the reach most points need: a radius.
	// With KNN > 0 and Halo 0 it is the distance within which a typical
	// point has about 2·KNN others (tile.KNNHalo). Points whose reach is
	// wider go to tiles of wider halos.
	Halo float64
	KNN  int
	// Moments says Compute sums moments within the radius Halo in the
	// backend's order (localMoments): the first tiles then take the wider
	// halo of cpu.TileHalo, which such sums need (Streamed.Moments).
	Moments bool
	// XYZOnly says Compute reads XYZ alone (not Pos, Abs, First or
	// Values): the driver then makes no float64 coordinates for it, in
	// memory or out of core, where it stores none.
	XYZOnly bool
	// Rel says Compute reads LocalInput.Pos (float64 relative to Origin);
	// the driver leaves Pos nil otherwise and makes no such copy of the
	// cloud (most stages read Abs, as PDAL computes).
	Rel bool
	// Reads names the dimensions Compute reads (LocalInput.Values); X, Y
	// and Z are the absolute coordinates.
	Reads []string
	// Compute returns, for the points of in (the whole cloud's, or a
	// tile's), a value of each column per point, and each point's reach:
	// a distance such that its values depend only on the points within it
	// (for sums over a radius r in a backend's order,
	// cpu.TileHalo(r)).
	Compute func(in *LocalInput) ([]*core.Attribute, []float64, error)
	// Outcome, when set, applies the outcome step (--mode, --class,
	// --invert: OutcomeOptions) to the points Outlier flags from their
	// values (cols, point i); Stats describes the run in its summary line.
	Outcome *Outcome
	Outlier func(cols []*core.Attribute, i int) bool
	Stats   string
	// Reduce, when set with Outcome (in place of Outlier and Stats), is
	// the stage's global step: an exact reduction over every point's
	// values in global order (statistical removal's mean and deviation).
	Reduce *Reduction
	// Summary, when set (with neither Outcome nor Drop), makes the run's
	// summary lines and JSON from every point's values, hidden columns
	// included (each hands them over in global order); n is the number of
	// points that take part. In memory, on tiles and out of core it sees
	// the same values; Beam makes no summary.
	Summary func(n int64, each Each) ([]string, any, error)
	// Drop, when set (without Outcome), drops the points it flags from
	// their values: a selection (range, voxel thinning). Its columns may
	// be none.
	Drop func(cols []*core.Attribute, i int) bool
	// Edit, when set (without Outcome or Drop), changes the cloud once the
	// columns are set and returns it: the whole cloud in memory, each
	// chunk out of core (and once a cloud of no points, for the output's
	// schema), so it must treat points one by one (hag --replace-z).
	Edit func(c *core.Cloud) (*core.Cloud, error)
	// File, when set, completes the output of a run over one file, its
	// points all at once, after Edit: a record of the whole file
	// (neighbors' counts record, from the coordinates); dims is the
	// run's, "xyz" or "xy" (Points.Dims). Memory and Beam call it; a
	// collection's outputs get none; out of core, a stage that has it
	// keeps its own Stream (the driver's does not call it).
	File func(c *core.Cloud, dims string) error

	name string // the stage's, for the summary
}

// Reduction is the global step of a local stage whose outcome depends on
// every point (Local.Reduce): per-point values first (Compute, local),
// then Run over all of them in global order, which returns a few numbers
// g, then the outcome from each point's values and g. The driver runs it
// in memory, on tiles, out of core and on Beam (one worker), so that g,
// and the output, are the in-memory ones to the bit.
type Reduction struct {
	// Run reduces the values of every point that takes part, which each
	// hands over in global order, as many times as Run has passes.
	Run func(each Each) (g []float64, err error)
	// Outlier flags point i of cols from its values and g.
	Outlier func(g []float64, cols []*core.Attribute, i int) bool
	// Stats describes the run from g: its summary's words and JSON fields.
	Stats func(g []float64) (string, map[string]any)
}

// Each calls fn with the values of every point that takes part, in
// global order, a range of points at a time: cols holds the values of the
// points lo, ..., hi-1 of the range at those indices (and maybe of
// others); the ranges follow each other. In memory a single range holds
// every point, so that a reduction loops over typed columns, not a call a
// point.
type Each func(fn func(cols []*core.Attribute, lo, hi int)) error

// LocalInput is what a local stage's Compute gets.
type LocalInput struct {
	// XYZ are the points' float32 coordinates (interleaved, in the run's
	// frame, in increasing global order); Pos the same points in float64
	// relative to Origin (Points.Pos: x − Origin, as read), for a stage
	// that declares Rel (nil otherwise); Abs below holds them as read, for
	// arithmetic that must match a float64 peer.
	XYZ    []float32
	Pos    []float64
	Origin [3]float64
	// Abs holds the same points' absolute float64 coordinates as read
	// (Pos + Origin may round differently; z 0 with --dims xy), for
	// arithmetic that must match a peer computing in absolute coordinates:
	// the same bits in memory, on tiles, out of core and on Beam.
	Abs []float64
	// Values holds, for each dimension Local.Reads names, the points'
	// values as float64.
	Values [][]float64
	// ID holds the points' indices among the points that take part, in
	// increasing order (0..n-1 on the whole cloud).
	ID []int64
	// Min and Max bound the whole run's points in their absolute float64
	// coordinates (every point of the cloud or collection), so that grid
	// stages align their cells with the run, not the tile (PDAL takes the
	// view's bounds).
	Min, Max [3]float64
	// First is the run's first point that takes part, in absolute
	// coordinates as read (PDAL grids that start at the view's first
	// point).
	First [3]float64
	// Backend and Build are the backend and build options to use (a
	// tile's Frame is the whole run's).
	Backend findneighbor.Backend
	Build   findneighbor.BuildOptions
	// Whole says the points are the whole run's (in memory with no tiles,
	// or out of core's only tile): Compute may then return a nil reach,
	// which nothing reads.
	Whole bool
	// Need, on a tile, lists in increasing order the positions of the
	// points whose values and reaches are used (the tile's owned points
	// still to do); Compute may leave the others' unset (a stage whose
	// per-point work is independent computes only these: hag). Nil: all.
	Need []int32
}

// u8 returns LocalInput.Values of a uint8 dimension (Classification,
// ReturnNumber, ...) as uint8s, converted on all cores.
func u8(v []float64) []uint8 {
	out := make([]uint8, len(v))
	par.For(par.Ranges(len(v), par.Grain), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = uint8(v[i])
		}
	})
	return out
}

// written returns the columns of cols the output gets (all but Hidden).
func (l *Local) written(cols []*core.Attribute) []*core.Attribute {
	return cols[:len(cols)-l.Hidden]
}

// recSize is the bytes of a point's values, its columns' values in order.
func (l *Local) recSize() int {
	n := 0
	for _, c := range l.Columns {
		n += c.Type.Size()
	}
	return n
}

// kernel returns l.Compute as a tile kernel of records; inputs returns
// the float64 coordinates of a tile's points (relative, and absolute when
// known) and their values of Reads;
// run holds the run's Origin, Min and Max.
func (l *Local) kernel(run LocalInput, inputs func(t *tile.Points) (pos, abs []float64, vals [][]float64, err error)) tile.LocalKernel {
	return func(t *tile.Points, need []int32, w findneighbor.Backend, bo findneighbor.BuildOptions) ([]byte, []float64, error) {
		pos, abs, vals, err := inputs(t)
		if err != nil {
			return nil, nil, err
		}
		in := run
		in.XYZ, in.Pos, in.Abs, in.Values, in.ID, in.Need, in.Backend, in.Build = t.XYZ, pos, abs, vals, t.ID, need, w, bo
		cols, reach, err := l.Compute(&in)
		if err != nil {
			return nil, nil, err
		}
		if err := l.check(cols, reach, t.Len(), in.Whole); err != nil {
			return nil, nil, err
		}
		return l.encode(cols, t.Len()), reach, nil
	}
}

// rel returns abs relative to origin (relativeTo) when Compute reads
// them (Rel), else nil.
func (l *Local) rel(abs []float64, origin [3]float64, flat bool) []float64 {
	if !l.Rel {
		return nil
	}
	return relativeTo(abs, origin, flat)
}

// relativeTo returns the absolute coordinates abs (interleaved x, y, z)
// relative to origin, as Points.Pos computes them (x − origin, to the
// same bits; z 0 when flat).
func relativeTo(abs []float64, origin [3]float64, flat bool) []float64 {
	if abs == nil {
		return nil
	}
	pos := make([]float64, len(abs))
	for i := 0; i < len(abs); i += 3 {
		pos[i], pos[i+1] = abs[i]-origin[0], abs[i+1]-origin[1]
		if !flat {
			pos[i+2] = abs[i+2] - origin[2]
		}
	}
	return pos
}

// check checks that Compute returned the declared columns, n values each.
func (l *Local) check(cols []*core.Attribute, reach []float64, n int, whole bool) error {
	if len(cols) != len(l.Columns) || len(reach) != n && !(whole && reach == nil) {
		return fmt.Errorf("stage: a local stage returned %d columns and %d reaches for %d points, want %d columns", len(cols), len(reach), n, len(l.Columns))
	}
	for i, c := range cols {
		if c.Name != l.Columns[i].Name || c.Type != l.Columns[i].Type || c.Len() != n {
			return fmt.Errorf("stage: a local stage returned column %s (%v, %d values), want %s (%v, %d)", c.Name, c.Type, c.Len(), l.Columns[i].Name, l.Columns[i].Type, n)
		}
	}
	return nil
}

// encode lays out n points' values of cols as records.
func (l *Local) encode(cols []*core.Attribute, n int) []byte {
	size := l.recSize()
	rec := make([]byte, n*size)
	off := 0
	for _, c := range cols {
		w := c.Type.Size()
		for i := range n {
			putBits(rec[i*size+off:][:w], c.Uint64(i))
		}
		off += w
	}
	return rec
}

// decode returns the columns of records rec; skip[i] (when not nil) gives
// point i no value: NaN in float columns, 0 in others, as columns are
// scattered over points that take no part.
func (l *Local) decode(rec []byte, n int, skip func(i int) bool) []*core.Attribute {
	size := l.recSize()
	cols := make([]*core.Attribute, len(l.Columns))
	off := 0
	for c, d := range l.Columns {
		a := core.NewAttribute(d.Name, d.Type, n)
		w := d.Type.Size()
		for i := range n {
			if skip != nil && skip(i) {
				if d.Type.IsFloat() {
					a.SetFloat64(i, math.NaN())
				}
				continue
			}
			a.SetUint64(i, getBits(rec[i*size+off:][:w]))
		}
		cols[c] = a
		off += w
	}
	return cols
}

// putBits and getBits store a value's bits (Attribute.Uint64) in w bytes.
func putBits(b []byte, v uint64) {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], v)
	copy(b, buf[:len(b)])
}

func getBits(b []byte) uint64 {
	var buf [8]byte
	copy(buf[:], b)
	return binary.LittleEndian.Uint64(buf[:])
}

// halo returns the first tiles' halo for n points in the box b of the
// run's float32 frame.
func (l *Local) halo(n int64, b findneighbor.Box) float64 {
	switch {
	case l.Halo > 0 && l.Moments:
		return cpu.TileHalo(float32(l.Halo), b.Extent())
	case l.Halo > 0 || l.KNN <= 0:
		return l.Halo
	}
	h, _ := tile.KNNHalo(n, [2]float64{float64(b.Min[0]), float64(b.Min[1])}, [2]float64{float64(b.Max[0]), float64(b.Max[1])}, l.KNN)
	return h
}

// outcome returns the outcome step of the stage and the flag of the
// points it applies to: Outcome and Outlier (or Reduce's, from its result
// g), or Drop's removal; nil when the stage writes columns only.
func (l *Local) outcome(g []float64) (*Outcome, func(cols []*core.Attribute, i int) bool) {
	switch {
	case l.Outcome != nil && l.Reduce != nil:
		return l.Outcome, func(cols []*core.Attribute, i int) bool { return l.Reduce.Outlier(g, cols, i) }
	case l.Outcome != nil:
		return l.Outcome, l.Outlier
	case l.Drop != nil:
		return dropOutcome(l.name), l.Drop
	}
	return nil, nil
}

// reduce runs Reduce over the values each gives (nil without Reduce) and
// returns its result and the summary's words and fields.
func (l *Local) reduce(each Each) ([]float64, string, map[string]any, error) {
	if l.Reduce == nil {
		return nil, l.Stats, nil, nil
	}
	g, err := l.Reduce.Run(each)
	if err != nil {
		return nil, "", nil, err
	}
	stats, fields := l.Reduce.Stats(g)
	return g, stats, fields, nil
}

// job completes j, whose Local is set, with the in-memory Compute and the
// out-of-core Stream that run it, unless j has its own (a faster path
// kept for them: the Local then serves the distributed driver, Beam);
// name is the stage's. A Halo of +Inf (a reach as wide as the cloud:
// ground's PDAL-exact ties) gets no Stream: such a run needs the whole
// cloud in memory, and --max-memory and tile collections are refused as
// usage errors.
func (l *Local) job(j *Job, name string) {
	l.name = name
	if j.Compute == nil {
		j.Compute = l.computeJob
	}
	if j.Stream == nil && !math.IsInf(l.Halo, 1) && l.File == nil {
		j.Stream = &Streamed{Halo: l.Halo, KNN: l.KNN, Moments: l.Moments, Pos: !l.XYZOnly, Reads: l.Reads, PointBytes: 1, Run: l.stream}
	}
}

// edit returns the change of an output cloud once its columns are set:
// Edit, then File where single (the run is over one file, of dims);
// nil for none.
func (l *Local) edit(single bool, dims string) func(c *core.Cloud) (*core.Cloud, error) {
	if l.File == nil || !single {
		return l.Edit
	}
	return func(c *core.Cloud) (*core.Cloud, error) {
		if l.Edit != nil {
			var err error
			if c, err = l.Edit(c); err != nil {
				return nil, err
			}
		}
		return c, l.File(c, dims)
	}
}

// computeJob is the Compute of a local stage: on the whole cloud, or on
// tiles of p.TileSize.
func (l *Local) computeJob(p *Points) (*Result, error) {
	values, err := p.values(l.Reads)
	if err != nil {
		return nil, err
	}
	run := LocalInput{Origin: p.Origin, Min: p.bounds.Min, Max: p.bounds.Max}
	var pos, abs []float64
	if !l.XYZOnly {
		abs = p.abs()
	}
	if l.Rel {
		pos = p.Pos()
	}
	if len(abs) >= 3 {
		run.First = [3]float64(abs[:3])
	}
	var cols []*core.Attribute
	if p.TileSize > 0 {
		all, absAll, vals := pos, abs, values
		gather := func(t *tile.Points) ([]float64, []float64, [][]float64, error) {
			if l.XYZOnly {
				return nil, nil, nil, nil
			}
			var pos []float64
			if l.Rel {
				pos = make([]float64, 3*t.Len())
			}
			abs := make([]float64, 3*t.Len())
			tv := make([][]float64, len(vals))
			for d := range tv {
				tv[d] = make([]float64, t.Len())
			}
			for j, id := range t.ID {
				if pos != nil {
					copy(pos[3*j:3*j+3], all[3*id:])
				}
				copy(abs[3*j:3*j+3], absAll[3*id:])
				for d, v := range vals {
					tv[d][j] = v[id]
				}
			}
			return pos, abs, tv, nil
		}
		rec, err := tile.LocalTiled(p.XYZ, p.Backend, p.TileSize, l.halo(int64(p.Len()), findneighbor.BoxOf(p.XYZ)), l.recSize(), p.Build, l.kernel(run, gather))
		if err != nil {
			return nil, err
		}
		cols = l.decode(rec, p.Len(), nil)
	} else {
		var reach []float64
		in := run
		in.XYZ, in.Pos, in.Abs, in.Values, in.Backend, in.Build, in.Whole = p.XYZ, pos, abs, values, p.Backend, p.Build, true
		in.ID = make([]int64, p.Len())
		par.For(par.Ranges(len(in.ID), par.Grain), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				in.ID[i] = int64(i)
			}
		})
		if cols, reach, err = l.Compute(&in); err != nil {
			return nil, err
		}
		if err := l.check(cols, reach, p.Len(), true); err != nil {
			return nil, err
		}
	}
	each := func(fn func(cols []*core.Attribute, lo, hi int)) error {
		fn(cols, 0, p.Len())
		return nil
	}
	g, stats, fields, err := l.reduce(each)
	if err != nil {
		return nil, err
	}
	o, flag := l.outcome(g)
	if o == nil {
		res := &Result{Columns: l.written(cols), Edit: l.edit(p.Index == nil, p.Dims)}
		if l.Summary != nil {
			res.Lines, res.JSON, err = l.Summary(int64(p.Len()), each)
		}
		return res, err
	}
	outlier := make([]bool, p.Len())
	par.For(par.Ranges(len(outlier), par.Grain), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			outlier[i] = flag(cols, i)
		}
	})
	res, err := o.result(p, outlier, stats, fields)
	if err != nil {
		return nil, err
	}
	res.Columns = l.written(cols)
	return res, nil
}

// stream is the out-of-core run of a local stage: the kernel on each
// stored tile, its points whose reach the tile holds stored with
// WriteOwned; the others in rounds over the input binned again with the
// halo doubled (as StreamMoments' k-nearest rounds), their values kept as
// patches; then the columns read back in input order.
func (l *Local) stream(s *StreamRun) (*StreamResult, error) {
	const name = "local"
	size := l.recSize()
	run := LocalInput{Origin: s.Origin, Min: s.Min, Max: s.Max}
	if s.N > 0 && !l.XYZOnly {
		abs, _, err := s.Positions([]int64{0})
		if err != nil {
			return nil, err
		}
		run.First = [3]float64(abs[:3])
	}
	inputs := func(t *tile.Points) ([]float64, []float64, [][]float64, error) {
		if l.XYZOnly {
			return nil, nil, nil, nil
		}
		abs, vals, err := s.Positions(t.ID)
		return l.rel(abs, s.Origin, s.flat), abs, vals, err
	}
	kernel := l.kernel(run, inputs)
	frame := s.Store.Box()
	bo := s.Build
	b := findneighbor.InFrame(s.Backend, findneighbor.Frame{Box: frame, Points: int(s.N)})
	var mu sync.Mutex
	var short []int64
	var shortXYZ []float32 // their coordinates, for the rounds' binning
	var shortReach []float64
	keys := s.Store.Keys()
	g := s.Store.Grid()
	first := kernel
	if len(keys) == 1 {
		// One tile (the whole run fits the budget, tile.Grid.Centre) owns
		// every point: it is the whole run, as in memory, and nothing is
		// left for rounds whatever the reaches.
		whole := run
		whole.Whole = true
		first = l.kernel(whole, inputs)
	}
	err := tile.Each(b, len(keys), func(w findneighbor.Backend, ti int) (struct{}, error) {
		key := keys[ti]
		t, err := s.Store.Load(key)
		if err != nil {
			return struct{}{}, err
		}
		owned := t.OwnedIndex()
		rec, reach, err := first(t, owned, w, bo)
		if err != nil {
			return struct{}{}, err
		}
		buf := make([]byte, size*len(owned))
		var sh []int64
		var shXYZ []float32
		var shReach []float64
		for j, i := range owned {
			if len(keys) > 1 && !tile.Holds(reach[i], g.Gap(key, t.XYZ[3*i], t.XYZ[3*i+1]), math.Inf(1)) {
				sh, shXYZ, shReach = append(sh, t.ID[i]), append(shXYZ, t.XYZ[3*i:3*i+3]...), append(shReach, reach[i])
			}
			copy(buf[j*size:][:size], rec[int(i)*size:])
		}
		mu.Lock()
		short, shortXYZ, shortReach = append(short, sh...), append(shortXYZ, shXYZ...), append(shortReach, shReach...)
		mu.Unlock()
		return struct{}{}, s.WriteOwned(name, key, buf)
	}, func(ti int, _ struct{}) error {
		s.Progress("", float64(ti+1)/float64(len(keys)))
		return nil
	})
	if err != nil {
		return nil, err
	}
	patch := map[int64][]byte{}
	_, span := tile.KNNHalo(s.N, s.Lo, s.Hi, 1)
	h := g.Halo
	for len(short) > 0 {
		h = tile.NextHalo(max(h, span*1e-9), span, shortReach)
		last := h >= span
		rg, err := tile.RoundGrid(g.Size, h, span)
		if err != nil {
			return nil, err
		}
		// Only the points near those to do are binned again (as
		// tile.LocalTiled's rounds bin them): a tile then holds every point
		// within rg.Halo of a point to do; the last round bins them all.
		var keep func(x, y float32) bool
		halo := math.Inf(1)
		if last {
			rg = tile.LastGrid(span)
		} else {
			keep, halo = tile.NewNear(s.Lo, s.Hi, int(s.N), shortXYZ, rg.Reach).Holds, rg.Halo
		}
		msg.Debugf("local stage round: %d points, halo %g", len(short), h)
		st, err := s.rebin(rg, keep)
		if err != nil {
			return nil, err
		}
		want := make(map[int64]bool, len(short))
		for _, id := range short {
			want[id] = true
		}
		short, shortXYZ, shortReach = short[:0], shortXYZ[:0], shortReach[:0]
		rkeys := st.Keys()
		err = tile.Each(b, len(rkeys), func(w findneighbor.Backend, ti int) (struct{}, error) {
			t, err := st.Load(rkeys[ti])
			if err != nil {
				return struct{}{}, err
			}
			var need []int32
			for i, id := range t.ID {
				if t.Owned[i] && want[id] {
					need = append(need, int32(i))
				}
			}
			if len(need) == 0 {
				return struct{}{}, nil
			}
			rec, reach, err := kernel(t, need, w, bo)
			if err != nil {
				return struct{}{}, err
			}
			mu.Lock()
			defer mu.Unlock()
			for _, i := range need {
				id := t.ID[i]
				if !last && !tile.Holds(reach[i], rg.Gap(rkeys[ti], t.XYZ[3*i], t.XYZ[3*i+1]), halo) {
					short, shortXYZ, shortReach = append(short, id), append(shortXYZ, t.XYZ[3*i:3*i+3]...), append(shortReach, reach[i])
					continue
				}
				patch[id] = rec[int(i)*size : (int(i)+1)*size]
			}
			return struct{}{}, nil
		}, func(int, struct{}) error { return nil })
		if err == nil {
			err = st.Close()
		} else {
			st.Close()
		}
		if err != nil {
			return nil, err
		}
	}
	if s.patches == nil {
		s.patches = map[string]map[int64][]byte{}
	}
	s.patches[name] = patch
	rd := s.OwnedReader(name, size)
	res := &StreamResult{Columns: func(rows []int64, owners []tile.Key) ([]*core.Attribute, error) {
		rec := make([]byte, len(rows)*size)
		for i, id := range rows {
			if id < 0 {
				continue
			}
			v, err := rd.Next(owners[i], id)
			if err != nil {
				return nil, err
			}
			copy(rec[i*size:], v)
		}
		return l.written(l.decode(rec, len(rows), func(i int) bool { return rows[i] < 0 })), nil
	}}
	if o, _ := l.outcome(nil); o == nil {
		if l.Edit != nil {
			res.Edit = func(_ []int64, c *core.Cloud) (*core.Cloud, error) { return l.Edit(c) }
		}
		if l.Summary != nil {
			var err error
			if res.Lines, res.JSON, err = l.Summary(s.N, l.stored(s, name)); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	return l.streamOutcome(s, name, res)
}

// stored returns what calls fn with the values stored under name (stream)
// of every point, in input order, a chunk of points at a time: what
// Reduce and Summary read out of core.
func (l *Local) stored(s *StreamRun, name string) Each {
	size := l.recSize()
	return func(fn func(cols []*core.Attribute, lo, hi int)) error {
		const chunk = 1 << 16
		rd := s.OwnedReader(name, size)
		buf := make([]byte, 0, chunk*size)
		flush := func() {
			n := len(buf) / size
			fn(l.decode(buf, n, nil), 0, n)
			buf = buf[:0]
		}
		err := s.EachOwner(func(id int64, key tile.Key) error {
			v, err := rd.Next(key, id)
			if err != nil {
				return err
			}
			if buf = append(buf, v...); len(buf) == cap(buf) {
				flush()
			}
			return nil
		})
		flush()
		return err
	}
}

// streamOutcome is the out-of-core outcome step of a local stage: the
// values stored under name read back in input order (for the reduction,
// then a flag a point), and the mode applied chunk by chunk beside the
// columns of res.
func (l *Local) streamOutcome(s *StreamRun, name string, res *StreamResult) (*StreamResult, error) {
	each := l.stored(s, name)
	g, stats, fields, err := l.reduce(each)
	if err != nil {
		return nil, err
	}
	o, flag := l.outcome(g)
	mode, err := o.modeFor(s.From)
	if err != nil {
		return nil, err
	}
	outlier := make([]bool, s.N)
	nOut := 0
	var id int64
	err = each(func(cols []*core.Attribute, lo, hi int) {
		for i := lo; i < hi; i++ {
			if flag(cols, i) {
				outlier[id] = true
				nOut++
			}
			id++
		}
	})
	if err != nil {
		return nil, err
	}
	out := o.streamOutliers(s, outlier, nOut, mode, stats, fields)
	out.Columns = res.Columns
	return out, nil
}

// inMemoryOnly refuses --max-memory for a local stage whose options make
// every point's reach the whole run (a first halo of +Inf): such a run
// needs the whole cloud in memory; need says which option would lift it.
func inMemoryOnly(c Values, need string) error {
	if c.IsSet(MaxMemoryOption.Name) {
		return Usagef("--max-memory needs %s", need)
	}
	return nil
}

// float64Columns returns the columns of dims holding vals, in order: what
// a local stage's Compute returns from an algorithm's float64 results.
func float64Columns(dims []core.Dimension, vals ...[]float64) []*core.Attribute {
	cols := make([]*core.Attribute, len(dims))
	for i, d := range dims {
		cols[i] = core.NewColumn(d.Name, vals[i])
	}
	return cols
}
