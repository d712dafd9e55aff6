package cuda

import (
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/pctk/pctk/primitives/findneighbor"
	rt "github.com/pctk/pctk/rt/cuda"
)

// block is the threads per block of every kernel (BLOCK in grid.cu).
const block = 256

// sortTile and scanTile are the elements one block handles in the radix
// sort and the scan (RS_TILE and SC_TILE in grid.cu).
const (
	sortTile = 2048
	scanTile = 2048
)

// cellMargin widens cells beyond ε (or ε/2) so that any pair the float32
// test accepts (true distance at most ε(1+2⁻²²)) lies within reach cells
// even after the float64 rounding of cell coordinates (2⁻³² of a cell).
const cellMargin = 1.0 / (1 << 16)

// maxAxisCells bounds the cells per axis so that hashed cell ids pack into
// 21 bits per axis.
const maxAxisCells = 1 << 20

// gridParams mirrors struct Grid of grid.cu (passed by value, 64 bytes).
type gridParams struct {
	MinX, MinY, MinZ float64
	Inv              float64
	NX, NY, NZ       int32
	Hashed           int32
	Mask, Buckets    uint32
	Eps2             float32
	Reach            int32
}

func (g *gridParams) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(g)), unsafe.Sizeof(*g))
}

// cellsLinked mirrors grid.cu's cellsLinked: cells of ε/2, any two points
// of which pass the ε test (their diagonal is ε√3/2).
func (g *gridParams) cellsLinked() bool { return g.Hashed == 0 && g.Reach == 2 }

// keyBits is the number of key bits the radix sort must order.
func (g *gridParams) keyBits() int { return bits.Len32(g.Buckets - 1) }

// denseReach2 is the mean number of points per ε-sized cell above which a
// dense grid uses cells of ε/2 and searches 5x5x5 of them: 125/8 = 15.6
// ε³ scanned instead of 27 ε³, worth the longer loops once cells are full.
const denseReach2 = 16

// denseCellsPerPoint and maxDenseCells bound a dense grid: at most this
// many cells a point (and maxDenseCells, 1 GiB of cell starts, in all).
// A dense grid finds a row of cells as one range of points, where a hashed
// one looks each cell up and checks each point's cell id: on 4M clustered
// points (9 cells a point) counting took 0.36 ms on the H200 against
// 3.18 ms hashed (docs/gpu.md); its cost, the scan of the cell starts at
// build, was 0.5 ms for 37M cells and 1.3 ms for 125M.
const (
	denseCellsPerPoint = 32
	maxDenseCells      = 1 << 28
)

// newGrid chooses the cells for n points in the box [lo, hi] and radius
// eps: a dense grid when it has at most
// max(min(32n, maxDenseCells), 65536) cells, else hashed buckets (a power
// of two, about 2n). Dense grids whose ε-cells would hold
// denseReach2 points or more use cells of ε/2.
func newGrid(lo, hi [3]float32, eps float32, n int) gridParams {
	g := gridWithReach(lo, hi, eps, n, 1)
	if g.Hashed == 0 && float64(n) >= denseReach2*float64(g.Buckets) && eps > 0 {
		// Cells of ε/2 exactly: grids whose cells had to be widened (an
		// extent beyond 2²⁰ cells) stay at reach 1, since DBSCAN's union
		// relies on any two points of an ε/2 cell passing the ε test
		// (cellsLinked).
		half := float64(eps) / 2 * (1 + cellMargin)
		if g2 := gridWithReach(lo, hi, eps, n, 2); g2.Hashed == 0 && g2.Reach == 2 && g2.Inv*half >= 1-1e-9 {
			return g2
		}
	}
	return g
}

// frameGrid returns the grid newGrid lays out for the whole run's
// frameN points in frame, with the n points of a part of it (a tile,
// within [lo, hi]) in hashed buckets (about 2n): the whole run's cells,
// origin, size and reach, so that a query of the tile scans its
// neighbours within ε in the whole run's order (cells, then index), and
// sums their moments to the bit, without a dense table of the whole
// frame's cells. ok is false when the frame does not hold [lo, hi].
func frameGrid(frame findneighbor.Box, frameN int, lo, hi [3]float32, eps float32, n int) (g gridParams, ok bool) {
	if !frame.Holds(findneighbor.Box{Min: lo, Max: hi}) {
		return g, false
	}
	g = newGrid(frame.Min, frame.Max, eps, frameN)
	g.Hashed = 1
	g.Buckets = hashBuckets(n)
	g.Mask = g.Buckets - 1
	return g, true
}

