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
