package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile builds, in dir, the broken and odd inputs of issue 15 and returns
// their paths by name.
func hostile(t *testing.T, dir string) map[string]string {
	t.Helper()
	las, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	pointOffset := int(binary.LittleEndian.Uint32(las[96:]))
	stl := make([]byte, 80, 84+2*50)
	stl = binary.LittleEndian.AppendUint32(stl, 2)
	for tri := range 2 {
		stl = append(stl, make([]byte, 12)...) // normal
		for v := range 9 {
			stl = binary.LittleEndian.AppendUint32(stl, math.Float32bits(float32(tri+v%3+v/3)))
		}
		stl = append(stl, 0, 0)
	}
	ply := "ply\nformat binary_little_endian 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\nend_header\n" + string(make([]byte, 4*12))
	pcd := "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 4\nHEIGHT 1\nPOINTS 4\nDATA ascii\n1 2 3\n4 5 6\n7 8 9\n10 11 12\n"
	files := map[string][]byte{
		"cut.las":      las[:100000],
		"header.las":   las[:pointOffset],
		"cut.ply":      []byte(ply[:len(ply)-18]),
		"cut.pcd":      []byte(pcd[:len(pcd)-9]),
		"cut.stl":      stl[:len(stl)-30],
		"ok.stl":       stl,
		"ok-ascii.stl": []byte("solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n"),
		"bad.stl":      []byte("solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 x\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nfacet normal 0 0 1\nouter loop\nvertex 0 0 y\nendloop\nendfacet\nendsolid t\n"),
		"noxyz.ply":    []byte("ply\nformat ascii 1.0\nelement vertex 2\nproperty uchar red\nend_header\n1\n2\n"),
		"noxyz.pcd":    []byte("VERSION 0.7\nFIELDS intensity\nSIZE 4\nTYPE F\nCOUNT 1\nWIDTH 1\nHEIGHT 1\nPOINTS 1\nDATA ascii\n5\n"),
		"twice.pcd":    []byte("VERSION 0.7\nFIELDS x x y z\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 1\nWIDTH 1\nHEIGHT 1\nPOINTS 1\nDATA ascii\n1 2 3 4\n"),
		"good.las":     las,
		"readonly.ply": []byte("precious"),
		"target.ply":   []byte("precious"),
	}
	paths := map[string]string{}
	for name, data := range files {
		p := filepath.Join(dir, name)
		paths[name] = p
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(paths["readonly.ply"], 0o444); err != nil {
		t.Fatal(err)
	}
	paths["link.ply"] = filepath.Join(dir, "link.ply")
	if err := os.Symlink("target.ply", paths["link.ply"]); err != nil {
		t.Fatal(err)
	}
	return paths
}

// TestReliability runs pctk on each defect of issue 15 and checks the exit
// status, the key words of the message (and words it must not hold), and
// that an OUT that existed before a failed run is byte for byte the same.
func TestReliability(t *testing.T) {
	dir := t.TempDir()
	p := hostile(t, dir)
	out := filepath.Join(dir, "out", "o.ply")
	outLAS := filepath.Join(dir, "out", "o.las")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []cliCase{
		// A file cut short is an error in every format, naming the file,
		// the byte offset and the counts.
		{"LAS cut in its points", []string{"convert", p["cut.las"], outLAS}, "", 1,
			[]string{"cut.las: las: file cut short at byte offset 100000: header promises 21932 points", "4983 present"}, []string{"o.las"}, outLAS},
		{"LAS cut after its header", []string{"convert", p["header.las"], out}, "", 1,
			[]string{"header.las: las: file cut short at byte offset", "header promises 21932 points", " 0 present"}, []string{"o.ply"}, out},
		{"LAS cut, from stdin", []string{"info", "-"}, p["cut.las"], 1,
			[]string{"standard input: las: file cut short at byte offset 100000", "4983 present"}, nil, ""},
		{"PLY cut", []string{"convert", p["cut.ply"], outLAS}, "", 1,
			[]string{"cut.ply: ply: file cut short at byte offset", "header promises 4 vertices, 2 present"}, []string{"o.las"}, outLAS},
		{"PCD cut", []string{"convert", p["cut.pcd"], outLAS}, "", 1,
			[]string{"cut.pcd: pcd: file cut short at byte offset", "header promises 4 points, 3 present"}, []string{"o.las"}, outLAS},
		{"STL cut", []string{"convert", p["cut.stl"], out}, "", 1,
			[]string{"cut.stl: stl: file cut short at byte offset 154: header promises 2 triangles", "1 present"}, []string{"o.ply"}, out},
		{"salvage a cut LAS", []string{"info", "--salvage", p["cut.las"]}, "", 0,
			[]string{"cut.las: warning: salvaged: las: file cut short", "4983 present"}, nil, ""},
		{"salvage a cut PLY", []string{"convert", "--salvage", p["cut.ply"], outLAS}, "", 0,
			[]string{"cut.ply: warning: salvaged: ply: file cut short", "2 present", "converted 2 points"}, nil, ""},
		{"salvage a cut PCD", []string{"convert", "--salvage", p["cut.pcd"], out}, "", 0,
			[]string{"cut.pcd: warning: salvaged: pcd: file cut short", "3 present", "converted 3 points"}, nil, ""},
		{"salvage a cut STL", []string{"info", "--salvage", p["cut.stl"]}, "", 0,
			[]string{"cut.stl: warning: salvaged: stl: file cut short", "1 present"}, nil, ""},
		// Coordinates missing, a field named twice.
		{"PLY without x y z", []string{"convert", p["noxyz.ply"], outLAS}, "", 1, []string{"noxyz.ply: ply: line 5: vertex element has no x, y property"}, nil, outLAS},
		{"PCD without x y z", []string{"convert", p["noxyz.pcd"], outLAS}, "", 1, []string{"noxyz.pcd: pcd: line 9: no x, y field"}, nil, outLAS},
		{"PCD field twice", []string{"convert", p["twice.pcd"], outLAS}, "", 1, []string{"twice.pcd: pcd: line 2: field x given twice"}, nil, outLAS},
		// STL from standard input, its parse errors on one line.
		{"binary STL from stdin", []string{"info", "-"}, p["ok.stl"], 0, nil, []string{"unknown"}, ""},
		{"ascii STL from stdin", []string{"info", "-"}, p["ok-ascii.stl"], 0, nil, []string{"unknown"}, ""},
		{"STL parse error", []string{"convert", p["bad.stl"], out}, "", 1, []string{"bad.stl: stl: line 4: Unable to parse float (and 1 more bad lines)\n"}, []string{"o.ply"}, out},
		// Usage errors exit 2.
		{"unknown method", []string{"denoise", "foo", p["good.las"], out}, "", 2, []string{`denoise: unknown method "foo" (want statistical, radius`}, []string{"help topic"}, out},
		{"no method", []string{"denoise"}, "", 2, []string{"denoise needs a method: statistical, radius"}, nil, ""},
		{"unknown backend", []string{"denoise", "radius", "--radius", "1", "--min-neighbors", "2", "--backend", "gpu", p["good.las"], out}, "", 2,
			[]string{`--backend: unknown backend "gpu"`}, nil, out},
		{"bench unknown backend", []string{"bench", "--backends", "cpu,foo", "--points", "10"}, "", 2, []string{`--backends: unknown backend "foo"`}, nil, ""},
		{"bench no runs", []string{"bench", "--repeat", "0", "--points", "10"}, "", 2, []string{"--repeat: want at least 1 run, got 0"}, nil, ""},
		{"no command", nil, "", 2, []string{"COMMANDS:", "pctk: no command given"}, nil, ""},
		// Outputs are checked before any work, and written as users expect.
		{"OUT folder missing", []string{"convert", p["good.las"], filepath.Join(dir, "nonexistent", "o.ply")}, "", 1,
			[]string{"nonexistent/o.ply: its folder", "nonexistent does not exist"}, []string{".check"}, ""},
		{"read-only OUT", []string{"convert", p["good.las"], p["readonly.ply"]}, "", 1,
			[]string{"readonly.ply: file is read-only", "--force replaces it"}, nil, p["readonly.ply"]},
	}
	runCLICases(t, tests)
}

// cliCase is a pctk run and what it must do: exit code, key words of
// its standard error (and words it must not hold), an OUT left as it was
// when the run fails.
type cliCase struct {
	name  string
	args  []string
	stdin string // a path piped to standard input
	code  int
	want  []string // in stderr
	not   []string // not in stderr
	out   string   // an OUT that must not change when code != 0
}

// runCLICases runs each case as a subtest: the exit code, the words of
// standard error, and, when the run fails, an OUT that existed before and
// every file named on the command line (IN) byte for byte the same, and no
// temporary file left beside OUT.
func runCLICases(t *testing.T, tests []cliCase) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before []byte
			if tc.out != "" {
				if _, err := os.Stat(tc.out); err != nil {
					if err := os.WriteFile(tc.out, []byte("precious OUT of "+tc.name), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				before, _ = os.ReadFile(tc.out)
			}
			named := map[string][]byte{}
			for _, a := range tc.args {
				if b, err := os.ReadFile(a); err == nil {
					named[a] = b
				}
			}
			cmd := pctkCmd(t, tc.args...)
			if tc.stdin != "" {
				f, err := os.Open(tc.stdin)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdin = f
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("pctk %v: exit %d, want %d\n%s", tc.args, code, tc.code, stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("pctk %v: stderr %q lacks %q", tc.args, stderr.String(), w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(stderr.String(), w) {
					t.Errorf("pctk %v: stderr %q holds %q", tc.args, stderr.String(), w)
				}
			}
			if tc.code != 0 && tc.out != "" {
				if after, err := os.ReadFile(tc.out); err != nil || !bytes.Equal(after, before) {
					t.Errorf("pctk %v failed and changed OUT %s: %q, want %q (%v)", tc.args, tc.out, after, before, err)
				}
				if ents, _ := filepath.Glob(filepath.Join(filepath.Dir(tc.out), ".*")); len(ents) != 0 {
					t.Errorf("pctk %v left %v behind", tc.args, ents)
				}
			}
			for a, b := range named {
				if after, err := os.ReadFile(a); tc.code != 0 && (err != nil || !bytes.Equal(after, b)) {
					t.Errorf("pctk %v failed and changed %s (%v)", tc.args, a, err)
				}
			}
			if tc.stdin != "" && tc.code == 0 && strings.HasSuffix(tc.stdin, ".stl") && !strings.Contains(stdout.String(), "format:     stl") {
				t.Errorf("pctk %v < %s printed %q, want format stl", tc.args, tc.stdin, stdout.String())
			}
		})
	}
}

// TestWriteThrough checks how OUT is replaced: a read-only OUT only with
// --force (keeping its mode), a symbolic link OUT by writing its target,
// the link kept.
func TestWriteThrough(t *testing.T) {
	dir := t.TempDir()
	p := hostile(t, dir)
	pctkRun(t, 0, "convert", "--force", p["good.las"], p["readonly.ply"])
	fi, err := os.Stat(p["readonly.ply"])
	if err != nil || fi.Mode().Perm() != 0o444 {
		t.Errorf("--force on a read-only OUT: %v, mode %v; want it replaced, still 0444", err, fi.Mode())
	}
	if n := readTestCloud(t, p["readonly.ply"]).Len(); n != 21932 {
		t.Errorf("--force wrote %d points, want 21932", n)
	}
	pctkRun(t, 0, "convert", p["good.las"], p["link.ply"])
	li, err := os.Lstat(p["link.ply"])
	if err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Errorf("OUT was a symbolic link; after the write it is %v (%v)", li.Mode(), err)
	}
	if n := readTestCloud(t, p["target.ply"]).Len(); n != 21932 {
		t.Errorf("the link's target holds %d points, want 21932", n)
	}
}

