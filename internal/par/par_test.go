package par

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestRangesCover checks that Ranges cuts [0, n) into consecutive ranges
// of at least grain items (but the last) and that For visits each once.
func TestRangesCover(t *testing.T) {
	for _, n := range []int{0, 1, 100, Grain, 5*Grain + 3} {
		rs := Ranges(n, Grain)
		seen := make([]int, n)
		For(rs, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n %d: item %d visited %d times", n, i, c)
			}
		}
		for i, r := range rs {
			if (i > 0 && r[0] != rs[i-1][1]) || (i < len(rs)-1 && r[1]-r[0] < Grain) {
				t.Errorf("n %d: ranges %v are not consecutive ranges of at least %d", n, rs, Grain)
			}
		}
	}
}

// TestSortMatchesSlicesSort sorts random values with many duplicates, in
// ranges from one to an odd number, with one and four cores.
func TestSortMatchesSlicesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 1000, 3*Grain + 11, 5*Grain + 3, 7*Grain + 5} {
		for _, procs := range []int{1, 4} {
			old := runtime.GOMAXPROCS(procs)
			v := make([]float64, n)
			for i := range v {
				v[i] = float64(rng.IntN(5000)) / 7
			}
			want := slices.Clone(v)
			slices.Sort(want)
			Sort(v)
			runtime.GOMAXPROCS(old)
			if !slices.Equal(v, want) {
				t.Errorf("%d values, GOMAXPROCS %d: not sorted as slices.Sort sorts", n, procs)
			}
		}
	}
}

// TestEachVisitsOnce checks that Each calls fn once for every index, and
// never for n 0.
func TestEachVisitsOnce(t *testing.T) {
	for _, n := range []int{0, 1, 3, 100} {
		seen := make([]int, n)
		Each(n, func(i int) { seen[i]++ })
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n %d: index %d visited %d times", n, i, c)
			}
		}
	}
}

// TestFirstIsLowest checks that First finds the lowest marked index,
// whichever range finds one first, and -1 when none is marked.
func TestFirstIsLowest(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	n := 5*Grain + 3
	for _, marks := range [][]int{nil, {0}, {n - 1}, {3*Grain + 1, Grain + 7, 4 * Grain}} {
		marked := make([]bool, n)
		want := -1
		for _, i := range marks {
			marked[i] = true
			if want < 0 || i < want {
				want = i
			}
		}
		got := First(n, func(lo, hi int) int {
			for i := lo; i < hi; i++ {
				if marked[i] {
					return i
				}
			}
			return -1
		})
		if got != want {
			t.Errorf("marks %v: First = %d, want %d", marks, got, want)
		}
	}
	if got := First(0, func(lo, hi int) int { return -1 }); got != -1 {
		t.Errorf("n 0: First = %d, want -1", got)
	}
}

// TestClone checks that Clone copies every item into fresh storage, and
// Copy as many as the shorter slice holds, across many ranges and for the
// empty and nil slices.
func TestClone(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	for _, n := range []int{0, 1, Grain - 1, 7*Grain + 5} {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i) + 0.5
		}
		c := Clone(s)
		if !slices.Equal(c, s) {
			t.Fatalf("n %d: Clone differs", n)
		}
		if short := make([]float64, n/2); Copy(short, s) != n/2 || !slices.Equal(short, s[:n/2]) {
			t.Fatalf("n %d: Copy into half the room differs", n)
		}
		if n > 0 {
			c[n-1] = -1
			if s[n-1] == -1 {
				t.Fatalf("n %d: Clone shares storage", n)
			}
		}
	}
	if Clone[int](nil) != nil {
		t.Error("Clone(nil) is not nil")
	}
}
