package laz

import (
	"math/rand/v2"
	"testing"
)

// For the external tests (package laz_test), which reach io/las.

// RequireLazPerf skips the test when node or laz-perf is missing.
func RequireLazPerf(t testing.TB) { lazPerfDir(t) }

// LazPerfRecords decodes the LAZ files paths with laz-perf and returns
// their records, skipping the test when node or laz-perf is missing.
func LazPerfRecords(t testing.TB, paths []string) [][]byte {
	recs, _ := lazPerfDecodeAll(t, paths, true, 1)
	return recs
}

// RandomLAS returns a LAS file of n random records of point format f
// (0-3, 6-10) with extra bytes after the format's fields.
func RandomLAS(seed uint64, f uint8, extra, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	base := map[uint8]int{0: 20, 1: 28, 2: 26, 3: 34, 6: 30, 7: 36, 8: 38, 9: 59, 10: 67}[f]
	var recs []byte
	if f < 6 {
		recs = randomRecords10(rng, f, base+extra, n)
	} else {
		recs = randomRecords(rng, f, base+extra, n)
	}
	return append(lasBytes(f, base+extra, n, nil), recs...)
}
