package stage

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
)

func TestParseBounds(t *testing.T) {
	for _, tc := range []struct {
		in       string
		min, max [3]float64
		bad      bool
	}{
		{in: "1,2,3,4", min: [3]float64{1, 2, math.Inf(-1)}, max: [3]float64{3, 4, math.Inf(1)}},
		{in: " 1, 2 ,3,4,-5,6.5", min: [3]float64{1, 2, -5}, max: [3]float64{3, 4, 6.5}},
		{in: "1,2,3", bad: true},
		{in: "1,2,3,4,5", bad: true},
		{in: "3,2,1,4", bad: true}, // min x > max x
		{in: "1,2,x,4", bad: true},
		{in: "1,2,NaN,4", bad: true},
	} {
		b, err := parseBounds(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: no error", tc.in)
			}
			continue
		}
		if err != nil || b.Min != tc.min || b.Max != tc.max {
			t.Errorf("%q: %v, %v; want %v %v", tc.in, b, err, tc.min, tc.max)
		}
	}
}

// TestTileSizeForTilesAtOnce checks that out-of-core tiles share the
// budget among the tiles held at once (tile.InMemory: two a GPU with
// --gpus): for 8 at once, a tile with its halo covers an eighth of the
// area of one alone, and a budget too small for 8 is an error naming the
// least it needs.
func TestTileSizeForTilesAtOnce(t *testing.T) {
	lo, hi := [3]float64{0, 0, 0}, [3]float64{1000, 1000, 10}
	const n, halo = 10_000_000, 2.0
	budget := int64(streamReserve + 8*n + 1000*tilePointBytes*8*8) // 8000 points a tile at 8 at once
	one, err := tileSizeFor(budget, n, 8, halo, lo, hi, 1)
	if err != nil {
		t.Fatal(err)
	}
	eight, err := tileSizeFor(budget, n, 8, halo, lo, hi, 8)
	if err != nil {
		t.Fatal(err)
	}
	// (S + 2h)² · n/area is the points a tile holds.
	held := func(s float64) float64 { return (s + 2*halo) * (s + 2*halo) * n / 1e6 }
	if r := held(one) / held(eight); math.Abs(r-8) > 0.01 {
		t.Errorf("a tile alone holds %.0f points, one of 8 at once %.0f: ratio %.3f, want 8", held(one), held(eight), r)
	}
	if math.Abs(held(eight)-8000) > 1 {
		t.Errorf("one of 8 tiles at once holds %.0f points, want 8000", held(eight))
	}
	if _, err := tileSizeFor(budget, n, 8, halo, lo, hi, 16); err == nil || !strings.Contains(err.Error(), "give at least") {
		t.Errorf("16 tiles at once in a budget for 8 of 8000 points: %v, want an error naming the least budget", err)
	}
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
			if !slices.EqualFunc(mean, tt.knnMean, algotest.Near[float32](1e-6)) {
				t.Errorf("%s %s: knn mean %v, want %v", b, tt.name, mean, tt.knnMean)
			}
		}
	}
}

func TestDensitySummary(t *testing.T) {
	if e := newDensityStats([]float64{21932, 123456}).String(); strings.Contains(e, "e+") {
		t.Errorf("density summary %q uses scientific notation", e)
	}
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

// neighborsFixture is five points at UTM-sized coordinates: four in a row
// 1 apart (one of them 5 above), one 10 away, with intensities 0, 7, ...
func neighborsFixture() *core.Cloud {
	c := core.New(5)
	inten, _ := c.AddAttr(core.DimIntensity, core.Uint16)
	for i, p := range [][2]float64{{0, 0}, {1, 0}, {2, 0}, {3, 5}, {10, 0}} {
		c.X[i], c.Y[i], c.Z[i] = 500000+p[0], 4100000, 100+p[1]
		inten.SetFloat64(i, float64(7*i))
	}
	return c
}

// TestParticipants checks the points that take part (--ignore-class),
// with and without a selection (the finite points of --keep-nan), on
// clouds large enough to be split over several ranges, against a plain
// loop; and that nil means every point, an empty list none.
func TestParticipants(t *testing.T) {
	const n = 300_000
	cloud := core.New(n)
	cls := make([]uint8, n)
	for i := range cls {
		cls[i] = uint8(i*7%11 + i/100_000) // classes 0-12, in runs
	}
	if err := cloud.SetAttr(core.NewColumn(core.DimClassification, cls)); err != nil {
		t.Fatal(err)
	}
	var odd []int
	for i := 1; i < n; i += 2 {
		odd = append(odd, i)
	}
	want := func(ignore, selected []int) []int {
		out := []int{}
		for k := range n {
			i := k
			if selected != nil {
				if k >= len(selected) {
					break
				}
				i = selected[k]
			}
			if !slices.Contains(ignore, int(cls[i])) {
				out = append(out, i)
			}
		}
		return out
	}
	for _, c := range []struct {
		name     string
		ignore   []int
		selected []int
	}{
		{"7 and 12 ignored", []int{7, 12}, nil},
		{"7 ignored, odd points selected", []int{7}, odd},
		{"every class ignored", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, nil},
		{"every class ignored, odd points", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, odd},
	} {
		got, err := participants(cloud, c.ignore, c.selected)
		if err != nil {
			t.Fatal(err)
		}
		if w := want(c.ignore, c.selected); got == nil || !slices.Equal(got, w) {
			t.Errorf("%s: %d points take part (nil: %v), want %d", c.name, len(got), got == nil, len(w))
		}
	}
	// No class ignored, or none present among them: every point (nil).
	for _, ignore := range [][]int{nil, {200}} {
		if got, err := participants(cloud, ignore, nil); err != nil || got != nil {
			t.Errorf("ignore %v: got %d points (%v), want nil: every point", ignore, len(got), err)
		}
	}
}
