package algotest

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/internal/knn"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"

	_ "github.com/pctk/pctk/io/las" // reads what PDAL writes
)

// PDALFilter runs PDAL (internal/peers) on the LAS file in: readers.las,
// then stages, then writers.las with every extra dimension, in a folder of
// t's. It returns the cloud PDAL wrote, read back with io/las, and the
// pipeline's wall time. It skips t (fails it under CI=true) when PDAL
// cannot run here.
func PDALFilter(t testing.TB, in string, stages ...map[string]any) (*core.Cloud, time.Duration) {
	t.Helper()
	if _, err := os.Stat(in); err != nil {
		t.Skipf("%s absent (the shared data folder is not part of a fresh clone): %v", in, err)
	}
	_, err := peers.PDALRun()
	RequirePeer(t, "PDAL 2.9.2 (../shared/anchors/pdal, runtime .ci/deps/pdal.sh)", err)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.las")
	pipe := []any{in}
	for _, s := range stages {
		pipe = append(pipe, s)
	}
	pipe = append(pipe, map[string]any{"type": "writers.las", "filename": out, "extra_dims": "all", "minor_version": 4})
	start := time.Now()
	run, err := peers.PDALPipeline(dir, pipe...)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("PDAL: %v\n%s", err, run.Output)
	}
	c, _, err := pcio.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return c, took
}

// SharedFile returns the path of rel in the shared data folder, found as
// the PDAL build is (internal/peers.PDALRun): SharedData, else shared/data
// beside the nearest folder above the current one that has it (a git
// worktree's checkout lies deeper than ../shared). It skips t when there
// is none.
func SharedFile(t testing.TB, rel string) string {
	t.Helper()
	if p := filepath.Join(SharedData, rel); fileExists(p) {
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if p := filepath.Join(dir, "shared", "data", rel); fileExists(p) {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Skipf("shared/data/%s absent (the shared data folder is not part of a fresh clone)", rel)
		}
		dir = up
	}
}

// ReadLocal reads the file at path and returns its points' float32 local
// coordinates (core.Cloud.Local) and the float64 coordinates relative to
// the same origin, what a stage's Pos option takes.
func ReadLocal(t testing.TB, path string) (xyz []float32, pos []float64) {
	t.Helper()
	c, _, err := pcio.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l := c.Local(false)
	pos = make([]float64, 3*c.Len())
	for i := range c.Len() {
		pos[3*i], pos[3*i+1], pos[3*i+2] = c.X[i]-l.Origin[0], c.Y[i]-l.Origin[1], c.Z[i]-l.Origin[2]
	}
	return l.XYZ, pos
}

// Column returns the attribute name of c as float64, failing t when c has
// none.
func Column(t testing.TB, c *core.Cloud, name string) []float64 {
	t.Helper()
	a := c.Attr(name)
	if a == nil {
		t.Fatalf("PDAL's output has no %s", name)
	}
	v := make([]float64, a.Len())
	for i := range v {
		v[i] = a.Float64(i)
	}
	return v
}

// NearTies flags the points whose k nearest other points are not sure to
// be the same in PDAL's float64 kd-tree as in pctk's float32 search: the
// (k+1)-th nearest lies within 1e-6 of the k-th in float64 distance
// (pos), relative to that distance plus the point's largest coordinate
// (the float32 coordinates' rounding, about 6e-8 of it, may reorder
// them), exact ties included (nanoflann orders them its own way, pctk by
// the smaller index). hops > 0 spreads each flag to the points
// that have a flagged point among their k nearest, hops times: a stage
// whose output reads its neighbours' neighbourhoods is tie-affected there.
func NearTies(t testing.TB, xyz []float32, pos []float64, k, hops int) []bool {
	t.Helper()
	n := len(xyz) / 3
	tab, err := knn.Find("ties", xyz, findneighbor.CPU(), k+1, findneighbor.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flag := make([]bool, n)
	if tab.K <= k {
		return flag
	}
	for p := range n {
		idx, _ := tab.Of(p)
		d := make([]float64, len(idx))
		for j, o := range idx {
			d[j] = knn.Dist(pos, int32(p), o)
		}
		last := d[k]
		d = d[:k]
		kth := slices.Max(d)
		c := max(math.Abs(pos[3*p]), math.Abs(pos[3*p+1]), math.Abs(pos[3*p+2]))
		flag[p] = last-kth <= 1e-6*(last+c)
	}
	for range hops {
		next := slices.Clone(flag)
		for p := range n {
			idx, _ := tab.Of(p)
			for _, o := range idx[:k] {
				next[p] = next[p] || flag[o]
			}
		}
		flag = next
	}
	return flag
}

// ComparePDAL compares a column pctk computed (got) with PDAL's (want)
// within tol relative (Rel), excusing points that ties flags (NearTies;
// nil: none). It fails t at any other difference and returns the number
// of values compared, of differences and of those excused.
func ComparePDAL(t testing.TB, what string, got, want []float64, ties []bool, tol float64) (n, differ, excused int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, PDAL %d", what, len(got), len(want))
	}
	eq := Rel(tol)
	for i := range got {
		if eq(got[i], want[i]) {
			continue
		}
		differ++
		if ties != nil && ties[i] {
			excused++
			continue
		}
		if differ-excused <= 3 {
			t.Errorf("%s: point %d is %v, PDAL %v", what, i, got[i], want[i])
		}
	}
	if differ-excused > 3 {
		t.Errorf("%s: %d values differ from PDAL's, and not for ties", what, differ-excused)
	}
	return len(got), differ, excused
}
