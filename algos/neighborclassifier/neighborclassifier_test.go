package neighborclassifier

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// cloud is a LAS file's local float32 coordinates, absolute float64 ones
// (PDAL's) and classes.
type cloud struct {
	xyz   []float32
	pos   []float64
	class []int32
}

func read(t testing.TB, rel string) cloud {
	t.Helper()
	c, _, err := pcio.ReadFile(algotest.SharedFile(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return fromCloud(c)
}

func fromCloud(c *core.Cloud) cloud {
	out := cloud{xyz: make([]float32, 3*c.Len()), pos: make([]float64, 3*c.Len()), class: make([]int32, c.Len())}
	for i := range c.Len() {
		out.pos[3*i], out.pos[3*i+1], out.pos[3*i+2] = c.X[i], c.Y[i], c.Z[i]
	}
	// One local frame for the three files, which cover the same ground.
	for i, v := range out.pos {
		out.xyz[i] = float32(v - frame[i%3])
	}
	if a := c.Attr(core.DimClassification); a != nil {
		for i := range c.Len() {
			out.class[i] = int32(a.Float64(i))
		}
	}
	return out
}

// frame is the local origin of sample_c*.las (the centre of
// sample_c.las's box, as core.Cloud.Local takes it).
var frame = [3]float64{674563.62, 1206777.52, 641.88}

// histogram counts the points of each class.
func histogram(class []int32) map[int32]int {
	h := map[int32]int{}
	for _, c := range class {
		h[c]++
	}
	return h
}

// TestPDALUnit holds Classify to NeighborClassifierFilterTest.cpp:
// singleRange and multipleRange (sample_c.las, domain classes 14, or 14
// and 11: with k 1 nothing changes, with k 3 no point of those classes
// is left and no other class shrinks) and candidate (sample_nc.las voted
// by sample_c_thin.las, k 1: 12,441 points of class 6).
func TestPDALUnit(t *testing.T) {
	c := read(t, "pdal/las/sample_c.las")
	before := histogram(c.class)
	for _, dom := range [][]int32{{14}, {14, 11}} {
		domain := make([]bool, len(c.class))
		for i, v := range c.class {
			domain[i] = slices.Contains(dom, v)
		}
		for _, k := range []int{1, 3} {
			r, err := Classify(c.xyz, c.class, findneighbor.CPU(), Options{K: k, Domain: domain, Pos: c.pos})
			if err != nil {
				t.Fatal(err)
			}
			after := histogram(r.Values)
			for cl, n := range before {
				switch {
				case k == 1 && after[cl] != n:
					t.Errorf("domain %v, k 1: class %d has %d points, want %d", dom, cl, after[cl], n)
				case k == 3 && slices.Contains(dom, cl) && after[cl] != 0:
					t.Errorf("domain %v, k 3: class %d has %d points, want 0", dom, cl, after[cl])
				case k == 3 && !slices.Contains(dom, cl) && after[cl] < n:
					t.Errorf("domain %v, k 3: class %d has %d points, fewer than %d", dom, cl, after[cl], n)
				}
			}
		}
	}
	nc, thin := read(t, "pdal/las/sample_nc.las"), read(t, "pdal/las/sample_c_thin.las")
	r, err := Classify(nc.xyz, nc.class, findneighbor.CPU(), Options{K: 1, Candidates: thin.xyz, CandidateValues: thin.class, Pos: nc.pos, CandidatePos: thin.pos})
	if err != nil {
		t.Fatal(err)
	}
	if got := histogram(r.Values)[6]; got != 12441 || before[6] != 12525 {
		t.Errorf("candidate: %d points of class 6 (sample_c: %d), want 12441 (12525)", got, before[6])
	}
}

// reference is the brute-force vote: all candidates by float64 distance
// (then index), the k first vote.
func reference(xyz []float32, values []int32, o Options) []int32 {
	cand, cval := xyz, values
	if o.Candidates != nil {
		cand, cval = o.Candidates, o.CandidateValues
	}
	out := slices.Clone(values)
	type nb struct {
		d float64
		j int
	}
	for i := range values {
		if o.Domain != nil && !o.Domain[i] {
			continue
		}
		var near []nb
		for j := range len(cand) / 3 {
			d := 0.0
			for a := range 3 {
				e := float64(xyz[3*i+a]) - float64(cand[3*j+a])
				d += e * e
			}
			near = append(near, nb{d, j})
		}
		slices.SortFunc(near, func(a, b nb) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.j, b.j)) })
		near = near[:min(o.K, len(near))]
		votes := map[int32]int{}
		for _, n := range near {
			votes[cval[n.j]]++
		}
		best, bv := int32(0), -1
		for v, c := range votes {
			if c > bv || c == bv && v < best {
				best, bv = v, c
			}
		}
		if float64(bv) > float64(len(near))/2 {
			out[i] = best
		}
	}
	return out
}

// TestBackends holds Classify to the brute-force vote on every usable
// backend, with and without a domain and a candidate set.
func TestBackends(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range fntest.Clouds(19, 400) {
		n := len(c.XYZ) / 3
		values := make([]int32, n)
		domain := make([]bool, n)
		for i := range values {
			values[i], domain[i] = int32(rng.IntN(4)), rng.IntN(3) == 0
		}
		other := fntest.Clouds(23, 300)[0].XYZ
		ovals := make([]int32, len(other)/3)
		for i := range ovals {
			ovals[i] = int32(rng.IntN(3))
		}
		for _, o := range []Options{
			{K: 1}, {K: 4}, {K: 7, Domain: domain},
			{K: 5, Candidates: other, CandidateValues: ovals},
		} {
			algotest.Check(t, fmt.Sprintf("%s/k%d", c.Name, o.K), func(b findneighbor.Backend) ([]int32, error) {
				r, err := Classify(c.XYZ, values, b, o)
				if err != nil {
					return nil, err
				}
				return r.Values, nil
			}, reference(c.XYZ, values, o), algotest.Exact[int32])
		}
	}
}

