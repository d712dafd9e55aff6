package findneighbor_test

import (
	"math"
	"testing"

	fn "github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

var inf = float32(math.Inf(1))

func TestBruteLine(t *testing.T)   { fntest.CheckLine(t, fn.Brute()) }
func TestBruteErrors(t *testing.T) { fntest.CheckErrors(t, fn.Brute()) }

// TestBruteSelf runs the shared kit on brute itself: it cannot compare
// brute with a second opinion, but it checks brute's answers against the
// kit's float64 recomputation (validity, order, distances, moment sums,
// padding), which would catch a broken reference.
func TestBruteSelf(t *testing.T) {
	fntest.CheckBackendWith(t, fn.Brute(), fntest.Config{Seeds: []uint64{7}, N: 300})
}

func TestRegistry(t *testing.T) {
	b, err := fn.Get("brute")
	if err != nil || b.Name() != "brute" {
		t.Fatalf("Get(brute) = %v, %v", b, err)
	}
	if _, err := fn.Get("nonesuch"); err == nil {
		t.Error("Get(nonesuch): no error")
	}
}
