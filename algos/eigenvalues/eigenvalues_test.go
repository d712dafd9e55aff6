package eigenvalues

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/algos/internal/eigen"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestPlane checks the eigenvalues of a lattice of the plane z = 0, step
// 1: the 3×3 block of a point and its 8 nearest has covariance
// diag(0.75, 0.75, 0) (Σx² = 6 over 9 points, divided by 8), so
// Eigenvalue0..2 are 0, 0.75, 0.75, normalized 0, 0.5, 0.5. With knn 9
// (the same block) it is coplanar by PDAL's test: λ1 > 25·λ0 and 6·λ1 >
// λ2; a line is not (λ1 = 0 is not > 25·λ0).
func TestPlane(t *testing.T) {
	var xyz []float32
	for y := range 9 {
		for x := range 9 {
			xyz = append(xyz, float32(x), float32(y), 0)
		}
	}
	centre := 4*9 + 4
	for _, c := range []struct {
		normalize bool
		want      [3]float64
	}{{false, [3]float64{0, 0.75, 0.75}}, {true, [3]float64{0, 0.5, 0.5}}} {
		res, err := Compute(xyz, findneighbor.CPU(), Options{Normalize: c.normalize})
		if err != nil {
			t.Fatal(err)
		}
		got := [3]float64{res.Eigenvalue0[centre], res.Eigenvalue1[centre], res.Eigenvalue2[centre]}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-15 {
				t.Errorf("normalize %v: eigenvalues %v, want %v", c.normalize, got, c.want)
				break
			}
		}
	}
	res, err := Coplanar(xyz, findneighbor.CPU(), CoplanarOptions{KNN: 9})
	if err != nil {
		t.Fatal(err)
	}
	if res.Coplanar[centre] != 1 {
		t.Errorf("Coplanar %d, want 1", res.Coplanar[centre])
	}
	line := make([]float32, 0, 30)
	for x := range 10 {
		line = append(line, float32(x), 0, 0)
	}
	if res, err = Coplanar(line, findneighbor.CPU(), CoplanarOptions{}); err != nil || res.Coplanar[5] != 0 {
		t.Errorf("line: %v, Coplanar %d, want 0", err, res.Coplanar[5])
	}
}

// neighbourhoods returns what PDAL's KD3Index lists for every point by
// brute force: the point and its nearest (algotest.BruteKNN) at positions
// 0, stride, ..., (k-1)·stride, or with r > 0 every point within r sorted
// by float32 distance, then index.
func neighbourhoods(xyz []float32, k, stride int, r float64) [][]int32 {
	n := len(xyz) / 3
	out := make([][]int32, n)
	if r > 0 {
		for i := range n {
			var ids []int
			for j := range n {
				if j != i && algotest.Within(xyz, i, j, float32(r)) {
					ids = append(ids, j)
				}
			}
			d2 := func(j int) float32 {
				return findneighbor.DistSq(xyz[3*i], xyz[3*i+1], xyz[3*i+2], xyz[3*j], xyz[3*j+1], xyz[3*j+2])
			}
			slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(d2(a), d2(b)) })
			out[i] = []int32{int32(i)}
			for _, j := range ids {
				out[i] = append(out[i], int32(j))
			}
		}
		return out
	}
	for i, nb := range algotest.BruteKNN(xyz, (k-1)*stride) {
		out[i] = []int32{int32(i)}
		for j := stride - 1; j < len(nb); j += stride {
			out[i] = append(out[i], int32(nb[j]))
		}
	}
	return out
}

