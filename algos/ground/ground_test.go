package ground

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestSMRFNoReturns is PDAL's SMRFFilterTest.noreturns: the ten points of
// test/data/text/utm17_1.txt, without return numbers, are all ground.
func TestSMRFNoReturns(t *testing.T) {
	pts := [][3]float64{
		{289814.15, 4320978.61, 170.76}, {289814.64, 4320978.84, 170.76}, {289815.12, 4320979.06, 170.75},
		{289815.60, 4320979.28, 170.74}, {289816.08, 4320979.50, 170.68}, {289816.56, 4320979.71, 170.66},
		{289817.03, 4320979.92, 170.63}, {289817.53, 4320980.16, 170.62}, {289818.01, 4320980.38, 170.61},
		{289818.50, 4320980.59, 170.58},
	}
	abs := make([]float64, 0, 30)
	xyz := make([]float32, 0, 30)
	for _, p := range pts {
		abs = append(abs, p[:]...)
		xyz = append(xyz, float32(p[0]-289816), float32(p[1]-4320979), float32(p[2]-170))
	}
	for _, frame := range []bool{true, false} {
		opts := SMRFOptions{PDALFrame: frame}
		if frame {
			opts.Pos = abs
		}
		got, err := SMRF(xyz, Attrs{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range got.Classification {
			if c != Ground {
				t.Errorf("PDAL frame %v: point %d: class %d, want %d", frame, i, c, Ground)
			}
		}
	}
}

// TestParseReturns is PDAL's SMRFilterTest.invalidReturns and validReturns.
func TestParseReturns(t *testing.T) {
	r, err := ParseReturns("last,first, intermediate,only")
	if err != nil || r != First|Intermediate|Last|Only {
		t.Errorf("ParseReturns: got %v, %v, want first,intermediate,last,only", r, err)
	}
	var pe *findneighbor.ParamError
	if _, err := ParseReturns("foo"); !errors.As(err, &pe) || pe.Param != "returns" {
		t.Errorf("ParseReturns(foo): got %v, want a ParamError naming returns", err)
	}
	if s := Returns(0).String(); s != "last,only" {
		t.Errorf("default returns %q, want last,only", s)
	}
}

func TestSMRFErrors(t *testing.T) {
	xyz := []float32{0, 0, 0, 1, 1, 0}
	for _, tc := range []struct {
		name  string
		attrs Attrs
		opts  SMRFOptions
		param string
	}{
		{"negative cell", Attrs{}, SMRFOptions{Cell: -1}, "cell"},
		{"NaN slope", Attrs{}, SMRFOptions{Slope: math.NaN()}, "slope"},
		{"negative cut", Attrs{}, SMRFOptions{Cut: -2}, "cut"},
		{"frame without Pos", Attrs{}, SMRFOptions{PDALFrame: true}, ""},
		{"some zero returns", Attrs{ReturnNumber: []uint8{0, 1}, NumberOfReturns: []uint8{1, 1}}, SMRFOptions{}, ""},
		{"all ignored", Attrs{Classification: []uint8{7, 7}}, SMRFOptions{Ignore: []uint8{7}}, ""},
		{"short column", Attrs{Classification: []uint8{7}}, SMRFOptions{}, ""},
	} {
		_, err := SMRF(xyz, tc.attrs, tc.opts)
		var pe *findneighbor.ParamError
		switch {
		case err == nil:
			t.Errorf("%s: no error", tc.name)
		case tc.param != "" && (!errors.As(err, &pe) || pe.Param != tc.param):
			t.Errorf("%s: got %v, want a ParamError naming %s", tc.name, err, tc.param)
		}
	}
}

// terrain is a seeded cloud of n points over size × size: a sloping,
// rolling ground with boxes (buildings) on it and a few low outliers, and
// holes where nothing was measured.
func terrain(seed uint64, n int, size float64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	xyz := make([]float32, 0, 3*n)
	for len(xyz) < 3*n {
		x, y := rng.Float64()*size, rng.Float64()*size
		if math.Hypot(x-0.7*size, y-0.3*size) < 0.08*size {
			continue // a hole
		}
		z := 0.1*x + 2*math.Sin(y/7) + 0.05*rng.NormFloat64()
		switch {
		case math.Mod(x, 23) < 8 && math.Mod(y, 29) < 10:
			z += 6 // a building
		case rng.IntN(200) == 0:
			z -= 5 // a low outlier
		}
		xyz = append(xyz, float32(x-size/2), float32(y-size/2), float32(z))
	}
	return xyz
}

// TestReach checks the contract of Reach for both filters: the classes of
// the points whose Reach lies inside a box, computed on the box's points
// alone (on the whole run's grid), are the whole cloud's.
func TestReach(t *testing.T) {
	const size = 120.0
	xyz := terrain(3, 12000, size)
	pos, _ := positions(xyz, nil)
	n := len(xyz) / 3
	for _, tc := range []struct {
		name string
		run  func(xyz []float32, g *Grid) (Result, error)
	}{
		{"smrf", func(xyz []float32, g *Grid) (Result, error) {
			return SMRF(xyz, Attrs{}, SMRFOptions{Window: 6, Grid: g})
		}},
		{"smrf cut", func(xyz []float32, g *Grid) (Result, error) {
			return SMRF(xyz, Attrs{}, SMRFOptions{Window: 4, Cut: 3, Grid: g})
		}},
		{"pmf", func(xyz []float32, g *Grid) (Result, error) {
			return PMF(xyz, Attrs{}, PMFOptions{MaxWindowSize: 9, Grid: g})
		}},
		{"pmf cell 0.7", func(xyz []float32, g *Grid) (Result, error) {
			return PMF(xyz, Attrs{}, PMFOptions{CellSize: 0.7, MaxWindowSize: 9, Grid: g})
		}},
	} {
		cell := 1.0
		if tc.name == "pmf cell 0.7" {
			cell = 0.7
		}
		g := PDALGrid(pos, nil, cell)
		whole, err := tc.run(xyz, &g)
		if err != nil {
			t.Fatal(err)
		}
		grounds := 0
		for _, c := range whole.Classification {
			if c == Ground {
				grounds++
			}
		}
		if grounds < n/3 || grounds > n*9/10 {
			t.Fatalf("%s: %d of %d points ground: the scene should be partly ground", tc.name, grounds, n)
		}
		hi := [2]float64{g.X0 + float64(g.Cols)*cell, g.Y0 + float64(g.Rows)*cell}
		checked := 0
		for _, box := range [][4]float64{{-60, -60, 0, 0}, {-30, -20, 40, 45}, {0, -60, 60, 10}} {
			var idx []int
			var sub []float32
			for i := range n {
				x, y := float64(xyz[3*i]), float64(xyz[3*i+1])
				if x >= box[0] && x < box[2] && y >= box[1] && y < box[3] {
					idx = append(idx, i)
					sub = append(sub, xyz[3*i:3*i+3]...)
				}
			}
			part, err := tc.run(sub, &g)
			if err != nil {
				t.Fatal(err)
			}
			for j, i := range idx {
				x, y, r := float64(xyz[3*i]), float64(xyz[3*i+1]), part.Reach[j]
				// A box side on the grid's own side needs no halo beyond.
				inside := (x-r >= box[0] || box[0] <= g.X0) && (x+r < box[2] || box[2] >= hi[0]) &&
					(y-r >= box[1] || box[1] <= g.Y0) && (y+r < box[3] || box[3] >= hi[1])
				if !inside {
					continue
				}
				checked++
				if part.Classification[j] != whole.Classification[i] {
					t.Errorf("%s: box %v: point %d (reach %g): class %d, whole cloud %d", tc.name, box, i, r, part.Classification[j], whole.Classification[i])
				}
			}
		}
		if checked < 500 {
			t.Errorf("%s: only %d points checked: the boxes should hold many points within reach", tc.name, checked)
		}
		t.Logf("%s: %d points checked; reach %.1f to %.1f", tc.name, checked, slices.Min(whole.Reach), slices.Max(whole.Reach))
	}
}

// TestPMFClassOneAndTwoOnly is PDAL's PMFFilterTest.classOneAndTwoOnly:
// autzen_trim.las with every class set to 0 and every return classified
// leaves no point of class 0.
func TestPMFClassOneAndTwoOnly(t *testing.T) {
	s := readSample(t, shared("pdal/las/autzen_trim.las"))
	a := s.attrs
	a.Classification = make([]uint8, len(s.xyz)/3)
	got, err := PMF(s.xyz, a, PMFOptions{Returns: First | Intermediate | Last | Only, Pos: s.abs, PDALFrame: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Classification) != 110000 {
		t.Fatalf("%d points, want 110000", len(got.Classification))
	}
	counts := map[uint8]int{}
	for _, c := range got.Classification {
		counts[c]++
	}
	if counts[0] != 0 || counts[1]+counts[2] != 110000 || counts[2] == 0 {
		t.Errorf("classes %v, want only 1 and 2, some of each", counts)
	}
}

func TestPMFWindows(t *testing.T) {
	// PDAL's defaults: windows 3, 5, 9, 17, 33 (the first not below 33
	// ends them), thresholds 0.15 then 0.15 + (ws − previous), at most 2.5.
	iters, ht := pmfWindows(PMFOptions{}.withDefaults())
	wantIters := []int{1, 2, 4, 8, 16}
	wantHt := []float64{0.15, 2.15, 2.5, 2.5, 2.5}
	if !slices.Equal(iters, wantIters) || !slices.Equal(ht, wantHt) {
		t.Errorf("windows: radii %v, thresholds %v; want %v, %v", iters, ht, wantIters, wantHt)
	}
}

// TestCSFEmpty is PDAL's CSFilterTest.emptyView: no points, no error.
func TestCSFEmpty(t *testing.T) {
	got, err := CSF(nil, Attrs{}, CSFOptions{})
	if err != nil || len(got.Classification) != 0 {
		t.Errorf("CSF of no points: %v, %v; want nothing, no error", got, err)
	}
}

// TestFlatWithBox runs each filter on a flat ground (z = 0, a point every
// 0.5 m over 60 m × 60 m) with a 10 m × 10 m box 8 m high on it: every
// roof point is no ground, every ground point 2 m or more from the box is
// ground.
func TestFlatWithBox(t *testing.T) {
	var xyz []float32
	var roof []bool
	for x := -30.0; x < 30; x += 0.5 {
		for y := -30.0; y < 30; y += 0.5 {
			on := x >= 0 && x < 10 && y >= 0 && y < 10
			z := 0.0
			if on {
				z = 8
			}
			xyz = append(xyz, float32(x), float32(y), float32(z))
			roof = append(roof, on)
		}
	}
	for _, tc := range []struct {
		name string
		run  func() (Result, error)
	}{
		{"smrf", func() (Result, error) { return SMRF(xyz, Attrs{}, SMRFOptions{}) }},
		{"pmf", func() (Result, error) { return PMF(xyz, Attrs{}, PMFOptions{}) }},
		{"csf", func() (Result, error) { return CSF(xyz, Attrs{}, CSFOptions{}) }},
	} {
		got, err := tc.run()
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for i, c := range got.Classification {
			x, y := float64(xyz[3*i]), float64(xyz[3*i+1])
			far := x < -2 || x >= 12 || y < -2 || y >= 12
			switch {
			case roof[i] && c != Unclassified, far && c != Ground:
				if bad++; bad <= 3 {
					t.Errorf("%s: point (%g, %g, %g): class %d", tc.name, x, y, xyz[3*i+2], c)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d points misclassified", tc.name, bad)
		}
	}
}
