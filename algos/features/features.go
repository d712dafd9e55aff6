package features

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pctk/pctk/algos/internal/eigen"
	"github.com/pctk/pctk/algos/internal/knn"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// Feature is one of the covariance features of PDAL's
// filters.covariancefeatures; its String is PDAL's dimension name.
type Feature int

// The features, in the order PDAL's feature_set "all" lists them (Density,
// which needs filters.optimalneighborhood's output, is left out). λ1 ≥ λ2 ≥
// λ3 are the covariance's eigenvalues after Mode (PDAL's lambda[0..2]), Σ
// the sum of the raw ones, v1, v2, v3 their unit eigenvectors.
const (
	// Linearity is (λ1 - λ2)/λ1.
	Linearity Feature = iota
	// Planarity is (λ2 - λ3)/λ1.
	Planarity
	// Scattering is λ3/λ1.
	Scattering
	// Verticality is u_z/|u| with u = λ1|v1| + λ2|v2| + λ3|v3| (absolute
	// values taken per component).
	Verticality
	// Omnivariance is ∛(λ1λ2λ3).
	Omnivariance
	// Anisotropy is (λ1 - λ3)/λ1.
	Anisotropy
	// Eigenentropy is -Σ λᵢ ln λᵢ (NaN where an eigenvalue is 0, as in PDAL).
	Eigenentropy
	// EigenvalueSum is Σ, the sum of the raw eigenvalues whatever the Mode.
	EigenvalueSum
	// SurfaceVariation is λ3/Σ.
	SurfaceVariation
	// DemantkeVerticality is 1 - |v3_z|.
	DemantkeVerticality
	numFeatures
)

var featureNames = [numFeatures]string{
	core.DimLinearity, core.DimPlanarity, core.DimScattering, core.DimVerticality, core.DimOmnivariance,
	core.DimAnisotropy, core.DimEigenentropy, core.DimEigenvalueSum, core.DimSurfaceVariation, core.DimDemantkeVerticality,
}

// String returns PDAL's dimension name of f.
func (f Feature) String() string {
	if f >= 0 && f < numFeatures {
		return featureNames[f]
	}
	return fmt.Sprintf("Feature(%d)", int(f))
}

// Dimensionality is PDAL's default feature set "Dimensionality".
var Dimensionality = []Feature{Linearity, Planarity, Scattering, Verticality}

// All returns every feature, PDAL's "all" without Density.
func All() []Feature {
	fs := make([]Feature, numFeatures)
	for i := range fs {
		fs[i] = Feature(i)
	}
	return fs
}

// ParseFeatures reads a comma-separated list of feature names and the
// presets "dimensionality" and "all", case-insensitively, as PDAL's
// feature_set does; the result is in the order of the constants, each
// feature once.
func ParseFeatures(s string) ([]Feature, error) {
	var want [numFeatures]bool
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		switch {
		case strings.EqualFold(name, "dimensionality"):
			for _, f := range Dimensionality {
				want[f] = true
			}
		case strings.EqualFold(name, "all"):
			want = [numFeatures]bool{}
			for i := range want {
				want[i] = true
			}
		default:
			f, ok := featureNamed(name)
			if !ok {
				return nil, fmt.Errorf("features: unknown feature %q (want dimensionality, all or %s)", name, strings.Join(featureNames[:], ", "))
			}
			want[f] = true
		}
	}
	var fs []Feature
	for i, w := range want {
		if w {
			fs = append(fs, Feature(i))
		}
	}
	return fs, nil
}

func featureNamed(name string) (Feature, bool) {
	for i, n := range featureNames {
		if strings.EqualFold(name, n) {
			return Feature(i), true
		}
	}
	return 0, false
}

// Mode says which eigenvalues the features are made of, PDAL's mode.
type Mode int

const (
	// SQRT takes the square roots of the eigenvalues, the standard
	// deviations along the eigenvectors: PDAL's default.
	SQRT Mode = iota
	// Raw takes the eigenvalues as they are.
	Raw
	// Normalized divides the eigenvalues by their sum.
	Normalized
)

var modeNames = [...]string{"sqrt", "raw", "normalized"}

