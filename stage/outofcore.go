package stage

import (
	"bufio"
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
	"sync"
	"time"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
	"github.com/pctk/pctk/primitives/tile"
)

// Out-of-core runs (--max-memory, docs/scale.md): IN is read three times,
// as a stream, and never held whole. The first pass finds the bounds (the
// in-memory run's local origin, so that every float32 coordinate is the
// in-memory one), the second bins the points into tiles on disk with their
// indices (tile.Store), then the filter's Streamed.Run runs its tile
// kernels one tile at a time (one per GPU, --gpus) and its merge, and the
// third pass writes OUT in input order, chunk by chunk, with the new
// columns. A LAS or LAZ OUT from IN of another format reads IN once or
// twice more before it, for the in-memory run's scale (lasScale).

var (
	MaxMemoryOption = &Option{Kind: String, Name: "max-memory", Usage: "run out of core in about `SIZE` of memory (256MiB, 2GiB, 500MB): IN is binned into tiles on disk, which run one at a time (one per GPU with --backend cuda, --gpus), and OUT is written as a stream; the same output as in memory (docs/scale.md)"}
	TmpdirOption    = &Option{Kind: String, Name: "tmpdir", Usage: "folder for the tiles of --max-memory (default: the system's temporary folder)"}
	// The same flags for filters that run in input order (Stage.InOrder).
	inOrderMemoryOption = &Option{Kind: String, Name: MaxMemoryOption.Name, Usage: "run out of core in about `SIZE` of memory (256MiB, 2GiB, 500MB): IN is read as a stream in input order, only what the filter keeps is held (sample: the kept points), and OUT is written as a stream; the same output as in memory (docs/scale.md)"}
	inOrderTmpdirOption = &Option{Kind: String, Name: TmpdirOption.Name, Usage: "folder for the temporary file of --max-memory, a bit a point (default: the system's temporary folder)"}
)

// Streamed is a filter's out-of-core run.
type Streamed struct {
	// Halo is the halo width its tile kernels need; with KNN > 0 and Halo
	// 0, the first halo of k-nearest rounds for KNN (tile.KNNHalo).
	Halo float64
	KNN  int
	// HaloIn, when set, is the halo width for the run's float32 frame
	// (known after the first pass), in place of Halo: a kernel that tests
	// pairs in float64 needs a halo widened by the frame's float32
	// rounding (filters.cluster's cluster.Options.Reach).
	HaloIn func(frame findneighbor.Box) float64
	// Moments says its kernels sum moments within Halo
	// (StreamRun.StreamMoments with a radius): the tiles then take the
	// wider halo of cpu.TileHalo, with which the cpu backend's
	// sums are the in-memory ones to the bit.
	Moments bool
	// PointBytes is the memory its merge keeps per point of the cloud
	// while tiles run; PeakBytes, when larger, what it needs a point at
	// its end, once the tiles are done (dbscan's relabelling).
	PointBytes, PeakBytes int64
	// Pos says its Run reads the float64 coordinates of tile points, and
	// the dimensions Reads names, as float64 (StreamRun.Positions): the
	// binning pass then stores them.
	Pos   bool
	Reads []string
	// Record says its Run writes dbscan's counts record
	// (StreamRun.CountsRecord): only then does the first pass hash the
	// coordinates for it.
	Record bool
	// InOrder says its Run needs no tiles: it reads the points once in
	// input order (StreamRun.Each), holding what it needs within
	// StreamRun.Budget (pctk sample). The runner bins nothing, and the
	// store is one tile with no points, for its folder.
	InOrder bool
	// Run runs the kernels over the tiles of s and the merge.
	Run func(s *StreamRun) (*StreamResult, error)
}

// StreamRun is what the runner hands Streamed.Run: the binned tiles and
// the backend.
type StreamRun struct {
	In, Out string       // IN and OUT as given
	From    *pcio.Format // IN's format (the first file's, for a collection)
	Header  *pcio.Header // IN's header (the first file's)
	// Origin is the local frame's origin (the in-memory run's).
	Origin [3]float64
	Store  *tile.Store
	N      int64 // points that take part (all but those --ignore-class leaves out)
	Total  int64 // points of the cloud
	Dims   string
	// Backend is the run's backend, a tile.Pool of several with --gpus:
	// run the tiles with tile.Each, which hands each worker its own.
	Backend findneighbor.Backend
	Build   findneighbor.BuildOptions
	// Progress reports the fraction done of a named stage.
	Progress func(stage string, done float64)
	// Record hashes the coordinates for dbscan.CountsRecord, in the first
	// pass; nil for a filter that writes none (Streamed.Record) and for a
	// tile collection, whose files' counts include other files' points and
	// so carry no record.
	Record *dbscan.RecordHash
	// Lo and Hi bound the cloud in the local frame (XY); Min and Max in
	// absolute coordinates (XYZ).
	Lo, Hi   [2]float64
	Min, Max [3]float64
	// Budget is the memory Run may hold: --max-memory less the runner's
	// reserve for its buffers; TileBudget what the tiles may hold of it,
	// less what the merge keeps (Streamed.PointBytes a point).
	Budget, TileBudget int64

	// each reads IN in input order (Each).
	each func(fn func(x, y, z []float64) error) error

	// rebin bins the cloud again on the tiles of g (rounds), only the
	// points keep holds (XY in the local frame) when it is not nil.
	rebin func(g tile.Grid, keep func(x, y float32) bool) (*tile.Store, error)
	// reads are the dimensions Positions returns (Streamed.Reads).
	reads []string
	// flat is --dims xy (Positions gives z 0).
	flat bool
	// patches hold, per name, the values of points that a later round
	// computed (OwnedReader prefers them to their tile's slot).
	patches map[string]map[int64][]byte
}

// Each reads IN (each file of a collection in turn) in input order, a
// chunk at a time, and calls fn with the absolute coordinates of the
// chunk's points that take part, as read (z nil with --dims xy), as
// Points.abs gives them in memory; fn may keep them until it returns.
func (s *StreamRun) Each(fn func(x, y, z []float64) error) error { return s.each(fn) }

// CountsRecord returns the counts record (dbscan.CountsRecord) of counts
// within eps, "" when the run's counts carry none (Record nil).
func (s *StreamRun) CountsRecord(eps float64, geographic bool) string {
	if s.Record == nil {
		return ""
	}
	return s.Record.Record(eps, s.Dims, geographic)
}

