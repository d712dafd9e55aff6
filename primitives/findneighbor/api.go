package findneighbor

import (
	"errors"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

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
}

// Frame is the whole run of which the points a backend indexes are a part
// (a tile's points): what a backend that sums over cells needs to lay its
// cells out as for the whole run, so that a tile's index adds a query's
// neighbours in the whole run's order, to the bit (docs/scale.md).
type Frame struct {
	// Box is the bounding box of the whole run's points; it must hold
	// every point indexed in the frame. The cpu backend lays its grid out
	// over it instead of the points' own box: the whole run's cells, so
	// that a tile that holds every point within cpu.TileHalo of its owned
	// points sums their moments in the whole run's order.
	Box Box
	// Points is the number of points of the whole run: the cuda backend
	// chooses its cells from it (with Box) as for the whole run; 0: the
	// cuda backend lays its grid out over the tile's own points.
	Points int
}

// Framer is implemented by backends whose indexes depend on the whole
// run's frame (the cpu and cuda backends): InFrame returns the same backend
// (the same kind, with the same capabilities) building its indexes in f.
// Backends that do not implement it build the same index in any frame.
type Framer interface {
	InFrame(f Frame) Backend
}

// DeviceTimer is implemented by backends that run on a device and time
// its work there (the cuda backend, by CUDA events around each build and
// query, their copies included): DeviceTime is the total since the
// process started, for all indexes of the device the backend uses. The
// difference over a stage's compute is how long the device was busy in
// it; the rest of the compute is the host's.
type DeviceTimer interface {
	DeviceTime() time.Duration
}

// InFrame returns b building its indexes in the frame f: b.InFrame(f) when
// b is a Framer, else b itself. Backends that wrap another (tile.Pool, the
// tests' jitters) implement Framer by framing what they wrap.
func InFrame(b Backend, f Frame) Backend {
	if fr, ok := b.(Framer); ok {
		return fr.InFrame(f)
	}
	return b
}

// Box is an axis-aligned box in a run's float32 frame.
type Box struct{ Min, Max [3]float32 }

// BoxOf returns the bounding box of the points xyz (interleaved x, y, z;
// the zero Box for none).
func BoxOf(xyz []float32) Box {
	lo, hi := hostkit.Bounds(xyz)
	return Box{lo, hi}
}

// Extent returns the box's largest side.
func (b Box) Extent() float64 { return hostkit.Extent(b.Min, b.Max) }

// Holds reports whether o lies within b.
func (b Box) Holds(o Box) bool {
	for a := range 3 {
		if o.Min[a] < b.Min[a] || o.Max[a] > b.Max[a] {
			return false
		}
	}
	return true
}

// Index answers neighbour queries over the points it was built on. Each
// method takes the query points q (interleaved xyz, like Build's input); a
// nil q means "the indexed points themselves", and then a point never counts
// as its own neighbour. With a separate query set no point is filtered: a
// query point that coincides with an indexed point has it as a neighbour.
//
// Every method works on all queries at once; out slices are sized by the
// caller (len = number of queries, or that times k).
//
// Index is the core every backend implements. The whole-cloud summaries
// built on it (Moments, DBSCAN's ClusterCores) are package functions that
// use an index's own implementation when it has one (the optional
// interfaces Momenter and ClusterCorer, found by type assertion, as
// io.Copy finds io.WriterTo) and otherwise a generic one built on Neighbors
// and KNearest, with the same results.
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
	// Close releases the index's resources (device memory, ...).
	Close() error
}

// Momenter is implemented by indexes that compute neighbourhood moments
// themselves (without the lists): what the package function Moments uses
// when it finds it. Moments(q, k, out) must store what the function
// documents.
type Momenter interface {
	Moments(q []float32, k int, out []Moment) error
}

// ClusterCorer is implemented by indexes that run DBSCAN's union-find
// stage where the index lives (the paper's Algorithm 3 runs it inside the
// traversal, so that a GPU backend never copies neighbour lists back):
// what the package function ClusterCores uses when it finds it.
// ClusterCores(isCore, label) must store what the function documents.
type ClusterCorer interface {
	ClusterCores(isCore []bool, label []int32) error
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
