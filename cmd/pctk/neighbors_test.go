package main

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	_ "github.com/pctk/pctk/io/ply"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// neighborsFixture is five points at UTM-sized coordinates: four 1 apart
// on a line, the fourth lifted 5 in Z, and a stray one at x+10.
func neighborsFixture() *core.Cloud {
	xs := []float64{0, 1, 2, 3, 10}
	zs := []float64{0, 0, 0, 5, 0}
	c := core.New(len(xs))
	inten, _ := c.AddAttr(core.DimIntensity, core.Uint16)
	for i := range xs {
		c.X[i], c.Y[i], c.Z[i] = 500000+xs[i], 4100000, 100+zs[i]
		inten.SetFloat64(i, float64(7*i))
	}
	return c
}

func nanEqual(a, b []float32, tol float64) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool {
		if math.IsNaN(float64(x)) || math.IsNaN(float64(y)) {
			return math.IsNaN(float64(x)) && math.IsNaN(float64(y))
		}
		return math.Abs(float64(x-y)) <= tol*math.Abs(float64(y))
	})
}

func TestComputeNeighbors(t *testing.T) {
	c := neighborsFixture()
	nan := float32(math.NaN())
	d3, d4 := float32((math.Sqrt(26)+math.Sqrt(29))/2), float32((8+math.Sqrt(74))/2)
	tests := []struct {
		name    string
		flat    bool
		radius  float64
		k       int
		counts  []uint32
		knnMean []float32
	}{
		{"xyz radius", false, 1.5, 0, []uint32{1, 2, 1, 0, 0}, nil},
		{"xy radius", true, 1.5, 0, []uint32{1, 2, 2, 1, 0}, nil},
		{"xyz radius and knn", false, 1.5, 2, []uint32{1, 2, 1, 0, 0}, []float32{1, 1, 1, nan, nan}},
		{"plain knn", false, 0, 2, nil, []float32{1.5, 1, 1.5, d3, d4}},
		{"knn more than points", false, 0, 10, nil, []float32{4.707738, 4.0962912, 4.0247549, 6.2293654, 8.9005813}},
	}
	for _, b := range []string{"cpu", "brute"} {
		be, err := findneighbor.Get(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			st, err := computeNeighbors(be, c.Local(tt.flat).XYZ, tt.radius, tt.k, findneighbor.BuildOptions{})
			if err != nil {
				t.Fatalf("%s %s: %v", b, tt.name, err)
			}
			if !slices.Equal(st.Counts, tt.counts) {
				t.Errorf("%s %s: counts %v, want %v", b, tt.name, st.Counts, tt.counts)
			}
			if !nanEqual(st.KnnMean, tt.knnMean, 1e-6) {
				t.Errorf("%s %s: knn mean %v, want %v", b, tt.name, st.KnnMean, tt.knnMean)
			}
		}
	}
}

// TestKnnMeanDistanceChunks checks the chunked query path against one
// KNearest call on duplicated points, where a point's own hit can hide
// behind copies with smaller indices.
func TestKnnMeanDistanceChunks(t *testing.T) {
	xyz := make([]float32, 0, 3*3000)
	for i := range 3000 {
		xyz = append(xyz, float32(i%500)*0.1, float32(i%7), 0)
	}
	ix, err := findneighbor.CPU().Build(xyz, 0.25, findneighbor.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 3, 2000} {
		got, err := knnMeanDistance(ix, xyz, k)
		if err != nil {
			t.Fatal(err)
		}
		idx, dist := make([]int32, 3000*k), make([]float32, 3000*k)
		if err := ix.KNearest(nil, k, idx, dist); err != nil {
			t.Fatal(err)
		}
		for i := range 3000 {
			var sum float64
			n := 0
			for j := i * k; j < (i+1)*k && idx[j] >= 0; j++ {
				sum += float64(dist[j])
				n++
			}
			want := float32(math.NaN())
			if n > 0 {
				want = float32(sum / float64(n))
			}
			if !nanEqual(got[i:i+1], []float32{want}, 1e-6) {
				t.Fatalf("k %d point %d: got %g, want %g", k, i, got[i], want)
			}
		}
	}
}

func TestNeighborsCommand(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ply")
	writeTestCloud(t, in, neighborsFixture())
	out := filepath.Join(dir, "out.ply")
	pctkRun(t, 0, "neighbors", in, out, "--radius", "1.5", "--knn", "2", "--backend", "cpu")
	c := readTestCloud(t, out)
	if got := intColumn(t, c, core.DimNeighborCount); !slices.Equal(got, []int64{1, 2, 1, 0, 0}) {
		t.Errorf("NeighborCount = %v, want [1 2 1 0 0]", got)
	}
	if a := c.Attr(core.DimNeighborCount); a.Type != core.Uint32 {
		t.Errorf("NeighborCount is %v, want uint32", a.Type)
	}
	if got := floatColumn(t, c, core.DimKnnMeanDistance); !nanEqual(got, []float32{1, 1, 1, float32(math.NaN()), float32(math.NaN())}, 1e-6) {
		t.Errorf("KnnMeanDistance = %v, want [1 1 1 NaN NaN]", got)
	}
	if got := intColumn(t, c, core.DimIntensity); !slices.Equal(got, []int64{0, 7, 14, 21, 28}) {
		t.Errorf("Intensity = %v, want it kept", got)
	}
	rec := countsRecord(c, &dbscanArgs{opts: dbscan.Options{Eps: 1.5}, dims: "xyz"})
	if !slices.Contains(c.Meta.Comments, rec) {
		t.Errorf("comments %q lack the counts record %q that pctk dbscan reuses", c.Meta.Comments, rec)
	}
	// A second run replaces the columns and the record instead of adding.
	pctkRun(t, 0, "neighbours", out, out, "--radius", "1.5", "--dims", "xy")
	c = readTestCloud(t, out)
	if got := intColumn(t, c, core.DimNeighborCount); !slices.Equal(got, []int64{1, 2, 2, 1, 0}) {
		t.Errorf("xy NeighborCount = %v, want [1 2 2 1 0]", got)
	}
	recs := 0
	for _, s := range c.Meta.Comments {
		if strings.HasPrefix(s, countsRecordPrefix) {
			recs++
		}
	}
	if recs != 1 {
		t.Errorf("%d counts records, want 1: %q", recs, c.Meta.Comments)
	}
}

func TestNeighborsErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ply")
	c := neighborsFixture()
	writeTestCloud(t, in, c)
	bad := filepath.Join(dir, "nan.ply")
	c.Y[3] = math.NaN()
	writeTestCloud(t, bad, c)
	out := filepath.Join(dir, "out.ply")
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{in, out}, 2},
		{[]string{in, out, "--radius", "-1"}, 2},
		{[]string{in, out, "--knn", "-3"}, 2},
		{[]string{in, out, "--radius", "1", "--dims", "xz"}, 2},
		{[]string{in, out, "--radius", "1", "--backend", "nonesuch"}, 2}, // a backend no build has: usage (issue 15)
		{[]string{bad, out, "--radius", "1"}, 1},
	} {
		if code := run(append([]string{"pctk", "-q", "neighbors"}, tt.args...)); code != tt.code {
			t.Errorf("%q: exit %d, want %d", tt.args, code, tt.code)
		}
	}
}

func TestDensitySummary(t *testing.T) {
	got := densitySummary([]float64{4, 1, math.NaN(), 3, 2, 5})
	want := "min 1, p5 1, p25 2, median 3, mean 3, p75 4, p95 5, max 5 (1 points without any neighbour)"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
