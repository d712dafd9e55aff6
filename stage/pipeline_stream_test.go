package stage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/algos/synth"
	"github.com/pctk/pctk/internal/cloudtest"
	"github.com/pctk/pctk/internal/msg"
)

// TestPipelineStreamed checks pctk pipeline over a tile collection of LAZ
// files and on one file with --max-memory against the same steps' commands
// run one after another (each reading the last one's files), and the
// one file's with the pipeline in memory: byte for byte, with points dropped on the way, and nothing left in --tmpdir.
func TestPipelineStreamed(t *testing.T) {
	defer func(l msg.Level) { msg.Current = l }(msg.Current)
	msg.Current = msg.Quiet
	dir := t.TempDir()
	cloud, err := synth.Street(synth.Options{Points: 5000, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for i := range cloud.X {
		cloud.X[i] += 500000.125
		cloud.Y[i] += 5000000.25
	}
	whole := filepath.Join(dir, "street.laz")
	cloudtest.Write(t, whole, cloud)
	a, b := filepath.Join(dir, "a.laz"), filepath.Join(dir, "b.laz")
	cloudtest.Write(t, a, cloud.Select(seq(0, 2000)))
	cloudtest.Write(t, b, cloud.Select(seq(2000, cloud.Len())))
	steps := []string{"denoise statistical --k 8 --std-ratio 1.5 --mode remove", "nndistance --k 4", "lof --minpts 6"}
	var words [][]string
	for _, s := range steps {
		words = append(words, strings.Fields(s))
	}
	// The commands one after another.
	command := func(w []string, args ...string) {
		t.Helper()
		s, rest := Lookup(w)
		v := NewSettings(s.AllOptions())
		if _, err := v.ParseWords(rest); err != nil {
			t.Fatal(err)
		}
		if err := s.Run(v, args); err != nil {
			t.Fatalf("%v %v: %v", w, args, err)
		}
	}
	ins := []string{a, b}
	one := whole
	// The commands out of core, as the pipeline's steps ran before runs in
	// memory (runPipelineFused), which must give their bytes.
	fuseCollections = false
	defer func() { fuseCollections = true }()
	for i, w := range words {
		d := filepath.Join(dir, "chain", string(rune('0'+i))) + "/"
		command(w, append(ins, d)...)
		ins = []string{filepath.Join(d, "a.laz"), filepath.Join(d, "b.laz")}
		o := filepath.Join(dir, "chain", string(rune('0'+i))+".laz")
		command(append(w, "--max-memory", "64MiB"), one, o)
		one = o
	}
	fuseCollections = true
	tmp := t.TempDir()
	// In memory (the collection fits 1GiB: runPipelineFused), and step by
	// step (49.5MiB holds the steps' tiles, not the whole collection).
	for _, budget := range []string{"", "49.5MiB"} {
		extra := []string{"--tmpdir", tmp}
		if budget != "" {
			extra = append(extra, "--max-memory", budget)
		}
		out := filepath.Join(dir, "out"+budget) + "/"
		if fused := plansFused(t, pipelineSettings(t, "cpu", extra...), []string{a, b}, words, out); fused != (budget == "") {
			t.Fatalf("--max-memory %q: fused %v, want %v", budget, fused, budget == "")
		}
		if err := RunPipelineFiles(pipelineSettings(t, "cpu", extra...), []string{filepath.Join(dir, "[ab].laz")}, words, out); err != nil {
			t.Fatal(err)
		}
		for i, name := range []string{"a.laz", "b.laz"} {
			if !bytes.Equal(readBytes(t, filepath.Join(out, name)), readBytes(t, ins[i])) {
				t.Errorf("pipeline over a collection (--max-memory %q): %s differs from the commands run one after another", budget, name)
			}
		}
	}
	got := filepath.Join(dir, "one.laz")
	if err := RunPipeline(pipelineSettings(t, "cpu", "--tmpdir", tmp, "--max-memory", "64MiB"), whole, words, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readBytes(t, got), readBytes(t, one)) {
		t.Errorf("pipeline --max-memory differs from the commands run one after another")
	}
	mem := filepath.Join(dir, "memory.laz")
	if err := RunPipeline(pipelineSettings(t, "cpu"), whole, words, mem); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readBytes(t, got), readBytes(t, mem)) {
		t.Errorf("pipeline --max-memory differs from the pipeline in memory")
	}
	if n := cloudtest.Read(t, got).Len(); n == 0 || n >= cloud.Len() {
		t.Errorf("pipeline --max-memory kept %d of %d points: want some removed", n, cloud.Len())
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("--tmpdir holds %d entries after the runs, want none", len(left))
	}
}

// plansFused reports whether pctk pipeline runs words over the collection
// ins → out in memory (planFused).
func plansFused(t *testing.T, c Values, ins []string, words [][]string, out string) bool {
	t.Helper()
	var steps []pipelineStep
	for _, w := range words {
		s, err := parseStep(w, out)
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, pipelineStep{w, s})
	}
	var outs []string
	for _, in := range ins {
		outs = append(outs, filepath.Join(out, filepath.Base(in)))
	}
	p, err := planFused(c, ins, outs, steps)
	if err != nil {
		t.Fatal(err)
	}
	return p != nil
}

