package voxel

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// points returns float64 positions (origin 0) and their float32 rounding.
func points(p ...[3]float64) ([]float32, []float64) {
	var xyz []float32
	var pos []float64
	for _, q := range p {
		for _, v := range q {
			xyz, pos = append(xyz, float32(v)), append(pos, v)
		}
	}
	return xyz, pos
}

// coords returns the positions of the points pts of pos.
func coords(pos []float64, pts []int32) [][3]float64 {
	var out [][3]float64
	for _, i := range pts {
		out = append(out, [3]float64(pos[3*i:3*i+3]))
	}
	return out
}

// autzen reads autzen_trim.las with absolute float64 positions, as PDAL's.
func autzen(t testing.TB) (*core.Cloud, []float32, []float64, string) {
	file := algotest.SharedFile(t, "pdal/las/autzen_trim.las")
	c, _, err := pcio.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pos := make([]float64, 3*c.Len())
	for i := range c.Len() {
		pos[3*i], pos[3*i+1], pos[3*i+2] = c.X[i], c.Y[i], c.Z[i]
	}
	return c, c.Local(false).XYZ, pos, file
}

// TestPDALCenterNearest holds CenterNearest to
// VoxelCenterNearestNeighborFilterTest.cpp: center (autzen_trim, cell 10:
// 7820 points, and PDAL's checksums of the original indices of each 1000
// points in its output order) and center_value (readers.faux ramp of 100
// points over [0, 9]², cell 2: the points (2i+1, 2i+1, 0)).
func TestPDALCenterNearest(t *testing.T) {
	var ramp [][3]float64
	del := 9.0 / 99
	for i := range 100 {
		ramp = append(ramp, [3]float64{del * float64(i), del * float64(i), 0})
	}
	xyz, pos := points(ramp...)
	r, err := CenterNearest(xyz, Options{Cell: 2, Pos: pos})
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]float64{{1, 1, 0}, {3, 3, 0}, {5, 5, 0}, {7, 7, 0}, {9, 9, 0}}
	if got := coords(pos, r.Order); !slices.Equal(got, want) {
		t.Errorf("ramp: kept %v, want %v", got, want)
	}

	_, axyz, apos, _ := autzen(t)
	r, err = CenterNearest(axyz, Options{Cell: 10, Pos: apos})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kept != 7820 {
		t.Errorf("autzen: %d points kept, want 7820", r.Kept)
	}
	sums := []int64{39811016, 35546903, 38699916, 43843400, 51999906, 69590553, 75163027, 50946932}
	var got []int64
	for j, i := range r.Order {
		if j%1000 == 0 {
			got = append(got, 0)
		}
		got[len(got)-1] += int64(i)
	}
	if !slices.Equal(got, sums) {
		t.Errorf("autzen: checksums %v, want %v", got, sums)
	}
}

// TestPDALCentroidNearest holds CentroidNearest to
// VoxelCentroidNearestNeighborFilterTest.cpp (SyntheticCloudKnownOutput):
// cell 10 from the first point (5, 5, 5) keeps (0,0,0), (11,11,11) and
// (21,21,21), here in PDAL's key order.
func TestPDALCentroidNearest(t *testing.T) {
	xyz, pos := points([3]float64{5, 5, 5}, [3]float64{0, 0, 0}, [3]float64{1, 1, 1}, [3]float64{11, 11, 11}, [3]float64{21, 21, 21})
	r, err := CentroidNearest(xyz, Options{Cell: 10, Pos: pos})
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]float64{{0, 0, 0}, {11, 11, 11}, {21, 21, 21}}
	if got := coords(pos, r.Order); !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
	// More than two points: the one nearest the centroid (1, 1, 1) of
	// 0, 1, 2 on a line; a tie of two goes to the second.
	xyz, pos = points([3]float64{0, 0, 0}, [3]float64{2, 2, 2}, [3]float64{1, 1, 1})
	if r, _ = CentroidNearest(xyz, Options{Cell: 10, Pos: pos}); !slices.Equal(r.Order, []int32{2}) {
		t.Errorf("three points: kept %v, want [2]", r.Order)
	}
	xyz, pos = points([3]float64{0, 0, 0}, [3]float64{4, 4, 4}, [3]float64{6, 6, 6})
	if r, _ = CentroidNearest(xyz, Options{Cell: 10, Origin: &[3]float64{0, 0, 0}, Pos: pos}); !slices.Equal(r.Order, []int32{1}) {
		t.Errorf("three points, centroid 3.33: kept %v, want [1]", r.Order)
	}
	xyz, pos = points([3]float64{4, 5, 5}, [3]float64{6, 5, 5})
	if r, _ = CentroidNearest(xyz, Options{Cell: 10, Origin: &[3]float64{0, 0, 0}, Pos: pos}); !slices.Equal(r.Order, []int32{1}) {
		t.Errorf("two points at the same distance from the centre: kept %v, want [1]", r.Order)
	}
}

