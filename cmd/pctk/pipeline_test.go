package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/stage"
)

// pipelineSteps are three steps that each change the cloud: a point
// classification, new columns, normals.
var pipelineSteps = []string{"denoise statistical --k 8 --std-ratio 2 --convention pdal", "dbscan --eps 6 --min-pts 10 --geojson GEOJSON", "normals --knn 12"}

// shellPipeline runs steps as "pctk STEP in - | pctk STEP - - | ... out",
// child processes joined by pipes, as a shell would.
func shellPipeline(t *testing.T, in, out string, steps []string) {
	t.Helper()
	var stderr bytes.Buffer
	var prev *bytes.Buffer
	for i, s := range steps {
		words, err := stage.SplitWords(s)
		if err != nil {
			t.Fatal(err)
		}
		src, dst := "-", "-"
		if i == 0 {
			src = in
		}
		if i == len(steps)-1 {
			dst = out
		}
		cmd := pctkCmd(t, append(append([]string{"-q"}, words...), src, dst)...)
		if prev != nil {
			cmd.Stdin = prev
		}
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("pctk %s: %v\n%s", s, err, stderr.String())
		}
		prev = &stdout
	}
}

// TestPipelineMatchesShellPipes runs three steps as shell pipes, as pctk
// pipeline and as a JSON pipeline (pctk's and PDAL's stage names), on LAS
// and binary PLY, and wants the same bytes from all, side outputs included.
func TestPipelineMatchesShellPipes(t *testing.T) {
	dir := t.TempDir()
	ply := filepath.Join(dir, "in.ply")
	pctkRun(t, 0, "convert", sample, ply, "--format", "ply-binary")
	for _, in := range []string{sample, ply} {
		ext := filepath.Ext(in)
		t.Run(ext, func(t *testing.T) {
			path := func(name string) string { return filepath.Join(dir, strings.TrimPrefix(ext, ".")+"-"+name) }
			steps := func(tag string) []string {
				out := slices.Clone(pipelineSteps)
				out[1] = strings.Replace(out[1], "GEOJSON", path(tag+".geojson"), 1)
				return out
			}
			shellPipeline(t, in, path("shell"+ext), steps("shell"))
			pctkRun(t, 0, append(append([]string{"pipeline", in}, steps("args")...), path("args"+ext))...)
			pctkFile := path("p.json")
			writeText(t, pctkFile, `{"pipeline": ["`+in+`",
				{"type": "denoise statistical", "k": 8, "std-ratio": 2, "convention": "pdal"},
				{"type": "dbscan", "eps": 6, "min-pts": [10], "geojson": "`+path("json.geojson")+`"},
				{"type": "normals", "knn": 12},
				{"type": "writers.las", "filename": "`+path("json"+ext)+`"}]}`)
			pctkRun(t, 0, "pipeline", "--file", pctkFile)
			pdalFile := path("pdal.json")
			writeText(t, pdalFile, `[{"type": "readers.las", "filename": "`+in+`"},
				{"type": "filters.outlier", "method": "statistical", "mean_k": 8, "multiplier": 2},
				{"type": "pctk.dbscan", "eps": 6, "min-pts": 10, "geojson": "`+path("pdal.geojson")+`"},
				{"type": "filters.normal", "knn": 12},
				"`+path("pdal"+ext)+`"]`)
			pctkRun(t, 0, "pipeline", "--file", pdalFile)
			want := readBytes(t, path("shell"+ext))
			wantHulls := readBytes(t, path("shell.geojson"))
			for _, tag := range []string{"args", "json", "pdal"} {
				if !bytes.Equal(readBytes(t, path(tag+ext)), want) {
					t.Errorf("%s pipeline: OUT differs from the shell pipes'", tag)
				}
				if !bytes.Equal(readBytes(t, path(tag+".geojson")), wantHulls) {
					t.Errorf("%s pipeline: GeoJSON differs from the shell pipes'", tag)
				}
			}
		})
	}
}

func TestPipelineErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.las")
	bad := filepath.Join(dir, "bad.json")
	writeText(t, bad, `{"pipeline": ["a.las", {"type": "filters.dbscan", "nosuch": 1}, "b.las"]}`)
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"no step", []string{"pipeline", sample, out}, 2},
		{"unknown step", []string{"pipeline", sample, "frobnicate --x 1", out}, 2},
		{"not a filter", []string{"pipeline", sample, "convert", out}, 2},
		{"no method", []string{"pipeline", sample, "denoise --k 3", out}, 2},
		{"step with files", []string{"pipeline", sample, "normals --knn 8 a.las", out}, 2},
		{"bad flag", []string{"pipeline", sample, "normals --knn x", out}, 2},
		{"unterminated quote", []string{"pipeline", sample, "normals --viewpoint '1,2", out}, 2},
		{"unmapped PDAL option", []string{"pipeline", "--file", bad}, 2},
		{"step fails", []string{"pipeline", sample, "normals --knn 8 --orient viewpoint", out}, 2},
		{"out of core in a step", []string{"pipeline", sample, "dbscan --eps 6 --max-memory 64MiB", out}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := run(append([]string{"pctk", "-q"}, tc.args...)); got != tc.want {
				t.Errorf("exit %d, want %d", got, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("OUT written after a failure")
			}
		})
	}
}

func writeText(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
