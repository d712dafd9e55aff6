package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/stage"
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
// byte, except consistent orientation (refused on tiles). pctk features
// (a local stage: each point's covariance from its neighbour list, by its
// Reach) and pctk normals with eigenvalues, whose float64 columns show the
// order in which the cpu backend sums the moments, with k nearest alone
// and with a radius, write byte for byte the same file in memory, with
// --tile-size and out of core (--max-memory): the tiles' indexes sum a
// radius's neighbours in the whole cloud's order, and every index the k
// nearest in KNearest's order (docs/scale.md).
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
		{"features", "$R", "--knn", "10", "--features", "all"},
		{"features", "$L", "--knn", "8", "--mode", "normalized"},
		{"features", "$L", "--radius", "0.05", "--mode", "normalized"},
		{"features", "$R", "--radius", "2", "--features", "all"},
		{"normals", "$R", "--knn", "8", "--eigenvalues"},
		{"normals", "$L", "--knn", "16", "--eigenvalues", "--orient", "viewpoint"},
	} {
		// OUT in IN's format, and from lamppost's PCD a LAS too, whose
		// scale out of core is the in-memory one (lasScale).
		in, exts := "../../testdata/haystack_rock.las", []string{"las"}
		if tc[1] == "$L" {
			in, exts = "../../testdata/lamppost.pcd", []string{"pcd", "las"}
		}
		tile := tileFor(goldenCase{args: tc})
		for _, ext := range exts {
			sameTiled(t, filepath.Join(dir, "f."+ext), tile, func(out string) []string {
				return append([]string{tc[0], in, out, "--backend", "cpu"}, tc[2:]...)
			})
		}
	}
}

