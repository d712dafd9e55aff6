package findneighbor

import "errors"

// Backend builds neighbour indexes.
type Backend interface {
	// Name is the backend's registered name ("cpu", "cuda", ...).
	Name() string
	// Probe reports whether the backend can run on this machine and what it
	// found (driver version, device name, ...). A nil error means usable.
	Probe() (Info, error)
	// Build indexes the points xyz (x0,y0,z0,x1,... len 3N) for radius eps.
	// eps may be +Inf only for KNearest (plain kNN). The index keeps no
	// reference to xyz after Build returns unless the backend documents it.
	Build(xyz []float32, eps float32, opts BuildOptions) (Index, error)
}

// Info describes a backend on this machine.
type Info struct {
	// Name is the backend's name.
	Name string
	// Device names the processor ("16 CPU threads", "NVIDIA H200").
	Device string
	// Details holds facts worth showing to users (driver, ABI, RT cores).
	Details map[string]string
	// Priority orders usable backends for "auto": the highest wins.
	Priority int
}

// BuildOptions tune index construction. The zero value is sensible.
type BuildOptions struct {
	// Workers bounds CPU parallelism; 0 means GOMAXPROCS.
	Workers int
	// Progress, when not nil, is called now and then with the fraction done
	// of the current operation, from any goroutine.
	Progress func(done float64)
	// Reuse lets Build take xyz over as the index's own storage instead
	// of copying it (12 bytes per point less): the backend may rearrange
	// the slice in place, so its contents are unspecified for the caller
	// afterwards, and keeps it until Close. Backends that cannot use it
	// ignore it and leave xyz alone.
	Reuse bool
	// Frame, when not nil, is the bounding box of the whole run's points,
	// of which xyz is a part (a tile's points), and must hold them all. The
	// cpu backend then lays its grid out over the frame instead of xyz's
	// own box: the whole run's cells, so that a tile that holds every
	// point within TileHalo of its owned points sums their moments in the
	// whole run's order, to the bit. The cuda backend lays its grid out
	// as the whole run's index would be (FramePoints); the other backends
	// ignore it.
	Frame *Box
	// FramePoints is the number of points of the whole run that Frame
	// bounds: the cuda backend chooses its cells from it as for the whole
	// run, so that a tile adds a query's neighbours within a radius in
	// the whole run's order. 0 with Frame set: the cuda backend ignores
	// Frame.
	FramePoints int
}

// Box is an axis-aligned box in a run's float32 frame.
type Box struct{ Min, Max [3]float32 }

// BoxOf returns the bounding box of the points xyz (interleaved x, y, z;
// the zero Box for none).
func BoxOf(xyz []float32) Box {
	var g grid
	g.bounds(xyz)
	return Box{g.lo, g.hi}
}

// Extent returns the box's largest side.
func (b Box) Extent() float64 {
	e := 0.0
	for a := range 3 {
		e = max(e, float64(b.Max[a])-float64(b.Min[a]))
	}
	return e
}

// Holds reports whether o lies within b.
func (b Box) Holds(o Box) bool {
	for a := range 3 {
		if o.Min[a] < b.Min[a] || o.Max[a] > b.Max[a] {
			return false
		}
	}
	return true
}

// TileHalo returns the halo a tile needs around its owned box (in XY; Z
// uncut) so that the cpu backend's index of the tile, built for ε with
// BuildOptions.Frame set to the whole run's box, of largest side extent
// (or an upper bound of it), gives its owned points the moments (Index
// Moments and MomentsFunc with the indexed points as queries) that the
// whole run's index gives them, to the bit: ε plus one grid cell, widened
// like the grid's pruning. A query reads every point of the cells within ε
// of it, and adds them in the order of their positions in those cells
// (with AVX-512, in lanes by position): the tile must hold those cells'
// points whole, not only those within ε. It is about 2ε.
func TileHalo(eps float32, extent float64) float64 {
	return float64(eps)*(1+pruneSlack) + cellSize(eps, cellsPerEps, extent)
}