// hashBuckets is the number of buckets of a hashed grid of n points: a
// power of two, about 2n.
func hashBuckets(n int) uint32 {
	return uint32(min(uint64(1)<<bits.Len64(uint64(max(2*n, 1024))-1), 1<<31))
}

func gridWithReach(lo, hi [3]float32, eps float32, n int, reach int32) gridParams {
	ext := 0.0
	for a := range 3 {
		ext = max(ext, float64(hi[a])-float64(lo[a]))
	}
	cs := float64(eps) / float64(reach) * (1 + cellMargin)
	cs = max(cs, ext/(maxAxisCells-2)) // larger cells are still within reach
	if cs == 0 || math.IsInf(cs, 0) {
		cs, reach = max(1, ext), 1
	}
	g := gridParams{MinX: float64(lo[0]), MinY: float64(lo[1]), MinZ: float64(lo[2]), Inv: 1 / cs, Eps2: eps * eps, Reach: reach}
	nc := [3]*int32{&g.NX, &g.NY, &g.NZ}
	cells := 1.0
	for a := range 3 {
		c := math.Floor((float64(hi[a])-float64(lo[a]))*g.Inv) + 1
		*nc[a] = int32(c)
		cells *= c
	}
	if cells <= float64(max(min(denseCellsPerPoint*n, maxDenseCells), 1<<16)) {
		g.Buckets = uint32(cells)
		return g
	}
	g.Hashed = 1
	g.Buckets = hashBuckets(n)
	g.Mask = g.Buckets - 1
	return g
}

// Timings are the device times, from CUDA events, of an index's phases.
type Timings struct {
	// Upload is the copy of the points to the device (ms).
	Upload float32
	// Build is the grid construction after the upload (ms).
	Build float32
	// Query is the device time of the last query operation (ms),
	// including its copies back to the host.
	Query float32
	// Download is the wall time of the last query operation's copies back
	// to the host (ms), part of Query.
	Download float32
}

// index is a grid on the device.
type index struct {
	ctx     *rt.Context
	k       *kernels
	st      *rt.Stager // the device's staging buffers, or nil
	n       int
	eps     float32
	workers int
	grid    gridParams
	stream  rt.Stream
	ev      [2]rt.Event
	// pos holds the points in cell order as float4 (w: index bits); start
	// the first position of each key (Buckets+1 entries); rank the position
	// of each index; ids each position's cell id (hashed grids only).
	pos, start, rank, ids rt.DevicePtr
	timing                Timings
	busy                  *atomic.Int64 // the device's busy time (device.busy)
}

// addBusy adds ms of device time to the device's total.
func (ix *index) addBusy(ms float32) { ix.busy.Add(int64(float64(ms) * 1e6)) }

func (ix *index) Len() int     { return ix.n }
func (ix *index) Eps() float32 { return ix.eps }

// Timings returns the device times of the build and the last query.
func (ix *index) Timings() Timings { return ix.timing }

// Close frees the index's device memory. It is safe to call twice.
func (ix *index) Close() error {
	if ix.ctx == nil {
		return nil
	}
	err := ix.ctx.Do(ix.free)
	ix.ctx = nil
	return err
}

func (ix *index) free(t *rt.Thread) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, p := range []*rt.DevicePtr{&ix.pos, &ix.start, &ix.rank, &ix.ids} {
		keep(t.Free(*p))
		*p = 0
	}
	for i := range ix.ev {
		keep(t.DestroyEvent(ix.ev[i]))
		ix.ev[i] = 0
	}
	keep(t.DestroyStream(ix.stream))
	ix.stream = 0
	return first
}

// launch runs f over n threads on the index's stream.
func (ix *index) launch(t *rt.Thread, f rt.Function, n int, p *rt.Params) error {
	return t.Launch(f, rt.Grid1D(n, block), rt.Dim3{X: block, Y: 1, Z: 1}, 0, ix.stream, p)
}

