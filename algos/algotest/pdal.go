package algotest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/io/pcio"

	_ "github.com/pctk/pctk/io/text" // PDAL's text files
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
	cs, run := runPDAL(t, in, func(dir, abs string) ([]any, []string) {
		out := filepath.Join(dir, "out.las")
		p := append(append([]any{abs}, stages...), map[string]any{"type": "writers.las", "filename": out,
			"extra_dims": "all", "minor_version": 4, "dataformat_id": 6, "forward": "scale,offset"})
		return p, []string{out}
	})
	return cs[0], run
}

// PDALText runs PDAL on the file in and each of the stages as a branch of
// its own (one reading of in; stages that change their input view in
// place would see each other's changes), each branch written by writers.text (every
// dimension, 17 decimals, which read back to PDAL's float64 values: for
// stages that move coordinates off the input's LAS grid), and returns the
// clouds in the stages' order and PDAL's run.
func PDALText(t testing.TB, in string, branches ...map[string]any) ([]*core.Cloud, peers.ToolRun) {
	t.Helper()
	return runPDAL(t, in, func(dir, abs string) ([]any, []string) {
		p := []any{map[string]any{"type": "readers." + pdalReader(abs), "filename": abs, "tag": "in"}}
		var outs, writers []string
		for k, st := range branches {
			tag, w := fmt.Sprintf("b%d", k), fmt.Sprintf("w%d", k)
			st["inputs"], st["tag"] = []string{"in"}, tag
			out := filepath.Join(dir, fmt.Sprintf("out%d.txt", k))
			outs, writers = append(outs, out), append(writers, w)
			p = append(p, st, map[string]any{"type": "writers.text", "precision": 17, "filename": out, "inputs": []string{tag}, "tag": w})
		}
		// PDAL runs one leaf only: a merge of the writers' outputs.
		return append(p, map[string]any{"type": "filters.merge", "inputs": writers}), outs
	})
}

// runPDAL runs the pipeline that build returns for a temporary folder and
// the absolute path of in, and reads back the files it names.
func runPDAL(t testing.TB, in string, build func(dir, abs string) ([]any, []string)) ([]*core.Cloud, peers.ToolRun) {
	t.Helper()
	RequirePeer(t, "PDAL 2.9.2 (../shared/anchors/pdal)", peers.Available(peers.PDAL))
	abs, err := filepath.Abs(in)
	if err != nil {
		t.Fatal(err)
	}
	// A folder of its own rather than t.TempDir(), whose name carries the
	// test's, where PDAL's pipeline JSON reader trips over a '#'.
	dir, err := os.MkdirTemp("", "pctk-pdal-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p, outs := build(dir, abs)
	run, err := peers.PDALPipeline(dir, p...)
	if err != nil {
		t.Fatalf("PDAL: %v: %s", err, run.Output)
	}
	var clouds []*core.Cloud
	for _, out := range outs {
		c, _, err := pcio.ReadFile(out)
		if err != nil {
			t.Fatalf("reading PDAL's output: %v", err)
		}
		clouds = append(clouds, c)
	}
	return clouds, run
}

// pdalReader names PDAL's reader of the file p (readers.NAME): las for
// LAS and LAZ, text otherwise.
func pdalReader(p string) string {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".las", ".laz":
		return "las"
	}
	return "text"
}
