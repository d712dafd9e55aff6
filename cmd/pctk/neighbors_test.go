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
			res, err := computeNeighbors(&Points{XYZ: c.Local(tt.flat).XYZ, Backend: be, Dims: "xyz"}, tt.radius, tt.k)
			if err != nil {
				t.Fatalf("%s %s: %v", b, tt.name, err)
			}
			var counts []uint32
			var mean []float32
			for _, col := range res.Columns {
				switch col.Name {
				case core.DimNeighborCount:
					counts = col.Data.([]uint32)
				case core.DimKnnMeanDistance:
					mean = col.Data.([]float32)
				}
			}
			if !slices.Equal(counts, tt.counts) {
				t.Errorf("%s %s: counts %v, want %v", b, tt.name, counts, tt.counts)
			}
			if !nanEqual(mean, tt.knnMean, 1e-6) {
				t.Errorf("%s %s: knn mean %v, want %v", b, tt.name, mean, tt.knnMean)
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
	rec := dbscan.CountsRecord(c.X, c.Y, c.Z, 1.5, "xyz", false)
	if !slices.Contains(c.Meta.Comments, rec) {
		t.Errorf("comments %q lack the counts record %q that pctk dbscan reuses", c.Meta.Comments, rec)
	}
	// A second run replaces the columns and the record instead of adding.
	pctkRun(t, 0, "neighbours", out, out, "--in-place", "--radius", "1.5", "--dims", "xy")
	c = readTestCloud(t, out)
	if got := intColumn(t, c, core.DimNeighborCount); !slices.Equal(got, []int64{1, 2, 2, 1, 0}) {
		t.Errorf("xy NeighborCount = %v, want [1 2 2 1 0]", got)
	}
	recs := 0
	for _, s := range c.Meta.Comments {
		if strings.HasPrefix(s, dbscan.CountsRecordPrefix) {
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
	got := newDensityStats([]float64{4, 1, math.NaN(), 3, 2, 5}).String()
	want := "min 1, p5 1, p25 2, median 3, mean 3, p75 4, p95 5, max 5 (1 point without any neighbour)"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNum(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{21932, "21932"}, {3.824, "3.824"}, {2.1481234, "2.148"}, {123456.7, "123500"},
		{0.00012345, "0.0001234"}, {1.5e-7, "1.5e-07"}, {1e20, "1e+20"}, {0, "0"}, {math.NaN(), "NaN"},
	} {
		if got := num(tt.v); got != tt.want {
			t.Errorf("num(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
