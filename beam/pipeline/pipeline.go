// Package pipeline is pctk's exact tiled DBSCAN (docs/scale.md) as an
// Apache Beam pipeline (docs/beam.md): the tile kernels of algos/dbscan run
// in DoFns, tiles travel as elements, and the merge is a CoGroupByKey on
// point ids followed by one union-find over the tiles' components, so that
// any Beam runner (Prism in-process, Flink, Spark, Dataflow) gives exactly
// the labels of dbscan.Cluster on the whole cloud in memory.
//
// The stages, each a Beam transform:
//
//  1. stats: every input file is read once for its point count and bounds;
//     one global Combine gives the run's frame: the centre of the bounds
//     of all points (core.Cloud.Local of the concatenated cloud) and each
//     file's first global point id.
//  2. bin: every file is read again and its points, in the frame's float32
//     coordinates, go to each tile that holds them as owned or halo point
//     (tile.Grid.Touch), in batches keyed by tile.
//  3. count: a GroupByKey on tiles; dbscan.CountTile counts the owned
//     points' neighbours, and each count goes to every tile that holds the
//     point (the core flags of halo points come from their owners).
//  4. cluster: a CoGroupByKey of the tiles' points and counts;
//     dbscan.ClusterTile gives the tile's components. Each component is
//     named by its smallest core point id (its representative); every core
//     point that several tiles hold is emitted keyed by its id with the
//     representative of its component in each tile.
//  5. merge: a GroupByKey on those point ids joins the representatives of
//     one point into union edges, a second one keeps each edge once, and
//     one global union-find over the representatives (a few per tile, not
//     one per point) maps each to its cluster's root, a side input of the
//     next stages.
//  6. number: per cluster root, the smallest point id and the size
//     (CombinePerKey); clusters are numbered in order of their smallest
//     point, as in memory, smaller ones than MinClusterSize dropped.
//  7. write: every owned point's label (both side inputs) goes to its
//     input file; a CoGroupByKey of files and labels writes one output per
//     input file, the input with ClusterID and NeighborCount added.
package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
	"github.com/pctk/pctk/primitives/tile"

	// The codecs register their formats with pcio.
	_ "github.com/pctk/pctk/io/las"
	_ "github.com/pctk/pctk/io/pcd"
	_ "github.com/pctk/pctk/io/ply"
	_ "github.com/pctk/pctk/io/stl"
)

// Config is one DBSCAN run.
type Config struct {
	// Inputs are the input files in order: global point ids (and so the
	// numbering of clusters) follow the concatenation of the files.
	Inputs []string
	// Outputs holds one output path per input.
	Outputs []string
	// Eps is the neighbourhood radius ε, MinPts the minimum points within ε
	// (the point itself included) of a core point, as in dbscan.Options.
	Eps    float64
	MinPts int
	// MinClusterSize, when > 1, relabels clusters of fewer points as noise.
	MinClusterSize int
	// TileSize is the side of the square XY tiles, in coordinate units.
	TileSize float64
	// Flat clusters in the XY plane (pctk's --dims xy): Z is taken as 0.
	Flat bool
}

// CheckParams validates the DBSCAN parameters and the tile size.
func (c *Config) CheckParams() error {
	o := dbscan.Options{Eps: c.Eps, MinPts: []int{c.MinPts}, MinClusterSize: c.MinClusterSize, TileSize: c.TileSize}
	if err := o.Validate(0); err != nil {
		return err
	}
	if c.TileSize == 0 {
		return fmt.Errorf("pipeline: tile size 0: want a tile side > 0")
	}
	return nil
}

// Check validates the configuration: parameters, inputs and outputs.
func (c *Config) Check() error {
	if err := c.CheckParams(); err != nil {
		return err
	}
	if len(c.Inputs) == 0 || len(c.Inputs) != len(c.Outputs) {
		return fmt.Errorf("pipeline: %d inputs and %d outputs: want one output per input, at least one", len(c.Inputs), len(c.Outputs))
	}
	return nil
}

// File is one input file and its output, the pipeline's first elements.
type File struct {
	Index int64
	In    string
	Out   string
}

