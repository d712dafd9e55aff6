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
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
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

// TestFeaturesBackendsAgree computes the features of the shipped scan on
// the GPU backends this package registers, where they run (cuda and optix
// on a GPU machine), and compares them with the cpu backend's:
// GPU moments accumulate in float32, so within 1e-3; the eigenvector
// features only where the eigenvalues are 1% apart (raw mode: Linearity
// and Planarity are those gaps).
func TestFeaturesBackendsAgree(t *testing.T) {
	xyz := readTestCloud(t, sample).Local(false).XYZ
	for _, o := range []features.Options{{K: 10}, {Radius: 4}} {
		o.Mode, o.Features = features.Raw, features.All()
		ref, err := features.Compute(xyz, findneighbor.CPU(), o)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range fntest.Usable(t) {
			if b.Name() == "cpu" || b.Name() == "brute" {
				continue // algos/features holds them to brute force
			}
			got, err := features.Compute(xyz, b, o)
			if err != nil {
				t.Fatalf("%s K %d radius %g: %v", b.Name(), o.K, o.Radius, err)
			}
			bad := 0
			for j, f := range ref.Features {
				for i, w := range ref.Values[j] {
					lin, pla := ref.Values[features.Linearity][i], ref.Values[features.Planarity][i]
					switch {
					case f == features.Eigenentropy || f == features.Omnivariance: // ill-conditioned when flat
						continue
					case f == features.Verticality && min(lin, pla) < 0.01, f == features.DemantkeVerticality && pla < 0.01:
						continue
					}
					if v := got.Values[j][i]; math.Abs(v-w) > 1e-3*max(1, math.Abs(w)) {
						if bad++; bad <= 5 {
							t.Errorf("%s K %d radius %g: point %d %s = %g, cpu %g", b.Name(), o.K, o.Radius, i, f, v, w)
						}
					}
				}
			}
			if got.Skipped != ref.Skipped {
				t.Errorf("%s K %d radius %g: %d skipped, cpu %d", b.Name(), o.K, o.Radius, got.Skipped, ref.Skipped)
			}
		}
	}
}
