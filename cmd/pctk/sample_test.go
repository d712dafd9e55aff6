package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	poisson "github.com/pctk/pctk/algos/sample"
	"github.com/pctk/pctk/core"
)

// TestSampleCommand checks pctk sample against sample.Poisson on the same
// absolute coordinates: the kept points in order with every attribute, the
// --dimension flag, and --ignore-class, whose points are all kept.
func TestSampleCommand(t *testing.T) {
	c := readTestCloud(t, sample)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.las")
	want, err := poisson.Poisson(poisson.Points{X: c.X, Y: c.Y, Z: c.Z}, poisson.Options{Radius: 3})
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

// TestSampleOutOfCore runs pctk sample in memory and with --max-memory
// (one pass in input order through sample.Sampler) on the shipped scans
// and synthetic clouds, at several radii, with --dimension, --dims xy and
// --ignore-class, and holds OUT and the --summary document to the same
// bytes.
func TestSampleOutOfCore(t *testing.T) {
	dir := t.TempDir()
	street, blobs := filepath.Join(dir, "street.las"), filepath.Join(dir, "blobs.ply")
	pctkRun(t, 0, "synth", "street", street, "--points", "30000")
	pctkRun(t, 0, "synth", "blobs", blobs, "--points", "20000")
	const lamppost = "../../testdata/lamppost.pcd"
	for _, tc := range []struct {
		in   string
		args []string
	}{
		{sample, []string{"--radius", "0.5"}},
		{sample, []string{"--radius", "2", "--dimension", "Sampled"}},
		{sample, []string{"--radius", "5", "--dims", "xy"}},
		{lamppost, []string{"--radius", "0.02"}},
		{lamppost, []string{"--radius", "0.1", "--dims", "xy", "--dimension", "Sampled"}},
		{street, []string{"--radius", "0.2"}},
		{street, []string{"--radius", "1", "--ignore-class", "2"}},
		{street, []string{"--radius", "0.5", "--ignore-class", "2,6", "--dimension", "Sampled", "--dims", "xy"}},
		{street, []string{"--radius", "3", "--ignore-class", "5", "--dimension", "Classification"}},
		{blobs, []string{"--radius", "0.05"}},
		{blobs, []string{"--radius", "0.3", "--dims", "xy"}},
	} {
		ext := filepath.Ext(tc.in)
		var outs, docs [2][]byte
		for v, extra := range [][]string{nil, {"--max-memory", "64MiB", "--tmpdir", dir}} {
			out, doc := filepath.Join(dir, fmt.Sprintf("out%d%s", v, ext)), filepath.Join(dir, fmt.Sprintf("doc%d.json", v))
			pctkRun(t, 0, slices.Concat([]string{"sample", tc.in, out, "--summary", doc}, tc.args, extra)...)
			outs[v], docs[v] = readBytes(t, out), normalizeJSON(readBytes(t, doc), dir, dir)
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("sample %s %q: --max-memory wrote other bytes than memory", filepath.Base(tc.in), tc.args)
		}
		if got, want := strings.ReplaceAll(string(docs[1]), "out1", "out0"), string(docs[0]); got != want {
			t.Errorf("sample %s %q: summaries differ:\n%s\n%s", filepath.Base(tc.in), tc.args, want, got)
		}
	}
	// Nothing left in --tmpdir.
	if left, _ := filepath.Glob(filepath.Join(dir, "pctk-*")); len(left) > 0 {
		t.Errorf("--tmpdir keeps %v", left)
	}
}

// TestSampleOutOfCoreBudget: kept points that would need more than
// --max-memory leaves them fail the run (exit 1, saying so) with OUT
// unchanged; a budget below the runner's buffers is a usage error.
func TestSampleOutOfCoreBudget(t *testing.T) {
	for _, tc := range []struct {
		budget string
		code   int
		says   string
	}{
		{"49MiB", 1, "points kept among the first"},
		{"40MiB", 2, "too small"},
	} {
		out, old := filepath.Join(t.TempDir(), "out.las"), []byte("the previous OUT\n")
		if err := os.WriteFile(out, old, 0o644); err != nil {
			t.Fatal(err)
		}
		// 21,923 of the 21,932 points kept: about 6 MiB with their grid.
		code, stderr := pctkExit(t, "sample", sample, out, "--radius", "0.1", "--max-memory", tc.budget)
		if code != tc.code || !strings.Contains(stderr, tc.says) || !strings.Contains(stderr, "--max-memory") {
			t.Errorf("--max-memory %s: exit %d, %q; want %d saying %q", tc.budget, code, stderr, tc.code, tc.says)
		}
		if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, old) {
			t.Errorf("--max-memory %s: OUT changed (%v)", tc.budget, err)
		}
	}
}

// TestSampleCollection cuts haystack_rock into three files by X (so that
// the order of the points changes: cutCollection), samples the collection (a glob, OUT a
// folder) and holds each output file to its part of the in-memory run on
// the files' concatenation, in the order given: the order that decides
// which points are kept.
func TestSampleCollection(t *testing.T) {
	dir := t.TempDir()
	tiles, concat, sizes := cutCollection(t, dir)
	n := 0
	for _, m := range sizes {
		n += m
	}
	for _, flags := range [][]string{{"--radius", "1.5"}, {"--radius", "3", "--dimension", "Sampled"}} {
		out, mem := filepath.Join(dir, "out")+"/", filepath.Join(dir, "mem.las")
		pctkRun(t, 0, slices.Concat([]string{"sample", filepath.Join(tiles, "*.las"), out}, flags)...)
		pctkRun(t, 0, slices.Concat([]string{"sample", concat, mem}, flags)...)
		want, kept := readTestCloud(t, mem), 0
		if len(flags) == 2 && want.Len() == n || want.Len() == 0 {
			t.Fatalf("%q: %d of %d points kept: nothing to compare", flags, want.Len(), n)
		}
		for k := range sizes {
			got := readTestCloud(t, filepath.Join(out, fmt.Sprintf("t%d.las", k)))
			part := make([]int, got.Len())
			for i := range part {
				part[i] = kept + i
			}
			if kept+got.Len() > want.Len() {
				t.Fatalf("%q: t%d.las: more points than the concatenation's run", flags, k)
			}
			sameCloud(t, fmt.Sprintf("%q t%d.las", flags, k), want.Select(part), got)
			kept += got.Len()
		}
		if kept != want.Len() {
			t.Errorf("%q: %d points written, %d in the concatenation's run", flags, kept, want.Len())
		}
	}
}
