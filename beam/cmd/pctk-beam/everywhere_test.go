package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/synth"
	"github.com/pctk/pctk/beam/pipeline"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/cloudtest"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/stage"
)

// TestEveryStageOnBeam walks the registry as stage's
// TestEveryStageEverywhere does: every stage, with the options of its
// first example, on the synthetic street, run by pctk-beam on Prism
// (tiles of 50, the step as pctk pipeline takes it) must give pctk's
// in-memory output byte for byte, on one file and on a collection of two
// files (file for file, against pctk's run on the collection). A stage
// Beam refuses must be refused with a usage error naming it
// (docs/beam.md lists them). A new stage is covered with no test code.
func TestEveryStageOnBeam(t *testing.T) {
	defer func(l msg.Level) { msg.Current = l }(msg.Current)
	msg.Current = msg.Quiet
	dir := t.TempDir()
	cloud, err := synth.Street(synth.Options{Points: 3000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "street.ply")
	half := cloud.Len() / 2
	a, b := filepath.Join(dir, "a.ply"), filepath.Join(dir, "b.ply")
	for path, c := range map[string]*core.Cloud{in: cloud, a: cloud.Select(seq(0, half)), b: cloud.Select(seq(half, cloud.Len()))} {
		cloudtest.Write(t, path, c)
	}
	for _, s := range stage.Stages() {
		name := strings.ReplaceAll(s.Name, " ", "_")
		t.Run(name, func(t *testing.T) {
			words, err := s.ExampleOptions()
			if err != nil {
				t.Fatal(err)
			}
			step := append(strings.Fields(s.Name), words...)
			pctk := func(args ...string) {
				t.Helper()
				v := stage.NewSettings(s.AllOptions())
				if _, err := v.ParseWords(words); err != nil {
					t.Fatal(err)
				}
				if err := s.Run(v, args); err != nil {
					t.Fatalf("pctk %q %v: %v", step, args, err)
				}
			}
			beam := func(ins, outs []string) error {
				return runStep(context.Background(), "prism", pipeline.Config{TileSize: 50}, step, ins, outs)
			}
			want, got := filepath.Join(dir, name+"-want.ply"), filepath.Join(dir, name+"-got.ply")
			err = beam([]string{in}, []string{got})
			var ue *usageError
			var se stage.UsageError
			if errors.As(err, &ue) || errors.As(err, &se) {
				if !strings.Contains(err.Error(), s.Name) && !strings.Contains(err.Error(), strings.Join(step, " ")) {
					t.Errorf("refused on Beam without naming the stage: %v", err)
				}
				t.Logf("refused on Beam: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("pctk-beam %q: %v", step, err)
			}
			pctk(in, want)
			if !bytes.Equal(read(t, got), read(t, want)) {
				t.Errorf("pctk-beam %q differs from pctk in memory", step)
			}
			if !s.Tiled && !s.InOrder {
				return // pctk runs no collections of it
			}
			wantDir, gotDir := filepath.Join(dir, name+"-want")+"/", filepath.Join(dir, name+"-got")
			if err := os.MkdirAll(gotDir, 0o755); err != nil {
				t.Fatal(err)
			}
			pctk(a, b, wantDir)
			outs := []string{filepath.Join(gotDir, "a.ply"), filepath.Join(gotDir, "b.ply")}
			if err := beam([]string{a, b}, outs); err != nil {
				t.Fatalf("pctk-beam %q on two files: %v", step, err)
			}
			for _, out := range outs {
				if !bytes.Equal(read(t, out), read(t, filepath.Join(wantDir, filepath.Base(out)))) {
					t.Errorf("pctk-beam %q: %s of two files differs from pctk's collection run", step, filepath.Base(out))
				}
			}
		})
	}
}

func seq(lo, hi int) []int {
	out := make([]int, hi-lo)
	for i := range out {
		out[i] = lo + i
	}
	return out
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
