package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
	"github.com/urfave/cli/v2"
)

// Out-of-core runs (--max-memory, docs/scale.md): IN is read three times,
// as a stream, and never held whole. The first pass finds the bounds (the
// in-memory run's local origin, so that every float32 coordinate is the
// in-memory one), the second bins the points into tiles on disk with their
// indices (tile.Store), then the filter's Streamed.Run runs its tile
// kernels one tile at a time and its merge, and the third pass writes OUT
// in input order, chunk by chunk, with the new columns.

var (
	maxMemoryFlag = &cli.StringFlag{Name: "max-memory", Usage: "run out of core in about `SIZE` of memory (256MiB, 2GiB, 500MB): IN is binned into tiles on disk, which run one at a time, and OUT is written as a stream; the same output as in memory (docs/scale.md)"}
	tmpdirFlag    = &cli.StringFlag{Name: "tmpdir", Usage: "folder for the tiles of --max-memory (default: the system's temporary folder)"}
)

// Streamed is a filter's out-of-core run.
type Streamed struct {
	// Halo is the halo width its tile kernels need.
	Halo float64
	// PointBytes is the memory its merge keeps per point of the cloud.
	PointBytes int64
	// Run runs the kernels over the tiles of s and the merge.
	Run func(s *StreamRun) (*StreamResult, error)
}

// StreamRun is what the runner hands Streamed.Run: the binned tiles and
// the backend.
type StreamRun struct {
	In, Out string // IN and OUT as given
	Store   *tile.Store
	N       int64 // points of the cloud
	Dims    string
	Backend findneighbor.Backend
	Build   findneighbor.BuildOptions
	// Progress reports the fraction done of a named stage.
	Progress func(stage string, done float64)
	// Record hashes the coordinates for dbscan.CountsRecord, in the first
	// pass; nil for a tile collection, whose files' counts include other
	// files' points and so carry no record.
	Record *dbscan.RecordHash
}

// WriteOwned stores the values of tile k's owned points (in tile order)
// under name, for OwnedColumn to read back in input order.
func (s *StreamRun) WriteOwned(name string, k tile.Key, data []byte) error {
	return os.WriteFile(s.ownedPath(name, k), data, 0o600)
}

func (s *StreamRun) ownedPath(name string, k tile.Key) string {
	return filepath.Join(s.Store.Dir(), name+"-"+k.String()+".bin")
}

// OwnedReader reads what WriteOwned stored under name, size bytes per
// point, in input order: the next value of a point is the next one of its
// owner tile's, since a tile lists its points in increasing index order.
func (s *StreamRun) OwnedReader(name string, size int) *OwnedReader {
	return &OwnedReader{s: s, name: name, size: size, tiles: map[tile.Key]*ownedBuf{}}
}

// OwnedReader reads per-tile values back in input order.
type OwnedReader struct {
	s     *StreamRun
	name  string
	size  int
	tiles map[tile.Key]*ownedBuf
}

// ownedBuf is a window of a tile's file: opened, read and closed at each
// refill, so that any number of tiles needs one file descriptor.
type ownedBuf struct {
	off int64
	buf []byte
}

// ownedWindow is the bytes an OwnedReader reads from a tile at a time.
const ownedWindow = 16 << 10

// Next returns the next value of a point owned by tile k.
func (r *OwnedReader) Next(k tile.Key) ([]byte, error) {
	t := r.tiles[k]
	if t == nil {
		t = &ownedBuf{}
		r.tiles[k] = t
	}
	if len(t.buf) < r.size {
		f, err := os.Open(r.s.ownedPath(r.name, k))
		if err != nil {
			return nil, err
		}
		b := make([]byte, ownedWindow/r.size*r.size)
		n, err := f.ReadAt(b, t.off)
		f.Close()
		if n < r.size {
			if err == nil || errors.Is(err, io.EOF) {
				err = fmt.Errorf("%s: tile %v has fewer values than points", r.name, k)
			}
			return nil, err
		}
		t.buf, t.off = b[:n/r.size*r.size], t.off+int64(n/r.size*r.size)
	}
	v := t.buf[:r.size]
	t.buf = t.buf[r.size:]
	return v, nil
}

// StreamResult is the outcome of Streamed.Run.
type StreamResult struct {
	// Columns returns the new columns of the points first.. of IN, whose
	// owner tiles are owners (one per point; none: the empty columns,
	// for the output's schema). They are set in order as Result.Columns.
	Columns func(first int64, owners []tile.Key) ([]*core.Attribute, error)
	// Edit, when set, changes each chunk once its columns are set
	// (classify points), not the number of points.
	Edit func(first int64, c *core.Cloud) error
	// Meta, when set, edits the output's metadata (comments).
	Meta func(m *core.Metadata)
	// Lines, JSON and Doc are the summary, as in Result.
	Lines []string
	JSON  any
	Doc   func(t Timings) any
}

