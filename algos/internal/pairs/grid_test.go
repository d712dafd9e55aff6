package pairs

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// cloud is a test case: float32 points and, optionally, float64 ones.
type cloud struct {
	name string
	xyz  []float32
	pos  []float64
}

// clouds are fntest's random clouds, the same shifted far from the origin
// in float64, and hand-made ties: pairs exactly at r and a rounding
// inside, in 3D and in XY only.
func clouds() []cloud {
	var cs []cloud
	for _, c := range fntest.Clouds(3, 900) {
		cs = append(cs, cloud{name: c.Name, xyz: c.XYZ})
		pos := make([]float64, len(c.XYZ))
		for i, v := range c.XYZ {
			pos[i] = float64(v) + 4e5 + float64(i%3)*1e-7
		}
		cs = append(cs, cloud{name: c.Name + " far in float64", xyz: c.XYZ, pos: pos})
	}
	ties := []float64{0, 0, 0, 1, 0, 0, 2, 0, 0, 2 + 1 - 1e-15, 0, 0, 0, 1, 0, 0.6, 0.8, 0, 0.6, 0.8, 0.5}
	xyz := make([]float32, len(ties))
	for i, v := range ties {
		xyz[i] = float32(v)
	}
	return append(cs, cloud{name: "ties", xyz: xyz, pos: ties})
}

// near is the reference test of a pair.
func near(c cloud, dims, i, j int, r float64) bool {
	d2 := 0.0
	for a := range dims {
		var d float64
		if c.pos != nil {
			d = c.pos[3*i+a] - c.pos[3*j+a]
		} else {
			d = float64(c.xyz[3*i+a]) - float64(c.xyz[3*j+a])
		}
		d2 += float64(d * d)
	}
	return d2 < r*r
}

// components labels the points by the smallest index of their component
// given a list of linked pairs.
func components(n int, pairs [][2]int) []int {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	for _, p := range pairs {
		a, b := find(p[0]), find(p[1])
		parent[max(a, b)] = min(a, b)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = find(i)
	}
	return out
}

// TestComponentsLarge holds Components to the components of Forest's
// pairs on clouds of several ranges of par.Grain points each, so that the
// smallest indices are found on all cores.
func TestComponentsLarge(t *testing.T) {
	for _, c := range fntest.Clouds(7, 150000)[:4] {
		n := len(c.XYZ) / 3
		var got [][2]int
		if err := Forest(c.XYZ, nil, false, 0.02, 0, func(i, j int) error {
			got = append(got, [2]int{i, j})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		want := components(n, got)
		least, err := Components(c.XYZ, nil, false, 0.02, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ints(least), want) {
			t.Errorf("%s: Components differ from Forest's pairs' components", c.Name)
		}
		roots := 0
		for i, l := range want {
			if l == i {
				roots++
			}
		}
		if roots == 1 || roots == n {
			t.Errorf("%s: %d components of %d points: pick another radius", c.Name, roots, n)
		}
	}
}

func ints(v []int32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// TestForest holds Forest to the components of every pair found in
// O(N²), and checks that every pair it gives is a link and that it gives
// no more than a spanning forest needs.
func TestForest(t *testing.T) {
	for _, c := range clouds() {
		n := len(c.xyz) / 3
		for _, r := range []float64{0.05, 0.3, 1, 1.5} {
			for _, flat := range []bool{false, true} {
				dims := 3
				if flat {
					dims = 2
				}
				name := fmt.Sprintf("%s r=%g flat=%v", c.name, r, flat)
				var all [][2]int
				for i := range n {
					for j := i + 1; j < n; j++ {
						if near(c, dims, i, j, r) {
							all = append(all, [2]int{i, j})
						}
					}
				}
				var got [][2]int
				err := Forest(c.xyz, c.pos, flat, r, 2, func(i, j int) error {
					if !near(c, dims, i, j, r) {
						t.Errorf("%s: pair %d, %d is not closer than r", name, i, j)
					}
					got = append(got, [2]int{i, j})
					return nil
				})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				want := components(n, all)
				if !slices.Equal(components(n, got), want) {
					t.Errorf("%s: components differ from brute force", name)
				}
				if least, err := Components(c.xyz, c.pos, flat, r, 2); err != nil || !slices.Equal(ints(least), want) {
					t.Errorf("%s: Components differ from brute force (%v)", name, err)
				}
				roots := 0
				for i, l := range want {
					if l == i {
						roots++
					}
				}
				if len(got) != n-roots {
					t.Errorf("%s: %d pairs, a forest of %d components has %d", name, len(got), roots, n-roots)
				}
			}
		}
	}
}

// TestCounts holds Counts to brute force, with and without a limit.
func TestCounts(t *testing.T) {
	for _, c := range clouds() {
		n := len(c.xyz) / 3
		for _, r := range []float64{0.05, 0.3, 1} {
			want := make([]uint32, n)
			for i := range n {
				for j := range n {
					if j != i && near(c, 3, i, j, r) {
						want[i]++
					}
				}
			}
			for _, limit := range []int{0, 1, 4, 30} {
				got := make([]uint32, n)
				if err := Counts(c.xyz, c.pos, r, limit, 2, got); err != nil {
					t.Fatal(err)
				}
				for i := range got {
					w := want[i]
					if limit > 0 {
						w = min(w, uint32(limit))
					}
					if got[i] != w {
						t.Errorf("%s r=%g limit %d: point %d count %d, want %d", c.name, r, limit, i, got[i], w)
						break
					}
				}
			}
		}
	}
}

// TestGridErrors checks the refusals: float64 coordinates of the wrong
// length, counts of the wrong length, and a radius too small for the
// extent's cells to be numbered.
func TestGridErrors(t *testing.T) {
	xyz := []float32{0, 0, 0, 1, 1, 1}
	if err := Forest(xyz, []float64{0}, false, 1, 0, nil); err == nil {
		t.Error("Forest: short pos accepted")
	}
	if err := Counts(xyz, nil, 1, 0, 1, make([]uint32, 1)); err == nil {
		t.Error("Counts: short counts accepted")
	}
	far := []float64{0, 0, 0, 1e12, 1e12, 1e12}
	if err := Forest(xyz, far, false, 1e-9, 0, func(int, int) error { return nil }); err == nil {
		t.Error("Forest: 1e21 cells on every axis accepted")
	}
	if err := Forest(xyz, []float64{0, 0, 0, 1, 0, math.Inf(1)}, false, 1, 0, func(int, int) error { return nil }); err == nil {
		t.Error("Forest: an infinite coordinate accepted")
	}
}