// build uploads xyz and builds the grid; on error the caller frees.
func (ix *index) build(t *rt.Thread, xyz []float32, frame *findneighbor.Frame) error {
	k := ix.k
	var err error
	if ix.stream, err = t.NewStream(); err != nil {
		return err
	}
	for i := range ix.ev {
		if ix.ev[i], err = t.NewEvent(); err != nil {
			return err
		}
	}
	upload, err := t.NewEvent()
	if err != nil {
		return err
	}
	defer t.DestroyEvent(upload)
	n, s := ix.n, ix.stream
	var tmp rt.Allocs
	defer tmp.Free(t)
	if err := t.Record(ix.ev[0], s); err != nil {
		return err
	}
	dxyz, err := tmp.Alloc(t, uint64(4*len(xyz)))
	if err != nil {
		return err
	}
	if err := rt.StageUpload(t, ix.st, dxyz, xyz, s); err != nil {
		return err
	}
	if err := t.Record(upload, s); err != nil {
		return err
	}
	lo, hi, err := ix.bounds(t, &tmp, dxyz, xyz)
	if err != nil {
		return err
	}
	ix.grid = newGrid(lo, hi, ix.eps, n)
	if frame != nil && frame.Points > 0 {
		if g, ok := frameGrid(frame.Box, frame.Points, lo, hi, ix.eps, n); ok {
			ix.grid = g
		}
	}
	g := &ix.grid
	nb := uint64(g.Buckets)
	keys, err := tmp.Alloc(t, uint64(4*n))
	if err != nil {
		return err
	}
	vals, err := tmp.Alloc(t, uint64(4*n))
	if err != nil {
		return err
	}
	count, err := tmp.Alloc(t, 4*(nb+1))
	if err != nil {
		return err
	}
	if err := t.Memset32(count, 0, nb+1, s); err != nil {
		return err
	}
	if err := ix.launch(t, k.keys, n, rt.NewParams().Ptr(dxyz).I32(int32(n)).Struct(g.bytes()).Ptr(keys).Ptr(vals).Ptr(count)); err != nil {
		return err
	}
	order, err := ix.sortPairs(t, &tmp, keys, vals, n, g.keyBits())
	if err != nil {
		return err
	}
	if ix.start, err = t.Alloc(4 * (nb + 1)); err != nil {
		return err
	}
	if err := ix.scan(t, &tmp, count, ix.start, int64(nb), scanU32); err != nil {
		return err
	}
	if ix.pos, err = t.Alloc(uint64(16 * n)); err != nil {
		return err
	}
	if ix.rank, err = t.Alloc(uint64(4 * n)); err != nil {
		return err
	}
	if g.Hashed != 0 {
		if ix.ids, err = t.Alloc(uint64(8 * n)); err != nil {
			return err
		}
	}
	p := rt.NewParams().Ptr(dxyz).Ptr(order).I32(int32(n)).Struct(g.bytes()).Ptr(ix.pos).Ptr(ix.rank).Ptr(ix.ids)
	if err := ix.launch(t, k.gather, n, p); err != nil {
		return err
	}
	if err := t.Record(ix.ev[1], s); err != nil {
		return err
	}
	if ix.timing.Upload, err = t.Elapsed(ix.ev[0], upload); err != nil {
		return err
	}
	ix.timing.Build, err = t.Elapsed(upload, ix.ev[1])
	ix.addBusy(ix.timing.Upload + ix.timing.Build)
	return err
}

// bounds returns the bounding box of the points on the device, failing
// with the first non-finite coordinate of xyz when there is one.
func (ix *index) bounds(t *rt.Thread, tmp *rt.Allocs, dxyz rt.DevicePtr, xyz []float32) (lo, hi [3]float32, err error) {
	s := ix.stream
	box, err := tmp.Alloc(t, 7*4)
	if err != nil {
		return lo, hi, err
	}
	if err := t.Memset32(box, math.MaxInt32, 3, s); err != nil {
		return lo, hi, err
	}
	if err := t.Memset32(box.Add(12), 1<<31, 3, s); err != nil {
		return lo, hi, err
	}
	if err := t.Memset32(box.Add(24), 0, 1, s); err != nil {
		return lo, hi, err
	}
	blocks := min((ix.n+block-1)/block, 8*ix.ctx.Device().Multiprocessors)
	p := rt.NewParams().Ptr(dxyz).I32(int32(ix.n)).Ptr(box)
	if err := t.Launch(ix.k.bounds, rt.Dim3{X: uint32(blocks), Y: 1, Z: 1}, rt.Dim3{X: block, Y: 1, Z: 1}, 0, s, p); err != nil {
		return lo, hi, err
	}
	var hb [7]int32
	if err := rt.Download(t, hb[:], box, s); err != nil {
		return lo, hi, err
	}
	if hb[6] > 0 {
		for i, v := range xyz {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return lo, hi, fmt.Errorf("cuda backend: point %d has a non-finite coordinate (%g)", i/3, v)
			}
		}
	}
	for a := range 3 {
		lo[a], hi[a] = fromOrdered(hb[a]), fromOrdered(hb[3+a])
	}
	return lo, hi, nil
}