// Index answers neighbour queries over the points it was built on. Each
// method takes the query points q (interleaved xyz, like Build's input); a
// nil q means "the indexed points themselves", and then a point never counts
// as its own neighbour. With a separate query set no point is filtered: a
// query point that coincides with an indexed point has it as a neighbour.
//
// Every method works on all queries at once; out slices are sized by the
// caller (len = number of queries, or that times k).
type Index interface {
	// Len returns the number of indexed points.
	Len() int
	// Eps returns the search radius.
	Eps() float32
	// Counts stores in out[i] the number of points within ε of query i.
	Counts(q []float32, out []uint32) error
	// Neighbors returns the neighbour lists in CSR form.
	Neighbors(q []float32, opts NeighborOptions) (*CSR, error)
	// KNearest stores for query i its k nearest points within ε, closest
	// first (ties broken by the smaller index), in idx[i*k:(i+1)*k] and their
	// distances (not squared) in dist; unused slots get index -1 and
	// distance +Inf. dist may be nil.
	KNearest(q []float32, k int, idx []int32, dist []float32) error
	// Moments stores in out[i] the first and second moments of the offsets
	// from query i to its neighbours within ε, or to its k nearest within ε
	// when k > 0: what PCA normals need, without the lists. The brute and
	// cpu backends add the k nearest in the order KNearest reports them,
	// one after another, so their sums are equal to the bit, whatever the
	// index's layout (a tile's, the whole cloud's); other sums follow a
	// backend's own order and agree to rounding.
	Moments(q []float32, k int, out []Moment) error
	// ClusterCores is DBSCAN's second stage on the indexed points (FDBSCAN's
	// union-find; the paper's Algorithm 3, lines 6-17), run where the index
	// lives. Given isCore, it stores in label:
	//   - for a core point, the smallest index of a core point in its
	//     component, where core points within ε are connected;
	//   - for a non-core point with a core point within ε (a border point),
	//     the label of its nearest core neighbour (ties: the smaller index);
	//   - -1 for every other point (noise).
	ClusterCores(isCore []bool, label []int32) error
	// Close releases the index's resources (device memory, ...).
	Close() error
}

// NeighborOptions shape a Neighbors result.
type NeighborOptions struct {
	// Cap limits each list to the Cap nearest neighbours (0: no limit); the
	// CSR's Capped flags tell which lists lost entries.
	Cap int
	// WithDist asks for distances (not squared) alongside indices.
	WithDist bool
	// Sorted orders each list by distance (ties: smaller index); otherwise
	// lists are in increasing index order.
	Sorted bool
	// MaxEntries, when > 0, makes Neighbors fail with ErrTooLarge before
	// allocating when the total number of entries would exceed it. Callers
	// that want batches use Batches instead.
	MaxEntries int64
}

// CSR holds neighbour lists in compressed sparse row form: the neighbours of
// query i are Indices[Offsets[i]:Offsets[i+1]].
type CSR struct {
	Offsets []int64
	Indices []int32
	// Dist holds the distance of each entry when asked for, else nil.
	Dist []float32
	// Capped[i] is true when query i had more neighbours than the cap.
	// It is nil when no cap was asked for.
	Capped []bool
}

// Moment is the neighbourhood summary of one query point p: N neighbours q
// with offsets d = q - p, Sum = Σd and Outer = Σ d dᵀ as its upper triangle
// xx, xy, xz, yy, yz, zz. The covariance is Outer/N - (Sum/N)(Sum/N)ᵀ.
// For the k nearest (Moments with k > 0) Dist = Σ|d|, the sum of the
// distances KNearest reports, so Dist/N is the mean distance statistical
// outlier removal ranks points by; with k = 0 it is 0 (a huge ε sums the
// offsets in closed form, which Σ|d| has not).
type Moment struct {
	N     uint32
	Sum   [3]float64
	Outer [6]float64
	Dist  float64
}

// ErrTooLarge reports that a Neighbors result would exceed MaxEntries.
var ErrTooLarge = errors.New("findneighbor: neighbour lists exceed the entry limit")

// ErrUnavailable reports that a backend cannot run on this machine.
var ErrUnavailable = errors.New("findneighbor: backend unavailable")