// TestHelpAndVersion checks that help reaches subcommands and what
// --version and version print.
func TestHelpAndVersion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"help", "denoise", "statistical"}, []string{"pctk denoise statistical - outliers by mean distance", "--std-ratio"}},
		{[]string{"-q", "help", "denoise"}, []string{"pctk denoise - find outliers", "statistical", "radius"}},
		{[]string{"--version"}, []string{"pctk ", "\ngo go1.", "\ncommit "}},
		{[]string{"version"}, []string{"pctk ", "\ngo go1.", "\ncommit "}},
	} {
		cmd := pctkCmd(t, tc.args...)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Run(); err != nil {
			t.Errorf("pctk %v: %v", tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("pctk %v printed %q, want %q in it", tc.args, stdout.String(), w)
			}
		}
	}
}

// TestInfoNumbers checks that info prints numbers as the shortest decimals
// that read back, never in scientific notation, and JSON keys in lower case.
func TestInfoNumbers(t *testing.T) {
	cmd := pctkCmd(t, "info", sample)
	text, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"points:     21932\n", "X [2230738.84, 2231104.52]", "Y [252070.78, 252410.1]", "Z [-1.316, 80.815]", "offset:              2000000 200000 -0\n"} {
		if !bytes.Contains(text, []byte(w)) {
			t.Errorf("info printed\n%s\nwant %q in it", text, w)
		}
	}
	if bytes.Contains(text, []byte("e+")) || bytes.Contains(text, []byte("99999")) {
		t.Errorf("info printed a number in scientific notation or not shortest:\n%s", text)
	}
	js, err := pctkCmd(t, "info", "--json", sample).Output()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(js, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		// Values may hold capitals; keys must not.
		for _, line := range strings.Split(string(js), "\n") {
			if k, _, ok := strings.Cut(strings.TrimSpace(line), `":`); ok && strings.ToLower(k) != k {
				t.Errorf("info --json key %s is not lower case", k)
			}
		}
	}
}
