package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runChild runs pctk with args in a child process and returns its exit
// status and standard error.
func runChild(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := pctkCmd(t, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// leftovers lists the files of dir that none of keep names: what a run
// left behind.
func leftovers(t *testing.T, dir string, keep ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		if !strings.Contains(strings.Join(keep, "\x00")+"\x00", e.Name()+"\x00") {
			left = append(left, e.Name())
		}
	}
	return left
}

// TestOutIsIn checks that no command that writes replaces its input: an
// OUT (or a side output) that is IN by the same path, another spelling, a
// symbolic link or a hard link is a usage error naming both, IN stays byte
// for byte the same and nothing is left in its folder. --in-place lets OUT
// (not a side output) replace IN, once the run succeeded.
func TestOutIsIn(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "a.las")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sym, hard := filepath.Join(dir, "sym.las"), filepath.Join(dir, "hard.las")
	if err := os.Symlink("a.las", sym); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	pic := filepath.Join(dir, "pic.png") // a picture's name for IN
	if err := os.Symlink("a.las", pic); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "o.las")
	spelled := filepath.Join(dir, ".", "a.las")
	commands := map[string][]string{
		"denoise":  {"denoise", "statistical", "--mode", "remove"},
		"dbscan":   {"dbscan", "--eps", "1"},
		"convert":  {"convert"},
		"normals":  {"normals", "--knn", "8"},
		"sample":   {"sample", "--radius", "0.5"},
		"density":  {"density", "--radius", "1"},
		"features": {"features", "--radius", "1"},
		"tiled":    {"dbscan", "--eps", "1", "--max-memory", "64MiB"},
		"pipeline": nil, // IN STEP OUT
	}
	for name, cmd := range commands {
		for _, out := range []string{in, spelled, sym, hard} {
			args := append(append([]string(nil), cmd...), in, out)
			if name == "pipeline" {
				args = []string{"pipeline", in, "denoise statistical", out}
			}
			code, stderr := runChild(t, args...)
			if code != 2 || !strings.Contains(stderr, "OUT "+out+" is the input "+in) || !strings.Contains(stderr, "--in-place") {
				t.Errorf("%s: pctk %v: exit %d, stderr %q; want 2, naming OUT and IN and --in-place", name, args, code, stderr)
			}
		}
	}
	side := [][]string{
		{"dbscan", "--eps", "1", "--summary", hard, in, other},
		{"dbscan", "--eps", "1", "--geojson", sym, in, other},
		{"denoise", "statistical", "--preview", pic, in, other},
		{"pipeline", in, "dbscan --eps 1 --summary " + sym, other},
		{"render", in, pic},
		// --in-place is for OUT alone.
		{"dbscan", "--eps", "1", "--in-place", "--summary", in, in, other},
	}
	for _, args := range side {
		code, stderr := runChild(t, args...)
		if code != 2 || !strings.Contains(stderr, "is the input "+in) || !strings.Contains(stderr, "would destroy the input") {
			t.Errorf("pctk %v: exit %d, stderr %q; want 2, naming the side output and IN", args, code, stderr)
		}
	}
	if got, err := os.ReadFile(in); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("IN changed: %d bytes, want %d (%v)", len(got), len(data), err)
	}
	if left := leftovers(t, dir, "a.las", "sym.las", "hard.las", "pic.png"); len(left) != 0 {
		t.Errorf("runs left %v in IN's folder", left)
	}

	// --in-place replaces IN through the symbolic link, keeping the link.
	pctkRun(t, 0, "denoise", "statistical", "--mode", "remove", "--in-place", in, sym)
	if n, want := readTestCloud(t, in).Len(), readTestCloud(t, hard).Len(); n >= want {
		t.Errorf("--in-place left %d points in IN, want fewer than the %d of the old file", n, want)
	}
	if fi, err := os.Lstat(sym); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--in-place through a link replaced the link: %v %v", fi, err)
	}
	if left := leftovers(t, dir, "a.las", "sym.las", "hard.las", "pic.png"); len(left) != 0 {
		t.Errorf("--in-place left %v in IN's folder", left)
	}
}

// TestMergeOutIsIn checks that merging files into one of them is refused
// as any OUT that is IN is (pctk convert and pctk pipeline of several
// inputs), and the input stays as it was.
func TestMergeOutIsIn(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.ply"), filepath.Join(dir, "b.ply")
	writeTestCloud(t, a, neighborsFixture())
	writeTestCloud(t, b, neighborsFixture())
	before := readBytes(t, b)
	pipe := filepath.Join(dir, "p.json")
	if err := os.WriteFile(pipe, []byte(`{"pipeline": [{"type": "readers.ply", "filename": "`+a+`"}, {"type": "readers.ply", "filename": "`+b+`"}, {"type": "writers.ply", "filename": "`+b+`"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"convert", a, b, b}, {"pipeline", "--file", pipe}} {
		_, stderr := pctkExit(t, args...)
		if !strings.Contains(stderr, "destroy the input") {
			t.Errorf("pctk %v: %q, want a refusal naming the input", args, stderr)
		}
		if !bytes.Equal(readBytes(t, b), before) {
			t.Errorf("pctk %v changed the input", args)
		}
	}
}
