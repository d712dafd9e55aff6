package pipeline

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
	"github.com/pctk/pctk/primitives/tile"
	"github.com/pctk/pctk/stage"
)

// A local stage (stage.Local: its values at a point depend only on the
// points within a reach of it; lof, and every stage declared that way) as
// a Beam pipeline, the distributed form of stage's tile.LocalTiled:
//
//  1. stats: the frame, as for DBSCAN.
//  2. round 0: every file binned into tiles with the stage's first halo
//     (points with their float64 coordinates); each tile runs the
//     stage's kernel; an owned point whose reach the tile holds emits its
//     record, the others go on as points still to do.
//  3. rounds 1..maxRounds: the halo doubled; the points within it of a
//     point still to do binned again (read from the files), each tile
//     that owns such points runs the kernel for them; once the halo spans
//     the cloud one tile holds every point and the rest is done. Rounds
//     with nothing to do read nothing.
//  4. reduce, for a stage with a global reduction (stage.Reduction:
//     statistical removal's threshold): every record to one worker, in
//     global order, reduced to a few numbers, a side input of the write.
//     This step runs on one worker and holds every point's record (12
//     bytes a point for statistical removal).
//  5. write: the records of every round to their files, each output its
//     input with the stage's columns and outcome (stage.LocalStep.Apply).
//
// The stage is parsed from its words on every worker (stage.ParseLocalStep),
// so the pipeline runs exactly the declaration pctk runs.

// LocalConfig is one run of a local stage.
type LocalConfig struct {
	Inputs, Outputs []string
	// Step is the stage's words, as pctk pipeline takes them.
	Step []string
	// TileSize is the side of the square XY tiles.
	TileSize float64
}

// maxRounds bounds the rounds of doubled halos: the first halo times
// 2^maxRounds spans any cloud of a few million times the first halo.
const maxRounds = 24

// PBatch is points of one tile, with their absolute float64 coordinates
// as read (z 0 with --dims xy; rounds of local stages).
type PBatch struct {
	Batch
	Abs []float64
	// Vals holds the values of the dimensions the stage reads, point after
	// point (stage.Local.Reads).
	Vals []float64
}

// Records are computed values of points: Data holds size bytes a point.
type Records struct {
	ID   []int64
	Data []byte
}

// Todo is points still to do after a round: ids and float32 coordinates.
type Todo struct {
	ID  []int64
	XYZ []float32
	// Reach holds each point's reach on the tile that could not settle it,
	// and Halo the halo of that round: the next round's halo follows from
	// them (tile.NextHalo).
	Reach []float64
	Halo  float64
}

// FileRecords are records of points of the file of index File.
type FileRecords struct {
	File int64
	Records
}

// Global is the result of a stage's reduction (stage.LocalStep.Global);
// empty for a stage without one.
type Global struct {
	G []float64
}

