package algotest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/io/pcio"

	_ "github.com/pctk/pctk/io/text" // reads what writers.text writes
)

// PDALText runs PDAL (internal/peers) on the LAS file in with each of the
// stages as a branch of its own (one reading of in; a stage that changes
// its input view in place would show through to the next), each branch
// written by writers.text with 17 decimals, which read back to PDAL's
// float64 values (for stages that move coordinates off the input's LAS
// grid, or drop and reorder points). It returns the clouds in the stages'
// order and the pipeline's wall time, and skips t as PDALFilter does.
func PDALText(t testing.TB, in string, stages ...map[string]any) ([]*core.Cloud, time.Duration) {
	t.Helper()
	if _, err := os.Stat(in); err != nil {
		t.Skipf("%s absent (the shared data folder is not part of a fresh clone): %v", in, err)
	}
	_, err := peers.PDALRun()
	RequirePeer(t, "PDAL 2.9.2 (../shared/anchors/pdal, runtime .ci/deps/pdal.sh)", err)
	// A folder of its own rather than t.TempDir(), whose name carries the
	// test's: PDAL's writers put a view's number in place of a '#'.
	dir, err := os.MkdirTemp("", "pctk-pdal-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	pipe := []any{map[string]any{"type": "readers.las", "filename": in, "tag": "in"}}
	var outs, writers []string
	for k, st := range stages {
		tag, w := fmt.Sprintf("b%d", k), fmt.Sprintf("w%d", k)
		st["inputs"], st["tag"] = []string{"in"}, tag
		out := filepath.Join(dir, fmt.Sprintf("out%d.txt", k))
		outs, writers = append(outs, out), append(writers, w)
		pipe = append(pipe, st, map[string]any{"type": "writers.text", "precision": 17, "filename": out, "inputs": []string{tag}, "tag": w})
	}
	// PDAL runs one leaf of a pipeline only: a merge of the writers'.
	pipe = append(pipe, map[string]any{"type": "filters.merge", "inputs": writers})
	start := time.Now()
	run, err := peers.PDALPipeline(dir, pipe...)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("PDAL: %v\n%s", err, run.Output)
	}
	var clouds []*core.Cloud
	for _, out := range outs {
		c, _, err := pcio.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		clouds = append(clouds, c)
	}
	return clouds, took
}
