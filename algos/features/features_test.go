package features

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/internal/eigen"
	"github.com/pctk/pctk/algos/internal/eigen/eigentest"
	"github.com/pctk/pctk/algos/internal/knn"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// Tolerances of the comparison with the brute-force reference.
const (
	// featureTol bounds |Δ| of the dimensionless features (ratios of
	// eigenvalues, entropies of normalised ones), relative above 1: both
	// sides compute PDAL's covariance (with float offsets) from the same
	// neighbourhood and decompose it with solvers accurate to about 1e-16
	// of the largest eigenvalue; the square roots of small eigenvalues get
	// sqrtNoise besides. Both tests pass at 1e-12 here (1e-6 before the
	// covariance followed PDAL's, from float32 moments).
	featureTol = 1e-11
	// gapTol: features made from eigenvectors (Verticality,
	// DemantkeVerticality) are compared only where the eigenvalues they
	// depend on differ by more than gapTol relative to the largest; below
	// it the eigenvectors are not determined.
	gapTol = 1e-3
	// flatTol: where the smallest eigenvalue is below flatTol relative to
	// the largest (3 or 4 points, always or nearly coplanar), it is
	// rounding noise of about 1e-16 relative, which Omnivariance's cube
	// root amplifies and Eigenentropy's logarithm turns into NaN or not
	// (a 0 eigenvalue); those two are then compared with a tolerance
	// scaled by the conditioning, or not at all.
	flatTol = 1e-9
)

// want is the reference: PDAL's setDimensionality, written out from its
// source with a brute-force neighbourhood listed as PDAL's KD3Index lists
// it (the point, then its K nearest others by float64 distance, ties by
// index; or those within the radius by pctk's float32 rule, by float32
// distance and index), PDAL's covariance (math::computeCovariance,
// eigen.PDALCovariance) and Jacobi's eigen-decomposition. ok is false where
// PDAL skips the point; cond holds (λ1-λ2)/λ1, (λ2-λ3)/λ1 and λ3/λ1 of the
// raw eigenvalues.
func want(xyz []float32, i int, o Options) (vals [numFeatures]float64, cond [3]float64, ok bool) {
	n := len(xyz) / 3
	pos, err := knn.Positions("test", xyz, nil, o.Origin)
	if err != nil {
		panic(err)
	}
	type nb struct {
		d float64
		j int
	}
	var others []nb
	for j := range n {
		if j == i {
			continue
		}
		dx, dy, dz := xyz[3*j]-xyz[3*i], xyz[3*j+1]-xyz[3*i+1], xyz[3*j+2]-xyz[3*i+2]
		d := dx*dx + dy*dy + dz*dz
		switch {
		case o.Radius > 0 && d > float32(o.Radius)*float32(o.Radius):
			continue
		case o.Radius > 0:
			others = append(others, nb{float64(d), j})
		default:
			others = append(others, nb{knn.Dist(pos, int32(i), int32(j)), j})
		}
	}
	slices.SortFunc(others, func(a, b nb) int {
		return cmp.Or(cmp.Compare(a.d, b.d), a.j-b.j)
	})
	if o.K > 0 && len(others) > o.K {
		others = others[:o.K]
	}
	ids := []int32{int32(i)}
	for _, x := range others {
		ids = append(ids, int32(x.j))
	}
	if len(ids) < 2 || (o.Radius > 0 && len(ids) < o.minK()) {
		return vals, cond, false
	}
	b := eigen.PDALCovariance(pos, ids)
	zero := true
	for k := range b {
		zero = zero && math.Abs(b[k]) <= 1e-12
	}
	if zero {
		return vals, cond, false
	}
	ev, vecs := eigentest.Jacobi([6]float64(b))
	l := [3]float64{max(ev[2], 0), max(ev[1], 0), max(ev[0], 0)}
	cond = [3]float64{(l[0] - l[1]) / l[0], (l[1] - l[2]) / l[0], l[2] / l[0]}
	sum := l[0] + l[1] + l[2]
	for k := range l {
		switch o.Mode {
		case SQRT:
			l[k] = math.Sqrt(l[k])
		case Normalized:
			l[k] /= sum
		}
	}
	v1, v2, v3 := vecs[2], vecs[1], vecs[0]
	var u [3]float64
	norm := 0.0
	for k := range 3 {
		u[k] = l[0]*math.Abs(v1[k]) + l[1]*math.Abs(v2[k]) + l[2]*math.Abs(v3[k])
		norm += u[k] * u[k]
	}
	vals = [numFeatures]float64{
		Linearity:           (l[0] - l[1]) / l[0],
		Planarity:           (l[1] - l[2]) / l[0],
		Scattering:          l[2] / l[0],
		Verticality:         u[2] / math.Sqrt(norm),
		Omnivariance:        math.Cbrt(l[2] * l[1] * l[0]),
		Anisotropy:          (l[0] - l[2]) / l[0],
		Eigenentropy:        -(l[2]*math.Log(l[2]) + l[1]*math.Log(l[1]) + l[0]*math.Log(l[0])),
		EigenvalueSum:       sum,
		SurfaceVariation:    l[2] / sum,
		DemantkeVerticality: 1 - math.Abs(v3[2]),
	}
	return vals, cond, true
}

