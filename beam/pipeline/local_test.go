package pipeline_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/algos/synth"
	"github.com/pctk/pctk/beam/pipeline"
	"github.com/pctk/pctk/stage"
)

// runStage runs a stage with its words on ins into outs through the
// stage package's driver, as pctk does: one IN and OUT, or a collection.
func runStage(t *testing.T, words []string, args ...string) {
	t.Helper()
	s, rest := stage.Lookup(words)
	if s == nil {
		t.Fatalf("no stage %q", words)
	}
	v := stage.NewSettings(s.AllOptions())
	if _, err := v.ParseWords(rest); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(v, args); err != nil {
		t.Fatal(err)
	}
}

// TestLocalStageOnBeam runs pctk lof, a local stage, as a Beam pipeline
// on Prism and compares its outputs with pctk's own runs: one file with
// pctk lof on it, byte for byte; two files with pctk lof on the
// collection, file for file. Small tiles and the outcome (--threshold,
// remove) make several rounds and dropped points.
func TestLocalStageOnBeam(t *testing.T) {
	dir := t.TempDir()
	c, err := synth.Street(synth.Options{Points: 4000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.X {
		c.X[i] += 500000.125
		c.Y[i] += 5000000.25
	}
	in := write(t, dir, "street.ply", c)
	a := write(t, dir, "a.ply", c.Select(seqn(0, 1500)))
	b := write(t, dir, "b.ply", c.Select(seqn(1500, c.Len())))
	for _, words := range [][]string{{"lof", "--minpts", "8"}, {"lof", "--minpts", "6", "--threshold", "1.3"}} {
		want := filepath.Join(dir, "want.ply")
		runStage(t, words, in, want)
		got := filepath.Join(dir, "got.ply")
		cfg := pipeline.LocalConfig{Inputs: []string{in}, Outputs: []string{got}, Step: words, TileSize: 9}
		if err := pipeline.RunLocal(context.Background(), "prism", cfg); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(readFile(t, got), readFile(t, want)) {
			t.Errorf("%q on Beam differs from pctk's run in memory", words)
		}
		wantDir, gotDir := filepath.Join(dir, "want")+"/", filepath.Join(dir, "got")
		runStage(t, words, a, b, wantDir)
		if err := os.MkdirAll(gotDir, 0o755); err != nil {
			t.Fatal(err)
		}
		cfg = pipeline.LocalConfig{Inputs: []string{a, b}, Outputs: []string{filepath.Join(gotDir, "a.ply"), filepath.Join(gotDir, "b.ply")}, Step: words, TileSize: 9}
		if err := pipeline.RunLocal(context.Background(), "prism", cfg); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"a.ply", "b.ply"} {
			if !bytes.Equal(readFile(t, filepath.Join(gotDir, name)), readFile(t, filepath.Join(wantDir, name))) {
				t.Errorf("%q on Beam, %s of two files, differs from pctk's collection run", words, name)
			}
		}
	}
}

// TestLocalStageRefused checks that a stage not declared local is refused
// with a usage error before anything runs.
func TestLocalStageRefused(t *testing.T) {
	err := pipeline.CheckLocal(pipeline.LocalConfig{Inputs: []string{"a.ply"}, Outputs: []string{"b.ply"}, Step: []string{"normals", "--knn", "8", "--orient", "consistent"}, TileSize: 10})
	if _, ok := err.(stage.UsageError); !ok {
		t.Fatalf("normals --orient consistent on Beam: %v, want a usage error (not declared local)", err)
	}
}

func seqn(lo, hi int) []int {
	out := make([]int, hi-lo)
	for i := range out {
		out[i] = lo + i
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
