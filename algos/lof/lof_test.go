package lof

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestLine checks the three columns on five points of a line, worked out
// by hand from PDAL's definition and from scikit-learn's, k = 2: the point
// at 10 is the outlier.
func TestLine(t *testing.T) {
	xyz := []float32{0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 10, 0, 0}
	s := 1 / (1.5 + 1e-10)
	cases := []struct {
		conv          Convention
		kd, lrd, lofs []float64
	}{
		{PDAL, []float64{2, 1, 1, 2, 8}, []float64{0.6, 0.75, 0.75, 0.6, 3.0 / 23},
			[]float64{(1 + 0.75/0.6 + 0.75/0.6) / 3, (1 + 0.6/0.75 + 1) / 3, (1 + 1 + 0.6/0.75) / 3, (1 + 0.75/0.6 + 0.75/0.6) / 3, (1 + 0.6*23/3 + 0.75*23/3) / 3}},
		{Sklearn, []float64{2, 1, 1, 2, 8}, []float64{s, s, s, s, 1 / (7.5 + 1e-10)},
			[]float64{1, 1, 1, 1, s * (7.5 + 1e-10)}},
	}
	for _, c := range cases {
		res, err := Compute(xyz, findneighbor.CPU(), Options{MinPts: 2, Convention: c.conv})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			for _, col := range []struct {
				name      string
				got, want float64
			}{
				{"NNDistance", res.NNDistance[i], c.kd[i]},
				{"LocalReachabilityDistance", res.LocalReachabilityDistance[i], c.lrd[i]},
				{"LocalOutlierFactor", res.LocalOutlierFactor[i], c.lofs[i]},
			} {
				if math.Abs(col.got-col.want) > 1e-14*col.want {
					t.Errorf("%s: point %d: %s %v, want %v", c.conv, i, col.name, col.got, col.want)
				}
			}
		}
	}
}

// reference computes the columns by brute force from the definitions:
// every point's k nearest others (algotest.BruteKNN), plain sums.
func reference(xyz []float32, k int, conv Convention) [][]float64 {
	n := len(xyz) / 3
	nb := algotest.BruteKNN(xyz, k)
	k = min(k, n-1)
	dist := func(i, j int) float64 {
		var s float64
		for a := range 3 {
			d := float64(xyz[3*i+a]) - float64(xyz[3*j+a])
			s += d * d
		}
		return math.Sqrt(s)
	}
	kd := make([]float64, n)
	for i := range n {
		for _, j := range nb[i] {
			kd[i] = max(kd[i], dist(i, j))
		}
	}
	lrd, lof := make([]float64, n), make([]float64, n)
	for i := range n {
		s, m := 0.0, float64(k)
		if conv == PDAL {
			s, m = kd[i], float64(k+1)
		}
		for _, j := range nb[i] {
			s += max(kd[j], dist(i, j))
		}
		if conv == PDAL {
			lrd[i] = m / s
		} else {
			lrd[i] = 1 / (s/m + sklearnEps)
		}
	}
	for i := range n {
		s, m := 0.0, float64(k)
		if conv == PDAL {
			s, m = 1, float64(k+1)
		}
		for _, j := range nb[i] {
			s += lrd[j] / lrd[i]
		}
		lof[i] = s / m
	}
	return [][]float64{kd, lrd, lof}
}

// TestBruteForce holds Compute to the reference on every backend.
func TestBruteForce(t *testing.T) {
	r := fntest.Rand(5)
	clouds := map[string][]float32{
		"uniform":   fntest.Uniform(r, 600, 10),
		"clustered": fntest.Clustered(r, 600, 4, 10, 0.5),
		"tiny":      fntest.Uniform(r, 6, 1),
	}
	eq := algotest.Rel(1e-12)
	for name, xyz := range clouds {
		for _, conv := range []Convention{PDAL, Sklearn} {
			for _, k := range []int{1, 5, 10} {
				want := slices.Concat(reference(xyz, k, conv)...)
				algotest.Check(t, name+"/"+string(conv), func(b findneighbor.Backend) ([]float64, error) {
					res, err := Compute(xyz, b, Options{MinPts: k, Convention: conv})
					if err != nil {
						return nil, err
					}
					return slices.Concat(res.NNDistance, res.LocalReachabilityDistance, res.LocalOutlierFactor), nil
				}, want, eq)
			}
		}
	}
}

// TestReach checks that each point's columns depend only on the points
// within its Reach.
func TestReach(t *testing.T) {
	for _, conv := range []Convention{PDAL, Sklearn} {
		algotest.CheckReach(t, func(xyz []float32, b findneighbor.Backend) ([][]float64, []float64, error) {
			res, err := Compute(xyz, b, Options{MinPts: 4, Convention: conv})
			if err != nil {
				return nil, nil, err
			}
			return [][]float64{res.NNDistance, res.LocalReachabilityDistance, res.LocalOutlierFactor}, res.Reach, nil
		})
	}
}

// TestDegenerate checks the clouds with no or one point, and duplicates:
// PDAL's 1/0 and 0/0 where every reachability distance is 0.
func TestDegenerate(t *testing.T) {
	res, err := Compute(nil, findneighbor.CPU(), Options{})
	if err != nil || len(res.NNDistance) != 0 {
		t.Errorf("no points: %v, %d values", err, len(res.NNDistance))
	}
	res, err = Compute([]float32{1, 2, 3}, findneighbor.CPU(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Reach +Inf: a lone point's values hold only where no other point
	// is, however far (knn.Table.Short).
	if res.NNDistance[0] != 0 || !math.IsInf(res.LocalReachabilityDistance[0], 1) || !math.IsNaN(res.LocalOutlierFactor[0]) || !math.IsInf(res.Reach[0], 1) {
		t.Errorf("one point: %v %v %v reach %v, want 0 +Inf NaN reach +Inf", res.NNDistance[0], res.LocalReachabilityDistance[0], res.LocalOutlierFactor[0], res.Reach[0])
	}
	dup := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 5, 5, 5}
	res, err = Compute(dup, findneighbor.CPU(), Options{MinPts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.NNDistance[0] != 0 || !math.IsInf(res.LocalReachabilityDistance[0], 1) || !math.IsNaN(res.LocalOutlierFactor[0]) {
		t.Errorf("duplicates: %v %v %v, want 0 +Inf NaN", res.NNDistance[0], res.LocalReachabilityDistance[0], res.LocalOutlierFactor[0])
	}
}

// TestValidate checks the options' errors.
func TestValidate(t *testing.T) {
	cases := []struct {
		opts  Options
		param string
	}{
		{Options{MinPts: -1}, "minpts"},
		{Options{Pos: []float64{1, 2}}, "pos"},
		{Options{Convention: "elki"}, "convention"},
	}
	for _, c := range cases {
		_, err := Compute([]float32{0, 0, 0, 1, 1, 1}, findneighbor.CPU(), c.opts)
		var pe *findneighbor.ParamError
		if !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%+v: error %v, want a ParamError naming %s", c.opts, err, c.param)
		}
	}
}