// TestPDALDownsize holds Downsize to VoxelDownsizeFilterTest.cpp:
// standard (autzen_trim, cell 10: 7824 points in both modes), origin
// (cell 10 from (5,5,5): 8 points, centres at 5× the unit offsets) and
// stream (cell 4, 8 points in 2D: the first and centre outputs listed).
func TestPDALDownsize(t *testing.T) {
	_, axyz, apos, _ := autzen(t)
	for _, m := range []Mode{First, Center} {
		r, err := Downsize(axyz, DownsizeOptions{Options{Cell: 10, Pos: apos}, m})
		if err != nil || r.Kept != 7824 {
			t.Errorf("autzen %v: %d kept, %v; want 7824", m, r.Kept, err)
		}
	}
	plist := [][3]float64{{5, 5, 5}, {1, 1, -1}, {1, -1, 1}, {1, -1, -1}, {-1, 1, 1}, {-1, 1, -1}, {-1, -1, 1}, {-1, -1, -1}, {1, 1, 1}}
	xyz, pos := points(plist...)
	r, err := Downsize(xyz, DownsizeOptions{Options: Options{Cell: 10, Pos: pos}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kept != 8 || r.Keep[8] {
		t.Errorf("origin: kept %v, want the first 8", r.Keep)
	}
	for i := range 8 {
		want := [3]float64{5 * plist[i][0], 5 * plist[i][1], 5 * plist[i][2]}
		if i == 0 {
			want = [3]float64{5, 5, 5}
		}
		if got := [3]float64(r.Moved[3*i : 3*i+3]); got != want {
			t.Errorf("origin: point %d moved to %v, want %v", i, got, want)
		}
	}
	stream := [][3]float64{{2, 2, 0}, {7, 2, 0}, {3, 3, 0}, {9, 1, 0}, {5, 1, 0}, {-2, -2, 0}, {-3, -3, 0}, {6, 7, 0}}
	xyz, pos = points(stream...)
	for _, c := range []struct {
		m    Mode
		want [][2]float64
	}{
		{First, [][2]float64{{2, 2}, {7, 2}, {9, 1}, {-2, -2}, {6, 7}}},
		{Center, [][2]float64{{2, 2}, {6, 2}, {10, 2}, {-2, -2}, {6, 6}}},
	} {
		r, err := Downsize(xyz, DownsizeOptions{Options{Cell: 4, Pos: pos}, c.m})
		if err != nil {
			t.Fatal(err)
		}
		out := pos
		if r.Moved != nil {
			out = r.Moved
		}
		var got [][2]float64
		for i, k := range r.Keep {
			if k {
				got = append(got, [2]float64{out[3*i], out[3*i+1]})
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("stream %v: %v, want %v", c.m, got, c.want)
		}
	}
}

// TestOptions checks ParamErrors and modes.
func TestOptions(t *testing.T) {
	_, err := CenterNearest([]float32{0, 0, 0}, Options{Cell: -1})
	var pe *findneighbor.ParamError
	if !errors.As(err, &pe) || pe.Param != "cell" {
		t.Errorf("cell -1: %v, want a ParamError on cell", err)
	}
	if m, err := ParseMode("CENTER"); err != nil || m != Center {
		t.Errorf("ParseMode(CENTER) = %v, %v", m, err)
	}
	if _, err := ParseMode("middle"); err == nil {
		t.Error("ParseMode(middle): no error")
	}
	if _, err := Downsize([]float32{0, 0, 0}, DownsizeOptions{Mode: 5}); err == nil {
		t.Error("mode 5: no error")
	}
	r, err := CentroidNearest(nil, Options{})
	if err != nil || r.Kept != 0 {
		t.Errorf("empty: %+v, %v", r, err)
	}
}

// TestReach checks the stage driver's contract (algotest.CheckReach) for
// the three filters, with a corner below every point.
func TestReach(t *testing.T) {
	org := &[3]float64{-1 << 20, -1 << 20, -1 << 20}
	for name, run := range map[string]func(xyz []float32) (*Result, error){
		"center":   func(xyz []float32) (*Result, error) { return CenterNearest(xyz, Options{Cell: 0.2, Origin: org}) },
		"centroid": func(xyz []float32) (*Result, error) { return CentroidNearest(xyz, Options{Cell: 0.3, Origin: org}) },
		"first": func(xyz []float32) (*Result, error) {
			return Downsize(xyz, DownsizeOptions{Options{Cell: 0.25, Origin: org}, First})
		},
	} {
		t.Run(name, func(t *testing.T) {
			algotest.CheckReach(t, func(xyz []float32, _ findneighbor.Backend) ([][]float64, []float64, error) {
				r, err := run(xyz)
				if err != nil {
					return nil, nil, err
				}
				keep := make([]uint8, len(r.Keep))
				for i, k := range r.Keep {
					if k {
						keep[i] = 1
					}
				}
				return [][]float64{algotest.Floats(keep)}, r.Reach, nil
			})
		})
	}
}

// TestPDAL runs the three filters on PDAL 2.9.2 and here on the same LAS
// files (absolute float64 positions) and holds the kept points equal: in
// PDAL's order for the nearest-neighbour filters; for voxeldownsize center,
// the moved coordinates as PDAL's writers.text prints them (17 decimals).
func TestPDAL(t *testing.T) {
	cases := []struct {
		stage map[string]any
		run   func(xyz []float32, pos []float64) (*Result, error)
	}{
		{map[string]any{"type": "filters.voxelcenternearestneighbor", "cell": 6.0},
			func(xyz []float32, pos []float64) (*Result, error) {
				return CenterNearest(xyz, Options{Cell: 6, Pos: pos})
			}},
		{map[string]any{"type": "filters.voxelcentroidnearestneighbor", "cell": 5.0},
			func(xyz []float32, pos []float64) (*Result, error) {
				return CentroidNearest(xyz, Options{Cell: 5, Pos: pos})
			}},
		{map[string]any{"type": "filters.voxeldownsize", "cell": 4.5, "mode": "first"},
			func(xyz []float32, pos []float64) (*Result, error) {
				return Downsize(xyz, DownsizeOptions{Options{Cell: 4.5, Pos: pos}, First})
			}},
		{map[string]any{"type": "filters.voxeldownsize", "cell": 5.5},
			func(xyz []float32, pos []float64) (*Result, error) {
				return Downsize(xyz, DownsizeOptions{Options{Cell: 5.5, Pos: pos}, Center})
			}},
	}
	_, xyz, pos, file := autzen(t)
	var stages []map[string]any
	for _, c := range cases {
		stages = append(stages, c.stage)
	}
	pcs, ptook := algotest.PDALText(t, file, stages...)
	t.Logf("PDAL pipeline (4 filters, one reading): %v", ptook)
	for k, c := range cases {
		t.Run(fmt.Sprint(c.stage["type"], c.stage["cell"]), func(t *testing.T) {
			pc := pcs[k]
			r, err := c.run(xyz, pos)
			if err != nil {
				t.Fatal(err)
			}
			out, order := pos, r.Order
			if r.Moved != nil {
				out = r.Moved
			}
			if order == nil {
				for i, k := range r.Keep {
					if k {
						order = append(order, int32(i))
					}
				}
			}
			if pc.Len() != len(order) {
				t.Fatalf("%d points kept, PDAL %d", len(order), pc.Len())
			}
			bad := 0
			for j, i := range order {
				got := [3]float64(out[3*i : 3*i+3])
				want := [3]float64{pc.X[j], pc.Y[j], pc.Z[j]}
				if got != want {
					if bad++; bad <= 3 {
						t.Errorf("output %d: point %d at %v, PDAL %v", j, i, got, want)
					}
				}
			}
			t.Logf("%d points, %d kept, %d differ", len(r.Keep), r.Kept, bad)
		})
	}
}

// TestNoReach checks that Options.NoReach leaves Reach nil and keeps the
// same points as a run with reaches, in each filter.
func TestNoReach(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	xyz := make([]float32, 3*3000)
	for i := range xyz {
		xyz[i] = float32(rng.Float64() * 10)
	}
	for name, run := range map[string]func(o Options) (*Result, error){
		"center":   func(o Options) (*Result, error) { return CenterNearest(xyz, o) },
		"centroid": func(o Options) (*Result, error) { return CentroidNearest(xyz, o) },
		"first":    func(o Options) (*Result, error) { return Downsize(xyz, DownsizeOptions{o, First}) },
	} {
		with, err := run(Options{Cell: 0.7})
		if err != nil {
			t.Fatal(err)
		}
		without, err := run(Options{Cell: 0.7, NoReach: true})
		if err != nil {
			t.Fatal(err)
		}
		if without.Reach != nil || len(with.Reach) != len(with.Keep) || !slices.Equal(with.Keep, without.Keep) || with.Kept != without.Kept || with.Kept == 0 {
			t.Errorf("%s: NoReach gives %d reaches and %d kept; with reaches %d and %d kept", name, len(without.Reach), without.Kept, len(with.Reach), with.Kept)
		}
	}
}
