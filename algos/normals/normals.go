package normals

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pctk/pctk/algos/internal/eigen"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// MinPoints is the smallest neighbourhood, counting the point itself, that
// defines a normal: fewer than 3 points do not span a plane. Points with
// smaller neighbourhoods get NaN normals and curvature, as in PCL.
const MinPoints = 3

// DefaultOrientK is the number of nearest other points that link each point
// in the graph of OrientConsistent unless Options.OrientK says otherwise.
const DefaultOrientK = 10

// Orientation chooses how the sign of each normal is fixed. PCA determines a
// normal only up to sign.
type Orientation int

const (
	// OrientNone keeps the sign the eigen-solver returned.
	OrientNone Orientation = iota
	// OrientUp makes every normal point toward +Z (NormalZ ≥ 0), what
	// airborne LiDAR wants.
	OrientUp
	// OrientViewpoint makes every normal point toward Options.Viewpoint, the
	// sensor position: n·(v - p) ≥ 0, PCL's flipNormalTowardsViewpoint.
	OrientViewpoint
	// OrientConsistent propagates one orientation along a minimum spanning
	// tree of the k-nearest-neighbour graph weighted by 1 - |nᵢ·nⱼ| (Hoppe
	// et al. 1992; Open3D's orient_normals_consistent_tangent_plane, PDAL's
	// filters.normal refine), so neighbouring normals agree; in each
	// connected component the highest point's normal points up.
	OrientConsistent
)

var orientNames = [...]string{"none", "up", "viewpoint", "consistent"}

// String returns the orientation's name as ParseOrientation accepts it.
func (o Orientation) String() string {
	if o >= 0 && int(o) < len(orientNames) {
		return orientNames[o]
	}
	return fmt.Sprintf("Orientation(%d)", int(o))
}

// ParseOrientation returns the orientation named s ("none", "up",
// "viewpoint", "consistent"; case-insensitive).
func ParseOrientation(s string) (Orientation, error) {
	for i, n := range orientNames {
		if strings.EqualFold(s, n) {
			return Orientation(i), nil
		}
	}
	return 0, fmt.Errorf("normals: unknown orientation %q (want %s)", s, strings.Join(orientNames[:], ", "))
}

// Options configure Estimate. Give Radius, K or both.
type Options struct {
	// Radius limits neighbourhoods to the points within this distance; 0 or
	// +Inf means no limit.
	Radius float64
	// K is the neighbourhood size counting the point itself, as PCL's
	// setKSearch and Open3D's KDTreeSearchParamKNN count it: the point and
	// its K-1 nearest others (within Radius when it is set, like Open3D's
	// hybrid search). 0 means every point within Radius.
	K int
	// Orient fixes the signs of the normals.
	Orient Orientation
	// Viewpoint is the sensor position for OrientViewpoint, in the same
	// coordinates as the points passed to Estimate.
	Viewpoint [3]float64
	// OrientK is the number of nearest other points that link each point in
	// the graph of OrientConsistent (within Radius when it is set); 0 means
	// DefaultOrientK.
	OrientK int
	// Eigenvalues asks for the covariance eigenvalues in Result.
	Eigenvalues bool
	// Build tunes the neighbour index (workers, progress).
	Build findneighbor.BuildOptions
	// TileSize, when > 0, computes the neighbourhoods on square tiles of
	// this side in XY (tile.MomentsTiled, docs/scale.md): the same
	// neighbours, their moments summed in the in-memory order (the k
	// nearest by distance and index; all within a Radius in the order of
	// a tile index laid out in the whole cloud's frame), so the same
	// normals to the bit on the brute and cpu backends. OrientConsistent,
	// which spans the whole cloud, is refused.
	TileSize float64
}

// Validate reports whether the options describe a neighbourhood.
func (o Options) Validate() error {
	r := o.Radius
	if !math.IsInf(r, 1) {
		if err := findneighbor.CheckRadius("normals", "radius", r, true); err != nil {
			return err
		}
	}
	switch {
	case o.K != 0 && o.K < MinPoints:
		return &findneighbor.ParamError{Op: "normals", Param: "k", Value: strconv.Itoa(o.K),
			Want: fmt.Sprintf("≥ %d, the point itself included (fewer points define no plane), or 0 for none", MinPoints)}
	case o.K == 0 && (r == 0 || math.IsInf(r, 1)):
		return errors.New("normals: give a radius, k, or both")
	case o.Orient < OrientNone || o.Orient > OrientConsistent:
		return fmt.Errorf("normals: invalid orientation %d", int(o.Orient))
	}
	if err := findneighbor.CheckRadius("normals", "tile_size", o.TileSize, true); err != nil {
		return err
	}
	if o.TileSize > 0 && o.Orient == OrientConsistent {
		return ErrTiledConsistent
	}
	if err := findneighbor.CheckMin("normals", "orient_k", o.OrientK, 0); err != nil {
		return err
	}
	for _, v := range o.Viewpoint {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("normals: viewpoint %v is not finite", o.Viewpoint)
		}
	}
	return nil
}