// Stats are the point counts and bounds of input files: per file in stage
// 1, for all of them once combined.
type Stats struct {
	// Count holds the number of points of each file, by File.Index.
	Count []int64
	// Min and Max bound the points' coordinates (X, Y, Z); Any is false
	// while no point has been seen.
	Min, Max []float64
	Any      bool
	// First is the first point (X, Y, Z) of the file of smallest index
	// FirstFile that has points: the run's first point.
	First     []float64
	FirstFile int64
}

// Batch is points of one tile from one chunk of one file (stage 2).
type Batch struct {
	// ID holds the points' global ids, XYZ their float32 coordinates in
	// the run's frame, Owned whether the tile owns them.
	ID    []int64
	XYZ   []float32
	Owned []bool
}

// Counts are neighbour counts of points (stage 3).
type Counts struct {
	ID []int64
	N  []int64
}

// Owned is what stage 4 keeps of a tile's owned points: their ids, their
// component's representative (-1 for noise) and their neighbour counts.
type Owned struct {
	ID  []int64
	Rep []int64
	N   []int64
}

// Edge joins two representatives of one cluster (stage 5).
type Edge struct{ A, B int64 }

// Table maps sorted keys to values: the merge's roots (representative →
// root, only for representatives that are not roots) and the numbering
// (root → cluster label, -1 for a dropped cluster).
type Table struct {
	Key []int64
	Val []int64
}

// Lookup returns the value of key k, or def when k is not in t.
func (t *Table) Lookup(k, def int64) int64 {
	if i, ok := slices.BinarySearch(t.Key, k); ok {
		return t.Val[i]
	}
	return def
}

// Extent is a cluster's smallest point id and size (stage 6).
type Extent struct{ Min, Size int64 }

// Cluster is a cluster's root and extent (stage 6).
type Cluster struct {
	Root int64
	Extent
}

// Labels are final labels and counts of points of one file (stage 7).
type Labels struct {
	// Index holds the points' indices in their file.
	Index []int64
	Label []int64
	N     []int64
}

func init() {
	for _, t := range []any{File{}, Stats{}, Batch{}, Counts{}, Owned{}, Edge{}, Table{}, Extent{}, Cluster{}, Labels{}} {
		beam.RegisterType(reflect.TypeOf(t))
	}
	register.DoFn2x1[File, func(Stats), error](&statsFn{})
	register.Function2x1(mergeStats)
	register.DoFn3x1[File, Stats, func(int64, Batch), error](&binFn{})
	register.DoFn3x1[int64, func(*Batch) bool, func(int64, Counts), error](&countFn{})
	register.DoFn5x1[int64, func(*Batch) bool, func(*Counts) bool, func(int64, int64), func(Owned), error](&clusterFn{})
	register.Function3x0(joinReps)
	register.Function3x0(distinctEdges)
	register.Function3x0(rootsOf)
	register.DoFn3x0[Owned, func(*Table) bool, func(int64, Extent)](&extentFn{})
	register.Function2x1(mergeExtents)
	register.Function2x1(clusterOf)
	register.DoFn3x0[int, func(*Cluster) bool, func(Table)](&numberFn{})
	register.DoFn5x1[Owned, Stats, func(*Table) bool, func(*Table) bool, func(int64, Labels), error](&labelFn{})
	register.DoFn3x1[int64, func(*File) bool, func(*Labels) bool, error](&writeFn{})
	register.Emitter1[Stats]()
	register.Emitter1[Edge]()
	register.Emitter1[Owned]()
	register.Emitter1[Table]()
	register.Emitter1[Cluster]()
	register.Emitter2[int64, Batch]()
	register.Emitter2[int64, Counts]()
	register.Emitter2[int64, int64]()
	register.Emitter2[int64, Extent]()
	register.Emitter2[int64, Labels]()
	register.Iter1[Batch]()
	register.Iter1[Counts]()
	register.Iter1[int64]()
	register.Iter1[Edge]()
	register.Iter1[Cluster]()
	register.Iter1[Table]()
	register.Iter1[File]()
	register.Iter1[Labels]()
}

