package hostkit

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSpatialOrderPaths checks that the counting sort (with and without
// its keys computed ahead), the radix sort and the comparison sort give the
// same stable order.
func TestSpatialOrderPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 5000
	for _, space := range []uint64{1, 700, 2 * n, 1 << 20, 1 << 31, 1 << 50} {
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = r.Uint64N(space)
		}
		key := func(i int) uint64 { return keys[i] }
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int {
			switch {
			case keys[a] < keys[b]:
				return -1
			case keys[a] > keys[b]:
				return 1
			}
			return 0
		})
		for _, spare := range []bool{false, true} {
			perm, runs, starts := spatialOrder(n, space, 2, spare, key)
			if !slices.Equal(perm, want) {
				t.Errorf("key space %d: order differs from a stable sort", space)
			}
			if len(starts) != len(runs)+1 || starts[len(runs)] != n {
				t.Fatalf("key space %d: %d runs, %d starts", space, len(runs), len(starts))
			}
			for c := range runs {
				for j := starts[c]; j < starts[c+1]; j++ {
					if keys[perm[j]] != runs[c] {
						t.Fatalf("key space %d: run %d holds key %d, want %d", space, c, keys[perm[j]], runs[c])
					}
				}
			}
		}
	}
}

// TestCellOrder checks CellOrder on points whose cells are known: cells of
// 1 from the points' minimum corner, row-major (z, then y, then x), ties
// by index, every index once.
func TestCellOrder(t *testing.T) {
	xyz := []float32{
		2.5, 0, 0, // 0: cell x2
		0.1, 0, 0, // 1: x0
		1.2, 1.5, 0, // 2: x1 y1
		0.3, 0, 0, // 3: x0
		0.0, 0, 1.1, // 4: z1
		1.9, 0, 0, // 5: x1
	}
	want := []int32{1, 3, 5, 0, 2, 4}
	for _, nw := range []int{0, 1, 3} {
		if got := CellOrder(xyz, 1, nw); !slices.Equal(got, want) {
			t.Errorf("CellOrder(size 1, %d workers) = %v, want %v", nw, got, want)
		}
	}
	if got := CellOrder(nil, 1, 0); len(got) != 0 {
		t.Errorf("CellOrder(no points) = %v, want empty", got)
	}
}
