package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/scratch"
)

// TestMain lets tests run the real pctk binary (this test binary) as a
// child process, for pipelines through stdin and stdout.
func TestMain(m *testing.M) {
	if os.Getenv("PCTK_TEST_MAIN") == "1" {
		scratch.HandleSignals()
		poolForTests()
		leftoverBatchForTests()
		args := os.Args[1:]
		if len(args) == 0 || args[0] != "pctk" {
			// Run as the pctk executable itself (bench --pdal's children).
			args = append([]string{"pctk"}, args...)
		}
		scratch.Exit(run(args))
	}
	os.Exit(m.Run())
}

// pctkCmd returns a command that runs pctk with args in a child process.
func pctkCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"pctk"}, args...)...)
	cmd.Env = append(os.Environ(), "PCTK_TEST_MAIN=1")
	return cmd
}

// pctkRun runs pctk with args and fails unless it exits with want.
func pctkRun(t *testing.T, want int, args ...string) {
	t.Helper()
	if got := run(append([]string{"pctk", "-q"}, args...)); got != want {
		t.Fatalf("pctk %v: got exit status %d, want %d", args, got, want)
	}
}

const sample = "../../testdata/haystack_rock.las"

// sameCloud fails the test unless a and b hold the same coordinates and
// the same attributes (name, type and raw bits) in the same order.
func sameCloud(t *testing.T, what string, a, b *core.Cloud) {
	t.Helper()
	if a.Len() != b.Len() {
		t.Fatalf("%s: %d points, want %d", what, b.Len(), a.Len())
	}
	for i := range a.X {
		if a.X[i] != b.X[i] || a.Y[i] != b.Y[i] || a.Z[i] != b.Z[i] {
			t.Fatalf("%s: point %d is (%v %v %v), want (%v %v %v)", what, i, b.X[i], b.Y[i], b.Z[i], a.X[i], a.Y[i], a.Z[i])
		}
	}
	if len(a.Attrs) != len(b.Attrs) {
		t.Fatalf("%s: %d attributes, want %d", what, len(b.Attrs), len(a.Attrs))
	}
	for k, x := range a.Attrs {
		y := b.Attrs[k]
		if x.Name != y.Name || x.Type != y.Type {
			t.Fatalf("%s: attribute %d is %s %v, want %s %v", what, k, y.Name, y.Type, x.Name, x.Type)
		}
		for i := range x.Len() {
			if x.Uint64(i) != y.Uint64(i) {
				t.Fatalf("%s: %s[%d] = %v, want %v", what, x.Name, i, y.Float64(i), x.Float64(i))
			}
		}
	}
}

func TestConvertRoundTripKeepsEveryField(t *testing.T) {
	orig := readTestCloud(t, sample)
	dir := t.TempDir()
	steps := []struct{ in, out, format string }{
		{sample, filepath.Join(dir, "a.ply"), ""},
		{filepath.Join(dir, "a.ply"), filepath.Join(dir, "b.ply"), "ply-ascii"},
		{filepath.Join(dir, "b.ply"), filepath.Join(dir, "c.ply"), "ply-binary-be"},
		{filepath.Join(dir, "c.ply"), filepath.Join(dir, "d.pcd"), "pcd-compressed"},
		{filepath.Join(dir, "d.pcd"), filepath.Join(dir, "e.pcd"), "pcd-ascii"},
		{filepath.Join(dir, "e.pcd"), filepath.Join(dir, "f.las"), ""},
	}
	for _, s := range steps {
		args := []string{"pctk", "-q", "convert", s.in, s.out}
		if s.format != "" {
			args = append(args, "--format", s.format)
		}
		if rc := run(args); rc != 0 {
			t.Fatalf("pctk convert %s %s --format %q: exit %d", s.in, s.out, s.format, rc)
		}
		got := readTestCloud(t, s.out)
		sameCloud(t, s.out, orig, got)
		if got.Meta.CRS.EPSG != 3645 || !slices.Equal(got.Meta.CRS.GeoKeys, orig.Meta.CRS.GeoKeys) {
			t.Errorf("%s: CRS %+v, want %+v", s.out, got.Meta.CRS, orig.Meta.CRS)
		}
	}
}

func TestPipelineThroughStdio(t *testing.T) {
	// pctk convert sample - --format ply | pctk info --json -
	conv := pctkCmd(t, "-q", "convert", sample, "-", "--format", "ply-binary")
	info := pctkCmd(t, "info", "--json", "-")
	pipe, err := conv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	info.Stdin = pipe
	// One buffer each: the two processes' stderr are copied concurrently.
	var out, stderr, convErr bytes.Buffer
	info.Stdout, info.Stderr, conv.Stderr = &out, &stderr, &convErr
	if err := info.Start(); err != nil {
		t.Fatal(err)
	}
	if err := conv.Run(); err != nil {
		t.Fatalf("convert: %v\n%s", err, convErr.String())
	}
	if err := info.Wait(); err != nil {
		t.Fatalf("info: %v\n%s", err, stderr.String())
	}
	var r infoReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("info --json output: %v\n%s", err, out.String())
	}
	if r.Format != "ply" || r.Points != 21932 || r.Bounds == nil || r.Bounds.Max[2] != 80.815 {
		t.Errorf("info of piped PLY: format %q, %d points, bounds %+v; want ply, 21932, max Z 80.815", r.Format, r.Points, r.Bounds)
	}
}

func TestConvertErrorsLeaveNoFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ply")
	if err := os.WriteFile(bad, []byte("ply\nformat binary_little_endian 1.0\nelement vertex 1000\nproperty float x\nproperty float y\nproperty float z\nend_header\n\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.las")
	cmd := pctkCmd(t, "convert", bad, out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("convert of a truncated PLY: %v, want exit status 1", err)
	}
	if !bytes.Contains(stderr.Bytes(), []byte(bad)) {
		t.Errorf("error %q does not name the file %s", stderr.String(), bad)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("failed convert left files behind: %d entries in %s", len(ents), dir)
	}
	if err := pctkCmd(t, "convert", bad, filepath.Join(dir, "x.unknownext")).Run(); err == nil {
		t.Error("convert to an unknown extension succeeded")
	}
}

func TestConvertSampleSTL(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "tri.stl")
	// Two triangles forming the unit square in the plane z = 2.
	const mesh = `solid sq
facet normal 0 0 1
 outer loop
  vertex 0 0 2
  vertex 1 0 2
  vertex 1 1 2
 endloop
endfacet
facet normal 0 0 1
 outer loop
  vertex 0 0 2
  vertex 1 1 2
  vertex 0 1 2
 endloop
endfacet
endsolid sq
`
	if err := os.WriteFile(in, []byte(mesh), 0o644); err != nil {
		t.Fatal(err)
	}
	verts := filepath.Join(dir, "v.ply")
	pctkRun(t, 0, "convert", in, verts)
	v := readTestCloud(t, verts)
	if v.Len() != 4 {
		t.Errorf("STL vertices: %d points, want 4 distinct", v.Len())
	}
	out := filepath.Join(dir, "s.ply")
	pctkRun(t, 0, "convert", in, out, "--sample", "2000", "--seed", "7")
	s := readTestCloud(t, out)
	if s.Len() != 2000 {
		t.Fatalf("--sample 2000 gave %d points", s.Len())
	}
	left := 0
	for i := range s.X {
		if s.Z[i] != 2 || s.X[i] < 0 || s.X[i] > 1 || s.Y[i] < 0 || s.Y[i] > 1 {
			t.Fatalf("sample %d (%v, %v, %v) is off the square", i, s.X[i], s.Y[i], s.Z[i])
		}
		if s.X[i] < 0.5 {
			left++
		}
	}
	// Uniform over the area: about half the samples left of x = 0.5
	// (binomial sd ≈ 22 for 2000 draws; 150 is ~7 sd).
	if left < 850 || left > 1150 {
		t.Errorf("%d of 2000 samples have x < 0.5; uniform sampling gives about 1000", left)
	}
	if rc := run([]string{"pctk", "-q", "convert", verts, out, "--sample", "10"}); rc != 2 {
		t.Errorf("--sample on PLY input: exit %d, want 2", rc)
	}
}

func TestSalvageReachesTheUser(t *testing.T) {
	// A LAS file cut short: an error naming the file and the counts, unless
	// --salvage, which converts the points there are and says so.
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.las")
	if err := os.WriteFile(cut, data[:100000], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"o.ply", "o.las"} {
		for _, salvage := range []bool{false, true} {
			args := []string{"convert", cut, filepath.Join(dir, out)}
			if salvage {
				args = append(args, "--salvage")
			}
			cmd := pctkCmd(t, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if (err == nil) != salvage {
				t.Fatalf("pctk %v: %v\n%s", args, err, stderr.String())
			}
			want := "cut.las: las: file cut short at byte offset 100000: header promises 21932 points (number of point records, byte offset 107), 4983 present"
			if salvage {
				want = "cut.las: warning: salvaged: las: file cut short"
				if n := readTestCloud(t, filepath.Join(dir, out)).Len(); n != 4983 {
					t.Errorf("pctk %v wrote %d points, want the 4983 present", args, n)
				}
			}
			if !bytes.Contains(stderr.Bytes(), []byte(want)) {
				t.Errorf("pctk %v printed %q, want %q", args, stderr.String(), want)
			}
		}
	}
}

// TestConvertCollection converts two files into a folder (the tile
// collection form): each output equals the file's own convert, and a
// glob with a file-named OUT still merges.
func TestConvertCollection(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.las"), filepath.Join(dir, "b.las")
	pctkRun(t, 0, "head", sample, a, "--count", "700")
	pctkRun(t, 0, "convert", sample, b)
	pctkRun(t, 0, "convert", filepath.Join(dir, "*.las"), filepath.Join(dir, "ply")+"/", "--format", "ply")
	for _, in := range []string{a, b} {
		want := filepath.Join(dir, "want.ply")
		pctkRun(t, 0, "convert", in, want)
		name := strings.TrimSuffix(filepath.Base(in), ".las") + ".ply"
		if got, w := readBytes(t, filepath.Join(dir, "ply", name)), readBytes(t, want); !bytes.Equal(got, w) {
			t.Errorf("%s converted into a folder differs from its own convert", name)
		}
	}
	merged := filepath.Join(dir, "merged.las")
	pctkRun(t, 0, "convert", filepath.Join(dir, "?.las"), merged)
	if n := readTestCloud(t, merged).Len(); n != 700+readTestCloud(t, sample).Len() {
		t.Errorf("merged %d points, want %d", n, 700+readTestCloud(t, sample).Len())
	}
}
