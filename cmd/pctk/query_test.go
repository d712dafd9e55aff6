package main

import (
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/io/pcio"
)

// TestQueryFlags runs convert and info with --bounds and --level on LAS
// and COPC: the COPC written by convert, queried, equals the LAS queried;
// --level on LAS is a usage error.
func TestQueryFlags(t *testing.T) {
	dir := t.TempDir()
	cp := filepath.Join(dir, "h.copc.laz")
	pctkRun(t, 0, "convert", sample, cp)
	box := "2230900,252200,2231000,252300"
	for i, in := range []string{sample, cp} {
		out := filepath.Join(dir, []string{"las.las", "copc.las"}[i])
		pctkRun(t, 0, "convert", in, out, "--bounds", box)
	}
	a, _, err := pcio.ReadFile(filepath.Join(dir, "las.las"))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := pcio.ReadFile(filepath.Join(dir, "copc.las"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() == 0 || a.Len() >= 21932 || a.Len() != b.Len() {
		t.Fatalf("--bounds on LAS keeps %d points, on its COPC %d", a.Len(), b.Len())
	}
	pctkRun(t, 0, "info", cp, "--level", "0", "--bounds", box)
	pctkRun(t, 2, "info", sample, "--level", "0")
	pctkRun(t, 2, "info", sample, "--bounds", "1,2")
}