// TestPipelineFused checks pctk pipeline over tile collections that it
// runs in memory, or starts to and then runs step by step, against the
// steps' commands run one after another: PLY files (between steps in
// PLY), a step that moves points (hag --replace-z) before another, whose
// values would differ had the moved points not been rounded as the files
// between steps round them, and the same step last.
func TestPipelineFused(t *testing.T) {
	defer func(l msg.Level) { msg.Current = l }(msg.Current)
	msg.Current = msg.Quiet
	cloud, err := synth.Street(synth.Options{Points: 4000, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ext    string
		record bool // the files carry their own counts record
		steps  []string
		fused  bool // planFused: the run starts in memory
	}{
		{".ply", false, []string{"nndistance --k 3", "dbscan --eps 1 --min-pts 3"}, true},
		{".ply", true, []string{"nndistance --k 3", "dbscan --eps 1 --min-pts 3"}, false},
		{".ply", false, []string{"denoise statistical --k 6 --std-ratio 1.5", "voxel --cell 0.4 --mode centroid", "nndistance --k 3"}, true},
		{".las", false, []string{"ground smrf --ties grid --ignore 7", "hag --replace-z", "nndistance --k 3"}, true},
		{".las", false, []string{"ground smrf --ties grid --ignore 7", "nndistance --k 3", "hag --replace-z"}, true},
		{".xyz", false, []string{"nndistance --k 3", "nndistance --k 5"}, false},
	} {
		t.Run(fmt.Sprintf("%s-%s-record=%v", tc.ext, strings.Fields(tc.steps[len(tc.steps)-1])[0], tc.record), func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a"+tc.ext), filepath.Join(dir, "b"+tc.ext)
			cloudtest.Write(t, a, cloud.Select(seq(0, 1500)))
			cloudtest.Write(t, b, cloud.Select(seq(1500, cloud.Len())))
			if tc.record {
				// Each file's own counts record, as a one-file dbscan writes.
				s, rest := Lookup([]string{"dbscan", "--eps", "1", "--min-pts", "3"})
				v := NewSettings(s.AllOptions())
				if _, err := v.ParseWords(rest); err != nil {
					t.Fatal(err)
				}
				for _, f := range []string{a, b} {
					if err := s.Run(v, []string{f, f + ".tmp" + tc.ext}); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(f+".tmp"+tc.ext, f); err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(string(readBytes(t, f)), dbscan.CountsRecordPrefix) {
						t.Fatalf("%s holds no counts record", f)
					}
				}
			}
			var words [][]string
			ins := []string{a, b}
			for i, s := range tc.steps {
				w := strings.Fields(s)
				words = append(words, w)
				s, rest := Lookup(w)
				v := NewSettings(s.AllOptions())
				if _, err := v.ParseWords(rest); err != nil {
					t.Fatal(err)
				}
				d := filepath.Join(dir, "chain", string(rune('0'+i))) + "/"
				err := outOfCore(func() error { return s.Run(v, append(ins, d)) })
				if err != nil {
					t.Fatal(err)
				}
				ins = []string{filepath.Join(d, "a"+tc.ext), filepath.Join(d, "b"+tc.ext)}
			}
			out := filepath.Join(dir, "out") + "/"
			if fused := plansFused(t, pipelineSettings(t, "cpu"), []string{a, b}, words, out); fused != tc.fused {
				t.Fatalf("fused %v, want %v", fused, tc.fused)
			}
			if err := RunPipelineFiles(pipelineSettings(t, "cpu"), []string{a, b}, words, out); err != nil {
				t.Fatal(err)
			}
			for i, name := range []string{"a" + tc.ext, "b" + tc.ext} {
				got, want := readBytes(t, filepath.Join(out, name)), readBytes(t, ins[i])
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from the commands run one after another (%d bytes, want %d)", name, len(got), len(want))
				}
			}
		})
	}
}

// outOfCore runs fn with tile collections out of core (fuseCollections
// off): the runs the fused ones must equal.
func outOfCore(fn func() error) error {
	fuseCollections = false
	defer func() { fuseCollections = true }()
	return fn()
}
