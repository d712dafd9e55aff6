package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/density"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// runnerFixture writes a PLY cloud of 8 points (dbscanFixture) and an OUT
// that already exists, and returns their paths and OUT's content.
func runnerFixture(t *testing.T) (dir, in, out string, old []byte) {
	t.Helper()
	dir = t.TempDir()
	in = dbscanFixture(t, dir)
	out = filepath.Join(dir, "out.ply")
	old = []byte("the previous OUT, which a failed run must leave alone\n")
	if err := os.WriteFile(out, old, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, in, out, old
}

// pctkExit runs pctk in a child process and returns its exit status and
// standard error.
func pctkExit(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := pctkCmd(t, args...)
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	}
	t.Fatalf("pctk %q: %v", args, err)
	return 0, ""
}

// TestFilterFailuresLeaveOUT holds every filter command to #15's rules: an
// output that cannot be written, or a parameter out of its limits, fails
// before any work with the right exit status (2 for usage), a message
// naming the flag or file at fault and no other flag, and OUT unchanged.
func TestFilterFailuresLeaveOUT(t *testing.T) {
	tests := []struct {
		name string
		args []string // IN and OUT are appended
		code int
		want []string // key words of the message
		not  []string // words it must not contain (other flags)
	}{
		{"summary in a missing folder", []string{"dbscan", "--eps", "1.5", "--summary", "/nonexistent/x.json"}, 1, []string{"/nonexistent/x.json"}, nil},
		{"geojson in a missing folder", []string{"dbscan", "--eps", "1.5", "--geojson", "/nonexistent/h.geojson"}, 1, []string{"/nonexistent/h.geojson"}, nil},
		{"normals summary in a missing folder", []string{"normals", "--knn", "3", "--summary", "/nonexistent/x.json"}, 1, []string{"/nonexistent/x.json"}, nil},
		{"dbscan eps Inf", []string{"dbscan", "--eps", "Inf"}, 2, []string{"--eps +Inf", "finite"}, []string{"radius", "min-pts"}},
		{"dbscan eps negative", []string{"dbscan", "--eps", "-1"}, 2, []string{"--eps -1"}, nil},
		{"dbscan min-pts 0", []string{"dbscan", "--eps", "1", "--min-pts", "0"}, 2, []string{"--min-pts 0", "≥ 1"}, []string{"eps"}},
		{"dbscan min-cluster-size", []string{"dbscan", "--eps", "1", "--min-cluster-size", "-1"}, 2, []string{"--min-cluster-size -1"}, nil},
		{"normals radius Inf", []string{"normals", "--radius", "Inf"}, 2, []string{"--radius +Inf", "finite"}, []string{"knn"}},
		{"normals knn 2", []string{"normals", "--knn", "2"}, 2, []string{"--knn 2", "≥ 3"}, []string{"radius"}},
		{"normals orient-knn 0", []string{"normals", "--knn", "5", "--orient", "consistent", "--orient-knn", "0"}, 2, []string{"--orient-knn 0"}, nil},
		{"summary is OUT", []string{"dbscan", "--eps", "1", "--summary", "$OUT"}, 2, []string{"same output file"}, nil},
		{"neighbors radius Inf", []string{"neighbors", "--radius", "Inf"}, 2, []string{"--radius +Inf"}, []string{"knn"}},
		{"neighbors knn negative", []string{"neighbors", "--knn", "-1"}, 2, []string{"--knn -1"}, []string{"radius"}},
		{"denoise radius Inf", []string{"denoise", "radius", "--radius", "Inf"}, 2, []string{"--radius +Inf"}, []string{"min-neighbors"}},
		{"denoise radius min-neighbors", []string{"denoise", "radius", "--radius", "1", "--min-neighbors", "-1"}, 2, []string{"--min-neighbors -1", "≥ 0"}, []string{"radius 1"}},
		{"denoise std-ratio 0", []string{"denoise", "statistical", "--std-ratio", "0"}, 2, []string{"--std-ratio 0", "> 0"}, []string{"--k"}},
		{"denoise std-ratio -1", []string{"denoise", "statistical", "--std-ratio", "-1"}, 2, []string{"--std-ratio -1", "> 0"}, []string{"--k"}},
		{"denoise k 0", []string{"denoise", "statistical", "--k", "0"}, 2, []string{"--k 0", "≥ 1"}, []string{"std-ratio"}},
		{"denoise unknown method", []string{"denoise", "foo"}, 2, []string{"unknown method", "foo"}, nil},
		{"density radius missing", []string{"density"}, 2, []string{"--radius 0", "finite"}, nil},
		{"density ignore-class", []string{"density", "--radius", "1", "--ignore-class", "300"}, 2, []string{"--ignore-class", "300"}, nil},
		{"tile-size negative", []string{"density", "--radius", "1", "--tile-size", "-2"}, 2, []string{"--tile-size -2"}, []string{"radius"}},
		{"tile-size Inf", []string{"dbscan", "--eps", "1", "--tile-size", "Inf"}, 2, []string{"--tile-size +Inf"}, []string{"eps"}},
		{"max-memory with drop-noise", []string{"dbscan", "--eps", "1", "--drop-noise", "--max-memory", "64MiB"}, 2, []string{"--max-memory", "memory only"}, nil},
		{"max-memory bad size", []string{"dbscan", "--eps", "1", "--max-memory", "lots"}, 2, []string{"--max-memory", "lots"}, nil},
		{"max-memory too small", []string{"dbscan", "--eps", "1", "--max-memory", "1MiB"}, 2, []string{"--max-memory", "too small"}, nil},
		{"max-memory in memory only", []string{"normals", "--knn", "8", "--keep-nan", "--max-memory", "64MiB"}, 2, []string{"--max-memory", "memory only"}, nil},
		{"tiled consistent orientation", []string{"normals", "--knn", "8", "--orient", "consistent", "--tile-size", "10"}, 2, []string{"--orient consistent", "--tile-size"}, nil},
	}
	for _, tt := range tests {
		_, in, out, old := runnerFixture(t)
		args := slices.Clone(tt.args)
		if i := slices.Index(args, "$OUT"); i >= 0 {
			args[i] = out
		}
		code, stderr := pctkExit(t, append(args, in, out)...)
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d (%s)", tt.name, code, tt.code, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: message %q lacks %q", tt.name, stderr, w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(stderr, w) {
				t.Errorf("%s: message %q names %q, not at fault", tt.name, stderr, w)
			}
		}
		if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, old) {
			t.Errorf("%s: OUT changed (%v)", tt.name, err)
		}
	}
}

