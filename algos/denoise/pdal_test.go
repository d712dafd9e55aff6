package denoise

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestPDALHand checks the PDAL convention on cases worked out by hand.
func TestPDALHand(t *testing.T) {
	cpu := findneighbor.CPU()
	// K 1 on 0 1 2 3 10: means 1 1 1 1 7; Welford mean 2.2, M2 =
	// 4·1.2² + 4.8² = 28.8, variance 7.2, threshold (×1) 2.2 + √7.2 =
	// 4.883: point 4 only.
	r, err := Statistical(line(0, 1, 2, 3, 10), cpu, StatisticalOptions{K: 1, StdRatio: 1, Convention: PDAL})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.MeanDist, []float64{1, 1, 1, 1, 7}) || !near(r.Mean, 2.2) || !near(r.Std, math.Sqrt(7.2)) || !slices.Equal(flagged(r.Outlier), []int{4}) {
		t.Errorf("K 1: means %v, mean %g, std %g, outliers %v; want [1 1 1 1 7], 2.2, %g, [4]", r.MeanDist, r.Mean, r.Std, flagged(r.Outlier), math.Sqrt(7.2))
	}
	// K 4 on 0 1 3: fewer other points than K, PDAL's missing slots are 0:
	// point 0's distances 1, 3, 0, 0: running mean 1, 2, 4/3, 1.
	r, err = Statistical(line(0, 1, 3), cpu, StatisticalOptions{K: 4, Convention: PDAL})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 0.75, 1.25}; !slices.Equal(r.MeanDist, want) {
		t.Errorf("K 4 on 3 points: means %v, want %v", r.MeanDist, want)
	}
	// One point: variance 0/0, threshold NaN, every point an outlier, so
	// none is flagged.
	r, err = Statistical(line(5), cpu, StatisticalOptions{Convention: PDAL})
	if err != nil {
		t.Fatal(err)
	}
	if !r.AllOutliers || r.Outliers != 0 || r.Outlier[0] {
		t.Errorf("one point: %+v, want AllOutliers and no flag", r)
	}
	for _, c := range []struct {
		xyz    []float32
		radius float64
		minK   int
		want   []int
		all    bool
	}{
		// At exactly the radius nothing counts: all outliers, none flagged.
		{line(0, 1, 2), 1, 1, nil, true},
		{line(0, 1, 2), 1.0000001, 1, nil, false},
		{line(0, 1, 2, 5), 1.5, 1, []int{3}, false},
		{line(0, 1, 2, 5), 2.5, 2, []int{3}, false}, // 0 and 2 have two others < 2.5
		{line(0, 1, 2, 5), 2, 2, []int{0, 2, 3}, false},
	} {
		r, err := Radius(c.xyz, cpu, RadiusOptions{Radius: c.radius, MinNeighbors: c.minK, Convention: PDAL})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(flagged(r.Outlier), c.want) || r.AllOutliers != c.all {
			t.Errorf("radius %g min_k %d: outliers %v (all %v), want %v (all %v)", c.radius, c.minK, flagged(r.Outlier), r.AllOutliers, c.want, c.all)
		}
	}
	if _, err := Radius(line(0, 1), cpu, RadiusOptions{Radius: 1, Convention: PDAL, TileSize: 4}); err == nil {
		t.Error("PDAL with a tile size: no error")
	}
	if _, err := Radius(line(0, 1), cpu, RadiusOptions{Radius: 1, Pos: []float64{0, 0, 0, 1, 0, 0}}); err == nil {
		t.Error("PCL with float64 positions: no error")
	}
}

// pdalMeanRef is the brute-force reference of the PDAL mean distances: all
// other points' float64 distances sorted, the running mean of the K first
// (zeros past the last).
func pdalMeanRef(xyz []float32, k int) []float64 {
	n := len(xyz) / 3
	out := make([]float64, n)
	for i := range n {
		var d []float64
		for j := range n {
			if j == i {
				continue
			}
			d2 := 0.0
			for a := range 3 {
				v := float64(xyz[3*i+a]) - float64(xyz[3*j+a])
				d2 += v * v
			}
			d = append(d, math.Sqrt(d2))
		}
		slices.Sort(d)
		for j := 1; j <= k; j++ {
			v := 0.0
			if j <= len(d) {
				v = d[j-1]
			}
			out[i] += (v - out[i]) / float64(j)
		}
	}
	return out
}

// TestPDALBackends holds the PDAL means to the brute-force reference on
// every usable backend, bit for bit.
func TestPDALBackends(t *testing.T) {
	for _, c := range fntest.Clouds(11, 800) {
		for _, k := range []int{1, 8, 15} {
			algotest.Check(t, fmt.Sprintf("%s/k%d", c.Name, k), func(b findneighbor.Backend) ([]float64, error) {
				r, err := Statistical(c.XYZ, b, StatisticalOptions{K: k, Convention: PDAL})
				if err != nil {
					return nil, err
				}
				return r.MeanDist, nil
			}, pdalMeanRef(c.XYZ, k), algotest.Exact[float64])
		}
	}
}

