package scratch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// deadPID returns the PID of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	return n
}

// TestSweep checks that a sweep removes the files and folders of a dead
// pctk process, and keeps those of live ones and names a user gives.
func TestSweep(t *testing.T) {
	dir := t.TempDir()
	dead, live := strconv.Itoa(deadPID(t)), strconv.Itoa(os.Getppid())
	files := []string{
		".a.las.pctk-" + dead + "-123.tmp",   // a killed write: removed
		".a.las.pctk-" + dead + "-124.check", // a killed check: removed
		".a.las.pctk-" + live + "-123.tmp",   // a live write: kept
		".a.las.tmp123",                      // an older pctk's name: kept
		"pctk-" + dead + "-12.las",           // a user's file: kept
		"notes.pctk-" + dead + "-1.tmp",      // not hidden: kept
	}
	dirs := []string{
		"pctk-tiles-" + dead + "-99.tmp", // removed
		"pctk-tiles-" + live + "-99.tmp", // kept
		"pctk-2024-12",                   // a user's folder: kept
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(dir, d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	Sweep(dir)
	got := names(t, dir)
	want := []string{".a.las.pctk-" + live + "-123.tmp", ".a.las.tmp123", "notes.pctk-" + dead + "-1.tmp",
		"pctk-" + dead + "-12.las", "pctk-2024-12", "pctk-tiles-" + live + "-99.tmp"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("after Sweep: %q, want %q", got, want)
	}
}

// TestCleanup checks that cleanup (the signal handler's work) removes what
// the process made and did not remove or rename.
func TestCleanup(t *testing.T) {
	dir := t.TempDir()
	f, err := CreateTemp(dir, "a.las", ".tmp")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	g, err := CreateTemp(dir, "b.las", ".tmp")
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	if err := Rename(g.Name(), filepath.Join(dir, "b.las")); err != nil {
		t.Fatal(err)
	}
	d, err := MkdirTemp(dir, "tiles")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "0.tile"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := names(t, dir); len(n) != 3 || !stale.MatchString(filepath.Base(f.Name())) || !stale.MatchString(filepath.Base(d)) {
		t.Fatalf("made %q (%s, %s), want 3 names a sweep knows", n, f.Name(), d)
	}
	mu.Lock()
	err = cleanup()
	mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"b.las"}) {
		t.Errorf("after cleanup: %q, want [b.las]", got)
	}
}