// Build adds the DBSCAN run c to the pipeline's scope s.
func Build(s beam.Scope, c Config) {
	s = s.Scope("pctk.dbscan")
	files := make([]any, len(c.Inputs))
	for i := range c.Inputs {
		files[i] = File{Index: int64(i), In: c.Inputs[i], Out: c.Outputs[i]}
	}
	fileCol := beam.Create(s, files...)
	n := int64(len(files))

	// 1. The frame.
	stats := beam.Combine(s, mergeStats, beam.ParDo(s, &statsFn{Files: n}, fileCol))

	// 2, 3. Points to tiles; phase 1 of every tile.
	tiles := beam.ParDo(s, &binFn{TileSize: c.TileSize, Eps: c.Eps, Flat: c.Flat}, fileCol, beam.SideInput{Input: stats})
	counts := beam.ParDo(s, &countFn{TileSize: c.TileSize, Eps: c.Eps}, beam.GroupByKey(s, tiles))

	// 4. Phase 2 of every tile.
	shared, owned := beam.ParDo2(s, &clusterFn{TileSize: c.TileSize, Eps: c.Eps, MinPts: int64(c.MinPts)}, beam.CoGroupByKey(s, tiles, counts))

	// 5. The merge: representatives of one point are one cluster.
	joins := beam.ParDo(s, joinReps, beam.GroupByKey(s, shared))
	edges := beam.ParDo(s, distinctEdges, beam.GroupByKey(s, joins))
	roots := beam.ParDo(s, rootsOf, beam.GroupByKey(s, beam.AddFixedKey(s, edges)))

	// 6. Cluster numbers.
	extents := beam.CombinePerKey(s, mergeExtents, beam.ParDo(s, &extentFn{}, owned, beam.SideInput{Input: roots}))
	clusters := beam.AddFixedKey(s, beam.ParDo(s, clusterOf, extents))
	numbers := beam.ParDo(s, &numberFn{MinSize: int64(c.MinClusterSize)}, beam.GroupByKey(s, clusters))

	// 7. Labels to files; outputs.
	labels := beam.ParDo(s, &labelFn{}, owned, beam.SideInput{Input: stats}, beam.SideInput{Input: roots}, beam.SideInput{Input: numbers})
	keyed := beam.ParDo(s, fileKey, fileCol)
	beam.ParDo0(s, &writeFn{}, beam.CoGroupByKey(s, keyed, labels))
}

// fileKey keys a file by its index.
func fileKey(f File) (int64, File) { return f.Index, f }

func init() {
	register.Function1x2(fileKey)
}

// Run builds the pipeline of c and runs it with the runner named runner
// ("prism", "universal", ...; see beam.Run).
func Run(ctx context.Context, runner string, c Config) error {
	if err := c.Check(); err != nil {
		return err
	}
	p, s := beam.NewPipelineWithRoot()
	Build(s, c)
	_, err := beam.Run(ctx, runner, p)
	return err
}

// chunkSize is the number of points read at once from a streaming decoder.
const chunkSize = 1 << 16

// eachChunk reads the file at path in chunks, calling fn with each chunk
// and the index in the file of its first point.
func eachChunk(path string, fn func(c *core.Cloud, first int64) error) error {
	f, r, rc, err := pcio.Open(path)
	if err != nil {
		return err
	}
	defer rc.Close()
	if f.NewDecoder == nil {
		c, err := f.Decode(r)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return fn(c, 0)
	}
	d, err := f.NewDecoder(r)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var first int64
	for {
		c, err := d.Read(chunkSize)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := fn(c, first); err != nil {
			return err
		}
		first += int64(c.Len())
	}
}

// statsFn reads a file's point count and bounds (stage 1).
type statsFn struct {
	// Files is the number of input files.
	Files int64
}

func (f *statsFn) ProcessElement(file File, emit func(Stats)) error {
	s := Stats{Count: make([]int64, f.Files), Min: make([]float64, 3), Max: make([]float64, 3), First: make([]float64, 3), FirstFile: file.Index}
	err := eachChunk(file.In, func(c *core.Cloud, first int64) error {
		for i := range c.X {
			p := [3]float64{c.X[i], c.Y[i], c.Z[i]}
			if !s.Any {
				copy(s.First, p[:])
			}
			for k, v := range p {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%s: point %d has a non-finite coordinate %c = %g", file.In, first+int64(i), "XYZ"[k], v)
				}
				if !s.Any {
					s.Min[k], s.Max[k] = v, v
				}
				s.Min[k], s.Max[k] = min(s.Min[k], v), max(s.Max[k], v)
			}
			s.Any = true
		}
		s.Count[file.Index] += int64(c.Len())
		return nil
	})
	if err != nil {
		return err
	}
	emit(s)
	return nil
}

