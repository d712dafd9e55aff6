package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/denoise"
	"github.com/pctk/pctk/algos/normals"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// gridCloud returns n points of a noisy, clustered cloud snapped to a
// dyadic grid, so every coordinate offset is exact in float32 and no
// neighbour decision depends on rounding.
func gridCloud(seed uint64, n int) []float32 {
	const step = 1.0 / 1024
	r := rand.New(rand.NewPCG(seed, 7))
	xyz := make([]float32, 3*n)
	for i := range n {
		// A wavy surface with 3% scattered outliers.
		x, y := r.Float64()*20, r.Float64()*20
		z := math.Sin(x/3) + 0.5*math.Cos(y/2) + r.NormFloat64()*0.01
		if r.IntN(100) < 3 {
			z += r.Float64()*4 - 2
		}
		for a, v := range [3]float64{x, y, z} {
			xyz[3*i+a] = float32(math.Round(v/step) * step)
		}
	}
	return xyz
}

// otherBackends calls fn for every usable backend but cpu, the reference.
func otherBackends(t *testing.T, fn func(b findneighbor.Backend)) {
	t.Helper()
	for _, b := range findneighbor.Backends() {
		if b.Name() == "cpu" {
			continue
		}
		if _, err := b.Probe(); err != nil {
			if os.Getenv("PCTK_REQUIRE_GPU") != "" {
				t.Errorf("PCTK_REQUIRE_GPU is set but %s cannot run: %v", b.Name(), err)
			}
			t.Logf("%s: not usable here (%v)", b.Name(), err)
			continue
		}
		fn(b)
	}
}

// TestGPUBackendsAgreeOnFilters runs the outlier filters and normals with
// every registered backend (cuda and optix on a GPU machine, brute here)
// and requires the cpu backend's results.
func TestGPUBackendsAgreeOnFilters(t *testing.T) {
	xyz := gridCloud(3, 12_000)
	cpu := findneighbor.CPU()
	stat := []denoise.StatisticalOptions{{K: 8, StdRatio: 1}, {K: 20, StdRatio: 2}, {K: 50, StdRatio: 1}}
	rad := []denoise.RadiusOptions{{Radius: 0.3, MinNeighbors: 4}, {Radius: 0.6, MinNeighbors: 20}}
	norm := []normals.Options{{K: 10, Orient: normals.OrientUp}, {Radius: 0.5, Orient: normals.OrientUp}, {K: 16, Radius: 0.5, Orient: normals.OrientUp}}

	type want struct {
		stat []*denoise.StatisticalResult
		rad  []*denoise.RadiusResult
		norm []*normals.Result
	}
	var w want
	for _, o := range stat {
		r, err := denoise.Statistical(xyz, cpu, o)
		if err != nil {
			t.Fatal(err)
		}
		w.stat = append(w.stat, r)
	}
	for _, o := range rad {
		r, err := denoise.Radius(xyz, cpu, o)
		if err != nil {
			t.Fatal(err)
		}
		w.rad = append(w.rad, r)
	}
	for _, o := range norm {
		r, err := normals.Estimate(xyz, cpu, o)
		if err != nil {
			t.Fatal(err)
		}
		w.norm = append(w.norm, r)
	}

	otherBackends(t, func(b findneighbor.Backend) {
		for k, o := range stat {
			r, err := denoise.Statistical(xyz, b, o)
			if err != nil {
				t.Errorf("%s statistical %+v: %v", b.Name(), o, err)
				continue
			}
			for i := range r.Outlier {
				if r.Outlier[i] != w.stat[k].Outlier[i] || math.Abs(r.MeanDist[i]-w.stat[k].MeanDist[i]) > 1e-6*w.stat[k].MeanDist[i] {
					t.Errorf("%s statistical K=%d: point %d: outlier %v mean %g, cpu %v %g", b.Name(), o.K, i, r.Outlier[i], r.MeanDist[i], w.stat[k].Outlier[i], w.stat[k].MeanDist[i])
					break
				}
			}
			t.Logf("%s statistical K=%d: %d outliers (cpu %d)", b.Name(), o.K, r.Outliers, w.stat[k].Outliers)
		}
		for k, o := range rad {
			r, err := denoise.Radius(xyz, b, o)
			if err != nil {
				t.Errorf("%s radius %+v: %v", b.Name(), o, err)
				continue
			}
			for i := range r.Outlier {
				if r.Outlier[i] != w.rad[k].Outlier[i] || r.Counts[i] != w.rad[k].Counts[i] {
					t.Errorf("%s radius R=%g: point %d: outlier %v count %d, cpu %v %d", b.Name(), o.Radius, i, r.Outlier[i], r.Counts[i], w.rad[k].Outlier[i], w.rad[k].Counts[i])
					break
				}
			}
		}
		for k, o := range norm {
			r, err := normals.Estimate(xyz, b, o)
			if err != nil {
				t.Errorf("%s normals %+v: %v", b.Name(), o, err)
				continue
			}
			ref := w.norm[k]
			if r.Undefined != ref.Undefined {
				t.Errorf("%s normals %+v: %d undefined, cpu %d", b.Name(), o, r.Undefined, ref.Undefined)
			}
			for i := range r.NormalX {
				dot := float64(r.NormalX[i])*float64(ref.NormalX[i]) + float64(r.NormalY[i])*float64(ref.NormalY[i]) + float64(r.NormalZ[i])*float64(ref.NormalZ[i])
				same := (math.IsNaN(dot) && math.IsNaN(float64(ref.NormalX[i]))) || dot > 1-1e-6
				if !same || math.Abs(float64(r.Curvature[i]-ref.Curvature[i])) > 1e-5 {
					t.Errorf("%s normals K=%d R=%g: point %d: normal·cpu's = %g, curvature %g vs %g", b.Name(), o.K, o.Radius, i, dot, r.Curvature[i], ref.Curvature[i])
					break
				}
			}
		}
	})
}

