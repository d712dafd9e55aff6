package elm

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	_ "github.com/pctk/pctk/io/text" // PDAL's elm1.txt, elm2.txt
	"github.com/pctk/pctk/primitives/findneighbor"
)

// PDAL's test/data/filters/elm1.txt and elm2.txt, which
// test/unit/filters/ELMFilterTest.cpp (test1, test2) runs with the default
// options.
const (
	elm1 = `X Y Z
1 1 1
1 2 2.1
2 1 3.2
1 3 3.4
1 3.2 3.5
2 3 3.9
1 4 4.6
7 5 5.3
3 2 12
6 2 25
`
	elm2 = `X Y Z
1 1 1
2 1 13.2
2 1 113.2
2 1 123.2
1 2 2.1
2 1 56.2
2 1 43.2
2 1 23.2
2 1 4.3
2 3 13.9
1 4 24.6
2 1 3.2
7 5 35.3
3 2 12
6 2 25
1 3 5.6
1 3.2 6.7
`
)

// parse reads a PDAL text file of X Y Z columns as float64 positions
// (the origin is 0) and their float32 rounding.
func parse(t *testing.T, text string) ([]float32, []float64) {
	var xyz []float32
	var pos []float64
	for _, line := range strings.Split(strings.TrimSpace(text), "\n")[1:] {
		for _, f := range strings.Fields(line) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatal(err)
			}
			pos, xyz = append(pos, v), append(xyz, float32(v))
		}
	}
	return xyz, pos
}

// TestPDALUnit holds ELM to ELMFilterTest.cpp's counts (2 and 7 low
// points) and to the points they are, read off the data: each file is one
// cell (X, Y < 10). elm1's Z rise 1, 2.1, 3.2, 3.4: steps of 1.1, 1.1,
// then 0.2 (points 0 and 1 low); elm2's rise 1, 2.1, 3.2, 4.3, 5.6, 6.7,
// 12, 13.2, 13.9: the first step below 1 is 13.2 to 13.9, so the seven
// points below 13.2 are low.
func TestPDALUnit(t *testing.T) {
	for _, c := range []struct {
		name, text string
		low        []int
	}{
		{"elm1", elm1, []int{0, 1}},
		{"elm2", elm2, []int{0, 4, 8, 11, 13, 15, 16}},
	} {
		xyz, pos := parse(t, c.text)
		r, err := ELM(xyz, nil, Options{Pos: pos})
		if err != nil {
			t.Fatal(err)
		}
		var low []int
		for i, l := range r.Low {
			if l {
				low = append(low, i)
				if r.Classification[i] != 7 {
					t.Errorf("%s: point %d class %d, want 7", c.name, i, r.Classification[i])
				}
			}
		}
		if r.Count != len(c.low) || !slices.Equal(low, c.low) {
			t.Errorf("%s: %d low points %v, want %v", c.name, r.Count, low, c.low)
		}
	}
	r, err := ELM(nil, nil, Options{})
	if err != nil || r.Count != 0 || len(r.Low) != 0 {
		t.Errorf("empty cloud: %+v, %v", r, err)
	}
}

// TestCellOf checks PDAL's cell expression, floor before the division,
// where it differs from floor(d/cell).
func TestCellOf(t *testing.T) {
	for _, c := range []struct {
		d, cell float64
		want    uint64
	}{
		{9.99, 10, 0}, {10, 10, 1}, {25.7, 10, 2},
		{9.5, 0.5, 18}, // floor(9.5/0.5) is 19
		{2.9, 1.5, 1},  // floor(2.9/1.5) is 1 too
		{3.7, 1.5, 2},  // 3/1.5 = 2
		{0.4, 0.5, 0},
	} {
		if got := CellOf(c.d, c.cell); got != c.want {
			t.Errorf("CellOf(%g, %g) = %d, want %d", c.d, c.cell, got, c.want)
		}
	}
}

// TestOptions checks ParamErrors and the classes kept.
func TestOptions(t *testing.T) {
	for _, c := range []struct {
		o     Options
		param string
	}{
		{Options{Cell: -1}, "cell"},
		{Options{Threshold: 1 / zero()}, "threshold"},
	} {
		_, err := ELM([]float32{0, 0, 0}, nil, c.o)
		var pe *findneighbor.ParamError
		if !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%+v: %v, want a ParamError on %s", c.o, err, c.param)
		}
	}
	if _, err := ELM([]float32{0, 0, 0}, nil, Options{Origin: &[2]float64{1, 0}}); err == nil {
		t.Error("a point below the origin accepted")
	}
	r, err := ELM([]float32{0, 0, 0, 0, 0, 5, 0, 0, 5.5}, []uint8{2, 3, 4}, Options{Class: 18})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Classification, []uint8{18, 3, 4}) {
		t.Errorf("classes %v, want [18 3 4]", r.Classification)
	}
}

func zero() float64 { return 0 }