// mergeStats combines the stats of two sets of files.
func mergeStats(a, b Stats) Stats {
	if !b.Any {
		a, b = b, a
	}
	out := Stats{Count: make([]int64, max(len(a.Count), len(b.Count))), Min: slices.Clone(b.Min), Max: slices.Clone(b.Max), Any: a.Any || b.Any,
		First: slices.Clone(b.First), FirstFile: b.FirstFile}
	if a.Any && a.FirstFile < b.FirstFile {
		out.First, out.FirstFile = slices.Clone(a.First), a.FirstFile
	}
	for i := range out.Count {
		if i < len(a.Count) {
			out.Count[i] += a.Count[i]
		}
		if i < len(b.Count) {
			out.Count[i] += b.Count[i]
		}
	}
	if a.Any {
		for k := range 3 {
			out.Min[k], out.Max[k] = min(a.Min[k], b.Min[k]), max(a.Max[k], b.Max[k])
		}
	}
	return out
}

// origin returns the run's local origin: the centre of the bounds of all
// points, with Z 0 when flat, exactly as core.Cloud.Local computes it.
func (s *Stats) origin(flat bool) [3]float64 {
	if !s.Any {
		return [3]float64{}
	}
	b := core.Bounds{Min: [3]float64(s.Min), Max: [3]float64(s.Max)}
	o := b.Center()
	if flat {
		o[2] = 0
	}
	return o
}

// first returns the global id of the first point of each file.
func (s *Stats) first() []int64 {
	out := make([]int64, len(s.Count))
	var n int64
	for i, c := range s.Count {
		out[i] = n
		n += c
	}
	return out
}

// tileID packs a tile key into an int64, the tiles' Beam key.
func tileID(k tile.Key) int64 { return int64(k.I)<<32 | int64(uint32(k.J)) }

// tileKey unpacks tileID.
func tileKey(id int64) tile.Key { return tile.Key{I: int32(id >> 32), J: int32(uint32(id))} }

// binFn sends the points of a file to the tiles that hold them (stage 2).
type binFn struct {
	TileSize, Eps float64
	Flat          bool
}

func (f *binFn) ProcessElement(file File, st Stats, emit func(int64, Batch)) error {
	g, err := tile.NewGrid(f.TileSize, f.Eps)
	if err != nil {
		return err
	}
	o := st.origin(f.Flat)
	if st.Any {
		lo := [2]float64{st.Min[0] - o[0], st.Min[1] - o[1]}
		hi := [2]float64{st.Max[0] - o[0], st.Max[1] - o[1]}
		if err := g.Covers(lo, hi); err != nil {
			return err
		}
	}
	base := st.first()[file.Index]
	seen := int64(0)
	err = eachChunk(file.In, func(c *core.Cloud, first int64) error {
		out := map[tile.Key]*Batch{}
		for i := range c.X {
			// The same float32 coordinates as core.Cloud.Local.
			x, y := float32(c.X[i]-o[0]), float32(c.Y[i]-o[1])
			var z float32
			if !f.Flat {
				z = float32(c.Z[i] - o[2])
			}
			own := g.Owner(x, y)
			id := base + first + int64(i)
			g.Touch(x, y, func(k tile.Key) {
				b := out[k]
				if b == nil {
					b = &Batch{}
					out[k] = b
				}
				b.ID = append(b.ID, id)
				b.XYZ = append(b.XYZ, x, y, z)
				b.Owned = append(b.Owned, k == own)
			})
		}
		for k, b := range out {
			emit(tileID(k), *b)
		}
		seen += int64(c.Len())
		return nil
	})
	if err != nil {
		return err
	}
	if seen != st.Count[file.Index] {
		return fmt.Errorf("%s: %d points read, %d when counted: the file changed during the run", file.In, seen, st.Count[file.Index])
	}
	return nil
}

// gather assembles a tile's points from its batches, in global id order.
func gather(key int64, batches func(*Batch) bool) *tile.Points {
	var b Batch
	t, _, _ := gatherPos(key, func(p *PBatch) bool {
		if !batches(&b) {
			return false
		}
		*p = PBatch{Batch: b}
		return true
	}, 0)
	return t
}