// fromOrdered inverts grid.cu's orderedBits.
func fromOrdered(o int32) float32 {
	if o < 0 {
		o ^= 0x7fffffff
	}
	return math.Float32frombits(uint32(o))
}

// sortPairs sorts n (key, value) pairs by the low nbits of the keys,
// stably, and returns the buffer holding the sorted values. Temporary
// buffers go to tmp; keys and vals are overwritten.
func (ix *index) sortPairs(t *rt.Thread, tmp *rt.Allocs, keys, vals rt.DevicePtr, n, nbits int) (rt.DevicePtr, error) {
	if nbits == 0 || n < 2 {
		return vals, nil
	}
	tiles := (n + sortTile - 1) / sortTile
	nh := uint64(256 * tiles)
	var bufs [4]rt.DevicePtr
	for i, size := range []uint64{4 * nh, 4 * (nh + 1), uint64(4 * n), uint64(4 * n)} {
		p, err := tmp.Alloc(t, size)
		if err != nil {
			return 0, err
		}
		bufs[i] = p
	}
	hist, off, k2, v2 := bufs[0], bufs[1], bufs[2], bufs[3]
	grid := rt.Dim3{X: uint32(tiles), Y: 1, Z: 1}
	threads := rt.Dim3{X: block, Y: 1, Z: 1}
	for shift := 0; shift < nbits; shift += 8 {
		if err := t.Launch(ix.k.rsHist, grid, threads, 0, ix.stream, rt.NewParams().Ptr(keys).I32(int32(n)).I32(int32(shift)).Ptr(hist)); err != nil {
			return 0, err
		}
		if err := ix.scan(t, tmp, hist, off, int64(nh), scanU32); err != nil {
			return 0, err
		}
		p := rt.NewParams().Ptr(keys).Ptr(vals).Ptr(k2).Ptr(v2).I32(int32(n)).I32(int32(shift)).Ptr(off)
		if err := t.Launch(ix.k.rsScatter, grid, threads, 0, ix.stream, p); err != nil {
			return 0, err
		}
		keys, k2 = k2, keys
		vals, v2 = v2, vals
	}
	return vals, nil
}

// scanMode picks the element types of a scan.
type scanMode int

const (
	scanU32    scanMode = iota // uint32 in, uint32 out
	scanU32U64                 // uint32 in, uint64 out
	scanU64                    // uint64 in, uint64 out
)

// scan writes the exclusive prefix sums of the n elements at in to out,
// and their total to out[n].
func (ix *index) scan(t *rt.Thread, tmp *rt.Allocs, in, out rt.DevicePtr, n int64, m scanMode) error {
	k := ix.k
	reduce, apply, size, next := k.scanReduceU32, k.scanApplyU32, uint64(4), scanU32
	switch m {
	case scanU32U64:
		reduce, apply, size, next = k.scanReduceU32U64, k.scanApplyU32U64, 8, scanU64
	case scanU64:
		reduce, apply, size, next = k.scanReduceU64, k.scanApplyU64, 8, scanU64
	}
	if n == 0 {
		return t.Memset32(out, 0, size/4, ix.stream)
	}
	tiles := (n + scanTile - 1) / scanTile
	grid := rt.Dim3{X: uint32(tiles), Y: 1, Z: 1}
	threads := rt.Dim3{X: block, Y: 1, Z: 1}
	var offs rt.DevicePtr
	if tiles > 1 {
		sums, err := tmp.Alloc(t, size*uint64(tiles))
		if err != nil {
			return err
		}
		if offs, err = tmp.Alloc(t, size*uint64(tiles+1)); err != nil {
			return err
		}
		if err := t.Launch(reduce, grid, threads, 0, ix.stream, rt.NewParams().Ptr(in).I64(n).Ptr(sums)); err != nil {
			return err
		}
		if err := ix.scan(t, tmp, sums, offs, tiles, next); err != nil {
			return err
		}
	}
	return t.Launch(apply, grid, threads, 0, ix.stream, rt.NewParams().Ptr(in).Ptr(out).I64(n).Ptr(offs))
}
