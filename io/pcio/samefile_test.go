package pcio

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSameFile checks which names SameFile takes for one file: the same
// path spelled otherwise, symbolic and hard links, not a copy, a missing
// file, standard input or a device.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.las")
	for _, p := range []string{a, filepath.Join(dir, "copy.las")} {
		if err := os.WriteFile(p, []byte("data"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.las", filepath.Join(dir, "sym.las")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(a, filepath.Join(dir, "hard.las")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		b    string
		want bool
	}{
		{a, true},
		{filepath.Join(dir, "..", filepath.Base(dir), "a.las"), true},
		{filepath.Join(dir, "sym.las"), true},
		{filepath.Join(dir, "hard.las"), true},
		{filepath.Join(dir, "copy.las"), false},
		{filepath.Join(dir, "missing.las"), false},
		{Stdio, false},
		{os.DevNull, false},
	} {
		if got := SameFile(a, tc.b); got != tc.want {
			t.Errorf("SameFile(%s, %s) = %v, want %v", a, tc.b, got, tc.want)
		}
	}
	if SameFile(os.DevNull, os.DevNull) {
		t.Errorf("SameFile(%s, %s) = true, want false for a device", os.DevNull, os.DevNull)
	}
}