// EachOwner calls fn with every point's global index and owner tile, in
// input order, from the owners file of the binning pass.
func (s *StreamRun) EachOwner(fn func(id int64, k tile.Key) error) error {
	f, err := os.Open(filepath.Join(s.Store.Dir(), "owners.bin"))
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	var b [8]byte
	for id := int64(0); id < s.N; id++ {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return fmt.Errorf("owners: %w", err)
		}
		k := tile.Key{I: int32(binary.LittleEndian.Uint32(b[0:])), J: int32(binary.LittleEndian.Uint32(b[4:]))}
		if err := fn(id, k); err != nil {
			return err
		}
	}
	return nil
}

// StreamMoments computes, tile by tile (tile.Each: at once on the backends
// of a tile.Pool), the moments of every point's
// neighbourhood as tile.MomentsTiled does in memory (r > 0: the k nearest
// within r, or all within r for k = 0, on the store's tiles, whose halo
// must be r, and cpu.TileHalo's for the in-memory sums to the bit
// (Streamed.Moments); r = 0: the k nearest with no limit: the store's
// tiles first (tile.Nearest), whose points left go through passes over
// the tiles (nearestPasses) or, when they would not fit in half the tile
// budget, rounds: the input binned again with the halo doubled, for the
// points that found fewer than k, until it spans the cloud), and
// stores size bytes a point under name for OwnedReader: enc encodes the
// points at xyz with moments m into dst, size bytes each, in order (it is
// called from several goroutines at once, each with points of its own).
func (s *StreamRun) StreamMoments(name string, r float64, k, size int, enc func(m []findneighbor.Moment, xyz []float32, dst []byte)) error {
	var mu sync.Mutex
	var short []int64
	radius := r
	bo := s.Build
	b := s.Backend
	if r > 0 {
		// The whole cloud's frame (of the points binned, those that take
		// part, as in memory), with the halo of Streamed.Moments.
		b = findneighbor.InFrame(b, findneighbor.Frame{Box: s.Store.Box(), Points: int(s.N)})
	}
	h := s.Store.Grid().Halo
	_, span := tile.KNNHalo(s.N, s.Lo, s.Hi, k)
	if r == 0 {
		radius = h
		if h >= span {
			radius = math.Inf(1)
		}
	}
	// rounds: the k nearest with no limit, whose first round, on the
	// store's tiles, may leave points short of k.
	rounds := r == 0 && !math.IsInf(radius, 1)
	// pass: the points the first round leaves go to nearestPasses with
	// their coordinates and reach (tile.Nearest's), while they fit
	// (leftoverBytes a point); false: the rounds below.
	pass := rounds
	var shortXYZ, shortFar []float32
	keys := s.Store.Keys()
	err := tile.Each(b, len(keys), func(w findneighbor.Backend, ti int) (struct{}, error) {
		key := keys[ti]
		t, err := s.Store.Load(key)
		if err != nil {
			return struct{}{}, err
		}
		slot := make([]int32, t.Len())
		for j, i := range t.OwnedIndex() {
			slot[i] = int32(j)
		}
		buf := make([]byte, size*int(s.Store.Owned(key)))
		keep := func(done []int32, dm []findneighbor.Moment) {
			out := encode(t, done, dm, size, enc)
			for j, i := range done {
				copy(buf[int(slot[i])*size:][:size], out[j*size:])
			}
		}
		if rounds {
			// As tile.MomentsTiled on the cpu backend: the k nearest among
			// the tile's points (a kd-tree, or a GPU's finite-radius
			// rounds), kept where they lie inside what the tile holds; the
			// others go to nearestPasses or the rounds below. (A GPU's
			// rounds on the store's tiles, whose halo KNNHalo guesses for
			// points spread in 3D, left two thirds of a street short and
			// took seven rebinnings.)
			g := s.Store.Grid()
			gap := func(i int32) float64 { return g.Gap(key, t.XYZ[3*i], t.XYZ[3*i+1]) }
			if len(keys) == 1 {
				// The only tile holds every point.
				gap = func(int32) float64 { return math.Inf(1) }
			}
			sh, far, err := tile.Nearest(t, w, k, gap, bo, keep)
			if err != nil {
				return struct{}{}, err
			}
			mu.Lock()
			for j, i := range sh {
				short = append(short, t.ID[i])
				if pass {
					shortXYZ, shortFar = append(shortXYZ, t.XYZ[3*i:3*i+3]...), append(shortFar, far[j])
				}
			}
			if pass && int64(len(short))*leftoverBytes(size) > s.TileBudget/2 {
				pass, shortXYZ, shortFar = false, nil, nil // more than fit
			}
			mu.Unlock()
			return struct{}{}, s.WriteOwned(name, key, buf)
		}
		err = tile.Moments(t, nil, w, radius, k, bo, func(pts []int32, m []findneighbor.Moment) {
			var sh []int64
			var done []int32
			var dm []findneighbor.Moment
			for j, i := range pts {
				if rounds && int(m[j].N) < k {
					sh = append(sh, t.ID[i])
					continue
				}
				done, dm = append(done, i), append(dm, m[j])
			}
			keep(done, dm)
			mu.Lock()
			short = append(short, sh...)
			mu.Unlock()
		})
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, s.WriteOwned(name, key, buf)
	}, func(ti int, _ struct{}) error {
		s.Progress("", float64(ti+1)/float64(len(keys)))
		return nil
	})
	if err != nil {
		return err
	}
	patch := map[int64][]byte{}
	if pass && len(short) > 0 {
		done, err := s.nearestPasses(short, shortXYZ, shortFar, k, size, enc, patch)
		if err != nil {
			return err
		}
		if done {
			short = nil
		}
	}
	for len(short) > 0 {
		h = min(2*h, span)
		last := h >= span
		g, err := tile.RoundGrid(s.Store.Grid().Size, h, span)
		if err != nil {
			return err
		}
		radius = h
		if last {
			g, radius = tile.LastGrid(span), math.Inf(1)
		}
		msg.Debugf("k-nearest round: %d points short of %d, halo %g", len(short), k, h)
		st, err := s.rebin(g, nil)
		if err != nil {
			return err
		}
		want := make(map[int64]bool, len(short))
		for _, id := range short {
			want[id] = true
		}
		short = short[:0] // in the order tiles finish: a set
		rkeys := st.Keys()
		err = tile.Each(s.Backend, len(rkeys), func(w findneighbor.Backend, ti int) (struct{}, error) {
			t, err := st.Load(rkeys[ti])
			if err != nil {
				return struct{}{}, err
			}
			var pts []int32
			for i, id := range t.ID {
				if t.Owned[i] && want[id] {
					pts = append(pts, int32(i))
				}
			}
			if len(pts) == 0 {
				return struct{}{}, nil
			}
			return struct{}{}, tile.Moments(t, pts, w, radius, k, s.Build, func(pts []int32, m []findneighbor.Moment) {
				var done []int32
				var dm []findneighbor.Moment
				mu.Lock()
				for j, i := range pts {
					if int(m[j].N) < k && !last {
						short = append(short, t.ID[i])
						continue
					}
					done, dm = append(done, i), append(dm, m[j])
				}
				mu.Unlock()
				out := encode(t, done, dm, size, enc)
				mu.Lock()
				for j, i := range done {
					patch[t.ID[i]] = out[j*size : (j+1)*size]
				}
				mu.Unlock()
			})
		}, func(int, struct{}) error { return nil })
		if err != nil {
			st.Close()
			return err
		}
		if err := st.Close(); err != nil {
			return err
		}
	}
	if s.patches == nil {
		s.patches = map[string]map[int64][]byte{}
	}
	s.patches[name] = patch
	return nil
}