// ErrTiledConsistent refuses consistent orientation on tiles: its minimum
// spanning tree spans the whole cloud, so a tile cannot decide a sign on
// its own (docs/scale.md). Orient up or toward a viewpoint, which tile.
var ErrTiledConsistent = errors.New("normals: consistent orientation spans the whole cloud and does not run on tiles; orient up or toward a viewpoint, or run without tiles")

// eps returns the index radius: Radius, or +Inf for plain kNN.
func (o Options) eps() float32 {
	if o.Radius == 0 || math.IsInf(o.Radius, 1) {
		return float32(math.Inf(1))
	}
	return float32(o.Radius)
}

func (o Options) orientK() int {
	if o.OrientK > 0 {
		return o.OrientK
	}
	return DefaultOrientK
}

// Result holds one value per point in each column.
type Result struct {
	// NormalX, NormalY, NormalZ form unit normals; NaN where the
	// neighbourhood has fewer than MinPoints points.
	NormalX, NormalY, NormalZ []float32
	// Curvature is the surface variation λ0/(λ0+λ1+λ2) in [0, 1/3]; 0 where
	// every point of the neighbourhood coincides; NaN with the normal.
	Curvature []float32
	// Eigenvalues are λ0 ≤ λ1 ≤ λ2 of the neighbourhood covariance (divided
	// by the number of points, not one less), when Options.Eigenvalues.
	Eigenvalues [3][]float32
	// Undefined counts the points with NaN normals.
	Undefined int
	// Components counts the connected components of the orientation graph
	// (OrientConsistent only), each oriented on its own.
	Components int
}