// TestBruteForce holds the three functions to brute-force neighbourhoods
// on every backend, to the bit (the same covariances and solver).
func TestBruteForce(t *testing.T) {
	for _, c := range fntest.Clouds(6, 300) {
		pos := make([]float64, len(c.XYZ))
		for i, v := range c.XYZ {
			pos[i] = float64(v)
		}
		n := len(pos) / 3
		for _, o := range []Options{{}, {KNN: 5, Stride: 3, Normalize: true}, {Radius: 1.5}, {Radius: 1, MinK: 5}} {
			e := [3][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
			k := o.KNN
			if k == 0 {
				k = DefaultKNN
			}
			for p, ids := range neighbourhoods(c.XYZ, k+1, max(o.Stride, 1), o.Radius) {
				if len(ids) < 2 || o.Radius > 0 && len(ids) < max(o.MinK, DefaultMinK) {
					continue
				}
				cv := eigen.PDALCovariance(pos, ids)
				if eigen.IsZero(cv) {
					continue
				}
				ev := eigen.Decompose(cv).Values
				sum := ev[0] + ev[1] + ev[2]
				for i := range ev {
					if o.Normalize {
						ev[i] /= sum
					}
					e[i][p] = ev[i]
				}
			}
			algotest.Check(t, c.Name, func(b findneighbor.Backend) ([]float64, error) {
				res, err := Compute(c.XYZ, b, o)
				if err != nil {
					return nil, err
				}
				return slices.Concat(res.Eigenvalue0, res.Eigenvalue1, res.Eigenvalue2), nil
			}, slices.Concat(e[0], e[1], e[2]), algotest.Exact[float64])
		}
		co := make([]uint8, n)
		for p, ids := range neighbourhoods(c.XYZ, DefaultKNN, 1, 0) {
			if cv := eigen.PDALCovariance(pos, ids); !eigen.IsZero(cv) {
				if ev := eigen.Decompose(cv).Values; ev[1] > DefaultThresh1*ev[0] && DefaultThresh2*ev[1] > ev[2] {
					co[p] = 1
				}
			}
		}
		algotest.Check(t, c.Name+"/coplanar", func(b findneighbor.Backend) ([]uint8, error) {
			res, err := Coplanar(c.XYZ, b, CoplanarOptions{})
			if err != nil {
				return nil, err
			}
			return res.Coplanar, nil
		}, co, algotest.Exact[uint8])
		opt := make([]float64, 2*n)
		for p, ids := range neighbourhoods(c.XYZ, 7, 1, 0) {
			best := math.Inf(1)
			entropies(pos, ids, 4, func(k int, v float64) {
				if v < best {
					best, opt[p], opt[n+p] = v, float64(k), math.Sqrt(math.Pow(pos[3*p]-pos[3*ids[k-1]], 2)+math.Pow(pos[3*p+1]-pos[3*ids[k-1]+1], 2)+math.Pow(pos[3*p+2]-pos[3*ids[k-1]+2], 2))
				}
			})
		}
		algotest.Check(t, c.Name+"/optimal", func(b findneighbor.Backend) ([]float64, error) {
			res, err := Optimal(c.XYZ, b, OptimalOptions{MinK: 4, MaxK: 7})
			if err != nil {
				return nil, err
			}
			return append(floats(res.OptimalKNN), res.OptimalRadius...), nil
		}, opt, algotest.Rel(1e-15))
	}
}

// TestReach checks that each point's outputs depend only on the points
// within its Reach.
func TestReach(t *testing.T) {
	for _, o := range []Options{{KNN: 4, Stride: 2}, {Radius: 0.8}} {
		algotest.CheckReach(t, func(xyz []float32, b findneighbor.Backend) ([][]float64, []float64, error) {
			res, err := Compute(xyz, b, o)
			if err != nil {
				return nil, nil, err
			}
			return [][]float64{res.Eigenvalue0, res.Eigenvalue1, res.Eigenvalue2}, res.Reach, nil
		})
	}
	algotest.CheckReach(t, func(xyz []float32, b findneighbor.Backend) ([][]float64, []float64, error) {
		res, err := Coplanar(xyz, b, CoplanarOptions{KNN: 5})
		if err != nil {
			return nil, nil, err
		}
		return [][]float64{floats(res.Coplanar)}, res.Reach, nil
	})
	algotest.CheckReach(t, func(xyz []float32, b findneighbor.Backend) ([][]float64, []float64, error) {
		res, err := Optimal(xyz, b, OptimalOptions{MinK: 3, MaxK: 6})
		if err != nil {
			return nil, nil, err
		}
		return [][]float64{floats(res.OptimalKNN), res.OptimalRadius}, res.Reach, nil
	})
}

// TestValidate checks that a parameter out of its limits is a ParamError
// naming it as PDAL does.
func TestValidate(t *testing.T) {
	cases := []struct {
		param string
		err   error
	}{
		{"knn", Options{KNN: -1}.Validate()},
		{"stride", Options{Stride: -1}.Validate()},
		{"radius", Options{Radius: math.Inf(1)}.Validate()},
		{"min_k", Options{MinK: -3}.Validate()},
		{"knn", CoplanarOptions{KNN: -1}.Validate()},
		{"thresh1", CoplanarOptions{Thresh1: math.NaN()}.Validate()},
		{"max_k", OptimalOptions{MinK: 12, MaxK: 11}.Validate()},
		{"max_k", OptimalOptions{MinK: 20}.Validate()},
	}
	for _, c := range cases {
		var pe *findneighbor.ParamError
		if !errors.As(c.err, &pe) || pe.Param != c.param {
			t.Errorf("error %v, want a ParamError naming %s", c.err, c.param)
		}
	}
	if _, err := Compute([]float32{0, 0, 0}, findneighbor.CPU(), Options{Pos: []float64{1}}); err == nil {
		t.Error("a Pos of 1 coordinate for 1 point: no error")
	}
}

// TestSmall checks clouds of one and two points: one point has no
// covariance (skipped, where PDAL's Eigen fails on 0/0), two have the
// covariance of a segment, and no size of neighbourhood has a finite
// eigenentropy (0·ln 0).
func TestSmall(t *testing.T) {
	res, err := Compute([]float32{1, 2, 3}, findneighbor.CPU(), Options{})
	if err != nil || res.Skipped != 1 || res.Eigenvalue2[0] != 0 {
		t.Errorf("one point: %v, %+v, want skipped", err, res)
	}
	two := []float32{1, 2, 3, 1, 2, 4}
	res, err = Compute(two, findneighbor.CPU(), Options{})
	if err != nil || res.Skipped != 0 || res.Eigenvalue0[1] != 0 || res.Eigenvalue1[1] != 0 || res.Eigenvalue2[1] != 0.5 {
		t.Errorf("two points: %v, %+v, want eigenvalues 0, 0, 0.5", err, res)
	}
	opt, err := Optimal(two, findneighbor.CPU(), OptimalOptions{MinK: 1, MaxK: 3})
	if err != nil || opt.OptimalKNN[0] != 0 || opt.OptimalRadius[0] != 0 {
		t.Errorf("two points: %v, %+v, want OptimalKNN 0", err, opt)
	}
}
