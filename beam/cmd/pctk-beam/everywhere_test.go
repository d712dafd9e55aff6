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
	files := streetFiles(t)
	for _, s := range stage.Stages() {
		t.Run(strings.ReplaceAll(s.Name, " ", "_"), func(t *testing.T) {
			words, err := s.ExampleOptions()
			if err != nil {
				t.Fatal(err)
			}
			checkOnBeam(t, files, s, words)
		})
	}
}

// TestPathsOnBeam runs, as TestEveryStageOnBeam does, the options the
// stages' first examples leave out where a stage takes another path: sums
// within a radius (tiles of cpu.TileHalo's halo), k nearest
// within a radius, a viewpoint moved to the run's origin, an edit of the
// cloud (hag --replace-z), a flag written instead of a drop, distances in
// plan view, and the counts record of a file.
func TestPathsOnBeam(t *testing.T) {
	defer func(l msg.Level) { msg.Current = l }(msg.Current)
	msg.Current = msg.Quiet
	files := streetFiles(t)
	for _, step := range []string{
		"features --radius 1.5 --features all",
		"features --radius 1 --min-k 5 --mode normalized",
		"normals --radius 1.2 --eigenvalues",
		"normals --knn 8 --radius 1 --orient viewpoint --viewpoint 10,20,100",
		"density --radius 0.5",
		"hag --replace-z",
		"sample --radius 1 --dimension Kept",
		"sample --radius 0.7 --dims xy",
		"neighbors --radius 1.5",
		"neighbors --radius 1 --knn 6 --dims xy",
		"neighbors --knn 5",
		"cluster --tolerance 1.5 --dims xy --min-points 5",
		// PDAL's grids from the run's first point (LocalInput.First).
		"voxel --mode centroid --cell 1.5",
		"voxel --mode downsize-first --cell 0.8",
	} {
		t.Run(step, func(t *testing.T) {
			s, words := stage.Lookup(strings.Fields(step))
			if s == nil {
				t.Fatalf("no stage in %q", step)
			}
			checkOnBeam(t, files, s, words)
		})
	}
}

// street holds the synthetic street the Beam walks run on: one file and
// the same points as a collection of two.
type street struct{ dir, in, a, b string }

func streetFiles(t *testing.T) street {
	dir := t.TempDir()
	cloud, err := synth.Street(synth.Options{Points: 3000, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	f := street{dir: dir, in: filepath.Join(dir, "street.ply"), a: filepath.Join(dir, "a.ply"), b: filepath.Join(dir, "b.ply")}
	half := cloud.Len() / 2
	for path, c := range map[string]*core.Cloud{f.in: cloud, f.a: cloud.Select(seq(0, half)), f.b: cloud.Select(seq(half, cloud.Len()))} {
		cloudtest.Write(t, path, c)
	}
	return f
}

// checkOnBeam runs stage s with the options words on pctk-beam (Prism,
// tiles of 50) and on pctk, on one file and on a collection of two, and
// wants the same bytes; a stage Beam refuses must name itself.
func checkOnBeam(t *testing.T, f street, s *stage.Stage, words []string) {
	t.Helper()
	step := append(strings.Fields(s.Name), words...)
	name := strings.ReplaceAll(strings.Join(step, "_"), "/", "_")
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
	want, got := filepath.Join(f.dir, name+"-want.ply"), filepath.Join(f.dir, name+"-got.ply")
	err := beam([]string{f.in}, []string{got})
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
	pctk(f.in, want)
	if !bytes.Equal(read(t, got), read(t, want)) {
		t.Errorf("pctk-beam %q differs from pctk in memory", step)
	}
	if !s.Tiled && !s.InOrder {
		return // pctk runs no collections of it
	}
	wantDir, gotDir := filepath.Join(f.dir, name+"-want")+"/", filepath.Join(f.dir, name+"-got")
	if err := os.MkdirAll(gotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	pctk(f.a, f.b, wantDir)
	outs := []string{filepath.Join(gotDir, "a.ply"), filepath.Join(gotDir, "b.ply")}
	if err := beam([]string{f.a, f.b}, outs); err != nil {
		t.Fatalf("pctk-beam %q on two files: %v", step, err)
	}
	for _, out := range outs {
		if !bytes.Equal(read(t, out), read(t, filepath.Join(wantDir, filepath.Base(out)))) {
			t.Errorf("pctk-beam %q: %s of two files differs from pctk's collection run", step, filepath.Base(out))
		}
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