// countFn is phase 1 of a tile (stage 3): the owned points' neighbour
// counts, sent to every tile that holds the point.
type countFn struct {
	TileSize, Eps float64
}

func (f *countFn) ProcessElement(key int64, batches func(*Batch) bool, emit func(int64, Counts)) error {
	g, err := tile.NewGrid(f.TileSize, f.Eps)
	if err != nil {
		return err
	}
	t := gather(key, batches)
	n, err := dbscan.CountTile(t, cpu.Backend(), f.Eps, findneighbor.BuildOptions{})
	if err != nil {
		return err
	}
	out := map[tile.Key]*Counts{}
	for j, i := range t.OwnedIndex() {
		g.Touch(t.XYZ[3*i], t.XYZ[3*i+1], func(k tile.Key) {
			c := out[k]
			if c == nil {
				c = &Counts{}
				out[k] = c
			}
			c.ID = append(c.ID, t.ID[i])
			c.N = append(c.N, int64(n[j]))
		})
	}
	for k, c := range out {
		emit(tileID(k), *c)
	}
	return nil
}

// clusterFn is phase 2 of a tile (stage 4).
type clusterFn struct {
	TileSize, Eps float64
	MinPts        int64
}

func (f *clusterFn) ProcessElement(key int64, batches func(*Batch) bool, counts func(*Counts) bool, shared func(int64, int64), emit func(Owned)) error {
	g, err := tile.NewGrid(f.TileSize, f.Eps)
	if err != nil {
		return err
	}
	t := gather(key, batches)
	owned := t.OwnedIndex()
	if len(owned) == 0 {
		return nil
	}
	// Neighbour counts of the tile's points, by position.
	n := make([]int64, t.Len())
	for i := range n {
		n[i] = -1
	}
	var c Counts
	for counts(&c) {
		for j, id := range c.ID {
			if i, ok := slices.BinarySearch(t.ID, id); ok {
				n[i] = c.N[j]
			}
		}
	}
	core := make([]bool, t.Len())
	for i, v := range n {
		if v < 0 {
			return fmt.Errorf("pipeline: tile %v: no neighbour count for point %d from its owner", t.Key, t.ID[i])
		}
		core[i] = v+1 >= f.MinPts
	}
	l, err := dbscan.ClusterTile(t, core, cpu.Backend(), f.Eps, findneighbor.BuildOptions{})
	if err != nil {
		return err
	}
	rep, err := representatives(t, core, l)
	if err != nil {
		return err
	}
	for i, r := range rep {
		if !core[i] {
			continue
		}
		// A core point some other tile holds: its owner and every tile
		// that holds it as halo point name their component of it.
		many := !t.Owned[i]
		if !many {
			g.Touch(t.XYZ[3*i], t.XYZ[3*i+1], func(k tile.Key) { many = many || k != t.Key })
		}
		if many {
			shared(t.ID[i], r)
		}
	}
	o := Owned{ID: make([]int64, len(owned)), Rep: make([]int64, len(owned)), N: make([]int64, len(owned))}
	for j, i := range owned {
		o.ID[j], o.Rep[j], o.N[j] = t.ID[i], rep[i], n[i]
	}
	emit(o)
	return nil
}

// representatives returns, for each point of the tile t, the smallest
// global id of a core point of its component in the tile (from the
// tile's links), or -1: for core points their component's, for owned
// border points the component of the core point they join, for noise and
// halo border points -1.
func representatives(t *tile.Points, core []bool, l *dbscan.Links) ([]int64, error) {
	// pair returns the tile positions of the link ids[j], ids[j+1].
	pair := func(ids []int64, j int) (int, int, error) {
		a, okA := slices.BinarySearch(t.ID, ids[j])
		b, okB := slices.BinarySearch(t.ID, ids[j+1])
		if !okA || !okB {
			return 0, 0, fmt.Errorf("pipeline: tile %v: link %d-%d names a point not in the tile", t.Key, ids[j], ids[j+1])
		}
		return a, b, nil
	}
	parent := make([]int, t.Len())
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for j := 0; j+1 < len(l.Edges); j += 2 {
		a, b, err := pair(l.Edges, j)
		if err != nil {
			return nil, err
		}
		// Positions follow global ids: the smaller root is the smaller id.
		ra, rb := find(a), find(b)
		parent[max(ra, rb)] = min(ra, rb)
	}
	rep := make([]int64, t.Len())
	for i := range rep {
		rep[i] = -1
		if core[i] {
			rep[i] = t.ID[find(i)]
		}
	}
	for j := 0; j+1 < len(l.Border); j += 2 {
		p, c, err := pair(l.Border, j)
		if err != nil {
			return nil, err
		}
		rep[p] = t.ID[find(c)]
	}
	return rep, nil
}