// TestFilterJSONNeedsStdout checks that --json is refused when the cloud
// itself goes to stdout.
func TestFilterJSONNeedsStdout(t *testing.T) {
	_, in, _, _ := runnerFixture(t)
	for _, cmd := range [][]string{{"normals", "--knn", "3"}, {"dbscan", "--eps", "1"}, {"density", "--radius", "1"}} {
		code, stderr := pctkExit(t, append(cmd, "--json", in, "-")...)
		if code != 2 || !strings.Contains(stderr, "--json") {
			t.Errorf("%s --json with OUT -: exit %d, %q; want 2 naming --json", cmd[0], code, stderr)
		}
	}
}

// TestNormalsKeepNaNAllNaN: a cloud of NaN points alone gets NaN normals
// with --keep-nan instead of failing (#15).
func TestNormalsKeepNaNAllNaN(t *testing.T) {
	dir := t.TempDir()
	c := core.New(4)
	for i := range 4 {
		c.X[i], c.Y[i], c.Z[i] = math.NaN(), math.NaN(), math.NaN()
	}
	in, out := filepath.Join(dir, "nan.pcd"), filepath.Join(dir, "out.pcd")
	writeTestCloud(t, in, c)
	pctkRun(t, 0, "normals", in, out, "--knn", "3", "--keep-nan")
	got := readTestCloud(t, out)
	for _, name := range []string{core.DimNormalX, core.DimNormalY, core.DimNormalZ, core.DimCurvature} {
		for i, v := range floatColumn(t, got, name) {
			if !math.IsNaN(float64(v)) {
				t.Errorf("%s[%d] = %v, want NaN", name, i, v)
			}
		}
	}
	if code, stderr := pctkExit(t, "normals", in, out, "--knn", "3"); code != 1 || !strings.Contains(stderr, "--keep-nan") {
		t.Errorf("all-NaN cloud without --keep-nan: exit %d, %q; want 1 suggesting --keep-nan", code, stderr)
	}
}

// TestKLargerThanCloudWarns: a neighbourhood size beyond the cloud is used
// as PCL and Open3D use it (every point), with a warning naming the flag.
func TestKLargerThanCloudWarns(t *testing.T) {
	_, in, out, _ := runnerFixture(t)
	for _, args := range [][]string{
		{"normals", "--knn", "50"},
		{"neighbors", "--knn", "50"},
		{"denoise", "statistical", "--k", "50"},
	} {
		code, stderr := pctkExit(t, append(args, in, out)...)
		flag := args[len(args)-2]
		if code != 0 || !strings.Contains(stderr, "warning: "+flag+" 50 exceeds the") {
			t.Errorf("%q on 8 points: exit %d, %q; want 0 and a warning naming %s", args, code, stderr, flag)
		}
	}
}

// TestSummaryCosmetics: no "largest ;" with 0 clusters, no "1 points", no
// counts in scientific notation.
func TestSummaryCosmetics(t *testing.T) {
	_, in, out, _ := runnerFixture(t)
	_, stderr := pctkExit(t, "dbscan", in, out, "--eps", "0.1", "--min-pts", "2")
	if !strings.Contains(stderr, "0 clusters; 0 core, 8 noise points") || strings.Contains(stderr, "largest ;") {
		t.Errorf("dbscan with 0 clusters: %q", stderr)
	}
	_, stderr = pctkExit(t, "dbscan", in, out, "--eps", "1.5", "--min-pts", "3")
	if !strings.Contains(stderr, "1 noise point ") {
		t.Errorf("dbscan with 1 noise point: %q", stderr)
	}
}