// nearestPasses finds the k nearest of the points ids at xyz, whose k-th
// nearest lies within far (tile.Nearest's), in passes over the store's
// tiles (tile.Leftovers: each tile's owned points offered to the points
// they may serve), each for as many of the points as fit, and puts their
// values, encoded with enc, size bytes each, in patch. The tiles of the
// first round are done: a pass holds one tile's points and an index of
// its owned points at a time, under half of what the tile budget allowed
// a tile (tilePointBytes a point), and the points' searches the other
// half, with their records and values (leftoverBytes a point). It reports
// false, having done nothing, when that would take more than
// maxLeftoverPasses passes.
func (s *StreamRun) nearestPasses(ids []int64, xyz, far []float32, k, size int, enc func(m []findneighbor.Moment, xyz []float32, dst []byte), patch map[int64][]byte) (bool, error) {
	batch := int((s.TileBudget/2 - int64(len(ids))*leftoverBytes(size)) / tile.LeftoverBytes(k))
	if LeftoverBatch > 0 {
		batch = min(batch, LeftoverBatch)
	}
	if batch < 1 || (len(ids)+batch-1)/batch > maxLeftoverPasses {
		return false, nil
	}
	keys := s.Store.Keys()
	// The passes search a few points' k nearest with no distance limit:
	// the cpu backend's kd-tree does (Leftovers.Offer), whatever the run's.
	b := s.Backend
	if !findneighbor.PlainKNN(b) {
		b = cpu.Backend()
	}
	for lo := 0; lo < len(ids); lo += batch {
		t0 := time.Now()
		hi := min(len(ids), lo+batch)
		left := tile.NewLeftovers(k, ids[lo:hi], xyz[3*lo:3*hi], far[lo:hi])
		err := tile.Each(b, len(keys), func(w findneighbor.Backend, ti int) (struct{}, error) {
			t, err := s.Store.Load(keys[ti])
			if err != nil {
				return struct{}{}, err
			}
			return struct{}{}, left.Offer(t, w, s.Build)
		}, func(int, struct{}) error { return nil })
		if err != nil {
			return false, err
		}
		out := make([]byte, size*(hi-lo))
		enc(left.Moments(), xyz[3*lo:3*hi], out)
		for j, id := range ids[lo:hi] {
			patch[id] = out[j*size : (j+1)*size]
		}
		msg.Debugf("k-nearest pass: %d of %d points short of %d, %.3fs", hi-lo, len(ids), k, time.Since(t0).Seconds())
	}
	return true, nil
}

// leftoverBytes is what a point that the first k-nearest round leaves
// holds through nearestPasses: its index, coordinates and reach (24
// bytes) and its value in the patch (size bytes, about 64 more for the
// map's entry).
func leftoverBytes(size int) int64 { return 88 + int64(size) }

// maxLeftoverPasses bounds nearestPasses: a pass reads the stored tiles
// and indexes their points, half of a k-nearest round or less, which bins
// the input again (0.25-0.37 s a pass, 0.6-0.7 s a round, on a
// 1.5M-point street), and the rounds number 5 to 7 there.
const maxLeftoverPasses = 8

// LeftoverBatch, when > 0, bounds the points of a pass of nearestPasses
// (a variable for the tests).
var LeftoverBatch = 0

// WriteOwned stores the values of tile k's owned points (in tile order)
// under name, for OwnedReader to read back in input order.
func (s *StreamRun) WriteOwned(name string, k tile.Key, data []byte) error {
	return os.WriteFile(s.ownedPath(name, k), data, 0o600)
}

func (s *StreamRun) ownedPath(name string, k tile.Key) string {
	return filepath.Join(s.Store.Dir(), name+"-"+k.String()+".bin")
}

// encode runs enc on the tile points pts with moments m.
func encode(t *tile.Points, pts []int32, m []findneighbor.Moment, size int, enc func([]findneighbor.Moment, []float32, []byte)) []byte {
	xyz := make([]float32, 0, 3*len(pts))
	for _, i := range pts {
		xyz = append(xyz, t.XYZ[3*i:3*i+3]...)
	}
	out := make([]byte, size*len(pts))
	enc(m, xyz, out)
	return out
}

// OwnedReader reads what WriteOwned (or StreamMoments) stored under name,
// size bytes per point, in input order: the next value of a point is the
// next one of its owner tile's, since a tile lists its points in
// increasing index order.
func (s *StreamRun) OwnedReader(name string, size int) *OwnedReader {
	w := max(size, min(ownedWindow, ownedWindows/max(1, len(s.Store.Keys()))))
	return &OwnedReader{s: s, name: name, size: size, window: w / size * size, tiles: map[tile.Key]*ownedBuf{}, patch: s.patches[name]}
}

// OwnedReader reads per-tile values back in input order.
type OwnedReader struct {
	s      *StreamRun
	name   string
	size   int
	window int // bytes read from a tile at a time
	tiles  map[tile.Key]*ownedBuf
	patch  map[int64][]byte
}

// ownedBuf is a window of a tile's file: opened, read and closed at each
// refill, so that any number of tiles needs one file descriptor.
type ownedBuf struct {
	off int64
	buf []byte
}

// ownedWindow is the bytes an OwnedReader reads from a tile at a time,
// ownedWindows those of all tiles together at most (many small tiles get
// smaller windows, at least a value each).
const (
	ownedWindow  = 16 << 10
	ownedWindows = 16 << 20
)

// Next returns the value of point id, owned by tile k, the next one in
// input order.
func (r *OwnedReader) Next(k tile.Key, id int64) ([]byte, error) {
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
		b := make([]byte, r.window)
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
	if p, ok := r.patch[id]; ok {
		return p, nil
	}
	return v, nil
}

