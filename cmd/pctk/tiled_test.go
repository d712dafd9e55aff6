package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// tileFor returns --tile-size for a golden case: about 15 by 15 tiles on
// haystack_rock (and the clouds made from it), 7 by 5 on lamppost, a few
// radii wide either way.
func tileFor(tc goldenCase) []string {
	if slices.Contains(tc.args, "$L") || slices.ContainsFunc(tc.args, func(a string) bool { return strings.HasPrefix(a, "nb3.") }) {
		return []string{"--tile-size", "0.2"}
	}
	return []string{"--tile-size", "25"}
}

// TestTiledOutputs runs every golden case with --tile-size and holds what
// it writes and prints to the pinned sums of the untiled run, byte for
// byte, except consistent orientation (refused on tiles). pctk features,
// whose float64 columns show the order in which the cpu backend sums the
// moments (its index's own order, another in a tile's index: see
// docs/scale.md), is held to its untiled run within 4 float32 roundings.
func TestTiledOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("tiled golden outputs: not in -short")
	}
	var cases []goldenCase
	for _, tc := range goldenCases {
		if !slices.Contains(tc.args, "consistent") {
			cases = append(cases, tc)
		}
	}
	got := runGolden(t, cases, tileFor)
	for n, s := range got {
		if s != goldenSums[n] {
			t.Errorf("%s with --tile-size: sha256 %s, untiled %s", n, s, goldenSums[n])
		}
	}
	dir := t.TempDir()
	for _, tc := range [][]string{
		{"$R", "--knn", "10", "--features", "all"},
		{"$L", "--radius", "0.05", "--mode", "normalized"},
	} {
		in := "../../testdata/haystack_rock.las"
		if tc[0] == "$L" {
			in = "../../testdata/lamppost.pcd"
		}
		var clouds []*core.Cloud
		for _, tiled := range []bool{false, true} {
			out := filepath.Join(dir, fmt.Sprintf("f%v.las", tiled))
			args := append([]string{"-q", "features", in, out, "--backend", "cpu"}, tc[1:]...)
			if tiled {
				args = append(args, tileFor(goldenCase{args: tc})...)
			}
			if err := pctkCmd(t, args...).Run(); err != nil {
				t.Fatalf("pctk %q: %v", args, err)
			}
			c, _, err := pcio.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			clouds = append(clouds, c)
		}
		want, got := clouds[0], clouds[1]
		if !slices.Equal(got.X, want.X) || len(got.Attrs) != len(want.Attrs) {
			t.Fatalf("features %q: tiled cloud differs in points or columns", tc)
		}
		for i, a := range want.Attrs {
			w, g := make([]float64, a.Len()), make([]float64, a.Len())
			for j := range w {
				w[j], g[j] = a.Float64(j), got.Attrs[i].Float64(j)
			}
			ulps := 0.0
			if a.Type.IsFloat() {
				ulps = 4
			}
			if n, d := algotest.Differ(g, w, ulps); n > 0 {
				t.Errorf("features %q: %s: %d values differ on tiles (largest by %g)", tc, a.Name, n, d)
			}
		}
	}
}

