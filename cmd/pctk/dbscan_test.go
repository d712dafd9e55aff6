package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/cloudtest"
	_ "github.com/pctk/pctk/io/ply"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/stage"
)

// dbscanFixture writes a PLY cloud of two groups on a line and one stray
// point, with an Intensity column that must survive, and returns its path.
// With eps 1.5 and min_pts 3: labels 0 0 0 0 1 1 1 -1, counts 1 2 2 1 1 2 1 0.
func dbscanFixture(t *testing.T, dir string) string {
	t.Helper()
	xs := []float64{0, 1, 2, 3, 10, 11, 12, 50}
	c := core.New(len(xs))
	inten, _ := c.AddAttr(core.DimIntensity, core.Uint16)
	for i, x := range xs {
		// UTM-sized coordinates: clustering must work on local offsets.
		c.X[i], c.Y[i], c.Z[i] = 500000+x, 4100000, 12
		inten.SetFloat64(i, float64(100+i))
	}
	c.Meta.Comments = []string{"made by dbscan_test"}
	path := filepath.Join(dir, "in.ply")
	writeTestCloud(t, path, c)
	return path
}

// writeTestCloud and readTestCloud write and read a test's files
// (internal/cloudtest).
var (
	writeTestCloud = cloudtest.Write
	readTestCloud  = cloudtest.Read
)

// intColumn returns attribute name of c as int64 values, failing when absent.
func intColumn(t *testing.T, c *core.Cloud, name string) []int64 {
	t.Helper()
	a := c.Attr(name)
	if a == nil {
		var names []string
		for _, b := range c.Attrs {
			names = append(names, b.Name)
		}
		t.Fatalf("no attribute %s (have %v)", name, names)
	}
	v := make([]int64, a.Len())
	for i := range v {
		v[i] = a.Int64(i)
	}
	return v
}