// StreamResult is the outcome of Streamed.Run.
type StreamResult struct {
	// Columns returns the new columns of a chunk of IN: rows holds each
	// point's index among the points that take part (-1 for one that
	// --ignore-class leaves out: NaN or 0 there, as the runner scatters
	// columns), owners its owner tile; nil rows: the empty columns, for
	// the output's schema. They are set in order as Result.Columns.
	Columns func(rows []int64, owners []tile.Key) ([]*core.Attribute, error)
	// Edit, when set, changes each chunk once its columns are set
	// (classify points) and returns it; it is also called once on no
	// points, for the output's schema.
	Edit func(rows []int64, c *core.Cloud) (*core.Cloud, error)
	// Keep, when set, says which points of a chunk are written (the
	// others are dropped after Edit), from their rows as Columns gets
	// them; nil: all. It may be called again on any chunk: a LAS OUT from
	// an IN of another format has its points read before it is written,
	// for its scale (lasScale).
	Keep func(rows []int64) ([]bool, error)
	// Count, when set with Keep, returns how many points of a file Keep
	// keeps (its header announces them): the file holds the points that
	// take part first..first+n-1 and others that do not.
	Count func(first, n, others int64) int64
	// Meta, when set, edits the output's metadata (comments).
	Meta func(m *core.Metadata)
	// Lines, JSON and Doc are the summary, as in Result.
	Lines []string
	JSON  any
	Doc   func(t Timings) any
}

// streamArgs are IN and OUT of runStreamed.
type streamArgs struct {
	in, out string
	// ins and outs are the files of a tile collection (collection.go);
	// nil for one IN and OUT.
	ins, outs []string
}

