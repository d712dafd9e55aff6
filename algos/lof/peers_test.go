package lof

import (
	"path/filepath"
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
			algotest.ComparePDAL(t, "scikit-learn "+name, got, want[c*n:(c+1)*n], nil, 1e-9)
		}
		t.Logf("k %d: scikit-learn's fit %.3f s", k, ans[j].Seconds)
	}
}

// TestPDAL runs PDAL 2.9.2's filters.lof (minpts 10, its default) and
// Compute side by side on real scans and compares every value within 1e-9
// relative; points whose neighbourhoods hold near ties (algotest.NearTies,
// through two hops) may differ and are counted.
func TestPDAL(t *testing.T) {
	for _, in := range []string{"../../testdata/haystack_rock.las", algotest.SharedFile(t, "pdal/las/autzen_trim.las")} {
		t.Run(filepath.Base(in), func(t *testing.T) {
			out, took := algotest.PDALFilter(t, in, map[string]any{"type": "filters.lof"})
			xyz, pos := algotest.ReadLocal(t, in)
			res, err := Compute(xyz, findneighbor.CPU(), Options{Pos: pos})
			if err != nil {
				t.Fatal(err)
			}
			ties := algotest.NearTies(t, xyz, pos, DefaultMinPts, 2)
			for _, c := range []struct {
				name string
				got  []float64
			}{
				{"NNDistance", res.NNDistance},
				{"LocalReachabilityDistance", res.LocalReachabilityDistance},
				{"LocalOutlierFactor", res.LocalOutlierFactor},
			} {
				n, differ, excused := algotest.ComparePDAL(t, c.name, c.got, algotest.Column(t, out, c.name), ties, 1e-9)
				t.Logf("%s: %d values, %d differ beyond 1e-9 (%d near ties)", c.name, n, differ, excused)
			}
			t.Logf("PDAL pipeline (read, filters.lof, write) %.2f s", took.Seconds())
		})
	}
}