// streamArgs are the runner's parsed shared flags for runStreamed.
type streamArgs struct {
	in, out string
	// ins and outs are the files of a tile collection (collection.go);
	// nil for one IN and OUT.
	ins, outs []string
	dims      string
	flat      bool
	ignore    []int
	tileSize  float64
}

// parseSize parses a memory size: 256MiB, 2GiB, 500MB, 1e9 (bytes).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("--max-memory %q: want a size such as 256MiB, 2GiB or 500MB", s)
	}
	return int64(v * mult), nil
}

// Memory a tile costs per point of it (its coordinates, indices and flags,
// the index built on them, the kernel's results), and what the run needs
// besides the merge and the tile (buffers, runtime): measured on the cpu
// backend, with room for the garbage collector.
const (
	tilePointBytes = 200
	streamReserve  = 48 << 20
)

// runStreamed runs f out of core (see the comment at the top).
func (f *Filter) runStreamed(c *cli.Context, job *Job, a streamArgs) error {
	budget := int64(defaultCollectionMemory)
	if c.IsSet(maxMemoryFlag.Name) {
		var err error
		if budget, err = parseSize(c.String(maxMemoryFlag.Name)); err != nil {
			return usagef("%v", err)
		}
	}
	if a.ins == nil {
		a.ins, a.outs = []string{a.in}, []string{a.out}
	}
	switch {
	case job.Stream == nil:
		return usagef("--max-memory: pctk %s runs in memory only with these flags (--tile-size tiles it in memory)", f.label())
	case slices.Contains(a.ins, pcio.Stdio):
		return usagef("--max-memory reads IN three times: give a file, not -")
	case len(a.ignore) > 0 || job.Select != nil || job.Project != nil:
		return usagef("--max-memory: not with --ignore-class, --keep-nan or --geographic yet; run in memory (--tile-size tiles it)")
	case c.Bool(salvageFlag.Name):
		return usagef("--max-memory: not with --salvage; repair IN with pctk convert --salvage first")
	}
	b, err := backend(c, job.CPUWork)
	if err != nil {
		return err
	}
	// The garbage collector keeps the heap under the budget.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(budget))
	start := time.Now()

	// Pass 1: count, bounds (the in-memory local origin), record hash.
	var n int64
	var lo, hi [3]float64
	var rec dbscan.RecordHash
	froms, err := streamIns(a.ins, func(first int64, ch *core.Cloud) error {
		for i := range ch.Len() {
			x, y, z := ch.X[i], ch.Y[i], ch.Z[i]
			if !finite(x) || !finite(y) || !finite(z) {
				return fmt.Errorf("core: point %d has a non-finite coordinate (%g, %g, %g)", first+int64(i), x, y, z)
			}
			p := [3]float64{x, y, z}
			for k := range 3 {
				if n == 0 && i == 0 {
					lo[k], hi[k] = p[k], p[k]
				}
				lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
			}
		}
		rec.Add(ch.X, ch.Y, ch.Z)
		n += int64(ch.Len())
		return nil
	})
	if err != nil {
		return err
	}
	ofs, variants := make([]*pcio.Format, len(a.outs)), make([]string, len(a.outs))
	for i, out := range a.outs {
		if ofs[i], variants[i], err = pcio.OutputFormat(out, c.String("format"), froms[i]); err != nil {
			return usagef("%v", err)
		}
		if ofs[i].NewEncoder == nil {
			return usagef("--max-memory writes OUT as a stream, which format %s cannot; choose another (--format)", ofs[i].Name)
		}
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("%s: %d points: out-of-core runs index points with int32 (at most %d)", a.in, n, math.MaxInt32)
	}
	origin := core.Bounds{Min: lo, Max: hi}.Center()
	if a.flat {
		origin[2] = 0
	}
	size := a.tileSize
	if size == 0 {
		if size, err = tileSizeFor(budget, n, job.Stream, lo, hi); err != nil {
			return usagef("%v", err)
		}
	}
	g, err := tile.NewGrid(size, job.Stream.Halo)
	if err != nil {
		return usagef("--tile-size: %v", err)
	}
	store, err := tile.NewStore(c.String(tmpdirFlag.Name), g)
	if err != nil {
		return err
	}
	defer store.Close()

	// Pass 2: bin.
	local := func(ch *core.Cloud, i int) (x, y, z float32) {
		x, y = float32(ch.X[i]-origin[0]), float32(ch.Y[i]-origin[1])
		if !a.flat {
			z = float32(ch.Z[i] - origin[2])
		}
		return x, y, z
	}
	if _, err := streamIns(a.ins, func(first int64, ch *core.Cloud) error {
		for i := range ch.Len() {
			x, y, z := local(ch, i)
			if err := store.Add(first+int64(i), x, y, z); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := store.Flush(); err != nil {
		return err
	}
	debugf("--max-memory %d: %d points in %d tiles of %g (halo %g) under %s", budget, n, len(store.Keys()), size, g.Halo, store.Dir())

	// The kernels and the merge.
	t1 := time.Now()
	report, finish := stageProgress(f.label())
	run := &StreamRun{In: a.in, Out: a.out, Store: store, N: n, Dims: a.dims, Backend: b, Progress: report, Record: &rec,
		Build: findneighbor.BuildOptions{Workers: c.Int(workersFlag.Name)}}
	if len(a.ins) > 1 || a.outs[0] != a.out {
		// A file of a collection holds counts of other points than its own.
		run.Record = nil
	}
	res, err := job.Stream.Run(run)
	finish()
	if err != nil {
		var ue usageError
		if pe := f.paramError(err); errors.As(pe, &ue) {
			return pe
		}
		return fmt.Errorf("%s: %w", a.in, err)
	}

	// Pass 3: write OUT (each OUT of a collection) in input order.
	t2 := time.Now()
	var first int64
	for i, in := range a.ins {
		m, err := writeStreamed(c, in, a.outs[i], first, ofs[i], variants[i], res, g, local)
		if err != nil {
			return err
		}
		first += m
	}
	t3 := time.Now()
	t := Timings{Read: t1.Sub(start).Seconds(), Compute: t2.Sub(t1).Seconds(), Write: t3.Sub(t2).Seconds()}
	return f.report(c, &Result{Lines: res.Lines, JSON: res.JSON, Doc: res.Doc}, t,
		summaryDoc{Command: f.label(), Input: a.in, Output: a.out, Points: int(n), Used: int(n), Backend: b.Name()})
}

// tileSizeFor returns the side of tiles that hold what the budget leaves
// after the merge's memory, for points spread evenly over the XY box
// lo..hi with a halo.
func tileSizeFor(budget, n int64, s *Streamed, lo, hi [3]float64) (float64, error) {
	left := budget - streamReserve - s.PointBytes*n
	pts := left / tilePointBytes
	if pts < 4096 {
		need := streamReserve + s.PointBytes*n + 4096*tilePointBytes
		return 0, fmt.Errorf("--max-memory %d is too small for %d points: the merge alone keeps %d bytes a point; give at least %dMiB", budget, n, s.PointBytes, need>>20+1)
	}
	area := (hi[0] - lo[0]) * (hi[1] - lo[1])
	if !(area > 0) || n <= pts {
		// One tile holds everything (or the cloud is a line in XY).
		return math.Max(hi[0]-lo[0], hi[1]-lo[1])*2 + 1, nil
	}
	// (S + 2h)² · n/area = pts
	side := math.Sqrt(float64(pts)*area/float64(n)) - 2*s.Halo
	if side < s.Halo {
		return 0, fmt.Errorf("--max-memory %d leaves tiles of %d points, narrower than their halo %g at this density; give more memory", budget, pts, s.Halo)
	}
	return side, nil
}

// streamIns runs streamIn on each path in turn, the indices of a file's
// points following those of the files before it, and returns their formats.
func streamIns(paths []string, fn func(first int64, c *core.Cloud) error) ([]*pcio.Format, error) {
	var base int64
	var froms []*pcio.Format
	for _, p := range paths {
		var n int64
		f, err := streamIn(p, func(first int64, c *core.Cloud) error {
			n = first + int64(c.Len())
			return fn(base+first, c)
		})
		if err != nil {
			return nil, err
		}
		froms, base = append(froms, f), base+n
	}
	return froms, nil
}

// streamIn decodes path in chunks, calling fn with each and the index of
// its first point, and returns the format.
func streamIn(path string, fn func(first int64, c *core.Cloud) error) (*pcio.Format, error) {
	f, r, closer, err := pcio.Open(path)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	if f.NewDecoder == nil {
		return nil, usagef("--max-memory reads IN as a stream, which format %s cannot; convert it (pctk convert) or run in memory", f.Name)
	}
	dec, err := f.NewDecoder(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pcio.Name(path), err)
	}
	err = eachChunk(path, dec, func(first int64, ch *core.Cloud) error {
		if err := fn(first, ch); err != nil {
			return fmt.Errorf("%s: %w", pcio.Name(path), err)
		}
		return nil
	})
	return f, err
}

// readError is an error of reading IN, named, as opposed to one of what
// is done with the points.
type readError struct{ error }

func (e readError) Unwrap() error { return e.error }

// eachChunk calls fn with each chunk dec reads from in, chunkPoints at a
// time, and the index of its first point. A read error is a readError
// naming in; fn's errors pass as they are.
func eachChunk(in string, dec pcio.Decoder, fn func(first int64, c *core.Cloud) error) error {
	var first int64
	for {
		ch, err := dec.Read(chunkPoints)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return readError{fmt.Errorf("%s: %w", pcio.Name(in), err)}
		}
		if err := fn(first, ch); err != nil {
			return err
		}
		first += int64(ch.Len())
	}
}

// writeStreamed writes out atomically from a third pass over in, whose
// first point has global index base, each chunk with the result's columns
// and edits, and returns the number of points.
func writeStreamed(c *cli.Context, in, out string, base int64, of *pcio.Format, variant string, res *StreamResult, g tile.Grid, local func(*core.Cloud, int) (float32, float32, float32)) (int64, error) {
	f, r, closer, err := pcio.Open(in)
	if err != nil {
		return 0, err
	}
	defer closer.Close()
	dec, err := f.NewDecoder(r)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", pcio.Name(in), err)
	}
	// The output's schema: IN's with the new columns set as SetAttr sets
	// them, from the empty columns.
	h := *dec.Header()
	empty, err := res.Columns(0, nil)
	if err != nil {
		return 0, err
	}
	schema := &core.Cloud{}
	for _, s := range h.Schema {
		schema.Attrs = append(schema.Attrs, core.NewAttribute(s.Name, s.Type, 0))
	}
	for _, col := range empty {
		if err := schema.SetAttr(col); err != nil {
			return 0, err
		}
	}
	h.Schema = schema.Attrs
	h.Meta.Comments = append([]string(nil), h.Meta.Comments...)
	if res.Meta != nil {
		res.Meta(&h.Meta)
	}
	var owners []tile.Key
	var n int64
	err = streamOut(c, in, dec, out, of, &h, variant, func(first int64, ch *core.Cloud) error {
		first += base
		n += int64(ch.Len())
		owners = owners[:0]
		for i := range ch.Len() {
			x, y, _ := local(ch, i)
			owners = append(owners, g.Owner(x, y))
		}
		cols, err := res.Columns(first, owners)
		if err != nil {
			return err
		}
		for _, col := range cols {
			if err := ch.SetAttr(col); err != nil {
				return err
			}
		}
		if res.Edit != nil {
			return res.Edit(first, ch)
		}
		return nil
	})
	return n, err
}