// TestDensityCommand checks pctk density against density.Radial on the
// same local coordinates, and --ignore-class: ignored points get NaN and
// count for no one.
func TestDensityCommand(t *testing.T) {
	dir := t.TempDir()
	c := neighborsFixture()
	cls, _ := c.AddAttr(core.DimClassification, core.Uint8)
	cls.SetFloat64(1, 7)
	in, out := filepath.Join(dir, "in.ply"), filepath.Join(dir, "out.ply")
	writeTestCloud(t, in, c)
	pctkRun(t, 0, "density", in, out, "--radius", "1.5", "--backend", "cpu")
	want, err := density.Radial(c.Local(false).XYZ, findneighbor.Brute(), density.RadialOptions{Radius: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	got := readTestCloud(t, out)
	if a := got.Attr(core.DimRadialDensity); a == nil || a.Type != core.Float64 || !slices.Equal(a.Data.([]float64), want) {
		t.Fatalf("RadialDensity = %v, want float64 %v", a, want)
	}
	pctkRun(t, 0, "density", in, out, "--radius", "1.5", "--ignore-class", "7")
	d := readTestCloud(t, out).Attr(core.DimRadialDensity).Data.([]float64)
	f := 1 / (4.0 / 3.0 * density.PDALPi * (1.5 * 1.5 * 1.5))
	// Without point 1, points 0 and 2 (2 apart) are alone in their spheres.
	if !math.IsNaN(d[1]) || math.Abs(d[0]-f) > 1e-12*f || math.Abs(d[2]-f) > 1e-12*f {
		t.Errorf("with point 1 ignored: RadialDensity %v, want [%g NaN %g ...]", d, f, f)
	}
}

// TestNormalsKeepNaNAndIgnoreClass: the points --keep-nan leaves out
// (non-finite) and those --ignore-class leaves out both get NaN normals;
// the others get the normals of the plane they lie on, computed without
// the ignored point (which lies off the plane).
func TestNormalsKeepNaNAndIgnoreClass(t *testing.T) {
	dir := t.TempDir()
	c := core.New(12)
	cls, _ := c.AddAttr(core.DimClassification, core.Uint8)
	for i := range 10 {
		c.X[i], c.Y[i] = float64(i%4), float64(i/4)
	}
	c.X[10], c.Y[10], c.Z[10] = math.NaN(), 0, 0
	c.X[11], c.Y[11], c.Z[11] = 1.5, 0.5, 3 // off the plane z = 0
	cls.SetFloat64(11, 18)
	in, out := filepath.Join(dir, "in.ply"), filepath.Join(dir, "out.ply")
	writeTestCloud(t, in, c)
	pctkRun(t, 0, "normals", in, out, "--knn", "4", "--keep-nan", "--ignore-class", "18")
	nz := floatColumn(t, readTestCloud(t, out), core.DimNormalZ)
	for i, v := range nz {
		switch {
		case i >= 10 && !math.IsNaN(float64(v)):
			t.Errorf("point %d (left out): NormalZ %v, want NaN", i, v)
		case i < 10 && math.Abs(float64(v)-1) > 1e-6:
			t.Errorf("point %d: NormalZ %v, want 1 (the plane z = 0, oriented up)", i, v)
		}
	}
}

// TestDBSCANIgnoreClass: ground points (class 2) that bridge two groups
// are left out with --ignore-class 2, so the groups are two clusters; the
// ground gets ClusterID -1 but is neither noise (kept by --drop-noise) nor
// in a hull, and the counts carry no reuse record.
func TestDBSCANIgnoreClass(t *testing.T) {
	dir := t.TempDir()
	xs := []float64{0, 1, 2, 3, 4, 5, 6, 50}
	c := core.New(len(xs))
	cls, _ := c.AddAttr(core.DimClassification, core.Uint8)
	for i, x := range xs {
		c.X[i], c.Y[i], c.Z[i] = 500000+x, 4100000, 12
	}
	cls.SetFloat64(3, 2) // the bridge at x = 3
	in, out, hulls := filepath.Join(dir, "in.ply"), filepath.Join(dir, "out.ply"), filepath.Join(dir, "h.geojson")
	writeTestCloud(t, in, c)
	pctkRun(t, 0, "dbscan", in, out, "--eps", "1.5", "--min-pts", "2", "--ignore-class", "2", "--drop-noise", "--geojson", hulls)
	got := readTestCloud(t, out)
	if ids, want := intColumn(t, got, core.DimClusterID), []int64{0, 0, 0, -1, 1, 1, 1}; !slices.Equal(ids, want) {
		t.Errorf("ClusterID = %v, want %v (x = 50 dropped as noise, the bridge kept)", ids, want)
	}
	for _, s := range got.Meta.Comments {
		if strings.HasPrefix(s, "pctk dbscan NeighborCount:") {
			t.Errorf("counts of a subset carry a reuse record: %q", s)
		}
	}
	data, err := os.ReadFile(hulls)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(data); strings.Count(s, `"Feature"`) != 2 || strings.Contains(s, "500003,") {
		t.Errorf("hulls: want 2 features without the ignored point at x = 500003: %s", s)
	}
}
