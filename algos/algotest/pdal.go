package algotest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/io/pcio"
)

// SharedFile returns the path of rel in the shared data folder
// (shared/data beside the repository, "pdal/las/autzen_trim.las"), looked
// for from the current folder upwards as peers.PDALRun looks for PDAL, or
// skips t when it is absent (it is not part of a clone).
func SharedFile(t testing.TB, rel string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "..", "shared", "data", rel)
		if fileExists(p) {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Skipf("shared/data/%s not found above the current folder (the shared data folder is not part of a clone)", rel)
		}
		dir = up
	}
}

// PDAL runs the shared PDAL 2.9.2 build on the pipeline: the file in, the
// stages (maps as PDAL's pipeline JSON writes them), and writers.las of
// every dimension (LAS 1.4, point format 6, the input's scale and offset
// forwarded) to a file of a temporary folder, and returns the cloud it
// wrote, read back with pctk's reader, and PDAL's run (its timing). It
// skips t when PDAL cannot run here (fails it under CI=true).
func PDAL(t testing.TB, in string, stages ...any) (*core.Cloud, peers.ToolRun) {
	t.Helper()
	RequirePeer(t, "PDAL 2.9.2 (../shared/anchors/pdal)", peers.Available(peers.PDAL))
	// A folder of its own rather than t.TempDir(), whose name carries the
	// test's, where PDAL's pipeline JSON reader trips over a '#'.
	dir, err := os.MkdirTemp("", "pctk-pdal-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	out := filepath.Join(dir, "out.las")
	abs, err := filepath.Abs(in)
	if err != nil {
		t.Fatal(err)
	}
	p := append([]any{abs}, stages...)
	p = append(p, map[string]any{"type": "writers.las", "filename": out, "extra_dims": "all",
		"minor_version": 4, "dataformat_id": 6, "forward": "scale,offset"})
	run, err := peers.PDALPipeline(dir, p...)
	if err != nil {
		t.Fatalf("PDAL: %v: %s", err, run.Output)
	}
	c, _, err := pcio.ReadFile(out)
	if err != nil {
		t.Fatalf("reading PDAL's output: %v", err)
	}
	return c, run
}