// TestGPUTiledOutputs runs the neighbour-based commands on each GPU backend
// in memory, on tiles (--tile-size) and out of core (--max-memory) and
// requires the same bytes from all three: features (neighbour lists),
// radius moments (normals), k nearest, hybrid, dbscan, the outlier filters
// and density.
func TestGPUTiledOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("GPU tiled outputs: not in -short")
	}
	const rock, lamp = "../../testdata/haystack_rock.las", "../../testdata/lamppost.pcd"
	cases := [][]string{
		{"features", rock, "--radius", "2", "--features", "all"},
		{"normals", rock, "--radius", "2", "--eigenvalues"},
		{"normals", lamp, "--knn", "16", "--radius", "0.05", "--eigenvalues"},
		{"features", lamp, "--knn", "8", "--features", "all"},
		{"dbscan", rock, "--eps", "2", "--min-pts", "4"},
		{"denoise", "radius", rock, "--radius", "1.5", "--min-neighbors", "3"},
		{"denoise", "statistical", rock, "--k", "12"},
		{"density", rock, "--radius", "2"},
	}
	dir := t.TempDir()
	otherBackends(t, func(b findneighbor.Backend) {
		if b.Name() == "brute" {
			return
		}
		for ci, tc := range cases {
			in := tc[slices.IndexFunc(tc, func(a string) bool { return strings.HasSuffix(a, ".las") || strings.HasSuffix(a, ".pcd") })]
			tile := "25"
			if in == lamp {
				tile = "0.2"
			}
			sameTiled(t, filepath.Join(dir, fmt.Sprintf("%s-%d%s", b.Name(), ci, filepath.Ext(in))), []string{"--tile-size", tile}, func(out string) []string {
				return append(append(slices.Clone(tc), out), "--backend", b.Name())
			})
		}
	})
}
