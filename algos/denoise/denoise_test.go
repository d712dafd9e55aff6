package denoise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// line returns points on the x axis at the given positions.
func line(xs ...float32) []float32 {
	xyz := make([]float32, 3*len(xs))
	for i, x := range xs {
		xyz[3*i] = x
	}
	return xyz
}

func brute(t testing.TB) findneighbor.Backend {
	t.Helper()
	b, err := findneighbor.Get("brute")
	if err != nil {
		t.Fatalf("brute backend: %v", err)
	}
	return b
}

// flagged returns the indices of the true entries.
func flagged(f []bool) []int {
	var out []int
	for i, v := range f {
		if v {
			out = append(out, i)
		}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// TestStatisticalHand checks means, deviations, thresholds and flags worked
// out by hand (the derivation is in each case's comment).
func TestStatisticalHand(t *testing.T) {
	tests := []struct {
		name                 string
		xyz                  []float32
		opts                 StatisticalOptions
		mean, std, threshold float64
		meanDist             []float64
		outliers             []int
	}{
		{
			// means 1 1 1 1 7: Σ 11, Σd² 53, var (53 - 121/5)/4 = 7.2.
			name: "pcl sample", xyz: line(0, 1, 2, 3, 10),
			opts: StatisticalOptions{K: 1, StdRatio: 1},
			mean: 2.2, std: math.Sqrt(7.2), threshold: 2.2 + math.Sqrt(7.2),
			meanDist: []float64{1, 1, 1, 1, 7}, outliers: []int{4},
		},
		{
			// same means, population variance 28.8/5 = 5.76.
			name: "pcl population", xyz: line(0, 1, 2, 3, 10),
			opts: StatisticalOptions{K: 1, StdRatio: 1, PopulationStd: true},
			mean: 2.2, std: 2.4, threshold: 4.6,
			meanDist: []float64{1, 1, 1, 1, 7}, outliers: []int{4},
		},
		{
			// K=2: means (1+2)/2, (1+1)/2, 1, (1+2)/2, (7+8)/2: Σ 12.5,
			// Σd² 62.75, var (62.75 - 12.5²/5)/4 = 7.875.
			name: "pcl k2", xyz: line(0, 1, 2, 3, 10),
			opts: StatisticalOptions{K: 2, StdRatio: 1},
			mean: 2.5, std: math.Sqrt(7.875), threshold: 2.5 + math.Sqrt(7.875),
			meanDist: []float64{1.5, 1, 1, 1.5, 7.5}, outliers: []int{4},
		},
		{
			// means 1 1 3 3: mean 2, population std 1, threshold 3 exactly;
			// PCL keeps a point at the threshold (outlier only when >).
			name: "pcl keeps the threshold", xyz: line(0, 1, 10, 13),
			opts: StatisticalOptions{K: 1, StdRatio: 1, PopulationStd: true},
			mean: 2, std: 1, threshold: 3,
			meanDist: []float64{1, 1, 3, 3}, outliers: nil,
		},
		{
			// Open3D K=2 counts the point: means d/2 = .5 .5 1.5 1.5, mean 1,
			// std .5, threshold 1.5; Open3D keeps only means < threshold.
			name: "open3d drops the threshold", xyz: line(0, 1, 10, 13),
			opts: StatisticalOptions{K: 2, StdRatio: 1, PopulationStd: true, Convention: Open3D},
			mean: 1, std: .5, threshold: 1.5,
			meanDist: []float64{.5, .5, 1.5, 1.5}, outliers: []int{2, 3},
		},
		{
			// PCL K=1: means 0 0 1 1 14, Σ 16, Σd² 198, var (198-51.2)/4 = 36.7;
			// duplicates (mean 0) are kept.
			name: "pcl duplicates", xyz: line(0, 0, 5, 6, 20),
			opts: StatisticalOptions{K: 1, StdRatio: 1},
			mean: 3.2, std: math.Sqrt(36.7), threshold: 3.2 + math.Sqrt(36.7),
			meanDist: []float64{0, 0, 1, 1, 14}, outliers: []int{4},
		},
		{
			// Open3D K=2: means 0 0 .5 .5 7; zeros add nothing but count in
			// n=5: mean 8/5, Σ(d-1.6)² over d>0 = 2·1.21 + 29.16 = 31.58,
			// std √(31.58/4); duplicates (mean 0) are removed.
			name: "open3d duplicates", xyz: line(0, 0, 5, 6, 20),
			opts: StatisticalOptions{K: 2, StdRatio: 1, Convention: Open3D},
			mean: 1.6, std: math.Sqrt(31.58 / 4), threshold: 1.6 + math.Sqrt(31.58/4),
			meanDist: []float64{0, 0, .5, .5, 7}, outliers: []int{0, 1, 4},
		},
		{
			// K beyond the cloud: each point averages its 2 other points,
			// (1+3)/2, (1+2)/2, (3+2)/2; var (.25+.25)/2.
			name: "k beyond n", xyz: line(0, 1, 3),
			opts: StatisticalOptions{K: 50, StdRatio: 1},
			mean: 2, std: .5, threshold: 2.5,
			meanDist: []float64{2, 1.5, 2.5}, outliers: nil,
		},
		{
			// A negative ratio puts the threshold below the mean.
			name: "negative ratio", xyz: line(0, 1, 2, 3, 10),
			opts: StatisticalOptions{K: 1, StdRatio: -.5, PopulationStd: true},
			mean: 2.2, std: 2.4, threshold: 1,
			meanDist: []float64{1, 1, 1, 1, 7}, outliers: []int{4},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Statistical(tc.xyz, brute(t), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !near(r.Mean, tc.mean) || !near(r.Std, tc.std) || !near(r.Threshold, tc.threshold) {
				t.Errorf("got mean %g std %g threshold %g, want %g %g %g", r.Mean, r.Std, r.Threshold, tc.mean, tc.std, tc.threshold)
			}
			for i, d := range tc.meanDist {
				if !near(r.MeanDist[i], d) {
					t.Errorf("point %d: got mean distance %g, want %g", i, r.MeanDist[i], d)
				}
			}
			if got := flagged(r.Outlier); !slices.Equal(got, tc.outliers) {
				t.Errorf("got outliers %v, want %v", got, tc.outliers)
			}
			if r.Outliers != len(tc.outliers) {
				t.Errorf("got Outliers %d, want %d", r.Outliers, len(tc.outliers))
			}
			if r.Valid != len(tc.meanDist) {
				t.Errorf("got Valid %d, want %d", r.Valid, len(tc.meanDist))
			}
		})
	}
}

// TestStatisticalTiny covers clouds too small for statistics.
func TestStatisticalTiny(t *testing.T) {
	r, err := Statistical(nil, brute(t), StatisticalOptions{})
	if err != nil || len(r.Outlier) != 0 || r.Outliers != 0 {
		t.Fatalf("empty cloud: got %+v, %v; want no points, no error", r, err)
	}
	// One point under PCL: no neighbour, no statistics, kept.
	r, err = Statistical(line(5), brute(t), StatisticalOptions{K: 3})
	if err != nil || r.Outlier[0] || r.Valid != 0 || r.MeanDist[0] != 0 {
		t.Fatalf("one point (pcl): got outlier %v valid %d mean %g, %v; want kept, 0 valid, 0", r.Outlier[0], r.Valid, r.MeanDist[0], err)
	}
	// Under Open3D its mean is 0, and Open3D removes points of mean 0.
	r, err = Statistical(line(5), brute(t), StatisticalOptions{K: 3, Convention: Open3D})
	if err != nil || !r.Outlier[0] {
		t.Fatalf("one point (open3d): got outlier %v, %v; want removed", r.Outlier[0], err)
	}
	// Two points: sample deviation of two equal means is 0; both kept.
	r, err = Statistical(line(0, 2), brute(t), StatisticalOptions{K: 1})
	if err != nil || r.Outliers != 0 || r.Mean != 2 || r.Std != 0 {
		t.Fatalf("two points: got %d outliers mean %g std %g, %v; want 0, 2, 0", r.Outliers, r.Mean, r.Std, err)
	}
}

func TestRadiusHand(t *testing.T) {
	// Other points within 1 (inclusive): 0→{1}, 1→{0,2}, 2→{1,2.5}, 2.5→{2}, 10→{}.
	xyz := line(0, 1, 2, 2.5, 10)
	counts := []uint32{1, 2, 2, 1, 0}
	tests := []struct {
		name     string
		opts     RadiusOptions
		outliers []int
	}{
		{"two others", RadiusOptions{Radius: 1, MinNeighbors: 2}, []int{0, 3, 4}},
		{"one other", RadiusOptions{Radius: 1, MinNeighbors: 1}, []int{4}},
		{"two counting self", RadiusOptions{Radius: 1, MinNeighbors: 2, CountSelf: true}, []int{4}},
		{"one counting self", RadiusOptions{Radius: 1, MinNeighbors: 1, CountSelf: true}, nil},
		{"zero keeps all", RadiusOptions{Radius: 1}, nil},
		{"three others", RadiusOptions{Radius: 1, MinNeighbors: 3}, []int{0, 1, 2, 3, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Radius(xyz, brute(t), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Counts, counts) {
				t.Errorf("got counts %v, want %v", r.Counts, counts)
			}
			if got := flagged(r.Outlier); !slices.Equal(got, tc.outliers) || r.Outliers != len(tc.outliers) {
				t.Errorf("got outliers %v (%d), want %v", got, r.Outliers, tc.outliers)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string // substring of the error, "" for none
	}{
		{"statistical zero value", StatisticalOptions{}.Validate(), ""},
		{"statistical negative k", StatisticalOptions{K: -1}.Validate(), "k -1: want ≥ 1"},
		{"statistical nan ratio", StatisticalOptions{StdRatio: math.NaN()}.Validate(), "finite"},
		{"statistical inf ratio", StatisticalOptions{StdRatio: math.Inf(1)}.Validate(), "finite"},
		{"statistical convention", StatisticalOptions{Convention: 7}.Validate(), "unknown convention"},
		{"radius zero value", RadiusOptions{}.Validate(), "radius 0: want a finite number > 0"},
		{"radius negative", RadiusOptions{Radius: -1}.Validate(), "radius "},
		{"radius nan", RadiusOptions{Radius: math.NaN()}.Validate(), "radius "},
		{"radius beyond float32", RadiusOptions{Radius: 1e300}.Validate(), "float32 range"},
		{"radius underflows float32", RadiusOptions{Radius: 1e-300}.Validate(), "radius "},
		{"radius negative min", RadiusOptions{Radius: 1, MinNeighbors: -2}.Validate(), "min_neighbors -2: want ≥ 0"},
		{"radius ok", RadiusOptions{Radius: .1, MinNeighbors: 5}.Validate(), ""},
	}
	for _, tc := range tests {
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("%s: got error %v, want none", tc.name, tc.err)
		case tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)):
			t.Errorf("%s: got error %v, want one containing %q", tc.name, tc.err, tc.want)
		}
	}
	if _, err := Statistical(make([]float32, 4), brute(t), StatisticalOptions{}); err == nil {
		t.Error("Statistical with 4 coordinates: got no error, want one")
	}
	if _, err := Radius(make([]float32, 5), brute(t), RadiusOptions{Radius: 1}); err == nil {
		t.Error("Radius with 5 coordinates: got no error, want one")
	}
}

func TestParseConvention(t *testing.T) {
	for _, c := range []Convention{PCL, Open3D, PDAL} {
		got, err := ParseConvention(strings.ToUpper(c.String()))
		if err != nil || got != c {
			t.Errorf("ParseConvention(%q): got %v, %v; want %v", c.String(), got, err, c)
		}
	}
	if _, err := ParseConvention("sklearn"); err == nil {
		t.Error(`ParseConvention("sklearn"): got no error, want one`)
	}
}

// TestKNNDistancesExact compares knnDistances (the k-nearest moments' Dist,
// in blocks) with the distance sums of brute-force plain kNN on clouds
// that take every path: an even surface and a density falling off with
// distance (on brute force, finite-radius rounds in blocks in cell order;
// on the cpu backend, its kd-tree, all points at once), far isolated
// points (the radius doubled, then no limit), more than k+1 coincident
// points, and clouds of no more than k points; on the cpu backend and on
// brute force's rounds.
func TestKNNDistancesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 3))
	even := make([]float32, 0, 3*6000)
	for range 6000 {
		even = append(even, r.Float32()*50, r.Float32()*50, r.Float32()*0.1)
	}
	// Density falling off over three orders of magnitude, as in a
	// terrestrial scan away from the scanner.
	uneven := make([]float32, 0, 3*6000)
	for range 6000 {
		s := float32(math.Exp(r.Float64() * 7))
		uneven = append(uneven, r.Float32()*s, r.Float32()*s, r.Float32()*0.01)
	}
	far := slices.Clone(even[:3*2000])
	for i := range 10 {
		d := float32(math.Pow(5, float64(i)))
		far = append(far, d, -d, d)
	}
	dups := make([]float32, 0, 3*900)
	for range 900 {
		p := r.IntN(40)
		dups = append(dups, float32(p%6), float32(p/6), 0)
	}
	clouds := []struct {
		name string
		xyz  []float32
	}{{"even", even}, {"uneven", uneven}, {"far points", far}, {"duplicates", dups},
		{"three points", line(0, 1, 5)}, {"one point", line(2)}}
	for _, be := range []findneighbor.Backend{findneighbor.CPU(), brute(t)} {
		for _, c := range clouds {
			n := len(c.xyz) / 3
			ref, err := brute(t).Build(c.xyz, float32(math.Inf(1)), findneighbor.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []int{1, 8, 30} {
				kk := min(k, n-1)
				if kk == 0 {
					continue
				}
				idx, dist := make([]int32, n*kk), make([]float32, n*kk)
				if err := ref.KNearest(nil, kk, idx, dist); err != nil {
					t.Fatal(err)
				}
				sum, found := make([]float64, n), make([]int, n)
				if err := knnDistances(c.xyz, be, kk, 0, findneighbor.BuildOptions{}, sum, found); err != nil {
					t.Fatal(err)
				}
				for i := range n {
					var want float64
					for _, d := range dist[i*kk : (i+1)*kk] {
						want += float64(d)
					}
					if found[i] != kk || math.Abs(sum[i]-want) > 1e-12*want {
						t.Fatalf("%s backend, %s, k=%d: point %d: %d found, sum %v; want %d, %v", be.Name(), c.name, kk, i, found[i], sum[i], kk, want)
					}
				}
			}
			ref.Close()
		}
	}
}

