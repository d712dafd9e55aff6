package stage

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/core"
)

// zs runs the selection of job on points whose Z (the only dimension its
// ranges read) are vals, and returns the Z of the points it keeps.
func zs(t *testing.T, job *Job, vals []float64) []float64 {
	t.Helper()
	l := job.Local
	in := &LocalInput{XYZ: make([]float32, 3*len(vals)), ID: make([]int64, len(vals))}
	for i := range vals {
		in.ID[i] = int64(i)
	}
	for range l.Reads {
		in.Values = append(in.Values, vals)
	}
	cols, _, err := l.Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	var kept []float64
	for i, v := range vals {
		if !l.Drop(cols, i) {
			kept = append(kept, v)
		}
	}
	return kept
}

// TestRangeLikePDAL runs the cases of PDAL 2.9.2's
// test/unit/filters/RangeFilterTest.cpp on Z = 1..10 (and their NaN case).
func TestRangeLikePDAL(t *testing.T) {
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		limits string
		in     []float64
		want   []float64
	}{
		{"Z(3.50:6]  ", ten, []float64{4, 5, 6}},
		{"Z[4.00e0:+6]", ten, []float64{4, 5, 6}},
		{"Z[6:]", ten, []float64{6, 7, 8, 9, 10}},
		{"Z[:5]", ten, []float64{1, 2, 3, 4, 5}},
		{"Z![2:5]", ten, []float64{1, 6, 7, 8, 9, 10}},
		{"Z[5:5]", ten, []float64{5}},
		{"Z[-1:1)", []float64{-2, -1, 0, 1, 2}, []float64{-1, 0}},
		{"Z[2:3], z[8:9]", ten, []float64{2, 3, 8, 9}},
		{"Z[-1:1]", []float64{math.NaN(), 0}, []float64{0}},
		{"Z![-1:1]", []float64{math.NaN(), 0}, []float64{math.NaN()}},
	} {
		s := ByPDAL("filters.range", "")
		v := NewSettings(s.AllOptions())
		if err := v.Set("limits", c.limits); err != nil {
			t.Fatal(err)
		}
		job, err := s.Prepare(v)
		if err != nil {
			t.Fatalf("%q: %v", c.limits, err)
		}
		if got := zs(t, job, c.in); !slices.EqualFunc(got, c.want, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			t.Errorf("limits %q: kept %v, want %v", c.limits, got, c.want)
		}
	}
}

// TestRangeAcrossDimensions is PDAL's simple_logic case: OR within a
// dimension, AND across, whatever the order of the limits.
func TestRangeAcrossDimensions(t *testing.T) {
	rs, err := ParseDimRanges("Y[108:109], X[2:5], Z[1:1000], X[7:9], Y[103:105]")
	if err != nil {
		t.Fatal(err)
	}
	set := newRangeSet(rs)
	if want := []string{"Y", "X", "Z"}; !slices.Equal(set.dims, want) {
		t.Fatalf("dimensions %v, want %v", set.dims, want)
	}
	// PDAL's points: X = i, Y = 100 + i, Z = i·10 for i = 0..9.
	var kept []int
	for i := range 10 {
		vals := [][]float64{{100 + float64(i)}, {float64(i)}, {10 * float64(i)}}
		if set.passes(vals, 0) {
			kept = append(kept, i)
		}
	}
	if want := []int{3, 4, 5, 8, 9}; !slices.Equal(kept, want) {
		t.Errorf("kept X %v, want %v", kept, want)
	}
}

// TestDimRangeErrors checks the ranges PDAL refuses, and the names it
// finds without regard to case.
func TestDimRangeErrors(t *testing.T) {
	for _, bad := range []string{"Y[4.00e0", "Z[4:6", "Z4:6]", "[1:2]", "!Classification[7:7]", "Z[1:2]x", "Z[1;2]", ""} {
		if _, err := ParseDimRanges(bad); err == nil {
			t.Errorf("ParseDimRanges(%q): no error, want one", bad)
		}
	}
	r, err := ParseDimRanges("classification![7:7]")
	if err != nil || newRangeSet(r).dims[0] != "Classification" || !r[0].Negate || r[0].String() != "classification![7:7]" {
		t.Errorf("classification![7:7]: got %v %v", r, err)
	}
}

