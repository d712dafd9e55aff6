package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	poisson "github.com/pctk/pctk/algos/sample"
	"github.com/pctk/pctk/core"
)

// TestSampleCommand checks pctk sample against sample.Poisson on the same
// local coordinates: the kept points in order with every attribute, the
// --dimension flag, and --ignore-class, whose points are all kept.
func TestSampleCommand(t *testing.T) {
	c := readTestCloud(t, sample)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.las")
	want, err := poisson.Poisson(c.Local(false).XYZ, poisson.Options{Radius: 3})
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	for i, k := range want.Keep {
		if k {
			idx = append(idx, i)
		}
	}
	pctkRun(t, 0, "sample", sample, out, "--radius", "3")
	got, w := readTestCloud(t, out), c.Select(idx)
	if got.Len() != len(idx) || !slices.Equal(got.X, w.X) || !slices.Equal(got.Y, w.Y) || !slices.Equal(got.Z, w.Z) || len(got.Attrs) != len(w.Attrs) {
		t.Fatalf("sample --radius 3 wrote %d points (%d attributes), want %d (%d)", got.Len(), len(got.Attrs), len(idx), len(w.Attrs))
	}

	pctkRun(t, 0, "sample", sample, out, "--radius", "3", "--dimension", "Sampled")
	got = readTestCloud(t, out)
	a := got.Attr("Sampled")
	if got.Len() != c.Len() || a == nil || a.Type != core.Uint8 {
		t.Fatalf("--dimension Sampled: %d points, column %v; want %d and uint8", got.Len(), a, c.Len())
	}
	for i, v := range a.Data.([]uint8) {
		if (v == 1) != want.Keep[i] {
			t.Fatalf("--dimension Sampled: point %d is %d, kept %v", i, v, want.Keep[i])
		}
	}

	// Classes 0 (every point of the scan) ignored: nothing is sampled.
	pctkRun(t, 0, "sample", sample, out, "--radius", "3", "--ignore-class", "0")
	if n := readTestCloud(t, out).Len(); n != c.Len() {
		t.Errorf("--ignore-class 0: %d points written, want all %d", n, c.Len())
	}
}

// TestSampleUsage checks that a missing or bad radius is a usage error
// naming --radius, with OUT unchanged.
func TestSampleUsage(t *testing.T) {
	for _, args := range [][]string{{"sample"}, {"sample", "--radius", "-1"}, {"sample", "--radius", "NaN"}} {
		_, in, out, old := runnerFixture(t)
		code, stderr := pctkExit(t, append(args, in, out)...)
		if code != 2 || !strings.Contains(stderr, "--radius") {
			t.Errorf("%v: exit %d, %q; want 2 naming --radius", args, code, stderr)
		}
		if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, old) {
			t.Errorf("%v: OUT changed (%v)", args, err)
		}
	}
}