// TestRadiusOnEveryBackend holds Radius to a brute-force count on every
// usable backend, and to the cpu backend's flags (algotest).
func TestRadiusOnEveryBackend(t *testing.T) {
	for _, c := range fntest.Clouds(5, 500) {
		for _, tc := range []struct {
			r    float64
			min  int
			self bool
		}{{0.05, 1, false}, {0.1, 3, false}, {0.1, 3, true}} {
			counts := algotest.Counts(c.XYZ, float32(tc.r))
			want := make([]bool, len(counts))
			for i, n := range counts {
				if tc.self {
					n++
				}
				want[i] = int(n) < tc.min
			}
			algotest.Check(t, fmt.Sprintf("%s r=%g min=%d self=%v", c.Name, tc.r, tc.min, tc.self), func(b findneighbor.Backend) ([]bool, error) {
				res, err := Radius(c.XYZ, b, RadiusOptions{Radius: tc.r, MinNeighbors: tc.min, CountSelf: tc.self})
				if err != nil {
					return nil, err
				}
				return res.Outlier, nil
			}, want, algotest.Exact[bool])
		}
	}
}

// TestReductionAddAll checks that AddAll gives Add's statistics to the
// bit, under every convention, with points that found no neighbour.
func TestReductionAddAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	sums, found := make([]float64, 5000), make([]uint32, 5000)
	for i := range sums {
		sums[i] = rng.Float64() * 3
		if i%7 != 0 {
			found[i] = uint32(1 + rng.IntN(9))
		}
	}
	for _, conv := range []Convention{PCL, Open3D, PDAL} {
		opts := StatisticalOptions{K: 8, Convention: conv}
		one, all := opts.NewReduction(), opts.NewReduction()
		for pass := range one.Passes() {
			for i, s := range sums {
				one.Add(pass, s, int(found[i]))
			}
			one.EndPass(pass)
			// In two calls, as the tiles of a run hand them in.
			all.AddAll(pass, sums[:1234], found[:1234])
			all.AddAll(pass, sums[1234:], found[1234:])
			all.EndPass(pass)
		}
		bits := func(r *Reduction) [6]uint64 {
			return [6]uint64{math.Float64bits(r.sum), math.Float64bits(r.sq), uint64(r.n), math.Float64bits(r.Mean), math.Float64bits(r.Threshold), uint64(r.Valid)}
		}
		if bits(one) != bits(all) || one.Valid == 0 || one.Threshold == 0 {
			t.Errorf("%v: AddAll gave %+v, Add %+v", conv, *all, *one)
		}
	}
}
