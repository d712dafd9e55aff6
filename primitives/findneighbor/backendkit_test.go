package findneighbor

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestCheckFiniteNamesThePoint checks that CheckFinite finds a NaN or an
// infinity wherever it is, past its first blocks too, and names its point.
func TestCheckFiniteNamesThePoint(t *testing.T) {
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		for _, at := range []int{0, 1500, 3 * 4095} {
			xyz := make([]float32, 3*4096)
			xyz[at] = bad
			err := CheckFinite(pkgName, "point", xyz)
			if want := fmt.Sprintf("point %d has", at/3); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%g at coordinate %d: got %v, want an error with %q", bad, at, err, want)
			}
		}
	}
	if err := CheckFinite(pkgName, "point", []float32{1, -2, 3e38}); err != nil {
		t.Errorf("finite points: %v", err)
	}
}
