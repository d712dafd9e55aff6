package nndistance

import (
	"errors"
	"math"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// grid is readers.faux's grid of PDAL's NNDistanceTest: bounds [0, 10] in
// x, y and z, 1000 points, at the integers 0 to 9.
func grid() []float32 {
	var xyz []float32
	for z := range 10 {
		for y := range 10 {
			for x := range 10 {
				xyz = append(xyz, float32(x), float32(y), float32(z))
			}
		}
	}
	return xyz
}

// TestPDALUnit is PDAL's test/unit/filters/NNDistanceTest.cpp (kdist):
// the same grid, options and exact values (corner, edge, face and inner
// points of the grid).
func TestPDALUnit(t *testing.T) {
	xyz := grid()
	edges := func(i int) int {
		e := 0
		for a := range 3 {
			if v := xyz[3*i+a]; v == 0 || v == 9 {
				e++
			}
		}
		return e
	}
	r2 := math.Sqrt(2)
	cases := []struct {
		opts Options
		want func(e int) (float64, bool)
	}{
		{Options{Mode: Kth, K: 3}, func(int) (float64, bool) { return 1, true }},
		{Options{K: 4}, func(e int) (float64, bool) { return r2, e == 3 }},
		{Options{Mode: Avg, K: 6}, func(e int) (float64, bool) {
			return [...]float64{1, (5 + r2) / 6.0, (2 + r2) / 3.0, (1 + r2) / 2.0}[e], true
		}},
	}
	for _, c := range cases {
		res, err := Compute(xyz, findneighbor.CPU(), c.opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, got := range res.NNDistance {
			if want, ok := c.want(edges(i)); ok && got != want {
				t.Errorf("%+v: point %d (%v): NNDistance %v, want %v", c.opts, i, xyz[3*i:3*i+3], got, want)
			}
		}
	}
}

// reference is the k-th or mean distance to the k nearest by brute
// force (algotest.BruteKNN), in float64.
func reference(xyz []float32, k int, avg bool) []float64 {
	n := len(xyz) / 3
	out := make([]float64, n)
	for i, nb := range algotest.BruteKNN(xyz, k) {
		for _, j := range nb {
			var s float64
			for a := range 3 {
				d := float64(xyz[3*i+a]) - float64(xyz[3*j+a])
				s += d * d
			}
			if avg {
				out[i] += math.Sqrt(s) / float64(len(nb))
			} else {
				out[i] = max(out[i], math.Sqrt(s))
			}
		}
	}
	return out
}

// TestBruteForce holds Compute to the reference on every backend.
func TestBruteForce(t *testing.T) {
	for _, c := range fntest.Clouds(3, 300) {
		for _, mode := range []Mode{Kth, Avg} {
			for _, k := range []int{1, 8, 400} {
				algotest.Check(t, c.Name+"/"+string(mode), func(b findneighbor.Backend) ([]float64, error) {
					res, err := Compute(c.XYZ, b, Options{Mode: mode, K: k})
					if err != nil {
						return nil, err
					}
					return res.NNDistance, nil
				}, reference(c.XYZ, k, mode == Avg), algotest.Rel(1e-12))
			}
		}
	}
}

// TestReach checks that each point's NNDistance depends only on the points
// within its Reach.
func TestReach(t *testing.T) {
	for _, mode := range []Mode{Kth, Avg} {
		algotest.CheckReach(t, func(xyz []float32, b findneighbor.Backend) ([][]float64, []float64, error) {
			res, err := Compute(xyz, b, Options{Mode: mode, K: 5})
			if err != nil {
				return nil, nil, err
			}
			return [][]float64{res.NNDistance}, res.Reach, nil
		})
	}
}

// TestValidate checks the options' errors.
func TestValidate(t *testing.T) {
	var pe *findneighbor.ParamError
	if _, err := Compute(nil, findneighbor.CPU(), Options{K: -1}); !errors.As(err, &pe) || pe.Param != "k" {
		t.Errorf("k -1: error %v, want a ParamError naming k", err)
	}
	if _, err := Compute(nil, findneighbor.CPU(), Options{Mode: "median"}); !errors.As(err, &pe) || pe.Param != "mode" {
		t.Errorf("mode median: error %v, want a ParamError naming mode", err)
	}
	// Reach +Inf: a lone point's 0 holds only where no other point is,
	// however far (knn.Table.Short).
	res, err := Compute([]float32{1, 2, 3}, findneighbor.CPU(), Options{})
	if err != nil || res.NNDistance[0] != 0 || !math.IsInf(res.Reach[0], 1) {
		t.Errorf("one point: %v, %v, want 0 and reach +Inf", err, res)
	}
}

// TestPDAL runs PDAL 2.9.2's filters.nndistance and Compute side by side
// on real scans, both modes, every value within 1e-9 relative.
func TestPDAL(t *testing.T) {
	for _, mode := range []Mode{Kth, Avg} {
		t.Run(string(mode), func(t *testing.T) {
			ties := func(s algotest.Local) []bool { return algotest.NearTies(t, s, DefaultK, 0, false) }
			algotest.SideBySide(t, "../..", map[string]any{"type": "filters.nndistance", "mode": string(mode)}, algotest.Cmp{Tol: 1e-9, Ties: ties},
				func(s algotest.Local) (map[string][]float64, error) {
					res, err := Compute(s.XYZ, findneighbor.CPU(), Options{Mode: mode, Pos: s.Pos, Origin: s.Origin})
					if err != nil {
						return nil, err
					}
					return map[string][]float64{"NNDistance": res.NNDistance}, nil
				})
		})
	}
}

// BenchmarkCompute runs filters.nndistance's defaults on autzen_trim
// (110,000 points).
func BenchmarkCompute(b *testing.B) {
	s := algotest.ReadLocal(b, algotest.SharedFile(b, "pdal/las/autzen_trim.las"))
	for b.Loop() {
		if _, err := Compute(s.XYZ, findneighbor.CPU(), Options{Pos: s.Pos, Origin: s.Origin}); err != nil {
			b.Fatal(err)
		}
	}
}
