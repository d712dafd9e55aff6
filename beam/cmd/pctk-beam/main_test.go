package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/stage"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

// setFlags sets the command's flags for one test and restores them after.
func setFlags(t *testing.T, kv map[string]string) {
	t.Helper()
	for k, v := range kv {
		old := flag.Lookup(k).Value.String()
		if err := flag.Set(k, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { flag.Set(k, old) })
	}
}

// TestTileCollection runs a glob of LAS files into a directory on Prism:
// one output per input, each with every point labelled.
func TestTileCollection(t *testing.T) {
	setFlags(t, map[string]string{"eps": "0.5", "min-pts": "2", "tile-size": "2"})
	out := filepath.Join(t.TempDir(), "out") + "/"
	in, err := filepath.Glob("../../../testdata/las/v1[24]_f[03].las")
	if err != nil || len(in) != 2 {
		t.Fatalf("testdata: %v, %v", in, err)
	}
	if err := run(context.Background(), []string{"../../../testdata/las/v1[24]_f[03].las", out}); err != nil {
		t.Fatal(err)
	}
	for _, f := range in {
		src, _, err := pcio.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := pcio.ReadFile(filepath.Join(out, filepath.Base(f)))
		if err != nil {
			t.Fatal(err)
		}
		if got.Len() != src.Len() || got.Attr(core.DimClusterID) == nil || got.Attr(core.DimNeighborCount) == nil {
			t.Errorf("%s: output has %d points (want %d) and ClusterID %v", f, got.Len(), src.Len(), got.Attr(core.DimClusterID) != nil)
		}
	}
}

// TestUsageErrors holds command-line mistakes to usage errors (exit 2).
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a", "x.ply"), filepath.Join(dir, "b", "x.ply")
	for _, p := range []string{a, b} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(a, []byte("ply"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(a, filepath.Join(dir, "hard.ply")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags map[string]string
		args  []string
	}{
		{"no eps", map[string]string{"tile-size": "10"}, []string{a, "out.ply"}},
		{"no tile size", map[string]string{"eps": "1"}, []string{a, "out.ply"}},
		{"bad dims", map[string]string{"eps": "1", "tile-size": "10", "dims": "xz"}, []string{a, "out.ply"}},
		{"no output", map[string]string{"eps": "1", "tile-size": "10"}, []string{a}},
		{"empty glob", map[string]string{"eps": "1", "tile-size": "10"}, []string{filepath.Join(dir, "*.las"), dir}},
		{"same names", map[string]string{"eps": "1", "tile-size": "10"}, []string{a, b, filepath.Join(dir, "out") + "/"}},
		{"a collection into a file name", map[string]string{"eps": "1", "tile-size": "10"}, []string{a, filepath.Join(dir, "hard.ply"), filepath.Join(dir, "out.ply")}},
		{"output a hard link of the input", map[string]string{"eps": "1", "tile-size": "10"}, []string{a, filepath.Join(dir, "hard.ply")}},
		{"output replaces an input", map[string]string{"eps": "1", "tile-size": "10"}, []string{a, a}},
		{"output folder holds the inputs", map[string]string{"eps": "1", "tile-size": "10"}, []string{a, filepath.Join(dir, "a") + "/"}},
		{"negative eps", map[string]string{"eps": "-1", "tile-size": "10"}, []string{a, b, filepath.Join(dir, "out")}},
		{"min-pts 0", map[string]string{"eps": "1", "tile-size": "10", "min-pts": "0"}, []string{a, b, filepath.Join(dir, "out")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setFlags(t, tc.flags)
			_, err := config(tc.args, true)
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Errorf("config(%q) = %v, want a usage error", tc.args, err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "out.ply")); err == nil {
		t.Error("a usage error created a folder of OUT's file name")
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("a usage error created the output directory")
	}
}

// TestDamagedInput holds a cut input to a run error (exit 1) that names the
// file, before any worker starts.
func TestDamagedInput(t *testing.T) {
	setFlags(t, map[string]string{"eps": "6", "tile-size": "48"})
	src, err := os.ReadFile("../../../testdata/haystack_rock.las")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "cut.las")
	if err := os.WriteFile(in, src[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = config([]string{in, filepath.Join(t.TempDir(), "out.las")}, true)
	var ue *usageError
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), in) {
		t.Errorf("config on a cut file = %v, want a run error naming %s", err, in)
	}
}

// TestSteps runs pctk-beam with STEPs: lof then nndistance on a LAS file,
// each through the stage package's declaration on Prism, and checks the
// output against pctk's own pipeline of the same steps, byte for byte.
func TestSteps(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join("..", "..", "..", "testdata", "haystack_rock.las")
	out := filepath.Join(dir, "out.las")
	setFlags(t, map[string]string{"tile-size": "60"})
	if err := run(context.Background(), []string{in, out, "lof --minpts 8", "nndistance --k 4"}); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "want.las")
	if err := stage.RunPipeline(stage.NewSettings(nil), in, [][]string{{"lof", "--minpts", "8"}, {"nndistance", "--k", "4"}}, want); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, w) {
		t.Error("pctk-beam lof, nndistance differs from pctk pipeline's output")
	}
	if _, _, err := splitSteps([]string{in, out, "normals --knn 8 --orient consistent"}); err == nil {
		t.Error("normals --orient consistent (not declared local) was accepted as a Beam step")
	}
}
