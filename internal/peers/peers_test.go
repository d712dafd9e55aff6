package peers

import (
	"math"
	"slices"
	"testing"
)

func TestSnapAndOffGrid(t *testing.T) {
	xyz := []float32{0.1, -3.3, 7.77, 1000.001, 0, 2}
	out, u, err := Snap(xyz, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if u != math.Exp2(-11) {
		t.Fatalf("grid %g, want 2^-11 (the power of two at or above 0.5/1024)", u)
	}
	for i, v := range out {
		if q := float64(v) / u; q != math.Round(q) || math.Abs(float64(v-xyz[i])) > u/2 {
			t.Errorf("coordinate %g snapped to %g: not on the grid %g or moved more than u/2", xyz[i], v, u)
		}
	}
	// OffGrid: r/u is an odd multiple of 1/2, within u/2 below r.
	for _, r := range []float64{0.3, 0.5, 0.49999} {
		g := OffGrid(r, u)
		if h := 2 * g / u; h != math.Round(h) || int(h)%2 != 1 || g > r+u/2 || g < r-u {
			t.Errorf("OffGrid(%g, %g) = %g", r, u, g)
		}
	}
	if _, _, err := Snap([]float32{1e6}, 0.001); err == nil {
		t.Error("Snap of a coordinate 2^30 grid steps away: no error")
	}
}

func TestWriteReadASCII(t *testing.T) {
	path := t.TempDir() + "/c.xyz"
	if err := WriteASCII(path, []float32{0.1, 2, -3.25, 1e-7, 5, 6}); err != nil {
		t.Fatal(err)
	}
	idx, extra, err := ReadASCII(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx) != 2 || idx[0] != 0 || idx[1] != 1 || len(extra[0]) != 0 {
		t.Errorf("got %v %v, want indices 0 1 and no further columns", idx, extra)
	}
}

func TestKeptAndDiff(t *testing.T) {
	if got := Kept([]bool{true, false, false, true, false}); !slices.Equal(got, []int{1, 2, 4}) {
		t.Errorf("Kept = %v, want [1 2 4]", got)
	}
	for _, c := range []struct{ a, b, want []int }{
		{[]int{1, 2, 5}, []int{1, 2, 5}, nil},
		{[]int{1, 2, 5}, []int{0, 2, 6}, []int{0, 1, 5, 6}},
		{nil, []int{3}, []int{3}},
	} {
		if got := Diff(c.a, c.b); !slices.Equal(got, c.want) {
			t.Errorf("Diff(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
