package denoise

import (
	"fmt"
	"math"
	"strings"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// Convention names the peer whose definition of the filters is followed.
// They differ in what K counts, in how points whose mean distance is zero
// enter the statistics, in which side of the threshold keeps a point, and
// (PDAL) in the radius test; docs/denoise.md quotes the source of each.
type Convention int

const (
	// PCL follows pcl::StatisticalOutlierRemoval<PointT> (PCL 1.13, which
	// the pcl_outlier_removal tool runs): K neighbours other than the point
	// itself, their mean distance rounded to float32, the sample standard
	// deviation from the running sums, and a point is an outlier when its
	// mean is strictly greater than the threshold.
	PCL Convention = iota
	// Open3D follows PointCloud::RemoveStatisticalOutliers (Open3D 0.16): K
	// counts the point itself at distance 0, so the mean is over K-1 other
	// points divided by K; points whose mean is 0 are left out of the mean
	// and deviation sums (but still counted in n) and are always removed;
	// a point is kept only when its mean is strictly less than the threshold.
	Open3D
	// PDAL follows filters.outlier (PDAL 2.9.2, filters/OutlierFilter.cpp;
	// docs/denoise.md): statistical (processStatistical) with mean_k = K
	// other points whose float64 distances, in increasing order, enter a
	// running mean (d += (dist − d)/j), Welford's mean and M2 over the
	// points in order, the sample deviation, a point kept only when d <
	// threshold; radius (processRadius) with min_k = MinNeighbors, other
	// points strictly closer than the radius in float64 (pairs.Within). In
	// both, when every point would be an outlier none is flagged (PDAL
	// warns and returns the points unchanged).
	PDAL
)

// String returns "pcl", "open3d" or "pdal".
func (c Convention) String() string {
	switch c {
	case PCL:
		return "pcl"
	case Open3D:
		return "open3d"
	case PDAL:
		return "pdal"
	}
	return fmt.Sprintf("Convention(%d)", int(c))
}

// ParseConvention returns the Convention named s ("pcl", "open3d" or
// "pdal", any case).
func ParseConvention(s string) (Convention, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "pcl":
		return PCL, nil
	case "open3d":
		return Open3D, nil
	case "pdal":
		return PDAL, nil
	}
	return 0, fmt.Errorf("denoise: unknown convention %q (want pcl, open3d or pdal)", s)
}

// Defaults of the statistical filter, PDAL's filters.outlier defaults.
const (
	DefaultK        = 8
	DefaultStdRatio = 2.0
)

// StatisticalOptions configure Statistical. The zero value is PCL's filter
// with K = DefaultK and StdRatio = DefaultStdRatio.
type StatisticalOptions struct {
	// K is the number of nearest neighbours whose distances are averaged:
	// PCL's and PDAL's mean_k (other points) or, under Open3D, Open3D's
	// nb_neighbors (which counts the point itself). 0 means DefaultK.
	K int
	// StdRatio is the multiplier of the standard deviation in the
	// threshold mean + StdRatio·stddev (PCL's std_dev_mul, Open3D's
	// std_ratio, PDAL's multiplier). It may be negative; 0 means
	// DefaultStdRatio, except under PDAL, whose multiplier may be 0 (the
	// threshold is then the mean).
	StdRatio float64
	// PopulationStd divides the variance by n instead of n-1. PCL, Open3D
	// and PDAL use the sample deviation (n-1), the default.
	PopulationStd bool
	// Convention picks whose definition to follow; the zero value is PCL.
	Convention Convention
	// Build tunes the neighbour index.
	Build findneighbor.BuildOptions
	// TileSize, when > 0, finds the k nearest on square tiles of this side
	// in XY (tile.MomentsTiled, docs/scale.md), then reduces the whole
	// cloud's distances in index order as without it: the same result to
	// the bit (a sum of k float32 distances in float64 is exact, whatever
	// the order of the terms). Not under PDAL, whose stage driver tiles
	// through StatisticalResult.Reach.
	TileSize float64
	// Pos, under PDAL, holds the points' float64 coordinates in any frame
	// (interleaved x, y, z; PDAL's absolute ones give its bits): the
	// distances are taken from them, as PDAL takes its own. nil: from xyz.
	Pos []float64
}

