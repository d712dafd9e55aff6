package main

import (
	stdpng "image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/algos/synth"
	"github.com/pctk/pctk/core"
)

// TestSynthStreetRecovered runs the street scene through the commands a
// user would: outlier removal first, then DBSCAN with the ground and the
// outliers left out, and scores both against the scene's ground truth
// (after hiding the truth's noise classes from the commands). Measured on
// seed 3 (200k points): 1026 of 1027 isolated outliers found, 69% of all noise
// (scattered noise near the surfaces has neighbours), no false alarm, and
// every one of the 38 objects wholly in a cluster of its own.
func TestSynthStreetRecovered(t *testing.T) {
	dir := t.TempDir()
	truthPath, in, dn, out := filepath.Join(dir, "truth.las"), filepath.Join(dir, "in.las"), filepath.Join(dir, "dn.las"), filepath.Join(dir, "out.las")
	mustRun(t, "synth", "street", truthPath, "--points", "200000", "--seed", "3")
	truth := readTestCloud(t, truthPath)
	obj := intColumn(t, truth, core.DimObjectID)
	cls := truth.Attr(core.DimClassification).Data.([]uint8)
	// Isolated outliers are 40-80 m above or 5-15 m below ground (which
	// lies within 4 m of 0); scattered noise is within 25 m of it.
	isolated := make([]bool, len(cls))
	for i := range cls {
		isolated[i] = obj[i] == synth.Noise && (truth.Z[i] > 35 || truth.Z[i] < -4)
	}
	for i := range cls {
		if obj[i] == synth.Noise {
			cls[i] = synth.ClassUnclassified
		}
	}
	writeTestCloud(t, in, truth)
	mustRun(t, "denoise", "radius", in, dn, "--radius", "2", "--min-neighbors", "3")
	mustRun(t, "dbscan", dn, out, "--eps", "1", "--min-pts", "6", "--ignore-class", "2,7")
	got := readTestCloud(t, out)
	flagged := got.Attr(core.DimClassification).Data.([]uint8)
	labels := intColumn(t, got, core.DimClusterID)

	var noise, found, clean, falseAlarm, outliers, outliersFound int
	for i := range obj {
		if isolated[i] {
			outliers++
			if flagged[i] == 7 {
				outliersFound++
			}
		}
		if obj[i] == synth.Noise {
			noise++
			if flagged[i] == 7 {
				found++
			}
		} else {
			clean++
			if flagged[i] == 7 {
				falseAlarm++
			}
		}
	}
	t.Logf("isolated outliers: %d of %d found; all noise: %d of %d found; %d of %d others flagged", outliersFound, outliers, found, noise, falseAlarm, clean)
	if outliers == 0 || float64(outliersFound) < 0.99*float64(outliers) {
		t.Errorf("found %d of %d isolated outliers, want at least 99%%", outliersFound, outliers)
	}
	if float64(found) < 0.5*float64(noise) {
		t.Errorf("found %d of %d noise points, want at least half", found, noise)
	}
	if float64(falseAlarm) > 0.001*float64(clean) {
		t.Errorf("%d of %d object and ground points flagged as outliers, want at most 0.1%%", falseAlarm, clean)
	}

	// Each object's points by cluster.
	perObject := map[int64]map[int64]int{}
	for i, o := range obj {
		if o <= 0 {
			continue
		}
		if perObject[o] == nil {
			perObject[o] = map[int64]int{}
		}
		perObject[o][labels[i]]++
	}
	owner := map[int64]int64{}
	worst := 1.0
	for o, m := range perObject {
		best, total := int64(-1), 0
		for l, k := range m {
			total += k
			if best < 0 || k > m[best] {
				best = l
			}
		}
		if best < 0 {
			t.Errorf("object %d: no point in a cluster", o)
			continue
		}
		if prev, ok := owner[best]; ok {
			t.Errorf("objects %d and %d fall mostly in one cluster %d", prev, o, best)
		}
		owner[best] = o
		worst = min(worst, float64(m[best])/float64(total))
	}
	t.Logf("%d objects, each with at least %.4f of its points in its own cluster", len(perObject), worst)
	if worst < 0.99 {
		t.Errorf("an object has only %.4f of its points in its own cluster, want at least 0.99", worst)
	}
	if len(perObject) < 30 {
		t.Errorf("%d objects in the scene, want a street's worth", len(perObject))
	}
}

func mustRun(t *testing.T, args ...string) {
	t.Helper()
	if rc := run(append([]string{"pctk", "-q"}, args...)); rc != 0 {
		t.Fatalf("pctk %v: exit %d", args, rc)
	}
}

// TestPreview checks --preview on dbscan and denoise: a PNG of the written
// cloud next to OUT, and an unwritable preview path fails before OUT is
// touched.
func TestPreview(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"dbscan", sample, filepath.Join(dir, "c.las"), "--eps", "6", "--min-pts", "10", "--preview", filepath.Join(dir, "c.png")},
		{"denoise", "radius", sample, filepath.Join(dir, "d.las"), "--radius", "5", "--min-neighbors", "2", "--preview", filepath.Join(dir, "d.png")},
	} {
		mustRun(t, args...)
		png := args[len(args)-1]
		f, err := os.Open(png)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := stdpng.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width < 1024 {
			t.Errorf("%s: %v, %d pixels wide; want a PNG at least 1024 wide", png, err, cfg.Width)
		}
	}
	out := filepath.Join(dir, "keep.las")
	writeText(t, out, "old")
	if rc := run([]string{"pctk", "-q", "dbscan", sample, out, "--eps", "6", "--preview", filepath.Join(dir, "no", "such", "p.png")}); rc == 0 {
		t.Error("an unwritable --preview path succeeded")
	}
	if string(readBytes(t, out)) != "old" {
		t.Error("OUT changed by a run whose preview path is unwritable")
	}
}
