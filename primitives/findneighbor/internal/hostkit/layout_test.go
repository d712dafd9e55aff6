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

// TestBoundsOnAllCores holds Bounds, over ranges of points on all cores, to
// one pass on one core (bounds): many ranges, the extremes in the last and
// first ranges, and a cloud of no points.
func TestBoundsOnAllCores(t *testing.T) {
	const n = 300_000
	xyz := make([]float32, 3*n)
	for i := range xyz {
		xyz[i] = float32(i%1009) - 500
	}
	xyz[3*(n-1)], xyz[1], xyz[3*(n/2)+2] = 1e6, -2e6, 3e6
	lo, hi := Bounds(xyz)
	wlo, whi := bounds(xyz)
	if lo != wlo || hi != whi || lo[1] != -2e6 || hi[0] != 1e6 || hi[2] != 3e6 {
		t.Errorf("Bounds = %v %v, want %v %v", lo, hi, wlo, whi)
	}
	if lo, hi := Bounds(nil); lo != [3]float32{} || hi != [3]float32{} {
		t.Errorf("Bounds(nil) = %v %v, want zeros", lo, hi)
	}
}