// streamOut writes path atomically in format of (variant), with header h,
// from the chunks of dec reading in, each changed by edit before it is
// written. Errors name in when reading failed, path when writing did.
func streamOut(c *cli.Context, in string, dec pcio.Decoder, path string, of *pcio.Format, h *pcio.Header, variant string, edit func(first int64, ch *core.Cloud) error) error {
	err := pcio.WriteAtomic(path, func(w io.Writer) error {
		enc, err := of.NewEncoder(w, h, variant)
		if err != nil {
			return err
		}
		err = eachChunk(in, dec, func(first int64, ch *core.Cloud) error {
			if err := edit(first, ch); err != nil {
				return err
			}
			return enc.Write(ch)
		})
		if err != nil {
			return err
		}
		return enc.Close()
	}, writeOptions(c))
	var re readError
	switch {
	case errors.As(err, &re):
		return re.error
	case err != nil:
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// putUint32s encodes v little-endian.
func putUint32s(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// StreamCounts counts, tile by tile, the other points within r of every
// point (tile.Counts), stores them under "counts" for OwnedReader, calls
// each (when set) with every tile's points and its owned points' counts,
// and returns their histogram (count -> points).
func (s *StreamRun) StreamCounts(r float64, stage string, each func(t *tile.Points, owned []int32, counts []uint32)) (map[uint32]int, error) {
	hist := map[uint32]int{}
	keys := s.Store.Keys()
	for ti, k := range keys {
		s.Progress(stage, float64(ti)/float64(len(keys)))
		t, err := s.Store.Load(k)
		if err != nil {
			return nil, err
		}
		counts, err := tile.Counts(t, s.Backend, r, s.Build)
		if err != nil {
			return nil, err
		}
		for _, c := range counts {
			hist[c]++
		}
		if each != nil {
			each(t, t.OwnedIndex(), counts)
		}
		if err := s.WriteOwned("counts", k, putUint32s(counts)); err != nil {
			return nil, err
		}
	}
	return hist, nil
}

// countColumn returns the out-of-core Columns of one column name of type
// T made from each point's count (StreamCounts) by value.
func countColumn[T uint32 | float64](s *StreamRun, name string, value func(c uint32) T) func(first int64, owners []tile.Key) ([]*core.Attribute, error) {
	counts := s.OwnedReader("counts", 4)
	return func(_ int64, owners []tile.Key) ([]*core.Attribute, error) {
		v := make([]T, len(owners))
		for i, k := range owners {
			b, err := counts.Next(k)
			if err != nil {
				return nil, err
			}
			v[i] = value(binary.LittleEndian.Uint32(b))
		}
		return []*core.Attribute{core.NewColumn(name, v)}, nil
	}
}