// ParseSize parses a memory size: 256MiB, 2GiB, 500MB, 1e9 (bytes).
func ParseSize(s string) (int64, error) {
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

// memoryBudget is --max-memory, or a tile collection's default without it.
func memoryBudget(c Values) (int64, error) {
	if !c.IsSet(MaxMemoryOption.Name) {
		return defaultCollectionMemory(), nil
	}
	b, err := ParseSize(c.String(MaxMemoryOption.Name))
	if err != nil {
		return 0, Usagef("%v", err)
	}
	return b, nil
}

// runStreamed runs f out of core (see the comment at the top).
func (s *step) runStreamed(a streamArgs) error {
	c, job, f := s.c, s.job, s.f
	budget, err := memoryBudget(c)
	if err != nil {
		return err
	}
	if a.ins == nil {
		a.ins, a.outs = []string{a.in}, []string{a.out}
	}
	switch {
	case job.Stream == nil:
		return Usagef("--max-memory: pctk %s runs in memory only with these flags (--tile-size tiles it in memory)", f.label())
	case slices.Contains(a.ins, pcio.Stdio):
		return Usagef("--max-memory reads IN three times: give a file, not -")
	case job.Project != nil:
		return Usagef("--max-memory: not with --geographic yet; run in memory (--tile-size tiles it)")
	case c.Bool(SalvageOption.Name):
		return Usagef("--max-memory: not with --salvage; repair IN with pctk convert --salvage first")
	}
	if q, err := QueryOf(c); err != nil || q != nil {
		if err != nil {
			return err
		}
		return Usagef("--max-memory: not with --bounds, --level or --resolution yet; run in memory")
	}
	pending, err := backend(c, job.CPUWork)
	if err != nil {
		return err
	}
	b, _, err := pending.resolve()
	if err != nil {
		return err
	}
	if b, err = s.pool(b); err != nil {
		return err
	}
	// The garbage collector keeps the heap under the budget, less what is
	// resident beside it.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(goMemoryLimit(budget)))
	start := time.Now()

	// Pass 1: count, bounds (the in-memory local origin), record hash
	// (Streamed.Record).
	var n, np int64
	nps := make([]int64, len(a.ins)) // points that take part, per file
	// Each file's bounds (nil: no points), for the scale of a LAS OUT
	// (lasScale).
	fbs := make([]*core.Bounds, len(a.ins))
	var rec dbscan.RecordHash
	take := s.takesPart()
	froms, heads, err := streamIns(c, a.ins, func(file int, first int64, ch *core.Cloud) error {
		for i := range ch.Len() {
			if take(ch, i) {
				np++
				nps[file]++
			}
			x, y, z := ch.X[i], ch.Y[i], ch.Z[i]
			if !finite(x) || !finite(y) || !finite(z) {
				return fmt.Errorf("core: point %d has a non-finite coordinate (%g, %g, %g)%s, in memory", first+int64(i), x, y, z, keepNaNHint)
			}
			fbs[file] = grow(fbs[file], [3]float64{x, y, z})
		}
		if job.Stream.Record {
			rec.Add(ch.X, ch.Y, ch.Z)
		}
		n += int64(ch.Len())
		return nil
	})
	if err != nil {
		return err
	}

	ofs, variants := make([]*pcio.Format, len(a.outs)), make([]string, len(a.outs))
	for i, out := range a.outs {
		if ofs[i], variants[i], err = OutputFormat(c, out, froms[i]); err != nil {
			return err
		}
		if ofs[i].NewEncoder == nil && lasNeedsBounds(c) {
			return Usagef("--max-memory writes OUT as a stream, whose LAS scale and offset are set before the first point: \"auto\" needs them all (run in memory, or give values)")
		}
		if ofs[i].NewEncoder == nil {
			return Usagef("--max-memory writes OUT as a stream, which format %s cannot; choose another (--format)", ofs[i].Name)
		}
	}
	var lo, hi [3]float64 // of the whole cloud
	if all := union(fbs); all != nil {
		lo, hi = all.Min, all.Max
	}
	if np > math.MaxInt32 {
		return fmt.Errorf("%s: %d points: out-of-core runs index points with int32 (at most %d)", a.in, np, math.MaxInt32)
	}
	origin := core.Bounds{Min: lo, Max: hi}.Center()
	if s.flat {
		origin[2] = 0
	}
	loXY := [2]float64{lo[0] - origin[0], lo[1] - origin[1]}
	hiXY := [2]float64{hi[0] - origin[0], hi[1] - origin[1]}
	if err := s.checkTileBounds(job.Stream.Halo, loXY, hiXY, np); err != nil {
		return err
	}
	halo := job.Stream.Halo
	if halo == 0 && job.Stream.KNN > 0 {
		halo, _ = tile.KNNHalo(np, loXY, hiXY, job.Stream.KNN)
	}
	if job.Stream.HaloIn != nil {
		var frame findneighbor.Box
		for a := range 3 {
			if a < 2 || !s.flat {
				frame.Min[a], frame.Max[a] = float32(lo[a]-origin[a]), float32(hi[a]-origin[a])
			}
		}
		halo = job.Stream.HaloIn(frame)
	}
	if halo > 0 && job.Stream.Moments {
		// The float32 frame's extent is at most the input's, give or take
		// the coordinates' rounding; more only widens the halo.
		extent := max(hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2]) * (1 + 1e-6)
		halo = cpu.TileHalo(float32(halo), extent)
	}
	if (job.Stream.InOrder || job.Stream.PeakBytes == 0) && budget-streamReserve < 1<<20 {
		return Usagef("--max-memory %d is too small: the run's buffers take %dMiB; give at least %dMiB", budget, streamReserve>>20, streamReserve>>20+1)
	}
	if peak := job.Stream.PeakBytes * np; peak > budget-streamReserve {
		return Usagef("--max-memory %d is too small for %d points: the merge needs %d bytes a point at its end; give at least %dMiB", budget, np, job.Stream.PeakBytes, (peak+streamReserve)>>20+1)
	}
	size := s.tileSize
	if job.Stream.InOrder {
		// One tile, empty, of the cloud's size and no halo.
		size, halo = math.Max(hi[0]-lo[0], hi[1]-lo[1])*2+1, 0
	} else if size == 0 {
		if size, err = tileSizeFor(budget, np, job.Stream.PointBytes, halo, lo, hi, tile.InMemory(b)); err != nil {
			return Usagef("%v", err)
		}
	}
	g, err := tile.NewGrid(size, halo)
	if err == nil {
		g.Centre(loXY, hiXY)
		err = g.Covers(loXY, hiXY)
	}
	if err != nil {
		return Usagef("--tile-size: %v", err)
	}
	store, err := tile.NewStore(c.String(TmpdirOption.Name), g)
	if err != nil {
		return err
	}
	defer store.Close()

	// Pass 2: bin, and note each point's owner tile.
	local := func(ch *core.Cloud, i int) (x, y, z float32) {
		x, y = float32(ch.X[i]-origin[0]), float32(ch.Y[i]-origin[1])
		if !s.flat {
			z = float32(ch.Z[i] - origin[2])
		}
		return x, y, z
	}
	// bin bins the points into st, writing their owner tiles to owners
	// and their float64 local coordinates to pos when not nil.
	reads := job.Stream.Reads
	bin := func(st *tile.Store, owners, pos io.Writer, keep func(x, y float32) bool) error {
		var b [8]byte
		p := make([]byte, 24+8*len(reads))
		var id int64 // among the points that take part
		_, _, err := streamIns(c, a.ins, func(_ int, _ int64, ch *core.Cloud) error {
			var attrs []*core.Attribute
			if pos != nil {
				var err error
				if attrs, err = readAttrs(ch, reads); err != nil {
					return err
				}
			}
			for i := range ch.Len() {
				if !take(ch, i) {
					continue
				}
				x, y, z := local(ch, i)
				if keep != nil && !keep(x, y) {
					id++
					continue
				}
				if err := st.Add(id, x, y, z); err != nil {
					return err
				}
				id++
				if pos != nil {
					binary.LittleEndian.PutUint64(p[0:], math.Float64bits(ch.X[i]))
					binary.LittleEndian.PutUint64(p[8:], math.Float64bits(ch.Y[i]))
					binary.LittleEndian.PutUint64(p[16:], 0)
					if !s.flat {
						binary.LittleEndian.PutUint64(p[16:], math.Float64bits(ch.Z[i]))
					}
					for d, a := range attrs {
						binary.LittleEndian.PutUint64(p[24+8*d:], math.Float64bits(a.Float64(i)))
					}
					if _, err := pos.Write(p); err != nil {
						return err
					}
				}
				if owners != nil {
					k := st.Grid().Owner(x, y)
					binary.LittleEndian.PutUint32(b[0:], uint32(k.I))
					binary.LittleEndian.PutUint32(b[4:], uint32(k.J))
					if _, err := owners.Write(b[:]); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		return st.Flush()
	}
	if !job.Stream.InOrder {
		binPos := func(w io.Writer) error { return bin(store, w, nil, nil) }
		if job.Stream.Pos {
			binPos = func(w io.Writer) error {
				return writeStored(store, posFile, func(p io.Writer) error { return bin(store, w, p, nil) })
			}
		}
		if err := writeStored(store, "owners.bin", binPos); err != nil {
			return err
		}
	}
	msg.Debugf("--max-memory %d: %d points in %d tiles of %g (halo %g) under %s", budget, n, len(store.Keys()), size, g.Halo, store.Dir())

	// The kernels and the merge.
	t1 := time.Now()
	device := deviceClock(b)
	report, finish := stageProgress(f.label())
	run := &StreamRun{reads: reads, flat: s.flat, Min: lo, Max: hi, In: a.in, Out: a.out, From: froms[0], Header: heads[0], Origin: origin, Store: store, N: np, Total: n, Dims: s.dims, Backend: b, Progress: report, Record: &rec,
		Build: findneighbor.BuildOptions{Workers: c.Int(WorkersOption.Name)}, Lo: loXY, Hi: hiXY, Budget: budget - streamReserve, TileBudget: budget - streamReserve - job.Stream.PointBytes*np,
		each: func(fn func(x, y, z []float64) error) error {
			var x, y, z []float64
			_, _, err := streamIns(c, a.ins, func(_ int, _ int64, ch *core.Cloud) error {
				x, y, z = x[:0], y[:0], z[:0]
				for i := range ch.Len() {
					if take(ch, i) {
						x, y, z = append(x, ch.X[i]), append(y, ch.Y[i]), append(z, ch.Z[i])
					}
				}
				if s.flat {
					return fn(x, y, nil)
				}
				return fn(x, y, z)
			})
			return err
		},
		rebin: func(g tile.Grid, keep func(x, y float32) bool) (*tile.Store, error) {
			st, err := tile.NewStore(c.String(TmpdirOption.Name), g)
			if err != nil {
				return nil, err
			}
			if err := bin(st, nil, nil, keep); err != nil {
				st.Close()
				return nil, err
			}
			return st, nil
		}}
	if !job.Stream.Record || len(a.ins) > 1 || a.outs[0] != a.out || np < n {
		// Not hashed; or a file of a collection holds counts of other
		// points than its own; with --ignore-class, the counts are of some
		// points only.
		run.Record = nil
	}
	res, err := job.Stream.Run(run)
	finish()
	if err != nil {
		return f.computeError(a.in, err)
	}

	// Pass 3: write OUT (each OUT of a collection) in input order.
	t2 := time.Now()
	var first int64
	for i, in := range a.ins {
		rw := rower{next: first, g: g, local: local, take: take}
		if err := writeStreamed(c, in, a.outs[i], nps[i], ofs[i], variants[i], res, rw, fbs[i]); err != nil {
			return err
		}
		first += nps[i]
	}
	t3 := time.Now()
	t := Timings{Read: t1.Sub(start).Seconds(), Compute: t2.Sub(t1).Seconds(), Write: t3.Sub(t2).Seconds(), Device: device()}
	return s.reportDoc(summaryDoc{Command: f.label(), Input: a.in, Output: a.out, Points: int(n), Used: int(np), Backend: b.Name()},
		&Result{Lines: res.Lines, JSON: res.JSON, Doc: res.Doc}, t, t3.Sub(start))
}

// writeStored runs write with a buffered writer of the store's file name
// (owners.bin: EachOwner; pos.bin: Positions).
func writeStored(st *tile.Store, name string, write func(w io.Writer) error) error {
	f, err := os.Create(filepath.Join(st.Dir(), name))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// posFile holds the absolute float64 coordinates of the points that take
// part (z 0 with --dims xy) and the values of the dimensions
// Streamed.Reads names, 24 + 8 bytes a dimension each, in index order
// (Streamed.Pos).
const posFile = "pos.bin"

// Positions returns the absolute coordinates as read (interleaved x, y,
// z; z 0 with --dims xy) of the points ids, in increasing order, and their
// values of each dimension Streamed.Reads names, from the binning pass
// (Streamed.Pos): what Points.abs and readAttrs give in memory, to the
// bit (relativeTo derives Points.Pos from them).
// Ids a few records apart are read at once (the records between them read
// and skipped): a tile's ids are scattered in the file, and a read a point
// cost a system call a point.
func (s *StreamRun) Positions(ids []int64) (abs []float64, vals [][]float64, err error) {
	f, err := os.Open(filepath.Join(s.Store.Dir(), posFile))
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	nd := len(s.reads)
	size := 24 + 8*nd
	abs = make([]float64, 3*len(ids))
	vals = make([][]float64, nd)
	for d := range vals {
		vals[d] = make([]float64, len(ids))
	}
	// gap is the most records between two ids read at once (about 4 KiB);
	// span the most records a read covers.
	gap, span := int64(max(1, 4096/size)), int64(1<<16)
	var buf []byte
	for lo := 0; lo < len(ids); {
		hi := lo + 1
		for hi < len(ids) && ids[hi] > ids[hi-1] && ids[hi]-ids[hi-1] <= gap && ids[hi]-ids[lo] < span {
			hi++
		}
		n := int(ids[hi-1]-ids[lo]) + 1
		buf = slices.Grow(buf[:0], size*n)[:size*n]
		if _, err := f.ReadAt(buf, int64(size)*ids[lo]); err != nil {
			return nil, nil, fmt.Errorf("positions: %w", err)
		}
		for j := lo; j < hi; j++ {
			rec := buf[int(ids[j]-ids[lo])*size:]
			for a := range 3 {
				abs[3*j+a] = math.Float64frombits(binary.LittleEndian.Uint64(rec[8*a:]))
			}
			for d := range nd {
				vals[d][j] = math.Float64frombits(binary.LittleEndian.Uint64(rec[24+8*d:]))
			}
		}
		lo = hi
	}
	return abs, vals, nil
}

// readAttrs returns the attributes of c that reads names (X, Y and Z:
// the coordinates), an error naming a missing one.
func readAttrs(c *core.Cloud, reads []string) ([]*core.Attribute, error) {
	attrs := make([]*core.Attribute, len(reads))
	for d, name := range reads {
		switch name {
		case "X":
			attrs[d] = core.NewColumn(name, c.X)
		case "Y":
			attrs[d] = core.NewColumn(name, c.Y)
		case "Z":
			attrs[d] = core.NewColumn(name, c.Z)
		default:
			attrs[d] = c.Attr(name)
		}
		if attrs[d] == nil {
			return nil, fmt.Errorf("the input has no %s dimension, which this stage reads", name)
		}
	}
	return attrs, nil
}

// tileSizeFor returns the side of tiles of which tiles at once hold what
// the budget leaves after the merge's memory (pointBytes a point), for
// points spread evenly over the XY box lo..hi with a halo.
func tileSizeFor(budget, n, pointBytes int64, halo float64, lo, hi [3]float64, tiles int) (float64, error) {
	left := budget - streamReserve - pointBytes*n
	pts := left / tilePointBytes / int64(tiles)
	if pts < 4096 {
		need := streamReserve + pointBytes*n + 4096*tilePointBytes*int64(tiles)
		if pointBytes == 0 {
			return 0, fmt.Errorf("--max-memory %d is too small: the run's buffers take %dMiB and its tiles at least %dMiB; give at least %dMiB", budget, streamReserve>>20, (need-streamReserve)>>20+1, need>>20+1)
		}
		return 0, fmt.Errorf("--max-memory %d is too small for %d points: the merge alone keeps %d bytes a point; give at least %dMiB", budget, n, pointBytes, need>>20+1)
	}
	area := (hi[0] - lo[0]) * (hi[1] - lo[1])
	if !(area > 0) || n <= pts {
		// One tile holds everything (or the cloud is a line in XY).
		return math.Max(hi[0]-lo[0], hi[1]-lo[1])*2 + 1, nil
	}
	// (S + 2h)² · n/area = pts
	side := math.Sqrt(float64(pts)*area/float64(n)) - 2*halo
	if side < halo {
		return 0, fmt.Errorf("--max-memory %d leaves tiles of %d points, narrower than their halo %g at this density; give more memory", budget, pts, halo)
	}
	return side, nil
}

// openStream opens path for a streaming read, with --columns bound to a
// text format, and returns its decoder, format and closer.
func openStream(c Values, path string) (pcio.Decoder, *pcio.Format, io.Closer, error) {
	f, r, closer, err := pcio.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	if f, err = WithText(c, f, true); err != nil {
		closer.Close()
		return nil, nil, nil, err
	}
	if f.NewDecoder == nil {
		closer.Close()
		return nil, nil, nil, Usagef("--max-memory reads IN as a stream, which format %s cannot; convert it (pctk convert) or run in memory", f.Name)
	}
	dec, err := f.NewDecoder(r)
	if err != nil {
		closer.Close()
		return nil, nil, nil, fmt.Errorf("%s: %w", pcio.Name(path), err)
	}
	return dec, f, closer, nil
}

// streamIns runs streamIn on each path in turn (fn gets the file's
// number), the indices of a file's points following those of the files
// before it, and returns their formats and headers.
func streamIns(c Values, paths []string, fn func(file int, first int64, c *core.Cloud) error) ([]*pcio.Format, []*pcio.Header, error) {
	var base int64
	var froms []*pcio.Format
	var heads []*pcio.Header
	for k, p := range paths {
		var n int64
		f, h, err := streamIn(c, p, func(first int64, ch *core.Cloud) error {
			n = first + int64(ch.Len())
			return fn(k, base+first, ch)
		})
		if err != nil {
			return nil, nil, err
		}
		froms, heads, base = append(froms, f), append(heads, h), base+n
	}
	return froms, heads, nil
}

// streamIn decodes path in chunks, calling fn with each and the index of
// its first point, and returns the format.
func streamIn(c Values, path string, fn func(first int64, c *core.Cloud) error) (*pcio.Format, *pcio.Header, error) {
	dec, f, closer, err := openStream(c, path)
	if err != nil {
		return nil, nil, err
	}
	defer closer.Close()
	err = eachChunk(path, dec, func(first int64, ch *core.Cloud) error {
		if err := fn(first, ch); err != nil {
			return fmt.Errorf("%s: %w", pcio.Name(path), err)
		}
		return nil
	})
	return f, dec.Header(), err
}

// readError is an error of reading IN, named, as opposed to one of what
// is done with the points.
type readError struct{ error }

func (e readError) Unwrap() error { return e.error }

// ChunkPoints is how many points a streaming conversion, or an out-of-core
// pass, holds at a time (a variable for tests, which make clouds of many
// chunks from small files).
var ChunkPoints = 1 << 20

// eachChunk calls fn with each chunk dec reads from in, ChunkPoints at a
// time, and the index of its first point. A read error is a readError
// naming in; fn's errors pass as they are.
func eachChunk(in string, dec pcio.Decoder, fn func(first int64, c *core.Cloud) error) error {
	var first int64
	for {
		ch, err := dec.Read(ChunkPoints)
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
// np points that take part (take) are numbered by rw among all files',
// each chunk with the result's columns and edits. b bounds in's points
// (nil: it has none).
func writeStreamed(c Values, in, out string, np int64, of *pcio.Format, variant string, res *StreamResult, rw rower, b *core.Bounds) error {
	dec, _, closer, err := openStream(c, in)
	if err != nil {
		return err
	}
	defer closer.Close()
	// The output's schema: IN's with the new columns set as SetAttr sets
	// them, from the empty columns.
	h := *dec.Header()
	empty, err := res.Columns(nil, nil)
	if err != nil {
		return err
	}
	schema := &core.Cloud{}
	for _, s := range h.Schema {
		schema.Attrs = append(schema.Attrs, core.NewAttribute(s.Name, s.Type, 0))
	}
	for _, col := range empty {
		if err := schema.SetAttr(col); err != nil {
			return err
		}
	}
	if res.Edit != nil {
		if schema, err = res.Edit(nil, schema); err != nil {
			return err
		}
	}
	h.Schema = schema.Attrs
	if res.Count != nil {
		h.Count = res.Count(rw.next, np, h.Count-np)
	}
	h.Meta.Comments = append([]string(nil), h.Meta.Comments...)
	if res.Meta != nil {
		res.Meta(&h.Meta)
	}
	if (of.Name == "las" || of.Name == "laz") && las.InfoOf(&h.Meta) == nil {
		if res.Keep != nil {
			b = nil // the bounds of the points kept are to be found
		}
		if of, err = lasScale(c, in, of, b, res, rw); err != nil {
			return err
		}
	}
	return StreamOut(c, in, dec, out, of, &h, variant, func(_ int64, ch *core.Cloud) (*core.Cloud, error) {
		rows, owners := rw.number(ch)
		cols, err := res.Columns(rows, owners)
		if err != nil {
			return nil, err
		}
		for _, col := range cols {
			if err := ch.SetAttr(col); err != nil {
				return nil, err
			}
		}
		if res.Edit != nil {
			if ch, err = res.Edit(rows, ch); err != nil {
				return nil, err
			}
		}
		return res.kept(rows, ch)
	})
}

// kept returns the points of ch that Keep keeps (ch when Keep is nil).
func (res *StreamResult) kept(rows []int64, ch *core.Cloud) (*core.Cloud, error) {
	if res.Keep == nil {
		return ch, nil
	}
	keep, err := res.Keep(rows)
	if err != nil {
		return nil, err
	}
	return selectMask(ch, keep), nil
}

// selectMask returns the points i of c with keep[i] (core.Cloud.Select),
// their indices gathered on all cores: each range counts its kept points,
// then writes them after the ranges before it.
func selectMask(c *core.Cloud, keep []bool) *core.Cloud {
	rs := par.Ranges(len(keep), par.Grain)
	start := make([]int, len(rs)+1)
	par.For(rs, func(r, lo, hi int) {
		for _, k := range keep[lo:hi] {
			if k {
				start[r+1]++
			}
		}
	})
	for r := range rs {
		start[r+1] += start[r]
	}
	idx := make([]int, start[len(rs)])
	par.For(rs, func(r, lo, hi int) {
		j := start[r]
		for i := lo; i < hi; i++ {
			if keep[i] {
				idx[j] = i
				j++
			}
		}
	})
	return c.Select(idx)
}

// rower numbers the points of IN's chunks, in input order, as
// StreamResult.Columns gets them: rows (a point's index among those that
// take part, from next on; -1 for one that takes no part) and owner tiles.
type rower struct {
	next   int64
	g      tile.Grid
	local  func(*core.Cloud, int) (float32, float32, float32)
	take   func(*core.Cloud, int) bool
	rows   []int64
	owners []tile.Key
}

// number returns the rows and owners of the next chunk, valid until the
// next call.
func (r *rower) number(ch *core.Cloud) ([]int64, []tile.Key) {
	r.owners, r.rows = r.owners[:0], r.rows[:0]
	for i := range ch.Len() {
		if !r.take(ch, i) {
			r.owners, r.rows = append(r.owners, tile.Key{}), append(r.rows, -1)
			continue
		}
		x, y, _ := r.local(ch, i)
		r.owners, r.rows = append(r.owners, r.g.Owner(x, y)), append(r.rows, r.next)
		r.next++
	}
	return r.rows, r.owners
}

// lasScale returns of (LAS or LAZ) writing with the scale and offset the
// in-memory run's writer chooses from all the points it writes
// (las.ScaleFit: the coarsest power of ten that gives every coordinate
// back, else one that fits the box), rather than those the streaming
// encoder would choose from the first chunk: the points of in, numbered
// by rw, less those res.Keep drops, read over as many passes as the fit
// asks for (docs/scale.md): one when every point is written, whose bounds
// b the first pass found, otherwise a first for the bounds of the kept
// points (b nil) and a second; one more in the rare case where a chunk
// passed a scale that a later one fails.
func lasScale(c Values, in string, of *pcio.Format, b *core.Bounds, res *StreamResult, rw rower) (*pcio.Format, error) {
	fit := las.NewScaleFit(b)
	for more := true; more; more = fit.Next() {
		r := rw // each pass numbers from the file's first point
		_, _, err := streamIn(c, in, func(_ int64, ch *core.Cloud) error {
			xyz := &core.Cloud{X: ch.X, Y: ch.Y, Z: ch.Z} // the fit reads these alone
			if res.Keep != nil {
				rows, _ := r.number(ch)
				var err error
				if xyz, err = res.kept(rows, xyz); err != nil {
					return err
				}
			}
			fit.Add(xyz)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	scale, offset := fit.Scale()
	msg.Debugf("%s: LAS scale %v, offset %v, from the points written", in, scale, offset)
	lf := *of
	lf.NewEncoder = func(w io.Writer, h *pcio.Header, variant string) (pcio.Encoder, error) {
		enc, err := of.NewEncoder(w, h, variant)
		if err != nil {
			return nil, err
		}
		le, ok := enc.(*las.Encoder)
		if !ok {
			return nil, fmt.Errorf("format %s: not a LAS encoder", of.Name)
		}
		return le, le.SetScale(scale, offset)
	}
	return &lf, nil
}

// grow returns b grown to hold p (a box of p alone for b nil).
func grow(b *core.Bounds, p [3]float64) *core.Bounds {
	if b == nil {
		return &core.Bounds{Min: p, Max: p}
	}
	b.Add(p)
	return b
}

// union returns the box that holds every box of bs (nil for none).
func union(bs []*core.Bounds) *core.Bounds {
	var u *core.Bounds
	for _, b := range bs {
		if b != nil {
			u = grow(grow(u, b.Min), b.Max)
		}
	}
	return u
}

// takesPart returns whether point i of a chunk takes part: its
// Classification is not one --ignore-class names (participants' rule).
func (s *step) takesPart() func(ch *core.Cloud, i int) bool {
	if len(s.ignore) == 0 {
		return func(*core.Cloud, int) bool { return true }
	}
	skip := newClassSet(s.ignore)
	var last *core.Cloud
	var cls *core.Attribute
	warned := false
	return func(ch *core.Cloud, i int) bool {
		if ch != last {
			last, cls = ch, ch.Attr(core.DimClassification)
		}
		if cls == nil {
			if !warned {
				warnNoClass()
				warned = true
			}
			return true
		}
		return skip.keeps(cls.Int64(i))
	}
}

// StreamOut writes path atomically in format of (variant), with header h,
// from the chunks of dec reading in, each replaced by what edit returns
// for it. Errors name in when reading failed, path when writing did.
func StreamOut(c Values, in string, dec pcio.Decoder, path string, of *pcio.Format, h *pcio.Header, variant string, edit func(first int64, ch *core.Cloud) (*core.Cloud, error)) error {
	err := pcio.WriteAtomic(path, func(w io.Writer) error {
		enc, err := of.NewEncoder(w, h, variant)
		if err != nil {
			return err
		}
		err = eachChunk(in, dec, func(first int64, ch *core.Cloud) error {
			out, err := edit(first, ch)
			if err != nil {
				return err
			}
			return enc.Write(out)
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

// StreamCounts counts, tile by tile (tile.Each: at once on the backends
// of a tile.Pool), the other points within r of every point
// (tile.Counts), stores them under "counts" for OwnedReader, calls each
// (when set) with every tile's points and its owned points' counts, one
// tile at a time in tile order, and returns their histogram (count ->
// points).
func (s *StreamRun) StreamCounts(r float64, stage string, each func(t *tile.Points, owned []int32, counts []uint32)) (map[uint32]int, error) {
	hist := map[uint32]int{}
	keys := s.Store.Keys()
	type counted struct {
		t      *tile.Points
		counts []uint32
	}
	err := tile.Each(s.Backend, len(keys), func(w findneighbor.Backend, ti int) (counted, error) {
		t, err := s.Store.Load(keys[ti])
		if err != nil {
			return counted{}, err
		}
		counts, err := tile.Counts(t, w, r, s.Build)
		if err != nil {
			return counted{}, err
		}
		return counted{t, counts}, s.WriteOwned("counts", keys[ti], putUint32s(counts))
	}, func(ti int, c counted) error {
		for _, n := range c.counts {
			hist[n]++
		}
		if each != nil {
			each(c.t, c.t.OwnedIndex(), c.counts)
		}
		s.Progress(stage, float64(ti+1)/float64(len(keys)))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return hist, nil
}

// countColumn returns the out-of-core Columns of one column name of type
// T made from each point's count (StreamCounts) by value, rest for the
// points that take no part.
func countColumn[T uint32 | float64](s *StreamRun, name string, rest T, value func(c uint32) T) func(rows []int64, owners []tile.Key) ([]*core.Attribute, error) {
	counts := s.OwnedReader("counts", 4)
	return func(rows []int64, owners []tile.Key) ([]*core.Attribute, error) {
		v := make([]T, len(rows))
		for i, id := range rows {
			if id < 0 {
				v[i] = rest
				continue
			}
			b, err := counts.Next(owners[i], id)
			if err != nil {
				return nil, err
			}
			v[i] = value(binary.LittleEndian.Uint32(b))
		}
		return []*core.Attribute{core.NewColumn(name, v)}, nil
	}
}

// StreamInputs reads the files paths in turn as a stream, ChunkPoints at
// a time (--columns bound to a text input), calling fn with each chunk and
// the index of its first point among all the files' points, and returns
// each file's header: the out-of-core reading of a command that is not a
// filter (pctk raster --max-memory). Errors name the file.
func StreamInputs(c Values, paths []string, fn func(first int64, ch *core.Cloud) error) ([]*pcio.Header, error) {
	_, heads, err := streamIns(c, paths, func(_ int, first int64, ch *core.Cloud) error { return fn(first, ch) })
	return heads, err
}
