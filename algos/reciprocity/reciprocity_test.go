package reciprocity

import (
	"errors"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestPDALUnit is PDAL's test/unit/filters/ReciprocityFilterTest.cpp
// (BasicTest): five points on the diagonal, knn 3; PDAL asserts the first
// two, the others are worked out the same way.
func TestPDALUnit(t *testing.T) {
	xyz := []float32{0, 0, 0, 10, 10, 10, 11, 11, 11, 12, 12, 12, 18, 18, 18}
	res, err := Compute(xyz, findneighbor.CPU(), Options{KNN: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Only point 0 is no one's neighbour: 1, 2, 3 and 4 are each other's.
	want := []float64{100, 0, 0, 0, 0}
	if !slices.Equal(res.Reciprocity, want) {
		t.Errorf("Reciprocity %v, want %v", res.Reciprocity, want)
	}
}

// reference counts by brute force (algotest.BruteKNN).
func reference(xyz []float32, k int) []float64 {
	nb := algotest.BruteKNN(xyz, k)
	out := make([]float64, len(nb))
	for i := range nb {
		u := 0
		for _, j := range nb[i] {
			if !slices.Contains(nb[j], i) {
				u++
			}
		}
		out[i] = 100 * float64(u) / float64(k)
	}
	return out
}

// TestBruteForce holds Compute to the reference on every backend.
func TestBruteForce(t *testing.T) {
	for _, c := range fntest.Clouds(4, 300) {
		for _, k := range []int{1, 8, 30} {
			algotest.Check(t, c.Name, func(b findneighbor.Backend) ([]float64, error) {
				res, err := Compute(c.XYZ, b, Options{KNN: k})
				if err != nil {
					return nil, err
				}
				return res.Reciprocity, nil
			}, reference(c.XYZ, k), algotest.Exact[float64])
		}
	}
}

// TestReach checks that each point's Reciprocity depends only on the
// points within its Reach.
func TestReach(t *testing.T) {
	algotest.CheckReach(t, func(xyz []float32, b findneighbor.Backend) ([][]float64, []float64, error) {
		res, err := Compute(xyz, b, Options{KNN: 4})
		if err != nil {
			return nil, nil, err
		}
		return [][]float64{res.Reciprocity}, res.Reach, nil
	})
}

// TestValidate checks the options' errors and a cloud of one point.
func TestValidate(t *testing.T) {
	var pe *findneighbor.ParamError
	if _, err := Compute(nil, findneighbor.CPU(), Options{KNN: -2}); !errors.As(err, &pe) || pe.Param != "knn" {
		t.Errorf("knn -2: error %v, want a ParamError naming knn", err)
	}
	res, err := Compute([]float32{1, 2, 3}, findneighbor.CPU(), Options{})
	if err != nil || res.Reciprocity[0] != 0 {
		t.Errorf("one point: %v, %v, want 0", err, res)
	}
}

// TestPDAL runs PDAL 2.9.2's filters.reciprocity (knn 8) and Compute side
// by side on real scans: every value equal, but where a near tie within
// one hop may change a neighbourhood.
func TestPDAL(t *testing.T) {
	ties := func(s algotest.Local) []bool { return algotest.NearTies(t, s, DefaultKNN, 1, false) }
	algotest.SideBySide(t, "../..", map[string]any{"type": "filters.reciprocity"}, algotest.Cmp{Tol: 0, Ties: ties},
		func(s algotest.Local) (map[string][]float64, error) {
			res, err := Compute(s.XYZ, findneighbor.CPU(), Options{})
			if err != nil {
				return nil, err
			}
			return map[string][]float64{"Reciprocity": res.Reciprocity}, nil
		})
}

// BenchmarkCompute runs filters.reciprocity's defaults on autzen_trim
// (110,000 points).
func BenchmarkCompute(b *testing.B) {
	xyz := algotest.ReadLocal(b, algotest.SharedFile(b, "pdal/las/autzen_trim.las")).XYZ
	for b.Loop() {
		if _, err := Compute(xyz, findneighbor.CPU(), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
