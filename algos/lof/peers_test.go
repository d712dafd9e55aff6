package lof

import (
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestSklearn holds the Sklearn convention to scikit-learn's
// LocalOutlierFactor on random clouds (no ties), every value within 1e-9
// relative.
func TestSklearn(t *testing.T) {
	algotest.RequirePeer(t, "scikit-learn (python3-sklearn)", peers.Available(peers.Sklearn))
	r := fntest.Rand(9)
	xyz := append(fntest.Clustered(r, 3000, 5, 20, 1), fntest.Uniform(r, 200, 20)...)
	pos := make([]float64, len(xyz))
	for i, v := range xyz {
		pos[i] = float64(v)
	}
	ks := []int{1, 10, 20}
	ans, err := peers.SklearnLOF(t.TempDir(), pos, ks...)
	if err != nil {
		t.Fatal(err)
	}
	n := len(xyz) / 3
	for j, k := range ks {
		res, err := Compute(xyz, findneighbor.CPU(), Options{MinPts: k, Convention: Sklearn})
		if err != nil {
			t.Fatal(err)
		}
		want := ans[j].Float64s()
		for c, got := range [][]float64{res.NNDistance, res.LocalReachabilityDistance, res.LocalOutlierFactor} {
			name := []string{"k-distance", "lrd", "LOF"}[c]
			algotest.ComparePDAL(t, "scikit-learn "+name, got, want[c*n:(c+1)*n], nil, 1e-9, nil)
		}
		t.Logf("k %d: scikit-learn's fit %.3f s", k, ans[j].Seconds)
	}
}

// TestPDAL runs PDAL 2.9.2's filters.lof (minpts 10, its default) and
// Compute side by side on real scans and compares every value within 1e-9
// relative; points whose neighbourhoods hold near ties (algotest.NearTies,
// through two hops) may differ and are counted.
func TestPDAL(t *testing.T) {
	ties := func(s algotest.Local) []bool { return algotest.NearTies(t, s, DefaultMinPts, 2, false) }
	algotest.SideBySide(t, "../..", map[string]any{"type": "filters.lof"}, algotest.Cmp{Tol: 1e-9, Ties: ties}, func(s algotest.Local) (map[string][]float64, error) {
		res, err := Compute(s.XYZ, findneighbor.CPU(), Options{Pos: s.Pos, Origin: s.Origin})
		if err != nil {
			return nil, err
		}
		return map[string][]float64{
			"NNDistance":                res.NNDistance,
			"LocalReachabilityDistance": res.LocalReachabilityDistance,
			"LocalOutlierFactor":        res.LocalOutlierFactor,
		}, nil
	})
}