// withDefaults returns o with zero fields replaced by their defaults.
func (o StatisticalOptions) withDefaults() StatisticalOptions {
	if o.K == 0 {
		o.K = DefaultK
	}
	if o.StdRatio == 0 && o.Convention != PDAL {
		o.StdRatio = DefaultStdRatio
	}
	return o
}

// Validate reports whether the options (after defaults) make sense.
func (o StatisticalOptions) Validate() error {
	o = o.withDefaults()
	if err := findneighbor.CheckMin("denoise statistical", "k", o.K, 1); err != nil {
		return err
	}
	if err := findneighbor.CheckFloat("denoise statistical", "std_ratio", o.StdRatio); err != nil {
		return err
	}
	if err := findneighbor.CheckRadius("denoise statistical", "tile_size", o.TileSize, true); err != nil {
		return err
	}
	if o.Convention != PCL && o.Convention != Open3D && o.Convention != PDAL {
		return fmt.Errorf("denoise: statistical: unknown convention %d", int(o.Convention))
	}
	return checkPDAL("denoise statistical", o.Convention, o.TileSize, o.Pos)
}

// checkPDAL checks the options only the PDAL convention has (pos) or
// lacks (a tile size).
func checkPDAL(op string, c Convention, tileSize float64, pos []float64) error {
	switch {
	case c == PDAL && tileSize > 0:
		return &findneighbor.ParamError{Op: op, Param: "tile_size", Value: fmt.Sprint(tileSize), Want: "0 under the pdal convention (tiles take Reach)"}
	case c != PDAL && pos != nil:
		return fmt.Errorf("denoise: %s: float64 positions are for the pdal convention only", op)
	}
	return nil
}

// StatisticalResult is what Statistical found.
type StatisticalResult struct {
	// Outlier[i] is true when point i is an outlier.
	Outlier []bool
	// MeanDist[i] is point i's mean neighbour distance as the convention
	// defines it (rounded to float32 under PCL, as PCL stores it); 0 for a
	// point with no other point in the cloud.
	MeanDist []float64
	// Mean and Std are the mean and standard deviation of MeanDist over the
	// points that took part; Threshold = Mean + StdRatio·Std.
	Mean, Std, Threshold float64
	// Valid is the number of points that took part in the statistics (n);
	// under PCL a point with no neighbour at all (a one-point cloud) does not.
	Valid int
	// Outliers is the number of points flagged.
	Outliers int
	// Reach, under PDAL only, holds for each point the distance of the
	// farthest point its mean distance depended on (Reach of the stage
	// driver; the threshold is a reduction over every point).
	Reach []float64
	// NearTies, under PDAL only, counts the points whose K nearest in
	// float64 could not be told from float32 candidates: a point beyond
	// the candidates might be as close as the K-th (see pdalMeans).
	NearTies int
	// AllOutliers, under PDAL, reports that every point was an outlier,
	// so that none is flagged (PDAL leaves the points unchanged).
	AllOutliers bool
}

// Statistical runs the statistical outlier filter on the points xyz
// (x0,y0,z0,x1,... relative to a local origin), finding neighbours with
// backend b.
func Statistical(xyz []float32, b findneighbor.Backend, opts StatisticalOptions) (*StatisticalResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	n, err := pointCount(xyz)
	if err != nil {
		return nil, err
	}
	// Under Open3D the point itself is one of the K.
	k := opts.K
	if opts.Convention == Open3D {
		k--
	}
	k = min(k, n-1)
	r := &StatisticalResult{Outlier: make([]bool, n), MeanDist: make([]float64, n)}
	if n == 0 {
		return r, nil
	}
	found := make([]int, n) // neighbours found per point
	if opts.Convention == PDAL {
		if opts.Pos != nil && len(opts.Pos) != len(xyz) {
			return nil, fmt.Errorf("denoise: %d float64 coordinates for %d points", len(opts.Pos), n)
		}
		if err := pdalMeans(xyz, opts.Pos, b, opts.K, opts.Build, r); err != nil {
			return nil, err
		}
	} else if k > 0 {
		if err := knnDistances(xyz, b, k, opts.TileSize, opts.Build, r.MeanDist, found); err != nil {
			return nil, err
		}
	}
	reduce(r, found, opts)
	for _, o := range r.Outlier {
		if o {
			r.Outliers++
		}
	}
	r.AllOutliers = allOutliers(opts.Convention, r.Outlier, &r.Outliers)
	return r, nil
}

