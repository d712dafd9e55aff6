package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pctk/pctk/core"
	_ "github.com/pctk/pctk/io/las"
	_ "github.com/pctk/pctk/io/pcd"
	"github.com/pctk/pctk/io/pcio"
	_ "github.com/pctk/pctk/io/ply"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// denoiseCloud writes a PLY of points on the x axis with an Intensity
// (the index) and, when cls is not nil, a Classification column.
func denoiseCloud(t *testing.T, xs []float64, cls []uint8) string {
	t.Helper()
	c := core.New(len(xs))
	copy(c.X, xs)
	in, _ := c.AddAttr(core.DimIntensity, core.Uint16)
	for i := range xs {
		in.SetFloat64(i, float64(i))
	}
	if cls != nil {
		a, _ := c.AddAttr(core.DimClassification, core.Uint8)
		copy(a.Data.([]uint8), cls)
	}
	path := filepath.Join(t.TempDir(), "in.ply")
	writeTestCloud(t, path, c)
	return path
}

// column returns attribute name of the cloud at path as float64s.
func column(t *testing.T, path, name string) []float64 {
	t.Helper()
	c := readTestCloud(t, path)
	a := c.Attr(name)
	if a == nil {
		t.Fatalf("%s: no attribute %s", path, name)
	}
	v := make([]float64, c.Len())
	for i := range v {
		v[i] = a.Float64(i)
	}
	return v
}

func TestDenoiseModes(t *testing.T) {
	// Radius 1, one other point needed: 10 and 10.5 are each other's only
	// neighbours; 30 has none. With class 7 ignored, 10.5 (class 7) takes
	// no part, so 10 loses its neighbour and becomes an outlier.
	xs := []float64{0, 1, 2, 10, 10.5, 30}
	cls := []uint8{1, 1, 1, 1, 7, 1}
	in := denoiseCloud(t, xs, cls)
	out := filepath.Join(t.TempDir(), "out.ply")
	radius := []string{"denoise", "radius", "--radius", "1", "--min-neighbors", "1", "--backend", "brute"}
	tests := []struct {
		name  string
		args  []string
		attr  string
		want  []float64
		notes string
	}{
		{"remove (default for PLY)", nil, core.DimIntensity, []float64{0, 1, 2, 3, 4}, "30 removed"},
		{"invert", []string{"--invert"}, core.DimIntensity, []float64{5}, "only 30 kept"},
		{"classify", []string{"--mode", "classify"}, core.DimClassification, []float64{1, 1, 1, 1, 7, 7}, "30 gets 7"},
		{"classify 18", []string{"--mode", "classify", "--class", "18"}, core.DimClassification, []float64{1, 1, 1, 1, 7, 18}, "30 gets 18"},
		{"flag", []string{"--mode", "flag"}, core.DimOutlier, []float64{0, 0, 0, 0, 0, 1}, ""},
		{"ignore 7", []string{"--mode", "flag", "--ignore-class", "7"}, core.DimOutlier, []float64{0, 0, 0, 1, 0, 1}, "10 loses 10.5"},
		{"ignore 7 remove", []string{"--ignore-class", "7,18"}, core.DimIntensity, []float64{0, 1, 2, 4}, "10.5 kept unchanged"},
		{"ignore 7 invert", []string{"--ignore-class", "7", "--invert"}, core.DimIntensity, []float64{3, 5}, "outliers alone"},
		{"count self", []string{"--count-self", "--min-neighbors", "2", "--mode", "flag"}, core.DimOutlier, []float64{0, 0, 0, 0, 0, 1}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Flags after the positional arguments, as users type them.
			pctkRun(t, 0, append(append(append([]string{}, radius...), in, out), tc.args...)...)
			if got := column(t, out, tc.attr); !slices.Equal(got, tc.want) {
				t.Errorf("%s: got %v, want %v (%s)", tc.attr, got, tc.want, tc.notes)
			}
		})
	}
}

func TestDenoiseStatisticalCLI(t *testing.T) {
	// K=1 means 1 1 1 1 7; sample std √7.2, threshold 4.88: 10 is the outlier.
	in := denoiseCloud(t, []float64{0, 1, 2, 3, 10}, nil)
	out := filepath.Join(t.TempDir(), "out.ply")
	pctkRun(t, 0, "denoise", "statistical", in, out, "--k", "1", "--std-ratio", "1", "--backend", "brute", "--mode", "flag")
	if got, want := column(t, out, core.DimOutlier), []float64{0, 0, 0, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("Outlier: got %v, want %v", got, want)
	}
	// Population std 2.4 and ratio 2 put the threshold at 7: PCL keeps the
	// point at the threshold, Open3D (K=2 there, means halved) drops it.
	pctkRun(t, 0, "denoise", "statistical", in, out, "-k", "1", "-s", "2", "--std", "population", "--backend", "brute", "--mode", "flag")
	if got, want := column(t, out, core.DimOutlier), []float64{0, 0, 0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("pcl at the threshold: got %v, want %v", got, want)
	}
	pctkRun(t, 0, "denoise", "statistical", in, out, "-k", "2", "-s", "2", "--std", "population", "--convention", "open3d", "--backend", "brute", "--mode", "flag")
	if got, want := column(t, out, core.DimOutlier), []float64{0, 0, 0, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("open3d at the threshold: got %v, want %v", got, want)
	}
}

