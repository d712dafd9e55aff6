package cellsort

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pctk/pctk/internal/par"
)

// TestOrder holds Order to a comparison sort, on cells packed into a word
// (small, negative, one axis wide, in ranges sorted on all cores) and on
// cells too wide to pack.
func TestOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		name  string
		n     int
		cells [3]int64
		base  [3]int64
	}{
		{"empty", 0, [3]int64{1, 1, 1}, [3]int64{}},
		{"one", 1, [3]int64{1, 1, 1}, [3]int64{}},
		{"small", 5000, [3]int64{7, 9, 3}, [3]int64{}},
		{"negative", 5000, [3]int64{40, 40, 40}, [3]int64{-20, -1 << 40, 5}},
		{"several ranges sorted at once", 5 * par.Grain, [3]int64{300, 200, 50}, [3]int64{-7, 0, 0}},
		{"one axis", 3000, [3]int64{1, 1, 1 << 50}, [3]int64{}},
		{"too wide to pack", 3000, [3]int64{1 << 30, 1 << 30, 1 << 30}, [3]int64{math.MinInt64 / 2, 0, 0}},
	} {
		keys := make([][3]int64, c.n)
		for i := range keys {
			for a := range 3 {
				keys[i][a] = c.base[a] + r.Int64N(c.cells[a])
			}
		}
		want := make([]int32, c.n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(i, j int32) int {
			ki, kj := keys[i], keys[j]
			return cmp.Or(cmp.Compare(ki[0], kj[0]), cmp.Compare(ki[1], kj[1]), cmp.Compare(ki[2], kj[2]))
		})
		order, starts := Order(keys)
		if !slices.Equal(order, want) {
			t.Errorf("%s: order differs from a stable comparison sort", c.name)
		}
		var ws []int32
		for j := range want {
			if j == 0 || keys[want[j]] != keys[want[j-1]] {
				ws = append(ws, int32(j))
			}
		}
		if ws = append(ws, int32(c.n)); !slices.Equal(starts, ws) {
			t.Errorf("%s: %d starts, want %d", c.name, len(starts), len(ws))
		}
	}
}
