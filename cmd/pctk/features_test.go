package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/features"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestFeaturesCommand checks pctk features against features.Compute on the
// same local coordinates, every feature, k nearest and radius.
func TestFeaturesCommand(t *testing.T) {
	c := readTestCloud(t, sample)
	out := filepath.Join(t.TempDir(), "out.las")
	for _, tc := range []struct {
		args []string
		opts features.Options
	}{
		{[]string{"--knn", "8", "--features", "all", "--mode", "raw"}, features.Options{K: 8, Mode: features.Raw, Features: features.All()}},
		{[]string{"--radius", "4", "--min-k", "5"}, features.Options{Radius: 4, MinK: 5}},
	} {
		pctkRun(t, 0, append([]string{"features", sample, out, "--backend", "cpu"}, tc.args...)...)
		want, err := features.Compute(c.Local(false).XYZ, findneighbor.CPU(), tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		got := readTestCloud(t, out)
		for j, f := range want.Features {
			a := got.Attr(f.String())
			if a == nil || a.Type != core.Float64 {
				t.Fatalf("%v: %s is %v, want a float64 column", tc.args, f, a)
			}
			for i, v := range a.Data.([]float64) {
				if w := want.Values[j][i]; v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
					t.Fatalf("%v: point %d %s = %g, want %g", tc.args, i, f, v, w)
				}
			}
		}
		if n := len(got.Attrs) - len(c.Attrs); n != len(want.Features) {
			t.Errorf("%v: %d columns added, want %d", tc.args, n, len(want.Features))
		}
	}
}

// TestFeaturesUsage checks the usage errors: exit 2, the flag at fault
// named, OUT unchanged.
func TestFeaturesUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--knn K or --radius R"},
		{[]string{"--knn", "3", "--radius", "1"}, "--knn K or --radius R"},
		{[]string{"--knn", "0"}, "--knn 0"},
		{[]string{"--radius", "Inf"}, "--radius +Inf"},
		{[]string{"--radius", "1", "--min-k", "-2"}, "--min-k -2"},
		{[]string{"--knn", "3", "--mode", "log"}, `unknown mode "log"`},
		{[]string{"--knn", "3", "--features", "Density"}, `unknown feature "Density"`},
	} {
		_, in, out, old := runnerFixture(t)
		code, stderr := pctkExit(t, append(append([]string{"features"}, tc.args...), in, out)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("features %v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
		if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, old) {
			t.Errorf("features %v: OUT changed (%v)", tc.args, err)
		}
	}
}