func TestDenoiseUsage(t *testing.T) {
	in := denoiseCloud(t, []float64{0, 1, 2}, nil)
	out := filepath.Join(t.TempDir(), "out.ply")
	for _, args := range [][]string{
		{"denoise", "radius", in, out},                                           // --radius missing
		{"denoise", "radius", "-r", "0", in, out},                                // radius 0
		{"denoise", "radius", "-r", "1", "-m", "-1", in, out},                    // negative count
		{"denoise", "radius", "-r", "1", "--mode", "delete", in, out},            // unknown mode
		{"denoise", "radius", "-r", "1", "--mode", "flag", "--invert", in, out},  // invert outside remove
		{"denoise", "radius", "-r", "1", "--class", "256", in, out},              // class out of range
		{"denoise", "radius", "-r", "1", "--ignore-class", "7,x", in, out},       // bad class list
		{"denoise", "radius", "-r", "1", "--dims", "xz", in, out},                // bad dims
		{"denoise", "radius", "-r", "1", in},                                     // OUT missing
		{"denoise", "statistical", "--k", "0", in, out},                          // K 0
		{"denoise", "statistical", "--std", "median", in, out},                   // unknown std
		{"denoise", "statistical", "--convention", "sklearn", in, out},           // unknown convention
		{"denoise", "radius", "-r", "1", "--convention", "open3d", in, out},      // not a radius convention
		{"denoise", "radius", "--convention", "pdal", "--count-self", in, out},   // PDAL counts others
		{"denoise", "radius", "--convention", "pdal", "--invert", in, out},       // pdal classifies
		{"denoise", "statistical", "--convention", "pdal", "-s", "inf", in, out}, // infinite multiplier
		{"denoise", "statistical", "--nosuch", in, out},                          // unknown flag
	} {
		pctkRun(t, 2, args...)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a usage error wrote %s", out)
	}
}

// TestDenoiseTableScene runs the command on the real scan behind the
// reference figure: PCL keeps 451,410 of 460,400 points with mean_k 50 and
// std_dev_mul 1 (../shared/README.md).
func TestDenoiseTableScene(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 460,400 points")
	}
	src := "../../../shared/data/pcd/table_scene_lms400.pcd"
	if _, err := os.Stat(src); err != nil {
		t.Skipf("%s absent (the shared data folder is not part of a fresh clone)", src)
	}
	if _, _, err := pcio.Lookup("pcd"); err != nil {
		t.Skipf("no PCD codec registered in pctk (%v)", err)
	}
	if _, err := findneighbor.Get("cpu"); err != nil {
		t.Skipf("cpu backend unavailable (%v); brute force is too slow for 460,400 points", err)
	}
	out := filepath.Join(t.TempDir(), "out.pcd")
	pctkRun(t, 0, "denoise", "statistical", "--k", "50", "--std-ratio", "1", "--backend", "cpu", src, out)
	c := readTestCloud(t, out)
	if c.Len() != 451410 {
		t.Errorf("got %d points kept, want 451410 as PCL keeps", c.Len())
	}
}

// TestDenoiseLASClassifies checks that LAS input defaults to --mode
// classify: every point is written, outliers get class 7 and every other
// point keeps its class.
func TestDenoiseLASClassifies(t *testing.T) {
	in := "../../testdata/haystack_rock.las"
	dir := t.TempDir()
	classified, flagged := filepath.Join(dir, "classified.las"), filepath.Join(dir, "flagged.ply")
	args := []string{"denoise", "statistical", "--k", "8", "--std-ratio", "2", in}
	pctkRun(t, 0, append(args, classified)...)
	pctkRun(t, 0, append(args, flagged, "--mode", "flag")...)
	before := column(t, in, core.DimClassification)
	after := column(t, classified, core.DimClassification)
	outlier := column(t, flagged, core.DimOutlier)
	if len(after) != len(before) || len(outlier) != len(before) {
		t.Fatalf("got %d classified and %d flagged points, want %d", len(after), len(outlier), len(before))
	}
	n := 0
	for i := range before {
		want := before[i]
		if outlier[i] == 1 {
			want = 7
			n++
		}
		if after[i] != want {
			t.Fatalf("point %d: got class %g, want %g (outlier %g)", i, after[i], want, outlier[i])
		}
	}
	if n == 0 || n > len(before)/10 {
		t.Errorf("got %d outliers of %d points, want a few", n, len(before))
	}
	t.Logf("%d of %d points classified %d", n, len(before), 7)
}

// TestDenoiseDims checks --dims xy: two points 5 apart in Z only are
// isolated in 3D and neighbours in the XY plane.
func TestDenoiseDims(t *testing.T) {
	in := denoiseCloud(t, []float64{0, 0}, nil)
	c, f, err := pcio.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	c.Z[1] = 5
	if err := pcio.WriteFile(in, f, "", c); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.ply")
	for _, tc := range []struct {
		dims string
		want []float64
	}{{"xyz", []float64{1, 1}}, {"xy", []float64{0, 0}}} {
		pctkRun(t, 0, "denoise", "radius", "-r", "1", "-m", "1", "--mode", "flag", "--dims", tc.dims, "--backend", "brute", in, out)
		if got := column(t, out, core.DimOutlier); !slices.Equal(got, tc.want) {
			t.Errorf("--dims %s: got Outlier %v, want %v", tc.dims, got, tc.want)
		}
	}
}
