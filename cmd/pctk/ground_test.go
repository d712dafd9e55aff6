package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
)

// pdalOut runs PDAL's stages on in and returns the cloud it writes,
// skipping t when PDAL cannot run here (failing it when CI=true).
func pdalOut(t *testing.T, in string, stages ...map[string]any) *core.Cloud {
	t.Helper()
	needPDAL(t)
	abs, err := filepath.Abs(in)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.las")
	p := []any{map[string]any{"type": "readers.las", "filename": abs}}
	for _, s := range stages {
		p = append(p, s)
	}
	p = append(p, map[string]any{"type": "writers.las", "filename": out, "forward": "all", "extra_dims": "all"})
	if _, err := peers.PDALPipeline(dir, p...); err != nil {
		t.Fatal(err)
	}
	return readTestCloud(t, out)
}

// needPDAL skips t when PDAL 2.9.2 cannot run here, failing it when
// CI=true.
func needPDAL(t *testing.T) {
	t.Helper()
	if err := peers.Available(peers.PDAL); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PDAL 2.9.2 is required in CI: %v", err)
		}
		t.Skipf("PDAL 2.9.2 is not available here: %v", err)
	}
}

// TestGroundHAGAgainstPDAL runs pctk ground pmf, ground smrf and hag on
// haystack_rock.las through the command line and PDAL 2.9.2's
// filters.pmf, filters.smrf and filters.hag_nn: every Classification and
// HeightAboveGround equal; hag --replace-z puts the heights in Z.
func TestGroundHAGAgainstPDAL(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		mode  string
		args  []string
		stage map[string]any
	}{
		{"pmf", []string{"--slope", "0.7"}, map[string]any{"type": "filters.pmf", "slope": 0.7}},
		{"smrf", []string{"--window", "12", "--ignore", "Classification[7:7]"}, map[string]any{"type": "filters.smrf", "window": 12, "ignore": "Classification[7:7]"}},
	} {
		out := filepath.Join(dir, tc.mode+".las")
		pctkRun(t, 0, append([]string{"ground", tc.mode, sample, out}, tc.args...)...)
		got, want := readTestCloud(t, out), pdalOut(t, sample, tc.stage)
		g, w := got.Attr(core.DimClassification), want.Attr(core.DimClassification)
		diff, ground := 0, 0
		for i := range got.Len() {
			if g.Int64(i) != w.Int64(i) {
				diff++
			}
			if g.Int64(i) == 2 {
				ground++
			}
		}
		if diff != 0 || ground == 0 || ground == got.Len() {
			t.Errorf("ground %s: %d of %d classes differ from PDAL's (%d ground): want 0, and some ground", tc.mode, diff, got.Len(), ground)
		}
	}
	classed := filepath.Join(dir, "pmf.las")
	out, flat := filepath.Join(dir, "hag.las"), filepath.Join(dir, "flat.las")
	pctkRun(t, 0, "hag", classed, out, "--count", "4")
	pctkRun(t, 0, "hag", classed, flat, "--count", "4", "--replace-z")
	got, want := readTestCloud(t, out), pdalOut(t, classed, map[string]any{"type": "filters.hag_nn", "count": 4})
	z := readTestCloud(t, flat)
	g, w := got.Attr("HeightAboveGround"), want.Attr("HeightAboveGround")
	if g == nil || w == nil {
		t.Fatalf("HeightAboveGround: pctk's %v, PDAL's %v", g != nil, w != nil)
	}
	if z.Attr("HeightAboveGround") != nil {
		t.Errorf("hag --replace-z kept HeightAboveGround: want Z alone")
	}
	diff, zdiff, above := 0, 0, 0
	for i := range got.Len() {
		h := g.Float64(i)
		if math.Abs(h-w.Float64(i)) > 1e-9*math.Max(1, math.Abs(h)) {
			diff++
		}
		if math.Abs(z.Z[i]-h) > 0.01 { // Z is stored to the file's scale
			zdiff++
		}
		if h > 1 {
			above++
		}
	}
	if diff != 0 || zdiff != 0 || above == 0 {
		t.Errorf("hag: %d of %d heights differ from PDAL's, %d Z of --replace-z from the heights: want 0 and 0 (%d points above 1)", diff, got.Len(), zdiff, above)
	}
}

// TestGroundHAGJSONLikePDAL runs PDAL JSON pipelines of the ground and
// height filters with PDAL's stage and option names through pctk
// pipeline --file - and through PDAL 2.9.2: filters.hag_delaunay,
// filters.smrf's classbits (on a LAS 1.4 format 6 copy whose high
// points PDAL gives class 130, withheld bit set), and the options whose
// PDAL default is true given false. Every Classification and
// HeightAboveGround must equal PDAL's.
func TestGroundHAGJSONLikePDAL(t *testing.T) {
	needPDAL(t)
	dir := t.TempDir()
	in, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	flagged := filepath.Join(dir, "flagged.las")
	if r, err := peers.PDALPipeline(dir, in,
		map[string]any{"type": "filters.assign", "value": "Classification = 130 WHERE Z > 40"},
		map[string]any{"type": "writers.las", "filename": flagged, "minor_version": 4, "dataformat_id": 6}); err != nil {
		t.Fatalf("PDAL: %v: %s", err, r.Output)
	}
	classed := filepath.Join(dir, "classed.las")
	pctkRun(t, 0, "ground", "pmf", in, classed)
	type obj = map[string]any
	for _, tc := range []struct {
		name, in string
		stage    obj
		dim      string
	}{
		{"hag_delaunay", classed, obj{"type": "filters.hag_delaunay", "count": 6}, "HeightAboveGround"},
		{"hag_delaunay no extrapolation", classed, obj{"type": "filters.hag_delaunay", "allow_extrapolation": false}, "HeightAboveGround"},
		{"hag_nn no extrapolation", classed, obj{"type": "filters.hag_nn", "count": 3, "allow_extrapolation": false}, "HeightAboveGround"},
		{"smrf classbits", flagged, obj{"type": "filters.smrf", "classbits": "withheld"}, core.DimClassification},
		{"pmf linear", in, obj{"type": "filters.pmf", "exponential": false}, core.DimClassification},
		{"csf no smooth", in, obj{"type": "filters.csf", "smooth": false, "iterations": 100}, core.DimClassification},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.las")
			pctkPipeline(t, tc.in, tc.stage, obj{"type": "writers.las", "filename": out, "forward": "all"})
			got, want := readTestCloud(t, out), pdalOut(t, tc.in, tc.stage)
			g, w := got.Attr(tc.dim), want.Attr(tc.dim)
			if g == nil || w == nil {
				t.Fatalf("%s: pctk's %v, PDAL's %v", tc.dim, g != nil, w != nil)
			}
			diff, kinds := 0, map[float64]int{}
			for i := range got.Len() {
				a, b := g.Float64(i), w.Float64(i)
				if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(b)) {
					diff++
				}
				kinds[math.Round(b)]++
			}
			if diff != 0 || len(kinds) < 2 {
				t.Errorf("%d of %d %s differ from PDAL's (PDAL's values, rounded: %d kinds): want 0 of several", diff, got.Len(), tc.dim, len(kinds))
			}
			if tc.name == "smrf classbits" && kinds[130] == 0 {
				t.Errorf("no class 130 left: classbits ignored nothing")
			}
		})
	}
}
