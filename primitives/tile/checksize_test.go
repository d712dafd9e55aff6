package tile

import (
	"errors"
	"testing"
)

// TestCheckSize checks the smallest useful tile size: two halos, and no
// more tiles over the points' extent than points (65 536 at least), the
// least size it names passing itself.
func TestCheckSize(t *testing.T) {
	lo, hi := [2]float64{-60, -25}, [2]float64{60, 25}
	for _, tc := range []struct {
		name       string
		size, halo float64
		n          int64
		min        float64 // 0: accepted
	}{
		{"a typo for 1000", 0.001, 3, 110000, 6},
		{"just under two halos", 5.99, 3, 110000, 6},
		{"two halos", 6, 3, 110000, 0},
		{"kNN, sane", 1, 0, 110000, 0},
		{"kNN, more tiles than points", 0.01, 0, 110000, 0.2346},
		{"few points, 65536 tiles allowed", 0.3, 0, 10, 0.3042},
	} {
		err := CheckSize(tc.size, tc.halo, lo, hi, tc.n)
		se := (*SmallError)(nil)
		switch {
		case tc.min == 0 && err != nil:
			t.Errorf("%s: %v, want none", tc.name, err)
		case tc.min == 0:
		case !errors.As(err, &se):
			t.Errorf("%s: %v, want a *SmallError", tc.name, err)
		case se.Min < tc.min*0.999 || se.Min > tc.min*1.001:
			t.Errorf("%s: least size %g, want %g", tc.name, se.Min, tc.min)
		default:
			if err := CheckSize(se.Min, tc.halo, lo, hi, tc.n); err != nil {
				t.Errorf("%s: the least size %g named is refused: %v", tc.name, se.Min, err)
			}
		}
	}
}
