package findneighbor_test

import (
	"testing"

	fn "github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

func TestCPULine(t *testing.T)   { checkLine(t, fn.CPU()) }
func TestCPUErrors(t *testing.T) { checkErrors(t, fn.CPU()) }

// TestCPUExact is the property test: every operation equals brute force on
// the kit's clouds, radii and seeds.
func TestCPUExact(t *testing.T) { fntest.CheckBackend(t, fn.CPU()) }

func TestAutoPrefersCPU(t *testing.T) {
	a, err := fn.Get("auto")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name() == "brute" {
		t.Errorf("auto picked brute; it must never be preferred")
	}
}

// TestCPUExactManySeeds runs the kit on many seeds with smaller clouds, where
// rare configurations (ties, empty rows, clouds of one cell) turn up.
func TestCPUExactManySeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("many seeds: skipped with -short")
	}
	seeds := make([]uint64, 24)
	for i := range seeds {
		seeds[i] = uint64(100 + i)
	}
	fntest.CheckBackendWith(t, fn.CPU(), fntest.Config{Seeds: seeds, N: 150})
}
