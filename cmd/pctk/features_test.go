package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/algos/features"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestFeaturesCommand checks pctk features against features.Compute on the
// same local coordinates, with the covariances from the coordinates as
// read (Pos, origin 0, as the stage passes them), every feature, k nearest
// and radius.
func TestFeaturesCommand(t *testing.T) {
	c := readTestCloud(t, sample)
	abs := c.Relative([3]float64{})
	out := filepath.Join(t.TempDir(), "out.las")
	for _, tc := range []struct {
		args []string
		opts features.Options
	}{
		{[]string{"--knn", "8", "--features", "all", "--mode", "raw"}, features.Options{K: 8, Mode: features.Raw, Features: features.All()}},
		{[]string{"--radius", "4", "--min-k", "5"}, features.Options{Radius: 4, MinK: 5}},
	} {
		pctkRun(t, 0, append([]string{"features", sample, out, "--backend", "cpu"}, tc.args...)...)
		tc.opts.Pos = abs
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
// on a GPU machine), and compares them with the cpu backend's: the
// backends find the neighbours (the k nearest ranked in float64, those
// within R in their order), the covariances are computed on the host, so
// the features agree within 1e-9 (raw mode; the eigenvector features where
// the eigenvalues are 1% apart, Eigenentropy and Omnivariance where λ3 is
// above rounding level), but at near ties that a float32 distance computed
// another way may break otherwise (algotest.NearTies, NearRadius).
func TestFeaturesBackendsAgree(t *testing.T) {
	c := readTestCloud(t, sample)
	l := c.Local(false)
	s := algotest.Local{XYZ: l.XYZ, Pos: c.Relative(l.Origin), Origin: l.Origin}
	for _, o := range []features.Options{{K: 10}, {Radius: 4}} {
		o.Mode, o.Features, o.Pos, o.Origin = features.Raw, features.All(), s.Pos, s.Origin
		ref, err := features.Compute(s.XYZ, findneighbor.CPU(), o)
		if err != nil {
			t.Fatal(err)
		}
		var ties []bool
		for _, b := range fntest.Usable(t) {
			if b.Name() == "cpu" || b.Name() == "brute" {
				continue // algos/features holds them to brute force
			}
			if ties == nil {
				if o.Radius > 0 {
					ties = algotest.NearRadius(t, s, o.Radius)
				} else {
					ties = algotest.NearTies(t, s, o.K, 0, false)
				}
			}
			got, err := features.Compute(s.XYZ, b, o)
			if err != nil {
				t.Fatalf("%s K %d radius %g: %v", b.Name(), o.K, o.Radius, err)
			}
			bad, tied := 0, 0
			for i := range ref.Skip {
				lin, pla, sca := ref.Values[features.Linearity][i], ref.Values[features.Planarity][i], ref.Values[features.Scattering][i]
				for j, f := range ref.Features {
					w, v := ref.Values[j][i], got.Values[j][i]
					switch {
					case (f == features.Eigenentropy || f == features.Omnivariance) && sca < 1e-9: // ill-conditioned when flat
						continue
					case f == features.Verticality && min(lin, pla) < 0.01, f == features.DemantkeVerticality && pla < 0.01:
						continue
					case v == w || math.Abs(v-w) <= 1e-9*max(1, math.Abs(w)):
						continue
					case ties[i]:
						tied++
						continue
					}
					if bad++; bad <= 5 {
						t.Errorf("%s K %d radius %g: point %d %s = %g, cpu %g", b.Name(), o.K, o.Radius, i, f, v, w)
					}
				}
			}
			t.Logf("%s K %d radius %g: %d values differ at near ties", b.Name(), o.K, o.Radius, tied)
		}
	}
}