// allOutliers applies PDAL's rule that a filter which would remove every
// point flags none: under PDAL, when every point is an outlier, it clears
// the flags and the count and returns true.
func allOutliers(c Convention, outlier []bool, count *int) bool {
	if c != PDAL || *count != len(outlier) || *count == 0 {
		return false
	}
	clear(outlier)
	*count = 0
	return true
}

// reduce runs a Reduction over r.MeanDist (distance sums) and found, in
// point order, and fills r.
func reduce(r *StatisticalResult, found []int, o StatisticalOptions) {
	red := o.NewReduction()
	for pass := range red.Passes() {
		for i, c := range found {
			red.Add(pass, r.MeanDist[i], c)
		}
		red.EndPass(pass)
	}
	for i, c := range found {
		r.MeanDist[i] = red.MeanDist(r.MeanDist[i], c)
	}
	r.Mean, r.Std, r.Threshold, r.Valid = red.Mean, red.Std, red.Threshold, red.Valid
	for i, c := range found {
		r.Outlier[i] = red.Outlier(r.MeanDist[i], c)
	}
}

// Reduction computes Statistical's statistics from every point's distance
// sum (the sum of the distances to its nearest, Moment.Dist) and number of
// neighbours found, handed in point order, for callers that keep them
// elsewhere (an out-of-core run, docs/scale.md): Add each point in order
// once per pass (Passes), in pass order; then Mean, Std, Threshold and
// Valid hold the statistics, MeanDist gives a point's mean distance and
// Outlier its flag. The arithmetic is the conventions' own:
//
//   - PCL (StatisticalOutlierRemoval<PointT>::applyFilterIndices): the mean
//     is stored as float; the sums run in double but each square is a float
//     product; variance = (Σd² - (Σd)²/n) / (n-1); an outlier has d >
//     threshold; a point with no neighbour takes no part.
//   - Open3D (PointCloud::RemoveStatisticalOutliers): the mean divides by
//     the number of results including the point itself; means of 0 add
//     nothing to the sums but count in n; the deviation is two-pass; a
//     point is kept when 0 < d < threshold.
//   - PDAL (OutlierFilter::processStatistical): a point's mean is a running
//     mean that no sum gives to the bit, so Add takes the mean itself
//     (StatisticalResult.MeanDist) in place of sum; Welford's M1 and M2
//     over the points; variance M2/(n−1) (NaN for one point, as in PDAL);
//     a point is kept when d < threshold. When every point is an outlier
//     PDAL flags none: the caller counts them (Statistical does).
type Reduction struct {
	o                    StatisticalOptions
	sum, sq              float64
	n                    int
	Mean, Std, Threshold float64
	Valid                int
}

// NewReduction returns the reduction of o (defaults applied).
func (o StatisticalOptions) NewReduction() *Reduction {
	return &Reduction{o: o.withDefaults()}
}

// Passes returns the number of passes over the points: 1 under PCL, 2
// under Open3D.
func (r *Reduction) Passes() int {
	if r.o.Convention == Open3D {
		return 2
	}
	return 1
}

// MeanDist returns the mean distance of a point whose distances sum to
// sum over found neighbours, as the convention defines it (rounded to
// float32 under PCL; 0 for a point with none).
func (r *Reduction) MeanDist(sum float64, found int) float64 {
	switch r.o.Convention {
	case Open3D:
		return sum / float64(found+1)
	case PDAL:
		return sum // the mean itself
	}
	if found == 0 {
		return 0
	}
	return float64(float32(sum / float64(found)))
}

// Add adds the next point, with distance sum sum over found neighbours,
// to pass pass.
func (r *Reduction) Add(pass int, sum float64, found int) {
	d := r.MeanDist(sum, found)
	n1 := float64(r.n)
	r.n++
	if r.o.Convention == PDAL {
		// Welford: sum is M1, sq is M2.
		delta := d - r.sum
		deltaN := delta / float64(r.n)
		r.sum += deltaN
		r.sq += float64(float64(delta*deltaN) * n1) // no fused multiply-add
		return
	}
	if r.o.Convention == Open3D {
		switch {
		case pass == 0 && d > 0:
			r.sum += d
		case pass == 1 && d > 0:
			r.sq += (d - r.Mean) * (d - r.Mean)
		}
		return
	}
	if found > 0 {
		r.sum, r.sq = pclSums(r.sum, r.sq, d)
		r.Valid++
	}
}

