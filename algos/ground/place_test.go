package ground

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestPlace holds place, which runs over ranges on all cores, to a plain
// loop: each selected point's raster cell and minimum-surface cell, the
// raster's span and edges; and its errors to the first bad point, the
// lowest index, whichever range finds it.
func TestPlace(t *testing.T) {
	const n, cell = 200_000, 0.7
	r := rand.New(rand.NewPCG(3, 4))
	pos := make([]float64, 3*n)
	sel := make([]bool, n)
	for i := range n {
		pos[3*i], pos[3*i+1], pos[3*i+2] = 20+r.Float64()*100, -5+r.Float64()*60, r.Float64()
		sel[i] = i%5 != 0
	}
	g := Grid{X0: 10, Y0: -10, Cols: 200, Rows: 120}
	minCell := func(dx, dy float64) (int, int) { return int(math.Floor(dx/cell + 0.5)), int(math.Floor(dy/cell + 0.5)) }
	for _, mc := range []func(dx, dy float64) (int, int){nil, minCell} {
		ra, cells, mcells, err := place(pos, sel, g, cell, mc)
		if err != nil {
			t.Fatal(err)
		}
		// The plain loop.
		lo, hi := [2]int{math.MaxInt, math.MaxInt}, [2]int{math.MinInt, math.MinInt}
		cc := make([][4]int, n)
		for i := range n {
			if !sel[i] {
				continue
			}
			c := int(math.Floor((pos[3*i] - g.X0) / cell))
			rr := int(math.Floor((pos[3*i+1] - g.Y0) / cell))
			cc[i] = [4]int{c, rr, c, rr}
			if mc != nil {
				cc[i][2], cc[i][3] = mc(pos[3*i]-g.X0, pos[3*i+1]-g.Y0)
			}
			lo = [2]int{min(lo[0], cc[i][0], cc[i][2]), min(lo[1], cc[i][1], cc[i][3])}
			hi = [2]int{max(hi[0], cc[i][0], cc[i][2]), max(hi[1], cc[i][1], cc[i][3])}
		}
		want := raster{cols: hi[0] - lo[0] + 1, rows: hi[1] - lo[1] + 1, c0: lo[0], r0: lo[1],
			edge: [4]bool{lo[0] == 0, hi[0] == g.Cols-1, lo[1] == 0, hi[1] == g.Rows-1}}
		if ra != want {
			t.Fatalf("minCell %v: raster %+v, want %+v", mc != nil, ra, want)
		}
		for i := range n {
			wc, wm := -1, -1
			if sel[i] {
				wc = (cc[i][0]-lo[0])*want.rows + cc[i][1] - lo[1]
				wm = (cc[i][2]-lo[0])*want.rows + cc[i][3] - lo[1]
			}
			if mc == nil {
				wm = wc
			}
			if cells[i] != wc || mcells[i] != wm {
				t.Fatalf("minCell %v: point %d in cells %d, %d; want %d, %d", mc != nil, i, cells[i], mcells[i], wc, wm)
			}
		}
	}
	// The first bad point is reported, not the first a worker meets.
	for _, c := range []struct {
		bad  map[int][3]float64
		want string
	}{
		{map[int][3]float64{150_001: {500, 0, 0}, 180_001: {math.NaN(), 0, 0}}, "point 150001 at (500, 0) lies outside the grid"},
		{map[int][3]float64{190_001: {500, 0, 0}, 70_001: {1, 2, math.Inf(1)}}, "point 70001: coordinate (1, 2, +Inf) is not finite"},
		{map[int][3]float64{199_999: {0, -20, 0}, 101: {0, 0, 0}}, "point 101 at (0, 0) lies outside the grid"},
	} {
		p := slices.Clone(pos)
		for i, v := range c.bad {
			copy(p[3*i:3*i+3], v[:])
		}
		_, _, _, err := place(p, sel, g, cell, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error with %q", err, c.want)
		}
	}
	// A bad point that is not selected is no error.
	p := slices.Clone(pos)
	p[0] = math.NaN() // point 0: i%5 == 0, not selected
	if _, _, _, err := place(p, sel, g, cell, nil); err != nil {
		t.Errorf("an unselected NaN point: %v", err)
	}
}