// TestDecimated checks filters.decimation's kept indices.
func TestDecimated(t *testing.T) {
	for _, c := range []struct {
		n, off, limit uint64
		step          float64
		want          []uint64
	}{
		{10, 0, 100, 3, []uint64{0, 3, 6, 9}},
		{10, 1, 100, 2.5, []uint64{1, 4, 6, 9}}, // 1 + llround(0, 2.5, 5, 7.5)
		{10, 2, 7, 2, []uint64{2, 4, 6}},
		{5, 7, 100, 1, nil},
	} {
		var got []uint64
		for id := range c.n {
			if decimated(id, c.limit, c.off, c.step) {
				got = append(got, id)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%d points, offset %d, limit %d, step %g: kept %v, want %v", c.n, c.off, c.limit, c.step, got, c.want)
		}
	}
}

// TestAssign checks assignments in order, the condition, rounding and
// values that do not fit (PDAL's numericCast leaves the point unchanged).
func TestAssign(t *testing.T) {
	for _, c := range []struct {
		assignment, condition string
		cls                   []float64 // Classification in
		z                     []float64
		want                  []uint64 // Classification out
	}{
		{"Classification[:]=2", "", []float64{1, 5, 7}, []float64{0, 0, 0}, []uint64{2, 2, 2}},
		{"Classification[1:1]=2, Classification[2:2]=3", "", []float64{1, 2, 4}, []float64{0, 0, 0}, []uint64{3, 3, 4}},
		{"Classification[:]=6.5", "Z[0:10)", []float64{1, 1, 1}, []float64{-1, 5, 10}, []uint64{1, 7, 1}},
		{"Classification[:]=300", "", []float64{1}, []float64{0}, []uint64{1}},
	} {
		as, err := parseAssignments(c.assignment)
		if err != nil {
			t.Fatal(err)
		}
		job, err := assignJob(as, c.condition)
		if err != nil {
			t.Fatal(err)
		}
		in := &LocalInput{XYZ: make([]float32, 3*len(c.cls)), Values: [][]float64{c.cls}}
		if c.condition != "" {
			in.Values = append(in.Values, c.z)
		}
		cols, _, err := job.Local.Compute(in)
		if err != nil {
			t.Fatal(err)
		}
		var got []uint64
		for i := range c.cls {
			got = append(got, cols[0].Uint64(i))
		}
		if cols[0].Type != core.Uint8 || !slices.Equal(got, c.want) {
			t.Errorf("%s where %q: got %v (%v), want %v (uint8)", c.assignment, c.condition, got, cols[0].Type, c.want)
		}
	}
	for _, bad := range []string{"Classification[:]", "Classification[:]=", "Classification[:]=1x", "X[:]=1"} {
		as, err := parseAssignments(bad)
		if err == nil {
			_, err = assignJob(as, "")
		}
		if err == nil {
			t.Errorf("assignment %q: no error, want one", bad)
		}
	}
}

// TestCropShapes checks boxes (edges in) and polygons (WKT and GeoJSON,
// holes out).
func TestCropShapes(t *testing.T) {
	pts := [][2]float64{{0, 0}, {1, 1}, {2, 2}, {5, 5}, {3, 1}}
	for _, c := range []struct{ box, polygon, want string }{
		{"([0,2],[0,2])", "", "[0 1 2]"},
		{" ( [1, 5] , [1,5] ) ", "", "[1 2 3 4]"},
		{"", "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (0.5 0.5, 1.5 0.5, 1.5 1.5, 0.5 1.5, 0.5 0.5))", "[0 2 4]"},
		{"", `{"type":"MultiPolygon","coordinates":[[[[4,4],[6,4],[6,6],[4,4]]],[[[0,0],[1,0],[1,1],[0,0]]]]}`, "[0 1 3]"},
	} {
		in, reads, err := parseCrop(c.box, c.polygon)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([][]float64, len(reads))
		for _, p := range pts {
			vals[0], vals[1] = append(vals[0], p[0]), append(vals[1], p[1])
		}
		var got []int
		for i := range pts {
			if in(vals, i) {
				got = append(got, i)
			}
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("crop %q %q: kept %v, want %s", c.box, c.polygon, got, c.want)
		}
	}
	for _, bad := range [][2]string{{"", ""}, {"([0,1])", ""}, {"([0,a],[0,1])", ""}, {"", "LINESTRING (0 0, 1 1)"}, {"([0,1],[0,1])", "POLYGON ((0 0, 1 0, 1 1, 0 0))"}} {
		if _, _, err := parseCrop(bad[0], bad[1]); err == nil {
			t.Errorf("crop %q %q: no error, want one", bad[0], bad[1])
		}
	}
}
