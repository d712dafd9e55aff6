package stage

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	for i, w := range words {
		d := filepath.Join(dir, "chain", string(rune('0'+i))) + "/"
		command(w, append(ins, d)...)
		ins = []string{filepath.Join(d, "a.laz"), filepath.Join(d, "b.laz")}
		o := filepath.Join(dir, "chain", string(rune('0'+i))+".laz")
		command(append(w, "--max-memory", "64MiB"), one, o)
		one = o
	}
	tmp := t.TempDir()
	out := filepath.Join(dir, "out") + "/"
	if err := RunPipelineFiles(pipelineSettings(t, "cpu", "--tmpdir", tmp), []string{filepath.Join(dir, "[ab].laz")}, words, out); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"a.laz", "b.laz"} {
		if !bytes.Equal(readBytes(t, filepath.Join(out, name)), readBytes(t, ins[i])) {
			t.Errorf("pipeline over a collection: %s differs from the commands run one after another", name)
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
