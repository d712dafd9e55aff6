package eigenvalues

import (
	"math"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// eigenCmp compares eigenvalues within 1e-9 relative or 1e-14·λ2
// absolute, the accuracy of both solvers (Eigen's and pctk's are accurate
// to about 1e-16 of the matrix's norm): the λ0 of a flat neighbourhood,
// and 0 of three points or collinear ones, is rounding noise in both.
func eigenCmp(ties func(algotest.Local) []bool) algotest.Cmp {
	return algotest.Cmp{Tol: 1e-9, Ties: ties, Floor: func(cols map[string][]float64) []float64 {
		f := make([]float64, len(cols["Eigenvalue2"]))
		for i, v := range cols["Eigenvalue2"] {
			f[i] = 1e-14 * math.Abs(v)
		}
		return f
	}}
}

func floats[T uint8 | uint64](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// TestPDAL runs PDAL 2.9.2's filters.eigenvalues (knn 8; knn 8 stride 2,
// normalized), approximatecoplanar and optimalneighborhood, their
// defaults, side by side with Compute, Coplanar and Optimal on real
// scans: eigenvalues within 1e-9 relative, the classes and sizes equal,
// but where a near tie may change a neighbourhood.
func TestPDAL(t *testing.T) {
	ties := func(k int, anywhere bool) func(algotest.Local) []bool {
		return func(s algotest.Local) []bool { return algotest.NearTies(t, s, k, 0, anywhere) }
	}
	t.Run("eigenvalues", func(t *testing.T) {
		algotest.SideBySide(t, "../..", map[string]any{"type": "filters.eigenvalues"}, eigenCmp(ties(DefaultKNN, false)),
			func(s algotest.Local) (map[string][]float64, error) {
				res, err := Compute(s.XYZ, findneighbor.CPU(), Options{Pos: s.Pos, Origin: s.Origin})
				if err != nil {
					return nil, err
				}
				return map[string][]float64{"Eigenvalue0": res.Eigenvalue0, "Eigenvalue1": res.Eigenvalue1, "Eigenvalue2": res.Eigenvalue2}, nil
			})
	})
	t.Run("stride", func(t *testing.T) {
		algotest.SideBySide(t, "../..", map[string]any{"type": "filters.eigenvalues", "stride": 2, "normalize": true}, eigenCmp(ties(2*(DefaultKNN+1)-2, true)),
			func(s algotest.Local) (map[string][]float64, error) {
				res, err := Compute(s.XYZ, findneighbor.CPU(), Options{Pos: s.Pos, Origin: s.Origin, Stride: 2, Normalize: true})
				if err != nil {
					return nil, err
				}
				return map[string][]float64{"Eigenvalue0": res.Eigenvalue0, "Eigenvalue1": res.Eigenvalue1, "Eigenvalue2": res.Eigenvalue2}, nil
			})
	})
	t.Run("radius", func(t *testing.T) {
		const r = 3.0
		run := func(s algotest.Local) (*Result, error) {
			return Compute(s.XYZ, findneighbor.CPU(), Options{Pos: s.Pos, Origin: s.Origin, Radius: r})
		}
		algotest.SideBySide(t, "../..", map[string]any{"type": "filters.eigenvalues", "radius": r},
			eigenCmp(func(s algotest.Local) []bool { return algotest.NearRadius(t, s, r) }),
			func(s algotest.Local) (map[string][]float64, error) {
				res, err := run(s)
				if err != nil {
					return nil, err
				}
				return map[string][]float64{"Eigenvalue0": res.Eigenvalue0, "Eigenvalue1": res.Eigenvalue1, "Eigenvalue2": res.Eigenvalue2}, nil
			})
	})
	t.Run("approximatecoplanar", func(t *testing.T) {
		algotest.SideBySide(t, "../..", map[string]any{"type": "filters.approximatecoplanar"}, algotest.Cmp{Tol: 0, Ties: ties(DefaultKNN-1, false)},
			func(s algotest.Local) (map[string][]float64, error) {
				res, err := Coplanar(s.XYZ, findneighbor.CPU(), CoplanarOptions{Pos: s.Pos, Origin: s.Origin})
				if err != nil {
					return nil, err
				}
				return map[string][]float64{"Coplanar": floats(res.Coplanar)}, nil
			})
	})
	t.Run("optimalneighborhood", func(t *testing.T) {
		// Every size from min_k to max_k is a boundary: a near tie
		// anywhere in the list may change one.
		algotest.SideBySide(t, "../..", map[string]any{"type": "filters.optimalneighborhood"}, algotest.Cmp{Tol: 1e-9, Ties: ties(DefaultOptimalMaxK-1, true)},
			func(s algotest.Local) (map[string][]float64, error) {
				res, err := Optimal(s.XYZ, findneighbor.CPU(), OptimalOptions{Pos: s.Pos, Origin: s.Origin})
				if err != nil {
					return nil, err
				}
				return map[string][]float64{"OptimalKNN": floats(res.OptimalKNN), "OptimalRadius": res.OptimalRadius}, nil
			})
	})
}

// BenchmarkCompute runs filters.eigenvalues' defaults on autzen_trim
// (110,000 points).
func BenchmarkCompute(b *testing.B) {
	s := algotest.ReadLocal(b, algotest.SharedFile(b, "pdal/las/autzen_trim.las"))
	for b.Loop() {
		if _, err := Compute(s.XYZ, findneighbor.CPU(), Options{Pos: s.Pos, Origin: s.Origin}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOptimal runs filters.optimalneighborhood's defaults on
// autzen_trim.
func BenchmarkOptimal(b *testing.B) {
	s := algotest.ReadLocal(b, algotest.SharedFile(b, "pdal/las/autzen_trim.las"))
	for b.Loop() {
		if _, err := Optimal(s.XYZ, findneighbor.CPU(), OptimalOptions{Pos: s.Pos, Origin: s.Origin}); err != nil {
			b.Fatal(err)
		}
	}
}