// TestReach checks the driver's contract (algotest.CheckReach) with the
// clouds scaled by 16 (exactly), cells of 0.3, 1.7 and 4 from a corner
// below every point: a point's class from the points of a box holding its
// Reach equals its class in the whole cloud.
func TestReach(t *testing.T) {
	for _, o := range []Options{{Cell: 0.3, Threshold: 0.5}, {Cell: 1.7, Threshold: 0.2}, {Cell: 4, Threshold: 1}} {
		o.Origin = &[2]float64{-1 << 24, -1 << 24}
		t.Run(fmt.Sprintf("cell%g", o.Cell), func(t *testing.T) {
			algotest.CheckReach(t, func(xyz []float32, _ findneighbor.Backend) ([][]float64, []float64, error) {
				big := make([]float32, len(xyz))
				for i, v := range xyz {
					big[i] = 16 * v
				}
				r, err := ELM(big, nil, o)
				if err != nil {
					return nil, nil, err
				}
				for i := range r.Reach {
					r.Reach[i] /= 16
				}
				return [][]float64{algotest.Floats(r.Classification)}, r.Reach, nil
			})
		})
	}
}

// TestPDAL runs filters.elm on PDAL 2.9.2 and ELM on the same files
// (PDAL's two test files, autzen_trim), and holds every
// point's Classification equal.
func TestPDAL(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"elm1.txt": elm1, "elm2.txt": elm2} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		file string
		o    Options
	}{
		{filepath.Join(dir, "elm1.txt"), Options{}},
		{filepath.Join(dir, "elm2.txt"), Options{}},
		{"autzen", Options{}},
		{"autzen", Options{Cell: 3.3, Threshold: 0.4, Class: 18}},
	} {
		t.Run(fmt.Sprintf("%s/cell%g", filepath.Base(c.file), c.o.Cell), func(t *testing.T) {
			file := c.file
			if file == "autzen" {
				file = algotest.SharedFile(t, "pdal/las/autzen_trim.las")
			}
			o := c.o.withDefaults()
			pc, ptook := algotest.PDALFilter(t, file, map[string]any{"type": "filters.elm", "cell": o.Cell, "threshold": o.Threshold, "class": o.Class})
			l := algotest.ReadLocal(t, file)
			xyz, pos := l.XYZ, l.Pos
			in, _, err := pcio.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var class []uint8
			if a := in.Attr(core.DimClassification); a != nil {
				class = a.Data.([]uint8)
			}
			c.o.Pos = pos
			r, err := ELM(xyz, class, c.o)
			if err != nil {
				t.Fatal(err)
			}
			want := pc.Attr(core.DimClassification).Data.([]uint8)
			bad := 0
			for i := range want {
				if r.Classification[i] != want[i] {
					if bad++; bad <= 3 {
						t.Errorf("point %d: class %d, PDAL %d", i, r.Classification[i], want[i])
					}
				}
			}
			t.Logf("%d points, %d low, %d classes differ; PDAL pipeline %v", len(want), r.Count, bad, ptook)
		})
	}
}

// TestManyLowPoints holds ELM to the walk over a fully sorted cell on
// cells with more low points than it picks one at a time (selectFirst):
// columns of points spaced above the threshold, with equal heights (ties
// go by index), beside ordinary cells, in shuffled order.
func TestManyLowPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var xyz []float32
	for c, steps := range []int{0, 3, selectFirst, selectFirst + 1, 40} {
		for s := range steps + 5 {
			z := float32(2 * min(s, steps)) // the top five share a height
			if s > steps {
				z += float32(rng.Float64() * 0.5)
			}
			xyz = append(xyz, float32(c*20)+float32(rng.Float64()*9), float32(rng.Float64()*9), z)
		}
	}
	perm := rng.Perm(len(xyz) / 3)
	shuffled := make([]float32, 0, len(xyz))
	for _, i := range perm {
		shuffled = append(shuffled, xyz[3*i:3*i+3]...)
	}
	got, err := ELM(shuffled, nil, Options{Threshold: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The walk over each cell sorted by height, then index.
	n := len(shuffled) / 3
	cell := func(i int) int { return int(shuffled[3*i] / 20) }
	want := make([]bool, n)
	for c := range 5 {
		var pts []int
		for i := range n {
			if cell(i) == c {
				pts = append(pts, i)
			}
		}
		slices.SortFunc(pts, func(a, b int) int {
			if za, zb := shuffled[3*a+2], shuffled[3*b+2]; za != zb {
				return cmp.Compare(za, zb)
			}
			return cmp.Compare(a, b)
		})
		for k := 0; k+1 < len(pts); k++ {
			if math.Abs(float64(shuffled[3*pts[k]+2])-float64(shuffled[3*pts[k+1]+2])) < 1 {
				break
			}
			want[pts[k]] = true
		}
	}
	count := 0
	for i := range n {
		if got.Low[i] != want[i] {
			t.Errorf("point %d (%v): low %v, want %v", i, shuffled[3*i:3*i+3], got.Low[i], want[i])
		}
		if want[i] {
			count++
		}
	}
	if got.Count != count || count < 40+selectFirst {
		t.Errorf("%d low points, want %d (at least %d)", got.Count, count, 40+selectFirst)
	}
	// NoReach (a whole run) leaves the reaches out and the classes as
	// they are.
	whole, err := ELM(shuffled, nil, Options{Threshold: 1, NoReach: true})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Reach != nil || len(got.Reach) != n || !slices.Equal(whole.Classification, got.Classification) || whole.Count != got.Count {
		t.Errorf("NoReach: reach %d values, %d low points; want none and %d", len(whole.Reach), whole.Count, got.Count)
	}
}