// TestPDALReach checks the stage driver's contract (algotest.CheckReach):
// a point's PDAL mean distance (K 8) and radius count (radius 0.2) from
// the points of a box holding its Reach are its whole-cloud values.
func TestPDALReach(t *testing.T) {
	algotest.CheckReach(t, func(xyz []float32, b findneighbor.Backend) ([][]float64, []float64, error) {
		r, err := Statistical(xyz, b, StatisticalOptions{Convention: PDAL})
		if err != nil {
			return nil, nil, err
		}
		return [][]float64{r.MeanDist}, r.Reach, nil
	})
	algotest.CheckReach(t, func(xyz []float32, b findneighbor.Backend) ([][]float64, []float64, error) {
		o := RadiusOptions{Radius: 0.2, MinNeighbors: 2, Convention: PDAL}
		r, err := Radius(xyz, b, o)
		if err != nil {
			return nil, nil, err
		}
		return [][]float64{algotest.Floats(r.Counts)}, r.Reach, nil
	})
}

// TestPDALOutlier runs filters.outlier on PDAL 2.9.2 and the PDAL
// convention on the same LAS files (float64 positions), and holds every
// point's Classification equal.
func TestPDALOutlier(t *testing.T) {
	for _, c := range []struct {
		file  string
		stage map[string]any
	}{
		{"../../testdata/haystack_rock.las", map[string]any{"method": "statistical"}},
		{"autzen", map[string]any{"method": "statistical", "mean_k": 12, "multiplier": 1.5}},
		{"../../testdata/haystack_rock.las", map[string]any{"method": "radius"}},
		{"autzen", map[string]any{"method": "radius", "radius": 3.0, "min_k": 6, "class": 18}},
	} {
		t.Run(fmt.Sprintf("%s/%v", filepath.Base(c.file), c.stage["method"]), func(t *testing.T) {
			file := c.file
			if file == "autzen" {
				file = algotest.SharedFile(t, "pdal/las/autzen_trim.las")
			}
			c.stage["type"] = "filters.outlier"
			pc, ptook := algotest.PDALFilter(t, file, c.stage)
			in, _, err := pcio.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			l := algotest.ReadLocal(t, file)
			pos := l.Pos
			num := func(k string, def float64) float64 {
				if v, ok := c.stage[k]; ok {
					return toF(v)
				}
				return def
			}
			var outlier []bool
			var ties int
			if c.stage["method"] == "statistical" {
				r, err := Statistical(l.XYZ, findneighbor.CPU(), StatisticalOptions{K: int(num("mean_k", 8)), StdRatio: num("multiplier", 2), Convention: PDAL, Pos: pos})
				if err != nil {
					t.Fatal(err)
				}
				outlier, ties = r.Outlier, r.NearTies
			} else {
				r, err := Radius(l.XYZ, findneighbor.CPU(), RadiusOptions{Radius: num("radius", 1), MinNeighbors: int(num("min_k", PDALMinK)), Convention: PDAL, Pos: pos})
				if err != nil {
					t.Fatal(err)
				}
				outlier = r.Outlier
			}
			class := uint8(num("class", 7))
			before := in.Attr(core.DimClassification).Data.([]uint8)
			want := pc.Attr(core.DimClassification).Data.([]uint8)
			bad, flags := 0, 0
			for i, o := range outlier {
				got := before[i]
				if o {
					got = class
					flags++
				}
				if got != want[i] {
					if bad++; bad <= 3 {
						t.Errorf("point %d: class %d, PDAL %d", i, got, want[i])
					}
				}
			}
			t.Logf("%d points, %d outliers, %d classes differ, %d near ties at the K-th neighbour; PDAL pipeline %v", len(want), flags, bad, ties, ptook)
		})
	}
}

func toF(v any) float64 {
	switch v := v.(type) {
	case int:
		return float64(v)
	case float64:
		return v
	}
	return math.NaN()
}

// BenchmarkPDALStatistical times the PDAL convention of Statistical (cpu,
// float64 distances) on autzen_trim.las (110,000 points) with PDAL's
// defaults (mean_k 8, multiplier 2) and reports, as pdal-ms, the wall
// time of PDAL 2.9.2 running filters.outlier (reading and writing
// included).
//
//	go test -run XXX -bench PDALStatistical -benchtime 3x ./algos/denoise
func BenchmarkPDALStatistical(b *testing.B) {
	file := algotest.SharedFile(b, "pdal/las/autzen_trim.las")
	in, _, err := pcio.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	xyz := in.Local(false).XYZ
	_, ptook := algotest.PDALFilter(b, file, map[string]any{"type": "filters.outlier"})
	for b.Loop() {
		if _, err := Statistical(xyz, findneighbor.CPU(), StatisticalOptions{Convention: PDAL}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ptook.Milliseconds()), "pdal-ms")
}
