package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReliabilityRound3 runs pctk on the command-side defects of the third
// reliability round and checks the exit status, the key words of the
// message, that an OUT that existed stays byte for byte the same when the
// run fails, and that nothing is left beside it.
func TestReliabilityRound3(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.las")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// An organised PCD: a 3 by 2 grid whose missing pixels are NaN.
	nan := filepath.Join(dir, "org.pcd")
	writeText(t, nan, "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 3\nHEIGHT 2\nPOINTS 6\nDATA ascii\n"+
		"nan nan nan\n0 0 0\n1 0 0\n0 1 0\nnan nan nan\n1 1 0\n")
	pipe := func(name, doc string) string {
		p := filepath.Join(dir, name)
		writeText(t, p, doc)
		return p
	}
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(outDir, "o.las")
	png := filepath.Join(outDir, "o.png")
	stage := `{"type":"filters.dbscan","eps":1,"min_points":4`
	tests := []struct {
		name string
		args []string
		code int
		want []string
		out  string // an OUT that must stay the same when code != 0
	}{
		// 6: three arguments, or a glob, never make a folder of a file name.
		{"three arguments", []string{"dbscan", "--eps", "1", in, in, filepath.Join(outDir, "one.las")}, 2,
			[]string{"OUT is a folder", "one.las is not an existing folder", "end it with /"}, ""},
		{"glob and a file name", []string{"dbscan", "--eps", "1", filepath.Join(dir, "*.las"), filepath.Join(outDir, "two.las")}, 2,
			[]string{"two.las is not an existing folder"}, ""},
		// 4: a tile size far below the reach, or more tiles than points.
		{"tile below the reach", []string{"dbscan", "--eps", "3", "--tile-size", "0.001", in, out}, 2,
			[]string{"--tile-size", "tile size 0.001 is too small for the neighbour reach 3", "want at least 6"}, out},
		{"tile below the reach, out of core", []string{"dbscan", "--eps", "3", "--tile-size", "5", "--max-memory", "64MiB", in, out}, 2,
			[]string{"--tile-size", "want at least 6"}, out},
		{"more tiles than points", []string{"normals", "--knn", "8", "--tile-size", "0.001", in, out}, 2,
			[]string{"--tile-size", "more tiles than points", "want at least"}, out},
		{"more tiles than points, out of core", []string{"normals", "--knn", "8", "--tile-size", "0.001", "--max-memory", "64MiB", in, out}, 2,
			[]string{"--tile-size", "more tiles than points", "want at least"}, out},
		// 10: non-finite points, one rule; a radius too small exits 2 too.
		{"NaN in dbscan", []string{"dbscan", "--eps", "2", nan, out}, 1, []string{"org.pcd", "point 0 has a non-finite coordinate", "--keep-nan"}, out},
		{"NaN in denoise", []string{"denoise", "radius", "--radius", "2", "--min-neighbors", "1", nan, out}, 1, []string{"--keep-nan"}, out},
		{"NaN in density", []string{"density", "--radius", "2", nan, out}, 1, []string{"--keep-nan"}, out},
		{"NaN out of core", []string{"density", "--radius", "2", "--max-memory", "64MiB", nan, out}, 1, []string{"non-finite", "--keep-nan"}, out},
		{"keep-nan out of core", []string{"density", "--radius", "2", "--keep-nan", "--max-memory", "64MiB", nan, out}, 2, []string{"--max-memory", "in memory only"}, out},
		{"sample radius too small", []string{"sample", "--radius", "1e-12", in, out}, 2, []string{"--radius 1e-12: want at least"}, out},
		{"sample radius too small, out of core", []string{"sample", "--radius", "1e-12", "--max-memory", "64MiB", in, out}, 2, []string{"--radius 1e-12: want at least"}, out},
		// 11: messages and options.
		{"OUT folder missing", []string{"convert", in, filepath.Join(dir, "missing", "o.las")}, 1, []string{"missing/o.las: its folder", "does not exist"}, ""},
		{"unknown flag", []string{"dbscan", "--eps", "1", "--bogus", in, out}, 2, []string{"unknown flag --bogus"}, out},
		{"flag value", []string{"dbscan", "--eps", "x", in, out}, 2, []string{`invalid value "x" for flag --eps`}, out},
		{"pipeline dimensions", []string{"pipeline", "--file", pipe("dims.json", `{"pipeline":["`+in+`",`+stage+`,"dimensions":"X,Y,Z,GpsTime"},"`+out+`"]}`)}, 2,
			[]string{`dimensions "X,Y,Z,GpsTime": pctk searches X,Y or X,Y,Z`}, out},
		{"pipeline duplicate key", []string{"pipeline", "--file", pipe("dup.json", `{"pipeline":["`+in+`",`+stage+`,"eps":2},"`+out+`"]}`)}, 2,
			[]string{`stage 2: key "eps" given twice`}, out},
		{"pipeline unknown key", []string{"pipeline", "--file", pipe("extra.json", `{"pipeline":["`+in+`",`+stage+`},"`+out+`"],"metadata":{}}`)}, 2,
			[]string{`unknown key "metadata"`}, out},
		{"render width 0", []string{"render", "--width", "0", in, png}, 2, []string{"--width 0: want 16 to"}, png},
		{"render to .tif", []string{"render", in, filepath.Join(outDir, "o.tif")}, 2, []string{"o.tif: want a .png, .jpg or .jpeg picture"}, ""},
		{"preview to .las", []string{"dbscan", "--eps", "1", "--preview", filepath.Join(outDir, "p.las"), in, out}, 2, []string{"--preview", "want a .png, .jpg or .jpeg"}, out},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before []byte
			if tc.out != "" {
				writeText(t, tc.out, "the old OUT of "+tc.name)
				before = readBytes(t, tc.out)
			}
			code, stderr := runChild(t, tc.args...)
			if code != tc.code {
				t.Errorf("pctk %v: exit %d, want %d\n%s", tc.args, code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("pctk %v: stderr %q lacks %q", tc.args, stderr, w)
				}
			}
			if strings.Contains(stderr, ".check") || strings.Contains(stderr, " -bogus") {
				t.Errorf("pctk %v: stderr %q names a temporary file or a one-dash flag", tc.args, stderr)
			}
			if tc.out != "" && !bytes.Equal(readBytes(t, tc.out), before) {
				t.Errorf("pctk %v changed OUT", tc.args)
			}
			if left := leftovers(t, outDir, "o.las", "o.png"); len(left) != 0 {
				t.Errorf("pctk %v left %v in OUT's folder", tc.args, left)
			}
		})
	}
}