// joinReps turns the representatives that the tiles holding one core point
// gave it into union edges, keyed by their smaller end (stage 5).
func joinReps(_ int64, reps func(*int64) bool, emit func(int64, int64)) {
	var first, r int64 = -1, 0
	for reps(&r) {
		switch {
		case first < 0:
			first = r
		case r != first:
			emit(min(first, r), max(first, r))
		}
	}
}

// distinctEdges emits each edge from a once: every core point along a seam
// between two tile components gives the same edge, and only the distinct
// ones, about one per pair of components that meet, go to the one worker
// that runs the union-find (stage 5).
func distinctEdges(a int64, bs func(*int64) bool, emit func(Edge)) {
	seen := map[int64]bool{}
	var b int64
	for bs(&b) {
		if !seen[b] {
			seen[b] = true
			emit(Edge{A: a, B: b})
		}
	}
}

// rootsOf is the global union-find over representatives (stage 5): it
// returns each representative joined to another with its cluster's root,
// the smallest of them.
func rootsOf(_ int, edges func(*Edge) bool, emit func(Table)) {
	parent := map[int64]int64{}
	find := func(i int64) int64 {
		for {
			p, ok := parent[i]
			if !ok || p == i {
				return i
			}
			if gp, ok := parent[p]; ok {
				parent[i] = gp
			}
			i = p
		}
	}
	var e Edge
	for edges(&e) {
		ra, rb := find(e.A), find(e.B)
		parent[max(ra, rb)] = min(ra, rb)
	}
	var t Table
	for k := range parent {
		t.Key = append(t.Key, k)
	}
	slices.Sort(t.Key)
	t.Val = make([]int64, len(t.Key))
	for i, k := range t.Key {
		t.Val[i] = find(k)
	}
	emit(t)
}

// table returns the one Table of a side input, or an empty one when the
// stage that makes it had no input.
func table(it func(*Table) bool) *Table {
	var t Table
	it(&t)
	return &t
}

// extentFn gives each cluster root the smallest id and the number of the
// owned points of a tile that belong to it (stage 6).
type extentFn struct{}

func (extentFn) ProcessElement(o Owned, roots func(*Table) bool, emit func(int64, Extent)) {
	rt := table(roots)
	ext := map[int64]*Extent{}
	for j, r := range o.Rep {
		if r < 0 {
			continue
		}
		root := rt.Lookup(r, r)
		e := ext[root]
		if e == nil {
			e = &Extent{Min: o.ID[j]}
			ext[root] = e
		}
		e.Min = min(e.Min, o.ID[j])
		e.Size++
	}
	for root, e := range ext {
		emit(root, *e)
	}
}

// mergeExtents combines two extents of one cluster.
func mergeExtents(a, b Extent) Extent { return Extent{Min: min(a.Min, b.Min), Size: a.Size + b.Size} }

// clusterOf unkeys a cluster's extent.
func clusterOf(root int64, e Extent) Cluster { return Cluster{Root: root, Extent: e} }

// numberFn numbers the clusters 0, 1, ... in order of their smallest point
// id, as dbscan.Cluster does, giving -1 to clusters of fewer than MinSize
// points (when MinSize > 1). It emits the numbering as a Table.
type numberFn struct {
	MinSize int64
}

func (f *numberFn) ProcessElement(_ int, clusters func(*Cluster) bool, emit func(Table)) {
	var all []Cluster
	var c Cluster
	for clusters(&c) {
		all = append(all, c)
	}
	slices.SortFunc(all, func(a, b Cluster) int { return cmp.Compare(a.Min, b.Min) })
	label := map[int64]int64{}
	next := int64(0)
	for _, c := range all {
		label[c.Root] = -1
		if f.MinSize <= 1 || c.Size >= f.MinSize {
			label[c.Root] = next
			next++
		}
	}
	emit(tableOf(label))
}