// String returns the mode's name as ParseMode accepts it.
func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode returns the mode named s ("sqrt", "raw", "normalized";
// case-insensitive).
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if strings.EqualFold(s, n) {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("features: unknown mode %q (want %s)", s, strings.Join(modeNames[:], ", "))
}

// DefaultMinK is PDAL's min_k: with a radius, a neighbourhood of fewer
// points (the point itself counted) gets no features.
const DefaultMinK = 3

// ZeroCovariance is the largest absolute value of every covariance entry
// of a neighbourhood that gets no features: PDAL skips a point whose
// covariance B.isZero(), Eigen's test with its default precision for
// double, NumTraits<double>::dummy_precision() = 1e-12, in the cloud's
// units squared (eigen.IsZero).
const ZeroCovariance = eigen.ZeroCovariance

// Options configure Compute. Give K or Radius.
type Options struct {
	// K is the number of nearest other points in a neighbourhood, which is
	// the point and its K nearest (PDAL's knn: it asks its kd-tree for the
	// knn+1 nearest, the point itself first).
	K int
	// Radius makes neighbourhoods of the points within Radius (the point
	// itself included), as PDAL's radius.
	Radius float64
	// MinK is the smallest radius neighbourhood, the point counted, that
	// gets features; 0 means DefaultMinK. PDAL's min_k; it does not apply
	// to K.
	MinK int
	// Mode chooses the eigenvalues the features are made of.
	Mode Mode
	// Features lists the features to compute; nil means Dimensionality.
	Features []Feature
	// Pos, when not nil, holds the points' float64 coordinates
	// (interleaved, relative to the same origin as xyz), from which the
	// covariances are computed as PDAL computes them from its doubles; nil
	// takes them from xyz. Neighbours are found in float32 either way.
	Pos []float64
	// Origin is the local origin of xyz and Pos (core.Local.Origin): PDAL
	// computes from absolute coordinates, Pos + Origin (knn.Positions; the
	// stage passes the coordinates as read, LocalInput.Abs, and 0).
	Origin [3]float64
	// Build tunes the neighbour index (workers, progress).
	Build findneighbor.BuildOptions
}

// Validate reports whether the options describe a neighbourhood and known
// features. A parameter out of its limits is a *findneighbor.ParamError
// naming it ("k", "radius", "min_k").
func (o Options) Validate() error {
	switch {
	case o.K != 0 && o.Radius != 0:
		return errors.New("features: give k or a radius, not both")
	case o.K == 0 && o.Radius == 0:
		return errors.New("features: give k or a radius")
	case o.Radius != 0:
		if err := findneighbor.CheckRadius("features", "radius", o.Radius, false); err != nil {
			return err
		}
	default:
		if err := findneighbor.CheckMin("features", "k", o.K, 1); err != nil {
			return err
		}
	}
	if err := findneighbor.CheckMin("features", "min_k", o.MinK, 0); err != nil {
		return err
	}
	if o.Mode < SQRT || o.Mode > Normalized {
		return fmt.Errorf("features: invalid mode %d", int(o.Mode))
	}
	for _, f := range o.Features {
		if f < 0 || f >= numFeatures {
			return fmt.Errorf("features: invalid feature %d", int(f))
		}
	}
	return nil
}

func (o Options) features() []Feature {
	if o.Features == nil {
		return Dimensionality
	}
	return o.Features
}

func (o Options) minK() int {
	if o.MinK > 0 {
		return o.MinK
	}
	return DefaultMinK
}

// Result holds the features of every point.
type Result struct {
	// Features names the columns of Values.
	Features []Feature
	// Values[j][i] is feature Features[j] of point i; 0 for a skipped point
	// (what PDAL leaves in its new dimensions there).
	Values [][]float64
	// Skip flags the points without features: a radius neighbourhood
	// smaller than MinK, or a covariance within ZeroCovariance of 0
	// (coincident points), or a neighbourhood of one point.
	Skip []bool
	// Reach is, per point, the distance within which its features depend
	// on the points alone (and on their order): the radius, or the float32
	// distance to the farthest of its K + knn.Spare nearest candidates
	// (knn.Nearest; +Inf where the cloud has fewer).
	Reach []float64
}

// Compute computes the covariance features of every point of xyz
// (interleaved x, y, z, float32 relative to a local origin) with backend
// b, as PDAL's filters.covariancefeatures does (docs/features.md).
//
// A point's neighbourhood is the point itself and its K nearest others,
// ranked in float64 from the coordinates (knn.Nearest), or the points
// within Radius sorted by distance (knn.Within), listed as PDAL's KD3Index
// lists them; the backend finds them. Its covariance is PDAL's
// math::computeCovariance of the float64 coordinates Pos + Origin
// (eigen.PDALCovariance: running centroid, offsets from it rounded to
// float32, A·Aᵀ/(n-1) in float64); the features come from its
// eigenvalues, clamped at 0, and eigenvectors.
func Compute(xyz []float32, b findneighbor.Backend, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	n, err := findneighbor.CheckPoints("features", xyz)
	if err != nil {
		return nil, err
	}
	pos, err := knn.Positions("features", xyz, opts.Pos, opts.Origin)
	if err != nil {
		return nil, err
	}
	fs := opts.features()
	res := &Result{Features: fs, Values: make([][]float64, len(fs))}
	for j := range fs {
		res.Values[j] = make([]float64, n)
	}
	minN := opts.minN()
	want := wanted(fs)
	res.Skip = make([]bool, n)
	set := func(p int, ids []int32) {
		var vals [numFeatures]float64
		if len(ids) < minN || !point(eigen.PDALCovariance(pos, ids), opts.Mode, &want, &vals) {
			res.Skip[p] = true
			return
		}
		for c, f := range fs {
			res.Values[c][p] = vals[f]
		}
	}
	if opts.Radius > 0 {
		res.Reach = make([]float64, n)
		for i := range res.Reach {
			res.Reach[i] = opts.Radius
		}
		err = knn.Within("features", xyz, b, opts.Radius, opts.Build, set)
	} else {
		res.Reach, err = knn.Nearest("features", xyz, pos, b, opts.K+1, 1, opts.Build, set)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Skipped counts the points without features (Skip).
func (r *Result) Skipped() int {
	n := 0
	for _, s := range r.Skip {
		if s {
			n++
		}
	}
	return n
}

// point stores in vals the features of the neighbourhood whose covariance
// is c, following PDAL's CovarianceFeaturesFilter::setDimensionality step
// by step: those want says, and the cheap ones. It reports false for a
// neighbourhood that gets none: a zero covariance.
func point(c eigen.Sym3, mode Mode, want *[numFeatures]bool, vals *[numFeatures]float64) bool {
	if eigen.IsZero(c) {
		return false
	}
	e := eigen.Decompose(c)
	// PDAL's lambda: descending, clamped at 0; sum before the mode.
	l := [3]float64{max(e.Values[2], 0), max(e.Values[1], 0), max(e.Values[0], 0)}
	v1, v2, v3 := e.Vectors[2], e.Vectors[1], e.Vectors[0]
	sum := l[0] + l[1] + l[2]
	if l[0] == 0 {
		return false
	}
	switch mode {
	case SQRT:
		for i := range l {
			l[i] = math.Sqrt(l[i])
		}
	case Normalized:
		for i := range l {
			l[i] /= sum
		}
	}
	vals[Linearity] = (l[0] - l[1]) / l[0]
	vals[Planarity] = (l[1] - l[2]) / l[0]
	vals[Scattering] = l[2] / l[0]
	var u [3]float64
	for i := range u {
		u[i] = l[0]*math.Abs(v1[i]) + l[1]*math.Abs(v2[i]) + l[2]*math.Abs(v3[i])
	}
	vals[Verticality] = u[2] / math.Sqrt(u[0]*u[0]+u[1]*u[1]+u[2]*u[2])
	if want[Omnivariance] {
		vals[Omnivariance] = math.Cbrt(l[2] * l[1] * l[0])
	}
	vals[EigenvalueSum] = sum
	if want[Eigenentropy] {
		vals[Eigenentropy] = -(l[2]*math.Log(l[2]) + l[1]*math.Log(l[1]) + l[0]*math.Log(l[0]))
	}
	vals[Anisotropy] = (l[0] - l[2]) / l[0]
	vals[SurfaceVariation] = l[2] / sum
	vals[DemantkeVerticality] = 1 - math.Abs(v3[2])
	return true
}

// minN is the fewest points, the point itself counted, that get features:
// two for a covariance divided by n-1, MinK with a radius.
func (o Options) minN() int {
	if o.Radius > 0 {
		return max(2, o.minK())
	}
	return 2
}

// wanted flags the features of fs.
func wanted(fs []Feature) [numFeatures]bool {
	var want [numFeatures]bool
	for _, f := range fs {
		want[f] = true
	}
	return want
}
