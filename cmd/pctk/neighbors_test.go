package main

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	_ "github.com/pctk/pctk/io/ply"
)

// neighborsFixture is five points at UTM-sized coordinates: four 1 apart
// on a line, the fourth lifted 5 in Z, and a stray one at x+10.
func neighborsFixture() *core.Cloud {
	xs := []float64{0, 1, 2, 3, 10}
	zs := []float64{0, 0, 0, 5, 0}
	c := core.New(len(xs))
	inten, _ := c.AddAttr(core.DimIntensity, core.Uint16)
	for i := range xs {
		c.X[i], c.Y[i], c.Z[i] = 500000+xs[i], 4100000, 100+zs[i]
		inten.SetFloat64(i, float64(7*i))
	}
	return c
}

func TestNeighborsCommand(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ply")
	writeTestCloud(t, in, neighborsFixture())
	out := filepath.Join(dir, "out.ply")
	pctkRun(t, 0, "neighbors", in, out, "--radius", "1.5", "--knn", "2", "--backend", "cpu")
	c := readTestCloud(t, out)
	if got := intColumn(t, c, core.DimNeighborCount); !slices.Equal(got, []int64{1, 2, 1, 0, 0}) {
		t.Errorf("NeighborCount = %v, want [1 2 1 0 0]", got)
	}
	if a := c.Attr(core.DimNeighborCount); a.Type != core.Uint32 {
		t.Errorf("NeighborCount is %v, want uint32", a.Type)
	}
	if got := floatColumn(t, c, core.DimKnnMeanDistance); !slices.EqualFunc(got, []float32{1, 1, 1, float32(math.NaN()), float32(math.NaN())}, algotest.Near[float32](1e-6)) {
		t.Errorf("KnnMeanDistance = %v, want [1 1 1 NaN NaN]", got)
	}
	if got := intColumn(t, c, core.DimIntensity); !slices.Equal(got, []int64{0, 7, 14, 21, 28}) {
		t.Errorf("Intensity = %v, want it kept", got)
	}
	rec := dbscan.CountsRecord(c.X, c.Y, c.Z, 1.5, "xyz", false)
	if !slices.Contains(c.Meta.Comments, rec) {
		t.Errorf("comments %q lack the counts record %q that pctk dbscan reuses", c.Meta.Comments, rec)
	}
	// A second run replaces the columns and the record instead of adding.
	pctkRun(t, 0, "neighbours", out, out, "--in-place", "--radius", "1.5", "--dims", "xy")
	c = readTestCloud(t, out)
	if got := intColumn(t, c, core.DimNeighborCount); !slices.Equal(got, []int64{1, 2, 2, 1, 0}) {
		t.Errorf("xy NeighborCount = %v, want [1 2 2 1 0]", got)
	}
	recs := 0
	for _, s := range c.Meta.Comments {
		if strings.HasPrefix(s, dbscan.CountsRecordPrefix) {
			recs++
		}
	}
	if recs != 1 {
		t.Errorf("%d counts records, want 1: %q", recs, c.Meta.Comments)
	}
}

func TestNeighborsErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ply")
	c := neighborsFixture()
	writeTestCloud(t, in, c)
	bad := filepath.Join(dir, "nan.ply")
	c.Y[3] = math.NaN()
	writeTestCloud(t, bad, c)
	out := filepath.Join(dir, "out.ply")
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{in, out}, 2},
		{[]string{in, out, "--radius", "-1"}, 2},
		{[]string{in, out, "--knn", "-3"}, 2},
		{[]string{in, out, "--radius", "1", "--dims", "xz"}, 2},
		{[]string{in, out, "--radius", "1", "--backend", "nonesuch"}, 2}, // a backend no build has: usage (issue 15)
		{[]string{bad, out, "--radius", "1"}, 1},
	} {
		if code := run(append([]string{"pctk", "-q", "neighbors"}, tt.args...)); code != tt.code {
			t.Errorf("%q: exit %d, want %d", tt.args, code, tt.code)
		}
	}
}