func init() {
	for _, t := range []any{LocalConfig{}, PBatch{}, Records{}, Todo{}, FileRecords{}, Global{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
	register.DoFn4x1[File, Stats, func(*Todo) bool, func(int64, PBatch), error](&localBinFn{})
	register.DoFn6x1[int64, func(*PBatch) bool, Stats, func(*Todo) bool, func(int64, Records), func(Todo), error](&localTileFn{})
	register.DoFn4x1[int64, func(*File) bool, func(*Records) bool, func(*Global) bool, error](&localWriteFn{})
	register.DoFn3x1[int64, func(*FileRecords) bool, func(Global), error](&localReduceFn{})
	register.Function2x2(toReduce)
	register.Emitter1[Global]()
	register.Iter1[Global]()
	register.Iter1[FileRecords]()
	register.Emitter2[int64, PBatch]()
	register.Emitter2[int64, Records]()
	register.Emitter1[Todo]()
	register.Iter1[PBatch]()
	register.Iter1[Records]()
	register.Iter1[Todo]()
}

// CheckLocal parses the stage of c on this machine, so that a usage
// error shows before any worker starts.
func CheckLocal(c LocalConfig) error {
	if _, err := stage.ParseLocalStep(c.Step); err != nil {
		return err
	}
	if !(c.TileSize > 0) || math.IsInf(c.TileSize, 0) {
		return fmt.Errorf("pipeline: tile size %g: want a tile side > 0", c.TileSize)
	}
	if len(c.Inputs) == 0 || len(c.Inputs) != len(c.Outputs) {
		return fmt.Errorf("pipeline: %d inputs and %d outputs: want one output per input, at least one", len(c.Inputs), len(c.Outputs))
	}
	return nil
}

// BuildLocal adds the run c of a local stage to the pipeline's scope s.
func BuildLocal(s beam.Scope, c LocalConfig) {
	s = s.Scope("pctk.local")
	files := make([]any, len(c.Inputs))
	for i := range c.Inputs {
		files[i] = File{Index: int64(i), In: c.Inputs[i], Out: c.Outputs[i]}
	}
	fileCol := beam.Create(s, files...)
	stats := beam.Combine(s, mergeStats, beam.ParDo(s, &statsFn{Files: int64(len(files))}, fileCol))
	var recs []beam.PCollection
	// Round 0 has everything to do (an empty todo); later rounds the
	// points the previous one left.
	todo := beam.Create(s, Todo{})
	for r := 0; r <= maxRounds; r++ {
		tiles := beam.ParDo(s, &localBinFn{Step: c.Step, TileSize: c.TileSize, Round: r}, fileCol, beam.SideInput{Input: stats}, beam.SideInput{Input: todo})
		rec, left := beam.ParDo2(s, &localTileFn{Step: c.Step, TileSize: c.TileSize, Round: r}, beam.GroupByKey(s, tiles), beam.SideInput{Input: stats}, beam.SideInput{Input: todo})
		recs = append(recs, rec)
		todo = left
	}
	keyed := beam.ParDo(s, fileKey, fileCol)
	all := beam.Flatten(s, recs...)
	global := beam.Create(s, Global{})
	if step, err := stage.ParseLocalStep(c.Step); err == nil && step.Reduces() {
		global = beam.ParDo(s, &localReduceFn{Step: c.Step}, beam.GroupByKey(s, beam.ParDo(s, toReduce, all)))
	}
	beam.ParDo0(s, &localWriteFn{Step: c.Step, Single: len(c.Inputs) == 1}, beam.CoGroupByKey(s, keyed, all), beam.SideInput{Input: global})
}

// toReduce keys a file's records for the reduction, on one worker.
func toReduce(file int64, r Records) (int64, FileRecords) { return 0, FileRecords{file, r} }

// localReduceFn reduces every point's record, in global order (files in
// order, points in order within them), to the stage's Global.
type localReduceFn struct {
	Step []string
}

func (f *localReduceFn) ProcessElement(_ int64, all func(*FileRecords) bool, emit func(Global)) error {
	step, err := stage.ParseLocalStep(f.Step)
	if err != nil {
		return err
	}
	type point struct {
		file, id int64
		rec      []byte
	}
	var pts []point
	size := step.RecSize()
	var fr FileRecords
	for all(&fr) {
		for j, id := range fr.ID {
			pts = append(pts, point{fr.File, id, fr.Data[j*size : (j+1)*size]})
		}
	}
	sort.Slice(pts, func(i, j int) bool {
		return pts[i].file < pts[j].file || pts[i].file == pts[j].file && pts[i].id < pts[j].id
	})
	rec := make([]byte, 0, len(pts)*size)
	for _, p := range pts {
		rec = append(rec, p.rec...)
	}
	g, err := step.ReduceAll(rec)
	if err != nil {
		return err
	}
	emit(Global{g})
	return nil
}

// RunLocal builds the pipeline of c and runs it with the runner named runner.
func RunLocal(ctx context.Context, runner string, c LocalConfig) error {
	if err := CheckLocal(c); err != nil {
		return err
	}
	p, s := beam.NewPipelineWithRoot()
	BuildLocal(s, c)
	_, err := beam.Run(ctx, runner, p)
	return err
}

// frame is a round's view of the run: the stage, the origin, the XY box
// of the frame, the halo and grid of round r, and whether it is the last
// (its halo spans the cloud: one tile holds every point).
type frame struct {
	step   *stage.LocalStep
	origin [3]float64
	box    findneighbor.Box
	n      int64
	halo   float64
	grid   tile.Grid
	last   bool
}

// roundFrame returns round r's frame of the run st of the stage words.
func roundFrame(words []string, size float64, r int, st Stats, todo Todo) (*frame, error) {
	step, err := stage.ParseLocalStep(words)
	if err != nil {
		return nil, err
	}
	f := &frame{step: step, origin: st.origin(step.Flat)}
	for _, c := range st.Count {
		f.n += c
	}
	if !st.Any {
		f.last = true
		return f, nil
	}
	for a := range 3 {
		f.box.Min[a] = float32(st.Min[a] - f.origin[a])
		f.box.Max[a] = float32(st.Max[a] - f.origin[a])
	}
	if step.Flat {
		f.box.Min[2], f.box.Max[2] = 0, 0
	}
	lo := [2]float64{float64(f.box.Min[0]), float64(f.box.Min[1])}
	hi := [2]float64{float64(f.box.Max[0]), float64(f.box.Max[1])}
	span := math.Hypot(hi[0]-lo[0], hi[1]-lo[1])
	// As tile.LocalTiled: the first halo, then each round's from the
	// reaches the previous round's points still to do reported
	// (tile.NextHalo: at least twice the previous halo, up to span); at
	// least span/2^maxRounds, so that the last round holds the cloud (a
	// stage of reach 0, a grid's, may declare no halo).
	h := max(step.FirstHalo(f.n, f.box), span/(1<<maxRounds), 1e-30)
	if r > 0 {
		h = tile.NextHalo(todo.Halo, span, todo.Reach)
	}
	f.halo, f.last = h, h >= span
	if !f.last {
		if f.grid, err = tile.NewGrid(max(size, h), h); err == nil {
			err = f.grid.Covers(lo, hi)
		}
	}
	return f, err
}

// local returns the float32 and float64 frame coordinates of point i of c.
func (f *frame) local(c *core.Cloud, i int) (xyz [3]float32, abs [3]float64) {
	pos := [3]float64{c.X[i] - f.origin[0], c.Y[i] - f.origin[1], c.Z[i] - f.origin[2]}
	abs = [3]float64{c.X[i], c.Y[i], c.Z[i]}
	if f.step.Flat {
		pos[2], abs[2] = 0, 0
	}
	return [3]float32{float32(pos[0]), float32(pos[1]), float32(pos[2])}, abs
}

// localBinFn bins a file's points for round Round: every point in round
// 0; later, the points within the round's halo of a point still to do
// (its tiles, and every tile owning such a point); in the last round
// every point, to one tile, when any is still to do.
type localBinFn struct {
	Step     []string
	TileSize float64
	Round    int
}

func (f *localBinFn) ProcessElement(file File, st Stats, todos func(*Todo) bool, emit func(int64, PBatch)) error {
	todo := allTodo(todos)
	if f.Round > 0 && len(todo.ID) == 0 {
		return nil // nothing left to do
	}
	fr, err := roundFrame(f.Step, f.TileSize, f.Round, st, todo)
	if err != nil {
		return err
	}
	near := func([3]float32) bool { return true }
	if f.Round > 0 && !fr.last {
		near = nearTodo(todo.XYZ, fr.grid.Reach)
	}
	base := st.first()[file.Index]
	return eachChunk(file.In, func(c *core.Cloud, first int64) error {
		attrs, err := fr.step.Attrs(c)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", file.In, fr.step.Name, err)
		}
		out := map[tile.Key]*PBatch{}
		var i int
		add := func(k tile.Key, id int64, xyz [3]float32, abs [3]float64, owned bool) {
			b := out[k]
			if b == nil {
				b = &PBatch{}
				out[k] = b
			}
			b.ID, b.XYZ, b.Abs, b.Owned = append(b.ID, id), append(b.XYZ, xyz[:]...), append(b.Abs, abs[:]...), append(b.Owned, owned)
			for _, a := range attrs {
				b.Vals = append(b.Vals, a.Float64(i))
			}
		}
		for i = range c.X {
			id := base + first + int64(i)
			xyz, abs := fr.local(c, i)
			switch {
			case fr.last:
				add(tile.Key{}, id, xyz, abs, true)
			case near(xyz):
				own := fr.grid.Owner(xyz[0], xyz[1])
				fr.grid.Touch(xyz[0], xyz[1], func(k tile.Key) { add(k, id, xyz, abs, k == own) })
			}
		}
		for k, b := range out {
			emit(tileID(k), *b)
		}
		return nil
	})
}

// allTodo joins the points still to do of a round's side input.
func allTodo(todos func(*Todo) bool) Todo {
	var all, t Todo
	for todos(&t) {
		all.ID = append(all.ID, t.ID...)
		all.XYZ = append(all.XYZ, t.XYZ...)
		all.Reach = append(all.Reach, t.Reach...)
		all.Halo = max(all.Halo, t.Halo)
	}
	return all
}

// nearTodo returns whether a point lies within d (in X and Y) of one of
// the points xyz, through a hash of cells of side d.
func nearTodo(xyz []float32, d float64) func([3]float32) bool {
	cell := func(v float32) int64 { return int64(math.Floor(float64(v) / d)) }
	cells := map[[2]int64][]int{}
	for j := 0; j < len(xyz); j += 3 {
		k := [2]int64{cell(xyz[j]), cell(xyz[j+1])}
		cells[k] = append(cells[k], j)
	}
	return func(p [3]float32) bool {
		ci, cj := cell(p[0]), cell(p[1])
		for a := ci - 1; a <= ci+1; a++ {
			for b := cj - 1; b <= cj+1; b++ {
				for _, j := range cells[[2]int64{a, b}] {
					if math.Abs(float64(xyz[j])-float64(p[0])) <= d && math.Abs(float64(xyz[j+1])-float64(p[1])) <= d {
						return true
					}
				}
			}
		}
		return false
	}
}

// localTileFn runs the stage's kernel on one tile of round Round and
// emits, keyed by file, the records of its owned points whose reach the
// tile holds; the others, owned points still to do, go to the next round.
// In rounds after the first only the owned points still to do (todo) are
// the tile's work: a point is emitted once, by the round that settles it.
type localTileFn struct {
	Step     []string
	TileSize float64
	Round    int
}

func (f *localTileFn) ProcessElement(key int64, batches func(*PBatch) bool, st Stats, todos func(*Todo) bool, emit func(int64, Records), left func(Todo)) error {
	prev := allTodo(todos)
	fr, err := roundFrame(f.Step, f.TileSize, f.Round, st, prev)
	if err != nil {
		return err
	}
	var todo map[int64]bool // nil in round 0: every owned point
	if f.Round > 0 {
		todo = map[int64]bool{}
		for _, id := range prev.ID {
			todo[id] = true
		}
	}
	t, abs, vals := gatherPos(key, batches, len(fr.step.Reads))
	bo := findneighbor.BuildOptions{}
	size := fr.step.RecSize()
	kernel := fr.step.Kernel(fr.origin, [3]float64(st.Min), [3]float64(st.Max), [3]float64(st.First), func(*tile.Points) ([]float64, [][]float64, error) { return abs, vals, nil })
	var need []int32
	for i, id := range t.ID {
		if t.Owned[i] && (todo == nil || todo[id]) {
			need = append(need, int32(i))
		}
	}
	rec, reach, err := kernel(t, need, findneighbor.InFrame(cpu.Backend(), findneighbor.Frame{Box: fr.box, Points: int(fr.n)}), bo)
	if err != nil {
		return err
	}
	first := st.first()
	out := map[int64]*Records{}
	still := Todo{Halo: fr.halo}
	for _, i := range need {
		id := t.ID[i]
		// In a round after the first, binning kept the points near those
		// to do: only a point whose reach lies within the halo is settled
		// here (tile.Holds with the halo, as tile.LocalTiled).
		halo := math.Inf(1)
		if f.Round > 0 {
			halo = fr.grid.Halo
		}
		if !fr.last && !tile.Holds(reach[i], fr.grid.Gap(t.Key, t.XYZ[3*i], t.XYZ[3*i+1]), halo) {
			still.ID = append(still.ID, id)
			still.XYZ = append(still.XYZ, t.XYZ[3*i:3*i+3]...)
			still.Reach = append(still.Reach, reach[i])
			continue
		}
		fi := int64(sort.Search(len(first), func(k int) bool { return first[k] > id })) - 1
		r := out[fi]
		if r == nil {
			r = &Records{}
			out[fi] = r
		}
		r.ID = append(r.ID, id-first[fi])
		r.Data = append(r.Data, rec[int(i)*size:(int(i)+1)*size]...)
	}
	for fi, r := range out {
		emit(fi, *r)
	}
	if len(still.ID) > 0 {
		left(still)
	}
	return nil
}

// gatherPos assembles a tile's points, their absolute float64
// coordinates (none when the batches carry none: DBSCAN's) and their
// values of nd dimensions from its batches, in global id order.
func gatherPos(key int64, batches func(*PBatch) bool, nd int) (*tile.Points, []float64, [][]float64) {
	var all PBatch
	var b PBatch
	for batches(&b) {
		all.ID = append(all.ID, b.ID...)
		all.XYZ = append(all.XYZ, b.XYZ...)
		all.Abs = append(all.Abs, b.Abs...)
		all.Vals = append(all.Vals, b.Vals...)
		all.Owned = append(all.Owned, b.Owned...)
	}
	vals := make([][]float64, nd)
	order := make([]int, len(all.ID))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return all.ID[order[i]] < all.ID[order[j]] })
	t := &tile.Points{Key: tileKey(key), XYZ: make([]float32, 0, len(all.XYZ)), ID: make([]int64, 0, len(order)), Owned: make([]bool, 0, len(order))}
	abs := make([]float64, 0, len(all.Abs))
	for _, i := range order {
		t.ID = append(t.ID, all.ID[i])
		t.XYZ = append(t.XYZ, all.XYZ[3*i:3*i+3]...)
		t.Owned = append(t.Owned, all.Owned[i])
		if len(all.Abs) > 0 {
			abs = append(abs, all.Abs[3*i:3*i+3]...)
		}
		for d := range nd {
			vals[d] = append(vals[d], all.Vals[nd*i+d])
		}
	}
	return t, abs, vals
}

// localWriteFn writes one output: its input with the stage's columns and
// outcome, every point's record from the round that settled it.
type localWriteFn struct {
	Step []string
	// Single says the run is over one file (stage.LocalStep.Single).
	Single bool
}

func (f *localWriteFn) ProcessElement(_ int64, files func(*File) bool, records func(*Records) bool, globals func(*Global) bool) error {
	step, err := stage.ParseLocalStep(f.Step)
	if err != nil {
		return err
	}
	step.Single = f.Single
	var g Global
	for globals(&g) {
		step.Global = g.G
	}
	return rewrite(files, func(c *core.Cloud, from *pcio.Format) (*core.Cloud, error) {
		n, size := c.Len(), step.RecSize()
		rec := make([]byte, n*size)
		seen := newSeen(n)
		var r Records
		for records(&r) {
			for j, i := range r.ID {
				if err := seen.mark(i); err != nil {
					return nil, err
				}
				copy(rec[int(i)*size:], r.Data[j*size:(j+1)*size])
			}
		}
		if err := seen.all(fmt.Sprintf("the file changed during the run, or more than %d rounds", maxRounds)); err != nil {
			return nil, err
		}
		return step.Apply(c, from, rec)
	})
}