// tableOf returns the Table of the map m.
func tableOf(m map[int64]int64) Table {
	t := Table{Key: make([]int64, 0, len(m)), Val: make([]int64, 0, len(m))}
	for k := range m {
		t.Key = append(t.Key, k)
	}
	slices.Sort(t.Key)
	for _, k := range t.Key {
		t.Val = append(t.Val, m[k])
	}
	return t
}

// labelFn gives the owned points of a tile their final labels and sends
// them to their input files (stage 7).
type labelFn struct{}

func (labelFn) ProcessElement(o Owned, st Stats, roots, numbers func(*Table) bool, emit func(int64, Labels)) error {
	rt, nt := table(roots), table(numbers)
	first := st.first()
	out := map[int64]*Labels{}
	for j, id := range o.ID {
		// The file of id: the last whose first id is ≤ id.
		f := int64(sort.Search(len(first), func(k int) bool { return first[k] > id })) - 1
		if f < 0 || id-first[f] >= st.Count[f] {
			return fmt.Errorf("pipeline: point id %d is in no input file", id)
		}
		label := int64(dbscan.Noise)
		if r := o.Rep[j]; r >= 0 {
			root := rt.Lookup(r, r)
			label = nt.Lookup(root, -2)
			if label == -2 {
				return fmt.Errorf("pipeline: point %d: cluster root %d was not numbered", id, root)
			}
		}
		l := out[f]
		if l == nil {
			l = &Labels{}
			out[f] = l
		}
		l.Index = append(l.Index, id-first[f])
		l.Label = append(l.Label, label)
		l.N = append(l.N, o.N[j])
	}
	for f, l := range out {
		emit(f, *l)
	}
	return nil
}

// writeFn writes one output file: its input with the attributes
// NeighborCount (uint32) and ClusterID (int64, -1 for noise) added, in the
// order pctk dbscan adds them (stage 7).
type writeFn struct{}

func (writeFn) ProcessElement(_ int64, files func(*File) bool, labels func(*Labels) bool) error {
	return rewrite(files, func(c *core.Cloud, _ *pcio.Format) (*core.Cloud, error) {
		n := c.Len()
		ids := make([]int64, n)
		counts := make([]uint32, n)
		seen := newSeen(n)
		var l Labels
		for labels(&l) {
			for j, i := range l.Index {
				if err := seen.mark(i); err != nil {
					return nil, err
				}
				ids[i], counts[i] = l.Label[j], uint32(l.N[j])
			}
		}
		if err := seen.all("the file changed during the run?"); err != nil {
			return nil, err
		}
		if err := c.SetAttr(core.NewColumn(core.DimNeighborCount, counts)); err != nil {
			return nil, err
		}
		return c, c.SetAttr(core.NewColumn(core.DimClusterID, ids))
	})
}

// rewrite writes the one output of the file files gives: its input, read
// whole, as edit returns it (errors name the input), in the input's
// format unless the output's extension names another.
func rewrite(files func(*File) bool, edit func(c *core.Cloud, from *pcio.Format) (*core.Cloud, error)) error {
	var file File
	if !files(&file) {
		return errors.New("pipeline: values of no input file")
	}
	c, from, err := pcio.ReadFile(file.In)
	if err != nil {
		return err
	}
	if c, err = edit(c, from); err != nil {
		return fmt.Errorf("%s: %w", file.In, err)
	}
	f, variant, err := pcio.OutputFormat(file.Out, "", from)
	if err != nil {
		return err
	}
	if err := pcio.WriteFile(file.Out, f, variant, c); err != nil {
		return fmt.Errorf("%s: %w", file.Out, err)
	}
	return nil
}

// seen tracks which points of a file got their value: each exactly once.
type seen []bool

func newSeen(n int) seen { return make(seen, n) }

// mark notes point i, an error for a point beyond the file or seen twice.
func (s seen) mark(i int64) error {
	if i < 0 || i >= int64(len(s)) || s[i] {
		return fmt.Errorf("point %d given a value twice, or beyond the %d points of the file", i, len(s))
	}
	s[i] = true
	return nil
}

// all reports the first point that got no value, why saying what may have
// happened.
func (s seen) all(why string) error {
	if i := slices.Index(s, false); i >= 0 {
		return fmt.Errorf("point %d got no value (%s)", i, why)
	}
	return nil
}