// TestOutOfCoreOutputs runs the golden dbscan and neighbors --radius cases
// that --max-memory serves (not --geojson, --drop-noise: those need the
// whole cloud) out of core, with tiles forced small so that there are
// many, and holds what they write to the pinned sums of the in-memory run;
// and pctk density out of core to its in-memory run. A case whose input
// carries reusable counts (db7, db8) prints counts_reused in memory, not
// out of core, so only its cloud is compared.
func TestOutOfCoreOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("out-of-core golden outputs: not in -short")
	}
	var cases []goldenCase
	for _, tc := range goldenCases {
		if tc.args[0] == "dbscan" && !slices.Contains(tc.args, "--geojson") && !slices.Contains(tc.args, "--drop-noise") ||
			tc.name == "nb1" || tc.name == "nb3" {
			cases = append(cases, tc)
		}
	}
	got := runGolden(t, cases, func(tc goldenCase) []string {
		if tc.name == "nb3" {
			return nil // --knn: in memory (the input of db8)
		}
		return append(tileFor(tc), "--max-memory", "64MiB", "--tmpdir", t.TempDir())
	})
	n := 0
	for name, s := range got {
		if name == "db3.stdout" || name == "db7.stdout" || name == "db8.stdout" {
			continue
		}
		n++
		if s != goldenSums[name] {
			t.Errorf("%s with --max-memory: sha256 %s, in memory %s", name, s, goldenSums[name])
		}
	}
	if n < 9 {
		t.Errorf("only %d outputs compared", n)
	}
	dens := []goldenCase{
		{"de1", []string{"density", "$R", "de1.las", "--radius", "2", "--json"}},
		{"de2", []string{"density", "$L", "de2.pcd", "--radius", "0.05", "--summary", "de2.json"}},
	}
	want := runGolden(t, dens, nil)
	got = runGolden(t, dens, func(tc goldenCase) []string {
		return append(tileFor(tc), "--max-memory", "64MiB", "--tmpdir", t.TempDir())
	})
	if len(want) != 4 {
		t.Errorf("density wrote %d outputs, want 4", len(want))
	}
	for name, s := range want {
		if got[name] != s {
			t.Errorf("%s with --max-memory: sha256 %s, in memory %s", name, got[name], s)
		}
	}
}

// TestTileCollection cuts haystack_rock into three files (by X, so that
// clusters cross the cuts), runs dbscan, density and neighbors on the
// collection (a glob, OUT a folder) and holds each output file's columns
// to the in-memory run on the three files' concatenation.
func TestTileCollection(t *testing.T) {
	if testing.Short() {
		t.Skip("tile collections: not in -short")
	}
	whole, _, err := pcio.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	if err := os.Mkdir(tiles, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := whole.Bounds()
	lo, hi := b.Min[0], b.Max[0]
	var order []int
	var sizes []int
	for k := range 3 {
		var idx []int
		for i, x := range whole.X {
			if int(math.Min(2, math.Floor(3*(x-lo)/(hi-lo)))) == k {
				idx = append(idx, i)
			}
		}
		writeTestCloud(t, filepath.Join(tiles, fmt.Sprintf("t%d.las", k)), whole.Select(idx))
		order, sizes = append(order, idx...), append(sizes, len(idx))
	}
	// Filters without an out-of-core run take one file; OUT must not
	// replace an input.
	pctkRun(t, 2, "normals", filepath.Join(tiles, "*.las"), filepath.Join(dir, "n"), "--knn", "8")
	pctkRun(t, 2, "density", filepath.Join(tiles, "*.las"), tiles, "--radius", "1")
	concat := filepath.Join(dir, "concat.las")
	writeTestCloud(t, concat, whole.Select(order))
	for _, tc := range [][]string{
		{"dbscan", "--eps", "2", "--min-pts", "5,8"},
		{"density", "--radius", "1.5"},
		{"neighbors", "--radius", "2"},
	} {
		out := filepath.Join(dir, "out-"+tc[0])
		mem := filepath.Join(dir, "mem-"+tc[0]+".las")
		pctkRun(t, 0, append([]string{tc[0], filepath.Join(tiles, "*.las"), out, "--tile-size", "40"}, tc[1:]...)...)
		pctkRun(t, 0, append([]string{tc[0], concat, mem}, tc[1:]...)...)
		want := readTestCloud(t, mem)
		first := 0
		for k, n := range sizes {
			got := readTestCloud(t, filepath.Join(out, fmt.Sprintf("t%d.las", k)))
			part := make([]int, n)
			for i := range part {
				part[i] = first + i
			}
			w := want.Select(part)
			if !slices.Equal(got.X, w.X) || len(got.Attrs) != len(w.Attrs) {
				t.Fatalf("%s: t%d.las: other points or columns than the concatenation's", tc[0], k)
			}
			for j, a := range w.Attrs {
				for i := range n {
					if got.Attrs[j].Uint64(i) != a.Uint64(i) {
						t.Fatalf("%s: t%d.las: %s of point %d is %v, %v in the concatenation", tc[0], k, a.Name, i, got.Attrs[j].Float64(i), a.Float64(i))
					}
				}
			}
			first += n
		}
	}
}