// Estimate computes a PCA normal and the curvature of every point of xyz
// (interleaved x, y, z, float32 relative to a local origin) with backend b.
//
// A point's neighbourhood is the point itself plus its neighbours from
// findneighbor's Moments (which leave the point out), so that K and Radius
// mean what they mean in PCL and Open3D. Its covariance, in float64, is
// C = Σdᵢdᵢᵀ/n - d̄d̄ᵀ over the offsets dᵢ from the point (the point's own is
// 0) with n = neighbours + 1; the normal is C's eigenvector of the smallest
// eigenvalue λ0, the curvature λ0/(λ0+λ1+λ2).
func Estimate(xyz []float32, b findneighbor.Backend, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(xyz)%3 != 0 {
		return nil, fmt.Errorf("normals: %d coordinates is not a multiple of 3", len(xyz))
	}
	n := len(xyz) / 3
	k := 0
	if opts.K > 0 {
		k = opts.K - 1
	}
	res := newResult(n, opts.Eigenvalues)
	// With K alone there is no radius: plain kNN, which
	// findneighbor.KNearestMomentsFunc serves on the backend's own device
	// (finite radii; an ε = +Inf kd-tree on the cpu backend) and hands over
	// block by block, solved as they come. Otherwise one index of radius ε
	// serves the moments and the orientation graph.
	var undefined atomic.Int64
	set := func(pts []int32, m []findneighbor.Moment) { undefined.Add(int64(res.setAll(pts, m))) }
	var idx findneighbor.Index
	var err error
	switch {
	case opts.TileSize > 0:
		r := opts.Radius
		if math.IsInf(r, 1) {
			r = 0
		}
		err = tile.MomentsTiled(xyz, b, r, k, opts.TileSize, opts.Build, set)
	case opts.Radius == 0:
		err = findneighbor.KNearestMomentsFunc(b, xyz, k, opts.Build, set)
	default:
		if idx, err = b.Build(xyz, opts.eps(), opts.Build); err != nil {
			return nil, fmt.Errorf("normals: build %s index: %w", b.Name(), err)
		}
		defer idx.Close()
		err = findneighbor.MomentsFunc(idx, xyz, k, opts.Build.Workers, set)
	}
	if err != nil {
		return nil, fmt.Errorf("normals: %s moments: %w", b.Name(), err)
	}
	res.Undefined = int(undefined.Load())

	switch opts.Orient {
	case OrientUp:
		orientToward(res, xyz, [3]float64{}, true, opts.Build.Workers)
	case OrientViewpoint:
		orientToward(res, xyz, opts.Viewpoint, false, opts.Build.Workers)
	case OrientConsistent:
		if err := orientConsistent(res, xyz, opts.orientK(), func(k int, nbr []int32) error {
			if idx == nil {
				return findneighbor.KNearestAll(b, xyz, k, opts.Build, nbr, nil)
			}
			return idx.KNearest(nil, k, nbr, nil)
		}); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// newResult allocates the columns of n points.
func newResult(n int, eigenvalues bool) *Result {
	r := &Result{
		NormalX:   make([]float32, n),
		NormalY:   make([]float32, n),
		NormalZ:   make([]float32, n),
		Curvature: make([]float32, n),
	}
	if eigenvalues {
		for i := range r.Eigenvalues {
			r.Eigenvalues[i] = make([]float32, n)
		}
	}
	return r
}

var nan32 = float32(math.NaN())

// setAll computes the normal, curvature and (when r has the columns)
// eigenvalues of the points whose neighbours' moments are m: point pts[j]
// for m[j]. It returns how many have NaN normals
// (fewer than MinPoints points, the point itself counted). With AVX-512
// the eigenpairs are solved 8 at a time, to the same bits.
func (r *Result) setAll(pts []int32, m []findneighbor.Moment) (undefined int) {
	var c [6][8]float64
	var out [5][8]float64
	var cov [8]eigen.Sym3
	var ok [8]bool
	for lo := 0; lo < len(m); lo += 8 {
		n := min(8, len(m)-lo)
		for j := range n {
			cov[j], ok[j] = covariance(m[lo+j])
			for e := range 6 {
				c[e][j] = cov[j][e]
			}
		}
		var done uint8 // the lanes Smallest8 solved
		if n == 8 {
			done = eigen.Smallest8(&c, &out)
		}
		for j := range n {
			i := int(pts[lo+j])
			switch {
			case !ok[j]:
				r.setNaN(i)
				undefined++
			case done>>j&1 == 1:
				r.store(i, cov[j], out[0][j], [3]float64{out[1][j], out[2][j], out[3][j]})
			default:
				l0, v := eigen.Smallest(cov[j])
				r.store(i, cov[j], l0, v)
			}
		}
	}
	return undefined
}

// covariance returns the covariance of the neighbourhood whose moments
// are m, the point itself (offset 0) added: Σddᵀ/n - d̄d̄ᵀ with n = m.N+1.
// ok is false when n < MinPoints.
func covariance(m findneighbor.Moment) (c eigen.Sym3, ok bool) {
	if int(m.N)+1 < MinPoints {
		return c, false
	}
	c, _ = eigen.Covariance(m, 0)
	return c, true
}

// setNaN gives point i NaN everywhere.
func (r *Result) setNaN(i int) {
	r.NormalX[i], r.NormalY[i], r.NormalZ[i], r.Curvature[i] = nan32, nan32, nan32, nan32
	if r.Eigenvalues[0] != nil {
		for j := range 3 {
			r.Eigenvalues[j][i] = nan32
		}
	}
}

// store sets point i's normal v and curvature from its covariance c and
// smallest eigenvalue l0 (eigen.Smallest's, so that asking for the
// eigenvalues changes neither), and its eigenvalues when r has the
// columns.
func (r *Result) store(i int, c eigen.Sym3, l0 float64, v [3]float64) {
	if r.Eigenvalues[0] != nil {
		for j, l := range eigen.Values(c) {
			// The covariance is positive semi-definite; rounding may
			// leave an eigenvalue slightly negative.
			r.Eigenvalues[j][i] = float32(max(l, 0))
		}
	}
	r.NormalX[i], r.NormalY[i], r.NormalZ[i] = float32(v[0]), float32(v[1]), float32(v[2])
	r.Curvature[i] = 0
	// λ0/(λ0+λ1+λ2), the sum being the trace.
	if tr := c[0] + c[3] + c[5]; tr > 0 {
		r.Curvature[i] = float32(max(l0, 0) / tr)
	}
}

// parallelism returns the number of goroutines for workers (0: GOMAXPROCS).
func parallelism(workers int) int {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return workers
}

// forBlocks calls fn(w, lo, hi) on nw goroutines for contiguous blocks of
// [0, n); w is the goroutine's number, for per-goroutine scratch.
func forBlocks(n, nw int, fn func(w, lo, hi int)) {
	nw = max(1, min(nw, n))
	var wg sync.WaitGroup
	for w := range nw {
		lo, hi := n*w/nw, n*(w+1)/nw
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w, lo, hi)
		}()
	}
	wg.Wait()
}

// FromMoments computes the normals of points from the moments of their
// neighbourhoods, m[j] for the point at xyz[3j:3j+3], as Estimate does for
// each point (orientation up, viewpoint or none: per point), for callers
// that find the neighbourhoods themselves (an out-of-core run,
// docs/scale.md). OrientConsistent, which spans the cloud, is refused.
func FromMoments(m []findneighbor.Moment, xyz []float32, opts Options) (*Result, error) {
	if opts.Orient == OrientConsistent {
		return nil, ErrTiledConsistent
	}
	if len(xyz) != 3*len(m) {
		return nil, fmt.Errorf("normals: %d moments for %d coordinates", len(m), len(xyz))
	}
	res := newResult(len(m), opts.Eigenvalues)
	pts := make([]int32, len(m))
	for i := range pts {
		pts[i] = int32(i)
	}
	res.Undefined = res.setAll(pts, m)
	switch opts.Orient {
	case OrientUp:
		orientToward(res, xyz, [3]float64{}, true, 1)
	case OrientViewpoint:
		orientToward(res, xyz, opts.Viewpoint, false, 1)
	}
	return res, nil
}