// eigenNoise is the solvers' accuracy on the eigenvalues, relative to
// the largest: both are accurate to about 1e-16 of the matrix's norm.
const eigenNoise = 1e-15

// sqrtNoise bounds, relative to √λ1, how far the solvers' rounding of an
// eigenvalue λ (λ/λ1 = r) moves √λ: eigenNoise/(2√r), and √eigenNoise at
// most (λ at rounding level: 3 points, or exactly coplanar ones).
func sqrtNoise(r float64) float64 {
	return min(math.Sqrt(eigenNoise), eigenNoise/(2*math.Sqrt(max(r, 0))))
}

// agree reports whether feature f of a point, got, agrees with w, the
// reference's features of it: both NaN, or within featureTol (relative
// to values above 1) and, in sqrt mode, the square roots' sqrtNoise;
// eigenvector features only where the gaps of cond allow, Omnivariance and
// Eigenentropy as flatTol says.
func agree(f Feature, got float64, w *[numFeatures]float64, cond [3]float64, mode Mode) bool {
	want := w[f]
	flat := cond[2] < flatTol
	switch f {
	case Verticality:
		if min(cond[0], cond[1]) < gapTol {
			return true
		}
	case DemantkeVerticality:
		if cond[1] < gapTol {
			return true
		}
	case Eigenentropy, Omnivariance:
		if flat {
			return true
		}
	}
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) == math.IsNaN(got)
	}
	// Relative above 1: EigenvalueSum, Omnivariance, Eigenentropy and, in
	// sqrt mode, SurfaceVariation carry the cloud's units.
	tol := featureTol * max(math.Abs(want), 1)
	switch {
	case f == Omnivariance:
		// The cube root's condition number 1/3 times the relative error
		// of λ3, about 1e-16·λ1/λ3.
		tol = max(featureTol, eigenNoise/cond[2]) * max(math.Abs(want), 1e-30)
	case mode == SQRT && f != EigenvalueSum && f != DemantkeVerticality:
		// The features are ratios over √λ1 of √λ2 and √λ3, whose rounding
		// sqrtNoise bounds; SurfaceVariation is √λ3/Σ, √λ1/Σ times that,
		// λ1 being Σ/(1 + λ2/λ1 + λ3/λ1).
		noise := sqrtNoise(1-cond[0]) + sqrtNoise(cond[2])
		if sum := w[EigenvalueSum]; f == SurfaceVariation && sum > 0 {
			noise *= math.Sqrt(sum/(2-cond[0]+cond[2])) / sum
		}
		tol = max(tol, noise)
	}
	return math.Abs(got-want) <= tol
}

