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

// Local is a scan as the stages take it: float32 local coordinates
// (core.Cloud.Local), the float64 ones relative to the same origin (the
// stages' Pos option) and the origin (their Origin option).
type Local struct {
	XYZ    []float32
	Pos    []float64
	Origin [3]float64
}

// ReadLocal reads the file at path as a Local.
func ReadLocal(t testing.TB, path string) Local {
	t.Helper()
	c, _, err := pcio.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l := c.Local(false)
	pos := make([]float64, 3*c.Len())
	for i := range c.Len() {
		pos[3*i], pos[3*i+1], pos[3*i+2] = c.X[i]-l.Origin[0], c.Y[i]-l.Origin[1], c.Z[i]-l.Origin[2]
	}
	return Local{l.XYZ, pos, l.Origin}
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
// (k+1)-th nearest lies within 1e-6 of the k-th in float64 distance,
// relative to that distance plus the point's largest coordinate (the
// float32 coordinates' rounding, about 6e-8 of it, may reorder them),
// exact ties included (nanoflann orders them its own way, pctk by the
// smaller index). With anywhere, a near tie between any two consecutive
// of the k+1 nearest counts too (for a stride, which picks by position).
// hops > 0 spreads each flag to the points that have a flagged point among
// their k nearest, hops times: a stage whose output reads its neighbours'
// neighbourhoods is tie-affected there.
func NearTies(t testing.TB, s Local, k, hops int, anywhere bool) []bool {
	t.Helper()
	n := len(s.XYZ) / 3
	tab, err := knn.Find("ties", s.XYZ, findneighbor.CPU(), k+1, findneighbor.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flag := make([]bool, n)
	if tab.K <= k {
		return flag
	}
	d := make([]float64, k+1)
	for p := range n {
		idx, _ := tab.Of(p)
		for j, o := range idx {
			d[j] = knn.Dist(s.Pos, int32(p), o)
		}
		c := max(math.Abs(s.Pos[3*p]), math.Abs(s.Pos[3*p+1]), math.Abs(s.Pos[3*p+2]))
		last := d[k]
		kth := slices.Max(d[:k])
		flag[p] = last-kth <= 1e-6*(last+c)
		if anywhere {
			slices.Sort(d)
			for j := 1; j <= k; j++ {
				flag[p] = flag[p] || d[j]-d[j-1] <= 1e-6*(d[j]+c)
			}
		}
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
// within tol relative (Rel), or floor[i] absolute where floor is not nil,
// excusing points that ties flags (NearTies; nil: none). It fails t at any
// other difference and returns the number of values compared, of
// differences and of those excused.
func ComparePDAL(t testing.TB, what string, got, want []float64, ties []bool, tol float64, floor []float64) (n, differ, excused int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, PDAL %d", what, len(got), len(want))
	}
	eq := Rel(tol)
	for i := range got {
		if eq(got[i], want[i]) || floor != nil && math.Abs(got[i]-want[i]) <= floor[i] {
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

// Cmp says how SideBySide compares.
type Cmp struct {
	// Tol is the relative tolerance (0: equal).
	Tol float64
	// Ties, when not nil, flags the points excused (NearTies, NearRadius).
	Ties func(Local) []bool
	// Floor, when not nil, gives each point an absolute tolerance from
	// pctk's columns, as well as Tol (a solver's accuracy).
	Floor func(cols map[string][]float64) []float64
}

// SideBySide runs a PDAL stage (a filter's pipeline entry) and pctk's
// compute on the same scans, haystack_rock (testdata, from root, the
// repository root as seen from the test's package) and PDAL's
// autzen_trim (shared data), and compares every column compute returns,
// by PDAL's dimension name, as c says (ComparePDAL). It logs the figures
// and PDAL's time. With -short it runs on haystack_rock alone.
func SideBySide(t *testing.T, root string, stage map[string]any, c Cmp, compute func(Local) (map[string][]float64, error)) {
	t.Helper()
	for _, in := range []string{filepath.Join(root, "testdata/haystack_rock.las"), "pdal/las/autzen_trim.las"} {
		t.Run(filepath.Base(in), func(t *testing.T) {
			if !fileExists(in) {
				if testing.Short() {
					t.Skip("-short: haystack_rock only")
				}
				in = SharedFile(t, in)
			}
			out, took := PDALFilter(t, in, stage)
			s := ReadLocal(t, in)
			start := time.Now()
			cols, err := compute(s)
			ours := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			var flags []bool
			var floor []float64
			if c.Floor != nil {
				floor = c.Floor(cols)
			}
			if c.Ties != nil {
				flags = c.Ties(s)
				t.Logf("%d of %d points have a near tie", count(flags), len(flags))
			}
			names := make([]string, 0, len(cols))
			for name := range cols {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				n, differ, excused := ComparePDAL(t, name, cols[name], Column(t, out, name), flags, c.Tol, floor)
				t.Logf("%s: %d values, %d differ beyond %g relative (%d at near ties)", name, n, differ, c.Tol, excused)
			}
			t.Logf("PDAL pipeline (read LAS, %s, write LAS) %.2f s; pctk's function %.3f s", stage["type"], took.Seconds(), ours.Seconds())
		})
	}
}

func count(flags []bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}

// NearRadius flags the points with a neighbour whose float64 distance
// (Pos) lies within 1e-6 of r, relative to r plus the point's largest
// coordinate: PDAL's radius search keeps d² < r² in float64, pctk's
// d² ≤ r² in float32, so such a neighbour may be in one list only.
func NearRadius(t testing.TB, s Local, r float64) []bool {
	t.Helper()
	n := len(s.XYZ) / 3
	flag := make([]bool, n)
	tol := func(p int) float64 {
		return 1e-6 * (r + max(math.Abs(s.Pos[3*p]), math.Abs(s.Pos[3*p+1]), math.Abs(s.Pos[3*p+2])))
	}
	wide := 0.0
	for p := range n {
		wide = max(wide, tol(p))
	}
	ix, err := findneighbor.CPU().Build(s.XYZ, float32(r+2*wide), findneighbor.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	err = findneighbor.Batches(ix, s.XYZ, nil, findneighbor.NeighborOptions{}, 1<<24, func(first int, csr *findneighbor.CSR) error {
		for q := range len(csr.Offsets) - 1 {
			p := first + q
			for _, o := range csr.Indices[csr.Offsets[q]:csr.Offsets[q+1]] {
				if math.Abs(knn.Dist(s.Pos, int32(p), o)-r) <= tol(p) {
					flag[p] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return flag
}