func readSummary(t *testing.T, path string) stage.DBSCANSummary {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s stage.DBSCANSummary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

func TestDBSCANCommand(t *testing.T) {
	dir := t.TempDir()
	in := dbscanFixture(t, dir)
	out := filepath.Join(dir, "out.ply")
	sum := filepath.Join(dir, "summary.json")
	pctkRun(t, 0, "dbscan", in, out, "--eps", "1.5", "--min-pts", "3", "--backend", "brute", "--summary", sum)
	c := readTestCloud(t, out)
	if got, want := intColumn(t, c, core.DimClusterID), []int64{0, 0, 0, 0, 1, 1, 1, -1}; !slices.Equal(got, want) {
		t.Errorf("ClusterID: got %v, want %v", got, want)
	}
	if got, want := intColumn(t, c, core.DimNeighborCount), []int64{1, 2, 2, 1, 1, 2, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("NeighborCount: got %v, want %v", got, want)
	}
	if got, want := intColumn(t, c, core.DimIntensity), []int64{100, 101, 102, 103, 104, 105, 106, 107}; !slices.Equal(got, want) {
		t.Errorf("Intensity: got %v, want %v (kept unchanged)", got, want)
	}
	if !slices.Contains(c.Meta.Comments, "made by dbscan_test") {
		t.Errorf("comments: got %q, want the input's comment kept", c.Meta.Comments)
	}
	s := readSummary(t, sum)
	if s.Points != 8 || s.Backend != "brute" || s.CountsReused || len(s.Results) != 1 {
		t.Fatalf("summary: got %+v", s)
	}
	if r := s.Results[0]; r.Clusters != 2 || r.Noise != 1 || r.Core != 3 || !slices.Equal(r.Largest, []int{4, 3}) || r.Attribute != core.DimClusterID {
		t.Errorf("summary result: got %+v, want 2 clusters of 4 and 3, 3 core, 1 noise, attribute ClusterID", r)
	}

	// A second run with the same eps on the output reuses its counts;
	// with another eps, other dims, or --recount, it counts again. A moved
	// point (same count) invalidates the record; --reuse-counts overrides
	// it, and then the stale counts give a stale answer: point 1 keeps its
	// core flag far from its old neighbours.
	moved := readTestCloud(t, out)
	moved.X[1] = 500000 + 40
	movedPath := filepath.Join(dir, "moved.ply")
	writeTestCloud(t, movedPath, moved)
	out2 := filepath.Join(dir, "out2.ply")
	for _, tt := range []struct {
		in     string
		args   []string
		reused bool
		labels []int64
	}{
		{out, []string{"--eps", "1.5", "--min-pts", "2"}, true, []int64{0, 0, 0, 0, 1, 1, 1, -1}},
		{out, []string{"--eps", "1.5", "--min-pts", "2", "--recount"}, false, []int64{0, 0, 0, 0, 1, 1, 1, -1}},
		{out, []string{"--eps", "1.5", "--min-pts", "2", "--dims", "xy"}, false, []int64{0, 0, 0, 0, 1, 1, 1, -1}},
		{out, []string{"--eps", "0.5", "--min-pts", "1"}, false, []int64{0, 1, 2, 3, 4, 5, 6, 7}},
		{movedPath, []string{"--eps", "1.5", "--min-pts", "3"}, false, []int64{-1, -1, -1, -1, 0, 0, 0, -1}},
		{movedPath, []string{"--eps", "1.5", "--min-pts", "3", "--reuse-counts"}, true, []int64{-1, 0, 1, 1, 2, 2, 2, -1}},
	} {
		args := append([]string{"pctk", "-q", "dbscan", tt.in, out2, "--backend", "brute", "--summary", sum}, tt.args...)
		if code := run(args); code != 0 {
			t.Fatalf("%q: exit %d", args, code)
		}
		if s := readSummary(t, sum); s.CountsReused != tt.reused {
			t.Errorf("%s %q: got counts reused %v, want %v", filepath.Base(tt.in), tt.args, s.CountsReused, tt.reused)
		}
		if got := intColumn(t, readTestCloud(t, out2), core.DimClusterID); !slices.Equal(got, tt.labels) {
			t.Errorf("%s %q: got labels %v, want %v", filepath.Base(tt.in), tt.args, got, tt.labels)
		}
	}
}

func TestDBSCANSeveralMinPts(t *testing.T) {
	dir := t.TempDir()
	in := dbscanFixture(t, dir)
	out := filepath.Join(dir, "out.ply")
	pctkRun(t, 0, "dbscan", in, out, "--eps", "1.5", "--min-pts", "2,3, 4", "--backend", "brute")
	c := readTestCloud(t, out)
	want := map[string][]int64{
		"ClusterID_2": {0, 0, 0, 0, 1, 1, 1, -1},
		"ClusterID_3": {0, 0, 0, 0, 1, 1, 1, -1},
		"ClusterID_4": {-1, -1, -1, -1, -1, -1, -1, -1},
	}
	for name, w := range want {
		if got := intColumn(t, c, name); !slices.Equal(got, w) {
			t.Errorf("%s: got %v, want %v", name, got, w)
		}
	}
	if c.Attr(core.DimClusterID) != nil {
		t.Error("several min_pts: got a plain ClusterID attribute too")
	}
}

func TestDBSCANNoiseHandling(t *testing.T) {
	dir := t.TempDir()
	in := dbscanFixture(t, dir)
	out := filepath.Join(dir, "out.ply")
	pctkRun(t, 0, "dbscan", in, out, "--eps", "1.5", "--min-pts", "3", "--classify-noise", "--backend", "brute")
	if got, want := intColumn(t, readTestCloud(t, out), core.DimClassification), []int64{0, 0, 0, 0, 0, 0, 0, 7}; !slices.Equal(got, want) {
		t.Errorf("--classify-noise: Classification got %v, want %v", got, want)
	}
	// --min-cluster-size 4 turns the group of 3 into noise too.
	pctkRun(t, 0, "dbscan", in, out, "--eps", "1.5", "--min-pts", "3", "--drop-noise", "--min-cluster-size", "4", "--backend", "brute")
	c := readTestCloud(t, out)
	if got, want := intColumn(t, c, core.DimIntensity), []int64{100, 101, 102, 103}; !slices.Equal(got, want) {
		t.Errorf("--drop-noise --min-cluster-size 4: kept points with Intensity %v, want %v", got, want)
	}
	for _, s := range c.Meta.Comments {
		if strings.HasPrefix(s, dbscan.CountsRecordPrefix) {
			t.Errorf("--drop-noise: output carries the counts record %q, but its counts describe the input", s)
		}
	}
}

func TestDBSCANGeoJSON(t *testing.T) {
	dir := t.TempDir()
	c := core.New(0)
	add := func(x, y float64) {
		c.X, c.Y, c.Z = append(c.X, x), append(c.Y, y), append(c.Z, 5)
	}
	// A filled 3x3 grid (hull: its square), a line of 3 points, a stray point.
	for i := range 9 {
		add(100+float64(i%3), 200+float64(i/3))
	}
	add(300, 300)
	add(301, 300)
	add(302, 300)
	add(900, 900)
	in := filepath.Join(dir, "in.ply")
	writeTestCloud(t, in, c)
	gj := filepath.Join(dir, "hulls.geojson")
	pctkRun(t, 0, "dbscan", in, filepath.Join(dir, "out.ply"), "--eps", "1.01", "--min-pts", "2", "--dims", "xy", "--geojson", gj, "--backend", "brute")
	data, err := os.ReadFile(gj)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Type     string
		Features []struct {
			Type     string
			BBox     []float64
			Geometry struct {
				Type        string
				Coordinates json.RawMessage
			}
			Properties map[string]float64
		}
	}
	if err := json.Unmarshal(data, &fc); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if fc.Type != "FeatureCollection" || len(fc.Features) != 2 {
		t.Fatalf("got %s with %d features, want a FeatureCollection of 2", fc.Type, len(fc.Features))
	}
	sq, ln := fc.Features[0], fc.Features[1]
	var ring [][][2]float64
	if err := json.Unmarshal(sq.Geometry.Coordinates, &ring); err != nil {
		t.Fatal(err)
	}
	wantRing := [][2]float64{{100, 200}, {102, 200}, {102, 202}, {100, 202}, {100, 200}}
	if sq.Geometry.Type != "Polygon" || len(ring) != 1 || !slices.Equal(ring[0], wantRing) {
		t.Errorf("cluster 0: got %s %v, want Polygon [%v]", sq.Geometry.Type, ring, wantRing)
	}
	if !slices.Equal(sq.BBox, []float64{100, 200, 102, 202}) || sq.Properties["size"] != 9 || sq.Properties["cluster"] != 0 || sq.Properties["z_min"] != 5 {
		t.Errorf("cluster 0: got bbox %v, properties %v", sq.BBox, sq.Properties)
	}
	var seg [][2]float64
	if err := json.Unmarshal(ln.Geometry.Coordinates, &seg); err != nil {
		t.Fatal(err)
	}
	if ln.Geometry.Type != "LineString" || !slices.Equal(seg, [][2]float64{{300, 300}, {302, 300}}) || ln.Properties["size"] != 3 {
		t.Errorf("cluster 1: got %s %v, properties %v; want LineString from (300,300) to (302,300), size 3", ln.Geometry.Type, seg, ln.Properties)
	}
}

func TestDBSCANUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := dbscanFixture(t, dir)
	out := filepath.Join(dir, "out.ply")
	nan := core.New(2)
	nan.X[1] = math.NaN()
	nanPath := filepath.Join(dir, "nan.ply")
	writeTestCloud(t, nanPath, nan)
	tests := []struct {
		args []string
		want int
	}{
		{[]string{in, out}, 2}, // --eps is required
		{[]string{in, out, "--eps", "0"}, 2},
		{[]string{in, out, "--eps", "1", "--min-pts", "0"}, 2},
		{[]string{in, out, "--eps", "1", "--min-pts", "5,x"}, 2},
		{[]string{in, out, "--eps", "1", "--min-pts", "5,5"}, 2},
		{[]string{in, out, "--eps", "1", "--dims", "xz"}, 2},
		{[]string{in, out, "--eps", "1", "--min-pts", "3,4", "--drop-noise"}, 2},
		{[]string{in, out, "--eps", "1", "--classify-noise", "--drop-noise"}, 2},
		{[]string{in, "-", "--eps", "1", "--json"}, 2},
		{[]string{in, out, "--eps", "1", "--reuse-counts"}, 2}, // no NeighborCount in the input
		{[]string{in, out, "--eps", "1", "--geographic"}, 1},   // Y = 4100000 is no latitude
		{[]string{nanPath, out, "--eps", "1"}, 1},
		{[]string{in, out, "--eps", "1", "--backend", "nosuch"}, 2}, // a backend no build has: usage (issue 15)
	}
	for _, tt := range tests {
		args := append([]string{"pctk", "-q", "dbscan"}, tt.args...)
		if got := run(args); got != tt.want {
			t.Errorf("%q: got exit %d, want %d", tt.args, got, tt.want)
		}
	}
}