// sameTiled runs pctk with args(OUT) in memory, with tile (--tile-size
// S) and with tile out of core (--max-memory 64MiB), OUT a variant of
// out for each, and fails t where a tiled output's bytes differ from the
// in-memory one's.
func sameTiled(t *testing.T, out string, tile []string, args func(out string) []string) {
	t.Helper()
	var outs [][]byte
	ext := filepath.Ext(out)
	for v, extra := range [][]string{nil, tile, slices.Concat(tile, []string{"--max-memory", "64MiB", "--tmpdir", t.TempDir()})} {
		o := fmt.Sprintf("%s%d%s", strings.TrimSuffix(out, ext), v, ext)
		a := slices.Concat([]string{"-q"}, args(o), extra)
		if err := pctkCmd(t, a...).Run(); err != nil {
			t.Fatalf("pctk %q: %v", a, err)
		}
		outs = append(outs, readBytes(t, o))
	}
	for v, got := range outs[1:] {
		if !bytes.Equal(got, outs[0]) {
			t.Errorf("pctk %q: the output %s differs from the in-memory run's", args(out), []string{"on tiles", "out of core"}[v])
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
			tc.name == "nb1" || tc.name == "nb3" || tc.name == "d3" || tc.name == "d4" ||
			tc.name == "d1" || tc.name == "d2" || tc.name == "d5" || tc.name == "d6" || tc.name == "d7" || tc.name == "nb2" ||
			tc.args[0] == "normals" && !slices.Contains(tc.args, "consistent") {
			cases = append(cases, tc)
		}
	}
	got := runGolden(t, cases, func(tc goldenCase) []string {

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
	if n < 21 {
		t.Errorf("only %d outputs compared", n)
	}
	dens := []goldenCase{
		{"de1", []string{"density", "$R", "de1.las", "--radius", "2", "--json"}},
		{"de2", []string{"density", "$L", "de2.pcd", "--radius", "0.05", "--summary", "de2.json"}},
		{"de3", []string{"density", "$R", "de3.xyz", "--radius", "2", "--precision", "3"}},
		{"dr1", []string{"denoise", "radius", "$R", "dr1.las", "--radius", "1.5", "--min-neighbors", "3", "--json"}},
		{"dr2", []string{"denoise", "radius", "$L", "dr2.ply", "--radius", "0.03", "--min-neighbors", "5", "--mode", "remove", "--invert", "--summary", "dr2.json"}},
		{"ds1", []string{"denoise", "statistical", "$R", "ds1.las", "--k", "12", "--json"}},
		{"ds2", []string{"denoise", "statistical", "$L", "ds2.ply", "--k", "30", "--convention", "open3d", "--mode", "flag", "--summary", "ds2.json"}},
	}
	want := runGolden(t, dens, nil)
	got = runGolden(t, dens, func(tc goldenCase) []string {
		return append(tileFor(tc), "--max-memory", "64MiB", "--tmpdir", t.TempDir())
	})
	if len(want) != 13 {
		t.Errorf("density and denoise wrote %d outputs, want 13", len(want))
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
	dir := t.TempDir()
	tiles, concat, sizes := cutCollection(t, dir)
	// Filters without an out-of-core run take one file; OUT must not
	// replace an input.
	pctkRun(t, 2, "normals", filepath.Join(tiles, "*.las"), filepath.Join(dir, "n"), "--knn", "8", "--orient", "consistent")
	pctkRun(t, 2, "density", filepath.Join(tiles, "*.las"), tiles, "--radius", "1")
	for _, tc := range [][]string{
		{"dbscan", "--eps", "2", "--min-pts", "5,8"},
		{"density", "--radius", "1.5"},
		{"neighbors", "--radius", "2"},
		{"denoise", "radius", "--radius", "1.5", "--min-neighbors", "4"},
		{"denoise", "statistical", "--k", "16", "--mode", "flag"},
		{"normals", "--knn", "10", "--eigenvalues"},
	} {
		out := filepath.Join(dir, "out-"+tc[0]) + "/"
		mem := filepath.Join(dir, "mem-"+tc[0]+".las")
		cmd, flags := tc[:1], tc[1:]
		if tc[0] == "denoise" {
			cmd, flags = tc[:2], tc[2:]
		}
		pctkRun(t, 0, slices.Concat(cmd, []string{filepath.Join(tiles, "*.las"), out, "--tile-size", "40"}, flags)...)
		pctkRun(t, 0, slices.Concat(cmd, []string{concat, mem}, flags)...)
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

// cutCollection cuts haystack_rock into three LAS files by X (so that
// clusters cross the cuts, and the points change order) under dir/tiles,
// t0.las to t2.las, writes their concatenation to dir/concat.las, and
// returns the folder, the concatenation and each file's points.
func cutCollection(t *testing.T, dir string) (tiles, concat string, sizes []int) {
	t.Helper()
	whole := readTestCloud(t, sample)
	tiles = filepath.Join(dir, "tiles")
	if err := os.Mkdir(tiles, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := whole.Bounds()
	lo, hi := b.Min[0], b.Max[0]
	var order []int
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
	concat = filepath.Join(dir, "concat.las")
	writeTestCloud(t, concat, whole.Select(order))
	return tiles, concat, sizes
}

// TestTileCollectionLion runs dbscan on the 200 LAS files of the
// lion_takanawa scan in ../shared/data (octree nodes: each file's points
// lie among the others') as a collection out of core, and holds each output
// file's columns to the in-memory run on the files' concatenation.
func TestTileCollectionLion(t *testing.T) {
	if testing.Short() {
		t.Skip("tile collections: not in -short")
	}
	files, _ := filepath.Glob("../../../shared/data/las/lion_takanawa/*.las")
	if len(files) == 0 {
		t.Skip("../shared/data/las/lion_takanawa is missing (the shared reference data)")
	}
	dir := t.TempDir()
	var all *core.Cloud
	var sizes []int
	for _, f := range files {
		c, _, err := pcio.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if all == nil {
			all = c
		} else if err := all.Append(c); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, c.Len())
	}
	concat := filepath.Join(dir, "concat.las")
	writeTestCloud(t, concat, all)
	out, mem := filepath.Join(dir, "out")+"/", filepath.Join(dir, "mem.las")
	flags := []string{"--eps", "0.03", "--min-pts", "6"}
	pctkRun(t, 0, slices.Concat([]string{"dbscan", "../../../shared/data/las/lion_takanawa/*.las", out, "--max-memory", "128MiB", "--tile-size", "0.5"}, flags)...)
	pctkRun(t, 0, slices.Concat([]string{"dbscan", concat, mem}, flags)...)
	want := readTestCloud(t, mem)
	ids, counts := intColumn(t, want, core.DimClusterID), intColumn(t, want, core.DimNeighborCount)
	first := 0
	for k, f := range files {
		got := readTestCloud(t, filepath.Join(out, filepath.Base(f)))
		gi, gc := intColumn(t, got, core.DimClusterID), intColumn(t, got, core.DimNeighborCount)
		if !slices.Equal(gi, ids[first:first+sizes[k]]) || !slices.Equal(gc, counts[first:first+sizes[k]]) {
			t.Fatalf("%s: labels or counts differ from the concatenation's", f)
		}
		first += sizes[k]
	}
	if first != len(ids) {
		t.Fatalf("%d points written, %d in the concatenation", first, len(ids))
	}
}

// TestOutOfCoreTinyClouds runs every out-of-core command on clouds of 0, 1
// and 3 points (k beyond the cloud: the k-nearest rounds end with all
// there is) and holds the outputs to the in-memory ones.
func TestOutOfCoreTinyClouds(t *testing.T) {
	dir := t.TempDir()
	for n := range []int{0, 1, 3} {
		c := &core.Cloud{}
		for i := range []int{0, 1, 3}[n] {
			c.X, c.Y, c.Z = append(c.X, float64(i)), append(c.Y, 2*float64(i)), append(c.Z, 0.5)
		}
		in := filepath.Join(dir, fmt.Sprintf("in%d.ply", n))
		writeTestCloud(t, in, c)
		for _, args := range [][]string{
			{"dbscan", "--eps", "1"}, {"density", "--radius", "1"}, {"neighbors", "--knn", "3"},
			{"normals", "--knn", "5"}, {"features", "--knn", "3"},
		} {
			mem, ooc := filepath.Join(dir, "mem.ply"), filepath.Join(dir, "ooc.ply")
			pctkRun(t, 0, slices.Concat(args[:1], []string{in, mem}, args[1:])...)
			pctkRun(t, 0, slices.Concat(args[:1], []string{in, ooc}, args[1:], []string{"--max-memory", "64MiB"})...)
			if !sameFiles(t, mem, ooc) {
				t.Errorf("%d points, %q: out of core differs from memory", c.Len(), args)
			}
		}
		for _, args := range [][]string{{"radius", "--radius", "1"}, {"statistical", "--k", "4"}} {
			mem, ooc := filepath.Join(dir, "mem.ply"), filepath.Join(dir, "ooc.ply")
			pctkRun(t, 0, slices.Concat([]string{"denoise", args[0], in, mem}, args[1:])...)
			pctkRun(t, 0, slices.Concat([]string{"denoise", args[0], in, ooc}, args[1:], []string{"--max-memory", "64MiB"})...)
			if !sameFiles(t, mem, ooc) {
				t.Errorf("%d points, denoise %q: out of core differs from memory", c.Len(), args)
			}
		}
	}
}

// TestOutOfCoreIgnoreClass runs every out-of-core command with
// --ignore-class on haystack_rock with classes spread over its points, and
// holds the outputs to the in-memory ones, byte for byte: features and
// normals with a radius too, whose tiles' indexes take the frame of the
// points that take part (tile.Store.Box), as the in-memory index does
// (features with k alone: see TestTiledOutputs).
func TestOutOfCoreIgnoreClass(t *testing.T) {
	if testing.Short() {
		t.Skip("out-of-core runs: not in -short")
	}
	c, _, err := pcio.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	cls := c.Attr(core.DimClassification)
	for i := range c.Len() {
		cls.SetFloat64(i, float64([]int{2, 2, 3, 5, 2, 7, 2}[i%7]))
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "classes.las")
	writeTestCloud(t, in, c)
	for _, args := range [][]string{
		{"dbscan", "--eps", "2", "--min-pts", "4,8", "--json"},
		{"dbscan", "--eps", "2", "--classify-noise"},
		{"density", "--radius", "2", "--json"},
		{"neighbors", "--radius", "2", "--knn", "6", "--json"},
		{"neighbors", "--knn", "6"},
		{"normals", "--knn", "8", "--json"},
		{"normals", "--radius", "1.5", "--eigenvalues"},
		{"features", "--radius", "2", "--features", "all", "--json"},
		{"denoise", "radius", "--radius", "2", "--min-neighbors", "4", "--json"},
		{"denoise", "statistical", "--k", "8", "--mode", "remove", "--json"},
		{"denoise", "statistical", "--k", "8", "--mode", "remove", "--invert"},
	} {
		name, flags := args[:1], args[1:]
		if args[0] == "denoise" {
			name, flags = args[:2], args[2:]
		}
		var outs [2][]byte
		var docs [2]string
		for v, extra := range [][]string{nil, {"--max-memory", "64MiB", "--tile-size", "30"}} {
			out := filepath.Join(dir, fmt.Sprintf("out%d.las", v))
			a := slices.Concat([]string{"-q"}, name, []string{in, out, "--ignore-class", "3,7", "--backend", "cpu"}, flags, extra)
			stdout, err := pctkCmd(t, a...).Output()
			if err != nil {
				t.Fatalf("pctk %q: %v", a, err)
			}
			if outs[v], err = os.ReadFile(out); err != nil {
				t.Fatal(err)
			}
			docs[v] = string(normalizeJSON(stdout, dir, dir))
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%q --ignore-class: out of core differs from memory", args)
		}
		if strings.ReplaceAll(docs[1], "out1", "out0") != docs[0] {
			t.Errorf("%q --ignore-class: summaries differ:\n%s\n%s", args, docs[0], docs[1])
		}
	}
}

// TestTileSizeTooSmall: a --tile-size that would put tiles more than 2^30
// from the origin is a usage error naming the least size, in memory and
// out of core, never a panic, and OUT is left as it was.
func TestTileSizeTooSmall(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "u.las"), filepath.Join(dir, "out.las")
	pctkRun(t, 0, "synth", "uniform", in, "--points", "500", "--extent", "1000000")
	writeText(t, out, "old")
	for _, extra := range [][]string{nil, {"--max-memory", "64MiB"}} {
		args := append([]string{"dbscan", in, out, "--eps", "0.0001", "--tile-size", "0.0001"}, extra...)
		pctkRun(t, 2, args...)
		if string(readBytes(t, out)) != "old" {
			t.Errorf("%v: OUT changed", extra)
		}
	}
}

// TestOutOfCoreLASScale writes LAS and LAZ from inputs of other formats
// (lamppost's PCD, a PLY of it moved to UTM-sized coordinates, a text
// file on a centimetre grid but for its last point) with filters that
// keep every point or drop some, in memory and out of core, in chunks of
// 500 points, and holds the out-of-core file to the in-memory one byte
// for byte: both writers choose the scale and offset from every point
// written (las.ScaleFit, lasScale), not the streaming one from its first
// chunk.
func TestOutOfCoreLASScale(t *testing.T) {
	if testing.Short() {
		t.Skip("out-of-core LAS scale: not in -short")
	}
	defer func(n int) { stage.ChunkPoints = n }(stage.ChunkPoints)
	stage.ChunkPoints = 500
	dir := t.TempDir()
	lamp := readTestCloud(t, "../../testdata/lamppost.pcd")
	moved := core.New(lamp.Len())
	for i := range lamp.Len() {
		moved.X[i], moved.Y[i], moved.Z[i] = 500000+lamp.X[i], 4100000+lamp.Y[i], 20+lamp.Z[i]
	}
	ply := filepath.Join(dir, "moved.ply")
	writeTestCloud(t, ply, moved)
	grid := core.New(40 * 40)
	for i := range grid.Len() {
		grid.X[i], grid.Y[i], grid.Z[i] = float64(i%40)*0.05, float64(i/40)*0.05, float64(i%7)/100
	}
	grid.Z[grid.Len()-1] += 0.001 // 0.01 gives it back only for its last chunk's sake
	xyz := filepath.Join(dir, "grid.xyz")
	writeTestCloud(t, xyz, grid)
	for _, in := range []struct {
		path, tile string
		r          float64
		scaleZ     float64 // of denoise radius's output
	}{
		{"../../testdata/lamppost.pcd", "0.2", 0.03, 1e-7},
		{ply, "0.2", 0.03, 1e-8},
		{xyz, "0.5", 0.06, 0.001},
	} {
		r := fmt.Sprint(in.r)
		for _, tc := range [][]string{
			{"denoise", "radius", "--radius", r, "--min-neighbors", "5", "--mode", "remove"},
			{"denoise", "radius", "--radius", r, "--min-neighbors", "5", "--mode", "flag"},
			{"dbscan", "--eps", r, "--min-pts", "4"},
			{"normals", "--knn", "8"},
			{"sample", "--radius", fmt.Sprint(in.r / 2)},
		} {
			cmd, flags := tc[:1], tc[1:]
			if tc[0] == "denoise" {
				cmd, flags = tc[:2], tc[2:]
			}
			ooc := []string{"--max-memory", "64MiB", "--tmpdir", t.TempDir()}
			if tc[0] != "sample" { // sample runs in input order, untiled
				ooc = append(ooc, "--tile-size", in.tile)
			}
			for _, ext := range []string{"las", "laz"} {
				mem, out := filepath.Join(dir, "mem."+ext), filepath.Join(dir, "ooc."+ext)
				pctkRun(t, 0, slices.Concat(cmd, []string{in.path, mem, "--backend", "cpu"}, flags)...)
				pctkRun(t, 0, slices.Concat(cmd, []string{in.path, out, "--backend", "cpu"}, flags, ooc)...)
				if !bytes.Equal(readBytes(t, mem), readBytes(t, out)) {
					t.Errorf("%s %q to %s: the out-of-core file differs from the in-memory one", filepath.Base(in.path), tc, ext)
				}
				if ext == "las" && tc[0] == "denoise" && tc[3] == "remove" {
					h := las.InfoOf(&readTestCloud(t, out).Meta).Header
					if h.Scale[2] != in.scaleZ {
						t.Errorf("%s %q: Z scale %g, want %g", filepath.Base(in.path), tc, h.Scale[2], in.scaleZ)
					}
				}
			}
		}
	}
}

// TestOutOfCoreKNNLeftovers runs the k-nearest commands out of core on a
// ground with a wall, stacks of coincident points and isolated points high
// above it (one in a ring of points, all at one distance from it: ties
// broken by index), whose k nearest lie far off in Z, beyond what their
// tiles hold: they go to one pass over the tiles (tile.Leftovers), or
// several when fewer fit in one (leftoverBatch), or to rounds of doubling
// halos when that would take too many passes, on the cpu backend (a
// kd-tree per tile) as on brute force (which stands for the GPUs here: a
// tile's k nearest in finite-radius rounds of its own). Each output must
// be the in-memory run's, byte for byte.
func TestOutOfCoreKNNLeftovers(t *testing.T) {
	if testing.Short() {
		t.Skip("out-of-core runs: not in -short")
	}
	r := rand.New(rand.NewPCG(21, 3))
	c := core.New(0)
	add := func(x, y, z float64) {
		c.X, c.Y, c.Z = append(c.X, 300000+x), append(c.Y, 4e6+y), append(c.Z, 50+z)
	}
	for range 4000 { // ground
		add(40*r.Float64(), 40*r.Float64(), 0.1*r.Float64())
	}
	for range 800 { // a wall along x = 20
		add(20+0.05*r.Float64(), 40*r.Float64(), 5*r.Float64())
	}
	for range 40 { // isolated points high above
		add(40*r.Float64(), 40*r.Float64(), 30+20*r.Float64())
	}
	for range 4 { // stacks of 12 coincident points
		x, y := 40*r.Float64(), 40*r.Float64()
		for range 12 {
			add(x, y, 0.05)
		}
	}
	// Two corners make the local origin (20, 20, 25), so that a point
	// up in the air with a ring of 12 around it at distance 5, in the
	// local frame exactly: its k nearest (k < 12) are the ring's points
	// of the smallest indices, and which ones changes its sums.
	add(0, 0, 0)
	add(40, 40, 50)
	add(9.5, 27.25, 45)
	for _, d := range [][2]float64{{3, 4}, {-3, 4}, {3, -4}, {-3, -4}, {4, 3}, {-4, 3}, {4, -3}, {-4, -3}, {5, 0}, {-5, 0}, {0, 5}, {0, -5}} {
		add(9.5+d[0], 27.25+d[1], 45)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ply")
	writeTestCloud(t, in, c)
	for _, args := range [][]string{
		{"normals", "--knn", "10", "--eigenvalues"},
		{"features", "--knn", "10", "--features", "all"},
		{"neighbors", "--knn", "8"},
		{"denoise", "statistical", "--k", "8", "--mode", "flag"},
	} {
		name, flags := args[:1], args[1:]
		if args[0] == "denoise" {
			name, flags = args[:2], args[2:]
		}
		for _, tc := range []struct {
			backend, batch, log string // the leftovers' path: its log line
		}{
			{"cpu", "", "k-nearest pass:"},         // one pass
			{"cpu", "20", "k-nearest pass: 20 of"}, // several: 51-79 points left
			{"cpu", "6", "k-nearest round:"},       // more than maxLeftoverPasses
			{"brute", "", "k-nearest pass:"},
			{"brute", "6", "k-nearest round:"},
		} {
			var outs [2][]byte
			for v, extra := range [][]string{nil, {"-v", "--max-memory", "64MiB", "--tile-size", "6", "--tmpdir", dir}} {
				out := filepath.Join(dir, fmt.Sprintf("out%d.ply", v))
				a := slices.Concat(name, []string{in, out, "--backend", tc.backend}, flags, extra)
				var stderr bytes.Buffer
				cmd := pctkCmd(t, a...)
				cmd.Env = append(cmd.Env, envLeftoverBatch+"="+tc.batch)
				cmd.Stderr = &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("pctk %q: %v\n%s", a, err, stderr.String())
				}
				passes := strings.Count(stderr.String(), "k-nearest pass:")
				want, onePass := tc.log, tc.batch == "" && tc.backend == "cpu"
				if args[0] == "features" {
					// A local stage (stage.Local): its points short of
					// their k nearest go to the driver's rounds.
					want, onePass = "local stage round:", false
				}
				if v == 1 && (!strings.Contains(stderr.String(), want) || onePass && passes != 1) {
					t.Errorf("pctk %q, batch %q: no %q in its log:\n%s", a, tc.batch, want, stderr.String())
				}
				outs[v] = readBytes(t, out)
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("%q --backend %s, batch %q: out of core differs from memory", args, tc.backend, tc.batch)
			}
		}
	}
}

// envLeftoverBatch sets leftoverBatch in a child pctk.
const envLeftoverBatch = "PCTK_TEST_LEFTOVER_BATCH"

// leftoverBatchForTests sets leftoverBatch from envLeftoverBatch in a
// child pctk.
func leftoverBatchForTests() {
	if n, err := strconv.Atoi(os.Getenv(envLeftoverBatch)); err == nil {
		stage.LeftoverBatch = n
	}
}