// clouds are the synthetic test clouds: noisy surfaces, a line, a
// volume, and duplicates.
func clouds(seed uint64) map[string][]float32 {
	rng := rand.New(rand.NewPCG(seed, 16))
	g := func(s float64) float32 { return float32(rng.NormFloat64() * s) }
	cs := map[string][]float32{}
	var plane, tilted, sphere, line, blob, dups []float32
	for range 600 {
		x, y := rng.Float64()*4-2, rng.Float64()*4-2
		plane = append(plane, float32(x), float32(y), g(0.02))
		tilted = append(tilted, float32(x), float32(y), float32(0.7*x-0.3*y)+g(0.01))
		u, v := rng.NormFloat64(), rng.NormFloat64()
		w := rng.NormFloat64()
		r := math.Sqrt(u*u + v*v + w*w)
		sphere = append(sphere, float32(3*u/r)+g(0.01), float32(3*v/r), float32(3*w/r))
		line = append(line, float32(x), 0.5*float32(x)+g(0.001), g(0.001))
		blob = append(blob, g(1), g(1), g(1))
	}
	for i := range 200 { // pairs and triples of coincident points
		p := []float32{float32(i % 17), float32(i % 5), 0}
		dups = append(dups, p...)
		dups = append(dups, p...)
		if i%3 == 0 {
			dups = append(dups, p...)
		}
	}
	cs["plane"], cs["tilted"], cs["sphere"], cs["line"], cs["blob"], cs["duplicates"] = plane, tilted, sphere, line, blob, dups
	return cs
}

// TestAgainstBruteForce holds every backend to the reference on every
// cloud, for k nearest and radius neighbourhoods and every mode.
func TestAgainstBruteForce(t *testing.T) {
	const seed = 7
	opts := []Options{
		{K: 10}, {K: 3, Mode: Raw}, {K: 25, Mode: Normalized}, {K: 10, Origin: [3]float64{600000, 5e6, 100}},
		{Radius: 0.3}, {Radius: 0.5, Mode: Raw, MinK: 8}, {Radius: 1.2, Mode: Normalized, Origin: [3]float64{600000, 5e6, 100}},
	}
	type ref struct {
		vals    [numFeatures]float64
		cond    [3]float64
		skipped bool
	}
	bs := fntest.Usable(t)
	for name, xyz := range clouds(seed) {
		for _, o := range opts {
			o.Features = All()
			refs := make([]ref, len(xyz)/3)
			skipped := 0
			for i := range refs {
				w, cond, ok := want(xyz, i, o)
				refs[i] = ref{w, cond, !ok}
				if !ok {
					skipped++
				}
			}
			for _, b := range bs {
				r, err := Compute(xyz, b, o)
				if err != nil {
					t.Fatalf("%s %s %+v: %v", b.Name(), name, o, err)
				}
				bad := 0
				for i, w := range refs {
					for j, f := range r.Features {
						if got := r.Values[j][i]; !agree(f, got, &w.vals, w.cond, o.Mode) {
							if bad++; bad <= 5 {
								t.Errorf("%s %s (seed %d) K %d radius %g mode %s: point %d %s = %.12g, want %.12g (gaps, λ3/λ1 %.3g)",
									b.Name(), name, seed, o.K, o.Radius, o.Mode, i, f, got, w.vals[f], w.cond)
							}
						}
					}
				}
				if r.Skipped() != skipped {
					t.Errorf("%s %s K %d radius %g: %d skipped, want %d", b.Name(), name, o.K, o.Radius, r.Skipped(), skipped)
				}
			}
		}
	}
}