// TestDBSCANCPUAndGPUBackendsAgree clusters one cloud on every backend this binary
// registers and can run (brute and cpu here; cuda and optix on the GPU test
// machine) and requires labels identical to the cpu backend's: the border
// rule makes the output independent of the backend. Points and ε lie on a
// power-of-two grid (ε = 600 steps), so every deciding squared distance is
// exact in any float32 arithmetic, fused multiply-adds included, and no pair
// is decided by rounding.
func TestDBSCANCPUAndGPUBackendsAgree(t *testing.T) {
	const step = 1.0 / 1024
	const eps = 600 * step
	r := rand.New(rand.NewPCG(11, 12))
	const n = 8_000
	xyz := make([]float32, 3*n)
	centres := make([]float64, 3*40)
	for i := range centres {
		centres[i] = r.Float64() * 30
	}
	for i := range n {
		c := r.IntN(40)
		for a := range 3 {
			xyz[3*i+a] = float32(math.Round((centres[3*c+a]+r.NormFloat64()*float64(1+c%4)*0.6)/step) * step)
		}
	}
	ref, err := findneighbor.Get("cpu")
	if err != nil {
		t.Skipf("no cpu backend to compare with: %v", err)
	}
	opts := dbscan.Options{Eps: eps, MinPts: []int{4, 12}}
	want, err := dbscan.Cluster(xyz, ref, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range findneighbor.Backends() {
		if b.Name() == ref.Name() {
			continue
		}
		if _, err := b.Probe(); err != nil {
			t.Logf("%s: not usable here (%v)", b.Name(), err)
			continue
		}
		got, err := dbscan.Cluster(xyz, b, opts)
		if err != nil {
			t.Errorf("%s: %v", b.Name(), err)
			continue
		}
		if !slices.Equal(got.Counts, want.Counts) {
			t.Errorf("%s: neighbour counts differ from cpu's", b.Name())
		}
		for k, r := range got.Results {
			w := want.Results[k]
			same := true
			for i := range r.Labels {
				if r.Labels[i] != w.Labels[i] || r.Core[i] != w.Core[i] {
					t.Errorf("%s, min_pts %d: point %d: got label %d core %v, cpu %d %v", b.Name(), r.MinPts, i, r.Labels[i], r.Core[i], w.Labels[i], w.Core[i])
					same = false
					break
				}
			}
			if same {
				t.Logf("%s, min_pts %d: %d clusters, %d noise, as cpu", b.Name(), r.MinPts, len(r.Sizes), r.NoiseCount)
			}
		}
	}
}

func TestDBSCANGeographic(t *testing.T) {
	// Two rows of points 10 m apart along a parallel at 60° N (where a
	// degree of longitude is about 55.8 km), the rows 100 m apart, plus a
	// point 30 m off: with eps 12 m, two clusters and one noise point. In
	// degrees, eps 12 would join everything.
	const lat, mPerDegLon = 60.0, 55_800.0
	c := core.New(0)
	for row := range 2 {
		for k := range 5 {
			c.X = append(c.X, 24.9+float64(row*100+k*10)/mPerDegLon)
			c.Y, c.Z = append(c.Y, lat), append(c.Z, 0)
		}
	}
	c.X, c.Y, c.Z = append(c.X, 24.9+(40+30)/mPerDegLon), append(c.Y, lat), append(c.Z, 0)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.ply"), filepath.Join(dir, "out.ply")
	writeTestCloud(t, in, c)
	pctkRun(t, 0, "dbscan", in, out, "--eps", "12", "--min-pts", "2", "--dims", "xy", "--geographic", "--backend", "brute")
	if got, want := intColumn(t, readTestCloud(t, out), core.DimClusterID), []int64{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, -1}; !slices.Equal(got, want) {
		t.Errorf("got labels %v, want %v", got, want)
	}
}
