package findneighbor

import (
	"fmt"
	"math"
	"slices"

	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

// Plain kNN (k nearest with no distance limit) on an index built with ε =
// +Inf is slow on grid backends, which cannot prune it, and GPU backends
// serve it on the host. KNearestAdaptive answers it exactly with finite
// radii instead (except on the cpu backend, whose kd-tree serves it better,
// see PlainKNNer): a first round searches every point within a radius that
// holds about adaptiveTarget·k points for a typical point, later rounds
// search again, with the radius doubled, only the points that found fewer
// than k. Points beyond ε are farther than every point found within it, so a
// point that found k within ε has its exact k nearest.
const (
	// adaptiveTarget·k is the number of points the first round's radius
	// holds around a typical point. On a GPU a query costs about the same
	// at eight times the 2k points the radius once aimed at, which leaves
	// far fewer points to the later rounds, each an index of every point
	// built again: on one H100, statistical's device time on issue 32's
	// 64M points went from 2.3-2.5 to 1.1-1.2 s (docs/findneighbor.md).
	adaptiveTarget = 16
	// adaptiveSample is the number of points whose counts tune the radius.
	adaptiveSample = 1024
	// adaptiveTuneRounds bounds the rounds of radius tuning on the sample.
	adaptiveTuneRounds = 4
	// adaptiveGrowRounds bounds the doublings for the points still short
	// of k; the rest get an unbounded search (ε = +Inf).
	adaptiveGrowRounds = 6
)

// PlainKNNer is implemented by backends whose index built with ε = +Inf
// answers the k nearest of its own points faster than finite radii do: the
// cpu backend's kd-tree, searched leaf by leaf (kdbatch.go), whose leaves
// follow the density where one ε fits a scan's dense and sparse parts
// badly. KNearestAdaptive runs a single round on such an index, with no
// radius tuning. (Measured on 1M points, docs/findneighbor.md: the tree
// took 0.8× the grid rounds' time on a real scan, and since the fourth
// session 0.6× on an even synthetic surface and on uniform 3D points too,
// where it had taken 1.3×.) PlainKNN is a marker; it does nothing.
type PlainKNNer interface{ PlainKNN() }

// SelfMomenter is implemented by indexes that hand the moments of their own
// points over block by block from their workers (the cpu backend's, grid
// or kd-tree), so that no Moment per point is stored: MomentsFunc and
// NearestMomentsFunc use it when they find it. SelfMoments(k, fn) must
// call fn as NearestMomentsFunc documents, with far[j] = 0 for k = 0.
type SelfMomenter interface {
	SelfMoments(k int, fn func(pts []int32, m []Moment, far []float32)) error
}

// RoundFunc runs one round of KNearestAdaptive on ix for the points pts of
// the cloud and returns the points of pts that found fewer than k within
// ix.Eps() (those get another round). In the first round q and pts are nil:
// the queries are the indexed points themselves, as in Index.KNearest(nil,
// ...), so every point is queried and none finds itself. In later rounds q
// holds the coordinates of pts (q[3j:3j+3] is point pts[j]) as a separate
// query set, so the point itself is among its results (at distance 0):
// ask for k+1 and drop it, as KNearestAll does. The last round has
// ix.Eps() = +Inf, and what it returns is ignored.
type RoundFunc func(ix Index, q []float32, pts []int32) (short []int32, err error)

// KNearestAdaptive runs fn in rounds, as RoundFunc describes, so that every
// point of xyz gets its k nearest other points with no distance limit from
// finite-radius indexes built by b (one ε = +Inf index on the cpu
// backend). It builds, passes and closes each index.
// Use KNearestAll for the k nearest themselves; with Moments(ix, xyz, q, k),
// fn gets the moments of each point's k nearest.
func KNearestAdaptive(b Backend, xyz []float32, k int, opts BuildOptions, fn RoundFunc) error {
	if len(xyz)%3 != 0 {
		return fmt.Errorf("findneighbor: %d coordinates is not a multiple of 3", len(xyz))
	}
	if k <= 0 {
		return fmt.Errorf("findneighbor: k = %d, want > 0", k)
	}
	if len(xyz) == 0 {
		return nil
	}
	if PlainKNN(b) {
		// One round, which is also the last, on an ε = +Inf index.
		_, err := withIndex(b, xyz, float32(math.Inf(1)), opts, func(ix Index) ([]int32, error) { return fn(ix, nil, nil) })
		return err
	}
	return rounds(b, xyz, nil, k, opts, func(ix Index) ([]int32, error) { return fn(ix, nil, nil) },
		func(ix Index, pts []int32) ([]int32, error) { return fn(ix, gather(xyz, pts, opts.Workers), pts) })
}

// rounds runs the finite-radius rounds of KNearestAdaptive and
// KNearestQueries (the queries q; nil: the points of xyz themselves): first
// on an index of xyz at the radius tuned for them (adaptiveRadius), then
// later(ix, pts) for the points that the round
// before reported short, on an index at twice its radius, and at ε = +Inf
// after adaptiveGrowRounds doublings; what that last round reports is
// ignored. It builds, passes and closes each index.
func rounds(b Backend, xyz, q []float32, k int, opts BuildOptions, first func(Index) ([]int32, error), later func(Index, []int32) ([]int32, error)) error {
	eps, ix, err := adaptiveRadius(b, xyz, q, k, opts)
	if err != nil {
		return err
	}
	var short []int32
	if ix != nil {
		// Tuning ran on all the points and its last index is at eps.
		short, err = useIndex(b, ix, eps, first)
	} else {
		short, err = withIndex(b, xyz, eps, opts, first)
	}
	for round := 0; err == nil && len(short) > 0; round++ {
		eps *= 2
		if round == adaptiveGrowRounds || math.IsInf(float64(eps), 0) {
			eps = float32(math.Inf(1))
		}
		pts := short
		short, err = withIndex(b, xyz, eps, opts, func(ix Index) ([]int32, error) { return later(ix, pts) })
		if math.IsInf(float64(eps), 1) {
			break
		}
	}
	return err
}

// gather returns the coordinates of the points pts of xyz, in that order,
// copied on nw cores (0: GOMAXPROCS).
func gather(xyz []float32, pts []int32, nw int) []float32 {
	q := make([]float32, 3*len(pts))
	nw = hostkit.Workers(nw)
	_ = hostkit.ParallelChunks(len(pts), max(4096, len(pts)/(4*nw)), nw, nil, func(_, lo, hi int) error {
		for j := lo; j < hi; j++ {
			copy(q[3*j:3*j+3], xyz[3*pts[j]:])
		}
		return nil
	})
	return q
}

// shortsOf calls fn for the chunks [lo, hi) of [0, n) on nw cores (0:
// GOMAXPROCS) and returns what the calls return (the short points of their
// chunk), joined in the chunks' order.
func shortsOf(n, nw int, fn func(lo, hi int) []int32) []int32 {
	nw = hostkit.Workers(nw)
	chunk := max(1024, n/(4*nw))
	shorts := make([][]int32, (n+chunk-1)/chunk)
	_ = hostkit.ParallelChunks(n, chunk, nw, nil, func(_, lo, hi int) error {
		shorts[lo/chunk] = fn(lo, hi)
		return nil
	})
	return slices.Concat(shorts...)
}

// KNearestAll stores for every point of xyz its k nearest other points with
// no distance limit, exactly as Index.KNearest(nil, k, idx, dist) on an
// index built with ε = +Inf would (closest first, ties by the smaller
// index, -1 and +Inf in the slots beyond the n-1 other points), using
// KNearestAdaptive. dist may be nil.
func KNearestAll(b Backend, xyz []float32, k int, opts BuildOptions, idx []int32, dist []float32) error {
	n := len(xyz) / 3
	if err := checkLen("idx", len(idx), n*k); err != nil {
		return err
	}
	if dist != nil {
		if err := checkLen("dist", len(dist), n*k); err != nil {
			return err
		}
	}
	k1 := k + 1
	return KNearestAdaptive(b, xyz, k, opts, func(ix Index, q []float32, pts []int32) ([]int32, error) {
		if q == nil {
			if err := ix.KNearest(nil, k, idx, dist); err != nil {
				return nil, err
			}
			return shortsOf(n, opts.Workers, func(lo, hi int) []int32 {
				var short []int32
				for i := lo; i < hi; i++ {
					if idx[i*k+k-1] < 0 {
						short = append(short, int32(i))
					}
				}
				return short
			}), nil
		}
		qi, qd := make([]int32, len(pts)*k1), make([]float32, len(pts)*k1)
		if err := ix.KNearest(q, k1, qi, qd); err != nil {
			return nil, err
		}
		return shortsOf(len(pts), opts.Workers, func(lo, hi int) []int32 {
			var short []int32
			for j := lo; j < hi; j++ {
				i := pts[j]
				gi, gd := qi[j*k1:(j+1)*k1], qd[j*k1:(j+1)*k1]
				// Drop the point itself; when more than k+1 points
				// coincide with it, it may be missing, and then the first
				// k are the coincident points of smallest index, as
				// without it.
				if s := slices.Index(gi, i); s >= 0 {
					gi, gd = slices.Delete(gi, s, s+1), slices.Delete(gd, s, s+1)
				}
				if len(gi) < k || gi[k-1] < 0 {
					short = append(short, i)
				}
				copy(idx[int(i)*k:int(i+1)*k], gi)
				if dist != nil {
					copy(dist[int(i)*k:int(i+1)*k], gd)
				}
			}
			return short
		}), nil
	})
}

// KNearestQueries stores for each query of q (x, y, z triples) its k nearest
// points of xyz with no distance limit, exactly as Index.KNearest(q, k, idx,
// dist) on an index of xyz built with ε = +Inf would (closest first, ties by
// the smaller index, -1 and +Inf in the slots beyond the n points; a query
// at a point's place finds it). dist may be nil. A PlainKNN backend (the cpu
// backend's kd-tree) answers on such an index; any other in finite-radius
// rounds on its own device, as KNearestAdaptive does for a cloud's own
// points: the radius that holds about adaptiveTarget·k points around a
// typical query (tuned on a sample of q), then, for the queries that found
// fewer than k within it, twice the radius, and so on; the queries still
// short after adaptiveGrowRounds get an ε = +Inf index. A query that found k
// within a radius has its exact k nearest, since the points beyond are
// farther than every point within. The index holds xyz only with opts.Reuse
// and a PlainKNN backend; otherwise xyz is left intact.
func KNearestQueries(b Backend, xyz, q []float32, k int, opts BuildOptions, idx []int32, dist []float32) error {
	if len(xyz)%3 != 0 || len(q)%3 != 0 {
		return fmt.Errorf("findneighbor: %d points' and %d queries' coordinates are not multiples of 3", len(xyz), len(q))
	}
	if k <= 0 {
		return fmt.Errorf("findneighbor: k = %d, want > 0", k)
	}
	nq := len(q) / 3
	if err := checkKNearest(nq, k, idx, dist); err != nil {
		return err
	}
	if PlainKNN(b) || len(xyz) == 0 {
		ix, err := b.Build(xyz, float32(math.Inf(1)), opts)
		if err != nil {
			return fmt.Errorf("findneighbor: build %s index: %w", b.Name(), err)
		}
		_, err = useIndex(b, ix, ix.Eps(), func(ix Index) ([]int32, error) { return nil, ix.KNearest(q, k, idx, dist) })
		return err
	}
	// sortOut calls keep(r) for every row r of m that found k within ix's
	// radius (every row at ε = +Inf), on all cores, and returns the others
	// as pts[r] (r where pts is nil), in order.
	sortOut := func(ix Index, ri []int32, pts []int32, m int, keep func(r int)) []int32 {
		last := math.IsInf(float64(ix.Eps()), 1)
		return shortsOf(m, opts.Workers, func(lo, hi int) []int32 {
			var short []int32
			for r := lo; r < hi; r++ {
				if !last && ri[r*k+k-1] < 0 {
					j := int32(r)
					if pts != nil {
						j = pts[r]
					}
					short = append(short, j)
				} else if keep != nil {
					keep(r)
				}
			}
			return short
		})
	}
	// The first round writes straight into idx and dist (the short rows
	// are overwritten later); the later ones query the short points and
	// copy the rows of those that found k.
	first := func(ix Index) ([]int32, error) {
		if err := ix.KNearest(q, k, idx, dist); err != nil {
			return nil, err
		}
		return sortOut(ix, idx, nil, nq, nil), nil
	}
	var ri []int32
	var rd []float32
	later := func(ix Index, pts []int32) ([]int32, error) {
		m := len(pts)
		ri = slices.Grow(ri[:0], m*k)[:m*k]
		if dist != nil {
			rd = slices.Grow(rd[:0], m*k)[:m*k]
		}
		if err := ix.KNearest(gather(q, pts, opts.Workers), k, ri, rd); err != nil {
			return nil, err
		}
		return sortOut(ix, ri, pts, m, func(r int) {
			j := int(pts[r])
			copy(idx[j*k:(j+1)*k], ri[r*k:(r+1)*k])
			if dist != nil {
				copy(dist[j*k:(j+1)*k], rd[r*k:(r+1)*k])
			}
		}), nil
	}
	return rounds(b, xyz, q, k, opts, first, later)
}

// KNearestMoments stores in out[i] the moments of the offsets from point i
// of xyz to its k nearest other points with no distance limit, exactly as
// Moments(ix, xyz, nil, k, out) on an index ix of xyz built with ε = +Inf
// would: what
// KNearestMomentsFunc hands over, stored.
func KNearestMoments(b Backend, xyz []float32, k int, opts BuildOptions, out []Moment) error {
	if err := checkLen("out", len(out), len(xyz)/3); err != nil {
		return err
	}
	return KNearestMomentsFunc(b, xyz, k, opts, func(pts []int32, m []Moment) {
		for j, i := range pts {
			out[i] = m[j]
		}
	})
}

// KNearestMomentsFunc finds what KNearestMoments finds but hands it to fn a
// block of points at a time, pts (indices into xyz) with their moments m,
// valid during the call, each point once, instead of storing a Moment per
// point (88 bytes, memory that is slow to come by fresh): for callers that
// reduce each moment at once, such as statistical outlier removal and PCA
// normals. fn is called from several goroutines at once (up to
// opts.Workers), each call with points of its own, so it must only write
// to places of its points or synchronise. The first finite-radius round
// (a GPU backend's) asks the index for every point's moments in one self
// query (88 bytes a point held at once: one launch instead of a query set
// per block, which took 150 ms at 1M points on an H100 against 85 ms on
// the 16-core cpu backend); the later rounds query their few points as
// query sets, momentBlock at a time, and reduce each block in parallel;
// the cpu backend's ε = +Inf kd-tree hands over its leaves' results from
// its workers as it finds them.
func KNearestMomentsFunc(b Backend, xyz []float32, k int, opts BuildOptions, fn func(pts []int32, m []Moment)) error {
	mb := momentBlocks{nw: hostkit.Workers(opts.Workers)}
	return KNearestAdaptive(b, xyz, k, opts, func(ix Index, q []float32, pts []int32) ([]int32, error) {
		if pts != nil {
			return mb.query(ix, xyz, q, pts, k, fn)
		}
		if math.IsInf(float64(ix.Eps()), 1) {
			// The only round, on the cpu backend's kd-tree (PlainKNNer).
			return nil, MomentsFunc(ix, xyz, k, opts.Workers, fn)
		}
		return mb.self(ix, xyz, k, fn)
	})
}

// KNearestMomentsFarFunc is KNearestMomentsFunc that also hands fn
// far[j], the distance of point pts[j]'s k-th nearest other point (+Inf
// where xyz holds fewer than k others), as NearestMomentsFunc does on an
// index: for callers that check that the k nearest lie within some
// distance (a tile's points whose k nearest its halo holds). A PlainKNN
// backend (the cpu backend's kd-tree) finds both in one search; any other
// finds every point's k nearest (KNearestAll, n·k distances held at once)
// and then the moments, in finite-radius rounds on its own device instead
// of an ε = +Inf index, which a GPU backend serves on the host. Its
// indexes never take xyz over (BuildOptions.Reuse is ignored).
func KNearestMomentsFarFunc(b Backend, xyz []float32, k int, opts BuildOptions, fn func(pts []int32, m []Moment, far []float32)) error {
	if k <= 0 {
		return fmt.Errorf("findneighbor: k = %d, want > 0", k)
	}
	if PlainKNN(b) {
		_, err := withIndex(b, xyz, float32(math.Inf(1)), opts, func(ix Index) ([]int32, error) {
			return nil, NearestMomentsFunc(ix, xyz, k, opts.Workers, fn)
		})
		return err
	}
	n := len(xyz) / 3
	dist := make([]float32, n*k)
	if err := KNearestAll(b, xyz, k, opts, make([]int32, n*k), dist); err != nil {
		return err
	}
	return KNearestMomentsFunc(b, xyz, k, opts, withFar(dist, k, fn))
}

// withFar returns fn as a function of points and moments alone, handing
// it far[j] = dist[pts[j]·k + k − 1]: the last of each point's k
// distances in dist.
func withFar(dist []float32, k int, fn func(pts []int32, m []Moment, far []float32)) func(pts []int32, m []Moment) {
	return func(pts []int32, m []Moment) {
		far := make([]float32, len(pts))
		for j, i := range pts {
			far[j] = dist[int(i)*k+k-1]
		}
		fn(pts, m, far)
	}
}

// MomentsFunc calls fn with the moments of the indexed points of ix, what
// Moments(ix, xyz, nil, k, out) would store, a block at a time: m[j] is the
// moment of point pts[j], both valid during the call only and fn's to
// overwrite (tile.Moments moves what it keeps to their front). fn is called
// concurrently (up to nw goroutines, 0: GOMAXPROCS), each call with
// points of its own, so it must only write to places of its points or
// synchronise. An index that implements SelfMomenter (the cpu backend's)
// hands them over from its workers as it computes them, so that no Moment
// per point is stored (88 bytes each); any other index computes them in one Moments call and hands them
// over in blocks. xyz must be the points ix was built on, as for Moments.
func MomentsFunc(ix Index, xyz []float32, k, nw int, fn func(pts []int32, m []Moment)) error {
	if sm, ok := ix.(SelfMomenter); ok {
		return sm.SelfMoments(k, func(pts []int32, m []Moment, _ []float32) { fn(pts, m) })
	}
	n := ix.Len()
	m := make([]Moment, n)
	if err := Moments(ix, xyz, nil, k, m); err != nil {
		return err
	}
	pts := make([]int32, n)
	for i := range pts {
		pts[i] = int32(i)
	}
	nw = hostkit.Workers(nw)
	return hostkit.ParallelChunks(n, max(1024, n/nw), nw, nil, func(_, lo, hi int) error {
		fn(pts[lo:hi], m[lo:hi])
		return nil
	})
}

// NearestMomentsFunc is MomentsFunc for k > 0 that also hands fn far[j],
// the distance of point pts[j]'s k-th nearest other point (what
// ix.KNearest(nil, k, ...) reports last; +Inf when it has fewer than k),
// for callers that check that the k nearest lie within some distance
// (tile.Nearest). An index that implements SelfMomenter (the cpu
// backend's) finds it with the moments; any other is asked for its k
// nearest first.
func NearestMomentsFunc(ix Index, xyz []float32, k, nw int, fn func(pts []int32, m []Moment, far []float32)) error {
	if k <= 0 {
		return fmt.Errorf("findneighbor: k = %d, want > 0", k)
	}
	if sm, ok := ix.(SelfMomenter); ok {
		return sm.SelfMoments(k, fn)
	}
	n := ix.Len()
	dist := make([]float32, n*k)
	if err := ix.KNearest(nil, k, make([]int32, n*k), dist); err != nil {
		return err
	}
	return MomentsFunc(ix, xyz, k, nw, withFar(dist, k, fn))
}

// momentBlock is the number of points momentBlocks queries at a time: a
// GPU's launch, copies and synchronisation cost about as much for a few
// thousand queries as for a million (the later rounds of 25M short points
// took 2.1 s in blocks of 32Ki on an H200, 2.7 ms a block). Tests lower it
// to run several blocks on small clouds.
var momentBlock = 1 << 20

// momentBlocks queries the k-nearest moments of a list of points of the
// cloud as query sets, a block at a time, reusing its buffers.
type momentBlocks struct {
	nw  int // goroutines that share each block's fn calls
	m   []Moment
	pts []int32
}

// self asks ix, an index of xyz with a finite ε, for the k-nearest moments
// of all its points at once, hands to fn those whose k nearest are found
// and returns the others, in order.
func (mb *momentBlocks) self(ix Index, xyz []float32, k int, fn func(pts []int32, m []Moment)) ([]int32, error) {
	n := ix.Len()
	m := make([]Moment, n)
	if err := Moments(ix, xyz, nil, k, m); err != nil {
		return nil, err
	}
	return mb.handOver(m, nil, make([]int32, n), k, false, false, fn), nil
}

// query queries the points pts of xyz, whose coordinates q holds, on ix,
// momentBlock at a time, hands to fn those whose k nearest are found (all
// of them in the last round, where ix.Eps() is +Inf) and returns the
// others.
func (mb *momentBlocks) query(ix Index, xyz, q []float32, pts []int32, k int, fn func(pts []int32, m []Moment)) ([]int32, error) {
	last := math.IsInf(float64(ix.Eps()), 1)
	var short []int32
	for lo := 0; lo < len(pts); lo += momentBlock {
		hi := min(len(pts), lo+momentBlock)
		blk := pts[lo:hi]
		mb.m = slices.Grow(mb.m[:0], len(blk))[:len(blk)]
		mb.pts = slices.Grow(mb.pts[:0], len(blk))[:len(blk)]
		if err := Moments(ix, xyz, q[3*lo:3*hi], k+1, mb.m); err != nil {
			return nil, err
		}
		short = append(short, mb.handOver(mb.m, blk, mb.pts, k, true, last, fn)...)
	}
	return short, nil
}

// handOver sorts out the moments m of the points pts (nil: 0, 1, ...) on
// all cores, a chunk a worker: the found ones to the chunk's front (with
// their points in out, as long as m), handed to fn there; it returns the
// others, those with fewer than k (none when last), in order. queried
// says m comes from a query set asked for k+1: the point itself, at
// distance 0, is among its k+1 nearest unless k+1 others coincide with
// it; its offset and distance are 0 either way, so dropping one from the
// count leaves the k nearest.
func (mb *momentBlocks) handOver(m []Moment, pts, out []int32, k int, queried, last bool, fn func(pts []int32, m []Moment)) []int32 {
	return shortsOf(len(m), mb.nw, func(lo, hi int) []int32 {
		kept := lo
		var short []int32
		for j := lo; j < hi; j++ {
			mj, id := m[j], int32(j)
			if pts != nil {
				id = pts[j]
			}
			if queried {
				mj.N--
			}
			if int(mj.N) < k && !last {
				short = append(short, id)
				continue
			}
			m[kept], out[kept] = mj, id
			kept++
		}
		fn(out[lo:kept], m[lo:kept])
		return short
	})
}

// adaptiveTuneStride thins the points that the tuning indexes hold: with
// n points, tuning indexes every adaptiveTuneStride-th point (the sample
// among them) once n/adaptiveTuneStride reaches adaptiveTuneMin, and
// scales the counts back up, so that tuning costs a fraction of a full
// build. Smaller clouds are tuned on all their points, and the last
// tuning index serves the first round.
const (
	adaptiveTuneStride = 8
	adaptiveTuneMin    = 32 * 1024
)

// adaptiveRadius returns a radius within which a typical query has about
// adaptiveTarget·k points of xyz (other points, where the queries are xyz's
// own: queries nil): a first guess from the bounding box, as if the points
// filled it uniformly, tuned on the counts around a sample of the queries.
// Queries of their own (hag's points above the ground, whose nearest ground
// points are farther than the ground's own) are sampled themselves: tuned on
// the ground points, 44% of such queries came short of k in the first round.
// When the tuning indexed every point at the returned radius, it returns
// that index too (the caller closes it); otherwise the index is nil.
func adaptiveRadius(b Backend, xyz, queries []float32, k int, opts BuildOptions) (radius float32, last Index, err error) {
	n := len(xyz) / 3
	var lo, hi [3]float64
	blo, bhi := hostkit.Bounds(xyz)
	for a := range 3 {
		lo[a], hi[a] = float64(blo[a]), float64(bhi[a])
	}
	// Volume of the box, with flat axes (2D data) given a nominal depth.
	diag := math.Sqrt((hi[0]-lo[0])*(hi[0]-lo[0]) + (hi[1]-lo[1])*(hi[1]-lo[1]) + (hi[2]-lo[2])*(hi[2]-lo[2]))
	if diag == 0 || math.IsNaN(diag) {
		// Every point coincides: any radius finds them all.
		return 1, nil, nil
	}
	vol := 1.0
	for a := range 3 {
		vol *= max(hi[a]-lo[a], diag*1e-3)
	}
	eps := math.Cbrt(3 * float64(adaptiveTarget*k) * vol / (4 * math.Pi * float64(n)))
	// The tuning points: all of them, or every stride-th; the sample is
	// among them (its step a multiple of the stride) and counts itself.
	stride := 1
	if n/adaptiveTuneStride >= adaptiveTuneMin {
		stride = adaptiveTuneStride
	}
	tune := xyz
	if stride > 1 {
		tune = make([]float32, 0, 3*(n/stride+1))
		for i := 0; i < n; i += stride {
			tune = append(tune, xyz[3*i:3*i+3]...)
		}
	}
	scale := float64(n) / float64(len(tune)/3)
	// self is 1 where the sample is of the indexed points, which count
	// themselves (the step is a multiple of the stride: they are among the
	// tuning points).
	var q []float32
	self := 1.0
	if queries == nil {
		step := max(1, n/adaptiveSample)
		step = (step + stride - 1) / stride * stride
		for i := 0; i < n; i += step {
			q = append(q, xyz[3*i:3*i+3]...)
		}
	} else {
		nq := len(queries) / 3
		for i := 0; i < nq; i += max(1, nq/adaptiveSample) {
			q = append(q, queries[3*i:3*i+3]...)
		}
		self = 0
	}
	if len(q) == 0 {
		return float32(min(eps, diag)), nil, nil
	}
	counts := make([]uint32, len(q)/3)
	closeLast := func() error {
		var err error
		if last != nil {
			err = last.Close()
			last = nil
		}
		return err
	}
	var lastEps float32
	for range adaptiveTuneRounds {
		if err := closeLast(); err != nil {
			return 0, nil, err
		}
		ix, err := buildIndex(b, tune, float32(eps), opts)
		if err != nil {
			return 0, nil, err
		}
		if err := ix.Counts(q, counts); err != nil {
			ix.Close()
			return 0, nil, fmt.Errorf("findneighbor: %s backend (ε %g): %w", b.Name(), eps, err)
		}
		last, lastEps = ix, float32(eps)
		slices.Sort(counts)
		med := (float64(counts[len(counts)/2]) - self) * scale
		target := float64(adaptiveTarget * k)
		if med >= target/2 && med <= target*2 {
			break
		}
		// Scale as for points on a surface (count ∝ ε²), the common case
		// of scans; the clamp keeps one round from overshooting far.
		eps *= min(4, max(0.25, math.Sqrt(target/max(med, 0.5))))
	}
	e := eps
	if e = min(e, diag); !(e > 0) || float32(e) == 0 {
		e = diag
	}
	if stride > 1 || float32(e) != lastEps {
		if err := closeLast(); err != nil {
			return 0, nil, err
		}
	}
	return float32(e), last, nil
}

// useIndex calls fn with ix (built for eps) and closes it.
func useIndex(b Backend, ix Index, eps float32, fn func(Index) ([]int32, error)) ([]int32, error) {
	short, err := fn(ix)
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("findneighbor: %s backend (ε %g): %w", b.Name(), eps, err)
	}
	return short, nil
}

// withIndex builds an index of xyz for eps, calls fn with it and closes it.
func withIndex(b Backend, xyz []float32, eps float32, opts BuildOptions, fn func(Index) ([]int32, error)) ([]int32, error) {
	ix, err := buildIndex(b, xyz, eps, opts)
	if err != nil {
		return nil, err
	}
	return useIndex(b, ix, eps, fn)
}

// buildIndex builds an index of xyz for eps without Reuse: the caller's
// points must stay intact across rounds.
func buildIndex(b Backend, xyz []float32, eps float32, opts BuildOptions) (Index, error) {
	opts.Reuse = false
	ix, err := b.Build(xyz, eps, opts)
	if err != nil {
		return nil, fmt.Errorf("findneighbor: build %s index (ε %g): %w", b.Name(), eps, err)
	}
	return ix, nil
}
