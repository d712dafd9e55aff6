package ground

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/pctk/pctk/internal/peers"
)

// BenchmarkPeers times each filter on autzen_trim.las (110,000 points) in
// PDAL's frame (and, for SMRF and PMF, in the tile-ready grid order) beside
// a PDAL run of readers.las and the same filter on the same file (PDAL's
// time includes its reading, about 0.1 s), and logs the figures.
//
//	go test -run XXX -bench Peers -benchtime 1x -v ./algos/ground
func BenchmarkPeers(b *testing.B) {
	path := shared("pdal/las/autzen_trim.las")
	s := readSample(b, path)
	if err := peers.Available(peers.PDAL); err != nil {
		b.Skipf("PDAL: %v", err)
	}
	abs, _ := filepath.Abs(path)
	timed := func(f func() (Result, error)) float64 {
		t := time.Now()
		if _, err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t).Seconds()
	}
	for range b.N {
		for _, tc := range []struct {
			stage       string
			frame, grid func() (Result, error)
		}{
			{"filters.smrf",
				func() (Result, error) { return SMRF(s.xyz, s.attrs, SMRFOptions{Pos: s.abs, PDALFrame: true}) },
				func() (Result, error) { return SMRF(s.xyz, s.attrs, SMRFOptions{Pos: s.pos}) }},
			{"filters.pmf",
				func() (Result, error) { return PMF(s.xyz, s.attrs, PMFOptions{Pos: s.abs, PDALFrame: true}) },
				func() (Result, error) { return PMF(s.xyz, s.attrs, PMFOptions{Pos: s.pos}) }},
			{"filters.csf",
				func() (Result, error) { return CSF(s.xyz, s.attrs, CSFOptions{Pos: s.abs}) }, nil},
		} {
			frame := timed(tc.frame)
			grid := 0.0
			if tc.grid != nil {
				grid = timed(tc.grid)
			}
			t := time.Now()
			if _, err := peers.PDALPipeline(b.TempDir(),
				map[string]any{"type": "readers.las", "filename": abs},
				map[string]any{"type": tc.stage}); err != nil {
				b.Fatal(err)
			}
			pdal := time.Since(t).Seconds()
			b.Logf("%s on %s: pctk %.2f s (PDAL frame), %.2f s (grid order, 0: none); PDAL 2.9.2 %.2f s", tc.stage, filepath.Base(path), frame, grid, pdal)
		}
	}
}
