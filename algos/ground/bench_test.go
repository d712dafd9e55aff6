package ground

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/pctk/pctk/internal/peers"
)

// BenchmarkSMRFPeers times SMRF (PDAL's frame and tie order, then the
// tile-ready order) on autzen_trim.las beside a PDAL run of readers.las and
// filters.smrf on the same file (PDAL's time includes its reading, about
// 0.1 s of it), and logs the three.
//
//	go test -run XXX -bench SMRFPeers -benchtime 1x -v ./algos/ground
func BenchmarkSMRFPeers(b *testing.B) {
	path := shared("pdal/las/autzen_trim.las")
	s := readSample(b, path)
	if err := peers.Available(peers.PDAL); err != nil {
		b.Skipf("PDAL: %v", err)
	}
	abs, _ := filepath.Abs(path)
	for range b.N {
		t := time.Now()
		if _, err := SMRF(s.xyz, s.attrs, SMRFOptions{Pos: s.abs, PDALFrame: true}); err != nil {
			b.Fatal(err)
		}
		frame := time.Since(t)
		t = time.Now()
		if _, err := SMRF(s.xyz, s.attrs, SMRFOptions{Pos: s.pos}); err != nil {
			b.Fatal(err)
		}
		local := time.Since(t)
		t = time.Now()
		if _, err := peers.PDALPipeline(b.TempDir(),
			map[string]any{"type": "readers.las", "filename": abs},
			map[string]any{"type": "filters.smrf"}); err != nil {
			b.Fatal(err)
		}
		pdal := time.Since(t)
		b.Logf("%s, %d points: pctk SMRF %.2f s (PDAL frame), %.2f s (tile order); PDAL 2.9.2 %.2f s", filepath.Base(path), len(s.xyz)/3, frame.Seconds(), local.Seconds(), pdal.Seconds())
	}
}