// TestManyQueries holds Classify to brute force on a cloud whose votes
// fall into several ranges on all cores: the values and the number
// changed, merged from the ranges.
func TestManyQueries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := fntest.Clouds(29, 2200)[1] // clustered
	n := len(c.XYZ) / 3
	values, domain := make([]int32, n), make([]bool, n)
	for i := range values {
		values[i], domain[i] = int32(rng.IntN(3)), rng.IntN(4) != 0
	}
	for _, o := range []Options{{K: 6, Domain: domain}, {K: 15}} {
		want := reference(c.XYZ, values, o)
		r, err := Classify(c.XYZ, values, findneighbor.CPU(), o)
		if err != nil {
			t.Fatal(err)
		}
		changed := 0
		for i := range want {
			if want[i] != values[i] {
				changed++
			}
		}
		if !slices.Equal(r.Values, want) || r.Changed != changed || changed == 0 {
			t.Errorf("k %d: %d of %d values differ from brute force; Changed %d, want %d (> 0)", o.K, countDiff(r.Values, want), n, r.Changed, changed)
		}
	}
}

func countDiff(a, b []int32) int {
	d := 0
	for i := range a {
		if a[i] != b[i] {
			d++
		}
	}
	return d
}

// TestReach checks the stage driver's contract (algotest.CheckReach): a
// point's vote (k 5, values 0-2 drawn from its coordinates' bits) from the
// points of a box holding its Reach equals its vote in the whole cloud.
func TestReach(t *testing.T) {
	algotest.CheckReach(t, func(xyz []float32, b findneighbor.Backend) ([][]float64, []float64, error) {
		values := make([]int32, len(xyz)/3)
		for i := range values {
			values[i] = int32(math.Float32bits(xyz[3*i]) % 3)
		}
		r, err := Classify(xyz, values, b, Options{K: 5})
		if err != nil {
			return nil, nil, err
		}
		return [][]float64{algotest.Floats(r.Values)}, r.Reach, nil
	})
}

// TestOptions checks the ParamError on k and the length checks.
func TestOptions(t *testing.T) {
	_, err := Classify([]float32{0, 0, 0}, []int32{1}, findneighbor.CPU(), Options{})
	var pe *findneighbor.ParamError
	if !errors.As(err, &pe) || pe.Param != "k" {
		t.Errorf("k 0: %v, want a ParamError on k", err)
	}
	if _, err := Classify([]float32{0, 0, 0}, nil, findneighbor.CPU(), Options{K: 1}); err == nil {
		t.Error("no values: no error")
	}
	if _, err := Classify([]float32{0, 0, 0}, []int32{1}, findneighbor.CPU(), Options{K: 1, Pos: []float64{0, 0, 0}, Candidates: []float32{1, 1, 1}, CandidateValues: []int32{2}}); err == nil {
		t.Error("float64 coordinates for the points only: no error")
	}
	r, err := Classify([]float32{0, 0, 0}, []int32{1}, findneighbor.CPU(), Options{K: 1, Candidates: []float32{}, CandidateValues: []int32{}})
	if err != nil || r.Values[0] != 1 {
		t.Errorf("no candidates: %v, %v; want the value kept", r, err)
	}
}

// TestPDAL runs filters.neighborclassifier on PDAL 2.9.2 and Classify on
// sample_c.las (and sample_nc.las voted by sample_c_thin.las), and holds
// every point's Classification equal, counting near ties.
func TestPDAL(t *testing.T) {
	sc := algotest.SharedFile(t, "pdal/las/sample_c.las")
	thinFile := algotest.SharedFile(t, "pdal/las/sample_c_thin.las")
	c, thin := read(t, "pdal/las/sample_c.las"), read(t, "pdal/las/sample_c_thin.las")
	nc := read(t, "pdal/las/sample_nc.las")
	ncFile := algotest.SharedFile(t, "pdal/las/sample_nc.las")
	dom := make([]bool, len(c.class))
	for i, v := range c.class {
		dom[i] = v == 14 || v == 11
	}
	for _, tc := range []struct {
		name  string
		file  string
		stage map[string]any
		in    cloud
		o     Options
	}{
		{"domain 14,11 k5", sc, map[string]any{"domain": "Classification[14:14], Classification[11:11]", "k": 5}, c, Options{K: 5, Domain: dom}},
		{"all k8", sc, map[string]any{"k": 8}, c, Options{K: 8}},
		{"candidate k3", ncFile, map[string]any{"k": 3, "candidate": thinFile}, nc, Options{K: 3, Candidates: thin.xyz, CandidateValues: thin.class, CandidatePos: thin.pos}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.stage["type"] = "filters.neighborclassifier"
			pc, ptook := algotest.PDALFilter(t, tc.file, tc.stage)
			o := tc.o
			o.Pos = tc.in.pos
			if o.Candidates == nil {
				o.CandidatePos = nil
			}
			r, err := Classify(tc.in.xyz, tc.in.class, findneighbor.CPU(), o)
			if err != nil {
				t.Fatal(err)
			}
			want := fromCloud(pc).class
			bad := 0
			for i := range want {
				if r.Values[i] != want[i] {
					if bad++; bad <= 3 {
						t.Errorf("point %d: class %d, PDAL %d", i, r.Values[i], want[i])
					}
				}
			}
			t.Logf("%d points, %d changed, %d differ from PDAL, %d near ties; PDAL pipeline %v", len(want), r.Changed, bad, r.NearTies, ptook)
		})
	}
}