// pclSums adds a point's mean distance d (a float, as PCL stores it) to
// PCL's sums of the means and of their squares, each square a float
// product.
func pclSums(sum, sq, d float64) (float64, float64) {
	f := float32(d)
	return sum + d, sq + float64(f*f)
}

// AddAll adds the next points, with distance sums sums over found
// neighbours (found nil: 0 each), to pass pass, as Add does one at a time.
func (r *Reduction) AddAll(pass int, sums []float64, found []uint32) {
	if r.o.Convention == PCL && found != nil {
		// Add's PCL arithmetic (MeanDist's mean, pclSums) in one loop, the
		// sums in local variables: the same operations in the same order,
		// so the same bits, without a call and a convention switch a point
		// (64M points: 0.47 s of a GPU run's statistical step, one core).
		sum, sq, valid := r.sum, r.sq, r.Valid
		for i, s := range sums {
			if c := found[i]; c > 0 {
				sum, sq = pclSums(sum, sq, float64(float32(s/float64(c))))
				valid++
			}
		}
		r.sum, r.sq, r.Valid = sum, sq, valid
		r.n += len(found)
		return
	}
	for i, s := range sums {
		f := 0
		if found != nil {
			f = int(found[i])
		}
		r.Add(pass, s, f)
	}
}

// EndPass closes pass pass: call it after the pass's last Add.
func (r *Reduction) EndPass(pass int) {
	o := r.o
	if o.Convention == PDAL {
		r.Valid, r.Mean = r.n, r.sum
		div := float64(r.n) - 1
		if o.PopulationStd {
			div = float64(r.n)
		}
		r.Std = math.Sqrt(r.sq / div)
		r.Threshold = r.Mean + o.StdRatio*r.Std
		return
	}
	if o.Convention == Open3D {
		if pass == 0 {
			r.Valid = r.n
			r.Mean = r.sum / float64(r.Valid)
			return
		}
		r.Std = stddev(r.sq, r.Valid, o.PopulationStd)
		r.Threshold = r.Mean + o.StdRatio*r.Std
		return
	}
	if r.Valid == 0 {
		return
	}
	nv := float64(r.Valid)
	r.Mean = r.sum / nv
	r.Std = stddev(r.sq-r.sum*r.sum/nv, r.Valid, o.PopulationStd)
	r.Threshold = r.Mean + o.StdRatio*r.Std
}

// Outlier reports whether a point of mean distance d (MeanDist) with
// found neighbours is an outlier.
func (r *Reduction) Outlier(d float64, found int) bool {
	if r.o.Convention == PDAL {
		return !(d < r.Threshold)
	}
	if r.o.Convention == Open3D {
		return !(d > 0 && d < r.Threshold)
	}
	return found > 0 && d > r.Threshold
}

// stddev returns the standard deviation from the sum of squared deviations
// ss over n values: the sample deviation (n-1), or the population one. It
// is 0 where it is undefined (n < 2 for the sample deviation) and where
// rounding made ss slightly negative.
func stddev(ss float64, n int, population bool) float64 {
	div := float64(n - 1)
	if population {
		div = float64(n)
	}
	if div <= 0 || ss <= 0 {
		return 0
	}
	return math.Sqrt(ss / div)
}

// pointCount checks that xyz holds whole points and returns their number.
func pointCount(xyz []float32) (int, error) {
	return findneighbor.CheckPoints("denoise", xyz)
}

// knnDistances stores in sum[i] the sum of the distances from point i to
// its k nearest other points and in found[i] how many there were (k, or
// fewer only when the cloud has fewer than k+1 points): the Dist and N of
// findneighbor's k-nearest moments, handed over a block at a time
// (findneighbor.KNearestMomentsFunc), so that no Moment per point is kept.
func knnDistances(xyz []float32, b findneighbor.Backend, k int, tileSize float64, bo findneighbor.BuildOptions, sum []float64, found []int) error {
	set := func(pts []int32, m []findneighbor.Moment) {
		for j, i := range pts {
			sum[i], found[i] = m[j].Dist, int(m[j].N)
		}
	}
	var err error
	if tileSize > 0 {
		err = tile.MomentsTiled(xyz, b, 0, k, tileSize, bo, set)
	} else {
		err = findneighbor.KNearestMomentsFunc(b, xyz, k, bo, set)
	}
	if err != nil {
		return fmt.Errorf("denoise: %d nearest: %w", k, err)
	}
	return nil
}