// TestKeepNaNEveryFilter runs every neighbour filter on an organised cloud
// with --keep-nan: the NaN points take no part and are all written.
func TestKeepNaNEveryFilter(t *testing.T) {
	dir := t.TempDir()
	nan := filepath.Join(dir, "org.pcd")
	var b strings.Builder
	b.WriteString("VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 10\nHEIGHT 10\nPOINTS 100\nDATA ascii\n")
	for i := range 100 {
		if i%7 == 0 {
			b.WriteString("nan nan nan\n")
			continue
		}
		fmt.Fprintf(&b, "%d %d 0\n", i%10, i/10)
	}
	writeText(t, nan, b.String())
	for _, args := range [][]string{
		{"dbscan", "--eps", "1.5", "--min-pts", "3"},
		{"denoise", "radius", "--radius", "1.5", "--min-neighbors", "2"},
		{"denoise", "statistical", "--k", "4", "--mode", "flag"},
		{"density", "--radius", "1.5"},
		{"features", "--knn", "5"},
		{"neighbors", "--radius", "1.5"},
		{"normals", "--knn", "5"},
		{"sample", "--radius", "1.5"},
	} {
		out := filepath.Join(dir, "out.pcd")
		pctkRun(t, 0, append(args, "--keep-nan", nan, out)...)
		got := readTestCloud(t, out)
		if args[0] == "sample" {
			// The NaN points take no part, and are kept as --ignore-class
			// keeps points; the grid's 86 points thin out.
			if got.Len() <= 15 || got.Len() >= 100 {
				t.Errorf("%v --keep-nan: %d points, want the 15 NaN points and some of the others", args, got.Len())
			}
			continue
		}
		if got.Len() != 100 {
			t.Errorf("%v --keep-nan: %d points, want 100", args, got.Len())
		}
	}
}