// TestPDALCases runs the cases of PDAL's own test,
// test/unit/filters/CovarianceFeaturesTest.cpp, with its expected values:
// a vertical line (knn 3), a unit square (knn 10, more than the cloud
// holds) and a twisted quadrilateral.
func TestPDALCases(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		xyz  []float32
		k    int
		// want holds PDAL's ASSERT_FLOAT_EQ / ASSERT_NEAR values; NaN is
		// ASSERT_TRUE(isnan); tol 0 means float32 equality.
		want map[Feature]float64
		tol  float64
		// below and above hold PDAL's ASSERT_LE / ASSERT_GE bounds.
		below, above map[Feature]float64
	}{
		{"line", []float32{0, 0, 0, 0, 0, 1, 0, 0, 2}, 3, map[Feature]float64{
			Linearity: 1, Verticality: 1, Planarity: 0, Scattering: 0, Omnivariance: 0, Anisotropy: 1,
			Eigenentropy: nan, EigenvalueSum: 1, SurfaceVariation: 0, DemantkeVerticality: 1,
		}, 0, nil, nil},
		{"planarity", []float32{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, 10, map[Feature]float64{
			Verticality: 0, Planarity: 1, Scattering: 0, Omnivariance: 0, Anisotropy: 1,
			Eigenentropy: nan, SurfaceVariation: 0, DemantkeVerticality: 0,
		}, 0, map[Feature]float64{Linearity: 0.5}, nil},
		{"planarity sum", []float32{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, 10, map[Feature]float64{
			EigenvalueSum: 0.667,
		}, 0.001, nil, nil},
		{"scattering", []float32{0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 2}, 10, map[Feature]float64{
			Omnivariance: 0.458, Anisotropy: 0.864, Eigenentropy: 0.488, EigenvalueSum: 1.583,
			SurfaceVariation: 0.095, DemantkeVerticality: 0.492,
		}, 0.001, map[Feature]float64{Linearity: 0.5, Planarity: 1}, map[Feature]float64{Verticality: 0.5, Scattering: 0.1}},
	}
	for _, b := range fntest.Usable(t) {
		for _, tc := range cases {
			r, err := Compute(tc.xyz, b, Options{K: tc.k, Features: All()})
			if err != nil {
				t.Fatal(err)
			}
			for j, f := range r.Features {
				for i, got := range r.Values[j] {
					if w, ok := tc.want[f]; ok {
						var good bool
						switch {
						case math.IsNaN(w):
							good = math.IsNaN(got)
						case tc.tol == 0:
							// ASSERT_FLOAT_EQ: within 4 float32 ulps.
							good = math.Abs(float64(float32(got))-w) <= 4*float64(math.Nextafter32(float32(max(math.Abs(w), 1)), 2)-float32(max(math.Abs(w), 1)))
						default:
							good = math.Abs(got-w) <= tc.tol
						}
						if !good {
							t.Errorf("%s %s: point %d %s = %.9g, PDAL's test wants %g", b.Name(), tc.name, i, f, got, w)
						}
					}
					if w, ok := tc.below[f]; ok && !(got <= w) {
						t.Errorf("%s %s: point %d %s = %.9g, PDAL's test wants ≤ %g", b.Name(), tc.name, i, f, got, w)
					}
					if w, ok := tc.above[f]; ok && !(got >= w) {
						t.Errorf("%s %s: point %d %s = %.9g, PDAL's test wants ≥ %g", b.Name(), tc.name, i, f, got, w)
					}
				}
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		o   Options
		err string // "" for valid
	}{
		{Options{K: 10}, ""},
		{Options{Radius: 0.5, Mode: Normalized, Features: All()}, ""},
		{Options{}, "give k or a radius"},
		{Options{K: 5, Radius: 1}, "not both"},
		{Options{K: -1}, "k -1"},
		{Options{Radius: math.NaN()}, "radius"},
		{Options{Radius: math.Inf(1)}, "radius"},
		{Options{Radius: 1e-50}, "radius"},
		{Options{Radius: -1}, "radius"},
		{Options{K: 3, MinK: -1}, "min_k"},
		{Options{K: 3, Mode: 7}, "mode"},
		{Options{K: 3, Features: []Feature{numFeatures}}, "invalid feature"},
	} {
		err := tc.o.Validate()
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: Validate() = %v, want %q", tc.o, err, tc.err)
		}
	}
	if _, err := Compute([]float32{1, 2}, findneighbor.Brute(), Options{K: 3}); err == nil {
		t.Error("Compute of 2 coordinates: no error")
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Feature
		err  bool
	}{
		{"Dimensionality", Dimensionality, false},
		{"all", All(), false},
		{"eigenentropy, Linearity,linearity", []Feature{Linearity, Eigenentropy}, false},
		{"dimensionality,DemantkeVerticality", []Feature{Linearity, Planarity, Scattering, Verticality, DemantkeVerticality}, false},
		{"Density", nil, true},
		{"", nil, true},
	} {
		got, err := ParseFeatures(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("ParseFeatures(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
	for _, m := range []Mode{SQRT, Raw, Normalized} {
		if got, err := ParseMode(strings.ToUpper(m.String())); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", strings.ToUpper(m.String()), got, err)
		}
	}
	if _, err := ParseMode("log"); err == nil {
		t.Error("ParseMode(log): no error")
	}
}
