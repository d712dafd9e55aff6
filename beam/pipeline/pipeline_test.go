package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/beam/pipeline"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

// cloudOf returns the float32 points xyz as a cloud at UTM-like
// coordinates, so that the run's frame matters.
func cloudOf(xyz []float32) *core.Cloud {
	c := core.New(len(xyz) / 3)
	for i := range c.X {
		c.X[i] = 500000.125 + float64(xyz[3*i])
		c.Y[i] = 5000000.25 + float64(xyz[3*i+1])
		c.Z[i] = 120.5 + float64(xyz[3*i+2])
	}
	return c
}

// write writes c to the file name in dir.
func write(t *testing.T, dir, name string, c *core.Cloud) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, variant, err := pcio.OutputFormat(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pcio.WriteFile(path, f, variant, c); err != nil {
		t.Fatal(err)
	}
	return path
}

// inMemory returns dbscan.Cluster's labels and counts on the concatenation
// of the files, in the frame of core.Cloud.Local, as pctk dbscan runs it.
func inMemory(t *testing.T, files []string, cfg pipeline.Config) ([]int32, []uint32) {
	t.Helper()
	var all *core.Cloud
	for _, f := range files {
		c, _, err := pcio.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c.Attrs = nil
		if all == nil {
			all = c
		} else if err := all.Append(c); err != nil {
			t.Fatal(err)
		}
	}
	run, err := dbscan.Cluster(all.Local(cfg.Flat).XYZ, findneighbor.CPU(), dbscan.Options{Eps: cfg.Eps, MinPts: []int{cfg.MinPts}, MinClusterSize: cfg.MinClusterSize})
	if err != nil {
		t.Fatal(err)
	}
	return run.Results[0].Labels, run.Counts
}

// outputs reads ClusterID and NeighborCount back from the outputs.
func outputs(t *testing.T, files []string) ([]int32, []uint32) {
	t.Helper()
	var labels []int32
	var counts []uint32
	for _, f := range files {
		c, _, err := pcio.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		id, n := c.Attr(core.DimClusterID), c.Attr(core.DimNeighborCount)
		if id == nil || n == nil {
			t.Fatalf("%s: no %s or %s attribute", f, core.DimClusterID, core.DimNeighborCount)
		}
		for i := range c.Len() {
			labels = append(labels, int32(id.Int64(i)))
			counts = append(counts, uint32(n.Uint64(i)))
		}
	}
	return labels, counts
}

// check runs the pipeline on Prism and holds its labels and counts to the
// in-memory run's.
func check(t *testing.T, cfg pipeline.Config) {
	t.Helper()
	if err := pipeline.Run(context.Background(), "prism", cfg); err != nil {
		t.Fatal(err)
	}
	wantL, wantN := inMemory(t, cfg.Inputs, cfg)
	gotL, gotN := outputs(t, cfg.Outputs)
	if !reflect.DeepEqual(gotN, wantN) {
		t.Errorf("NeighborCount differs from the in-memory run's")
	}
	if !reflect.DeepEqual(gotL, wantL) {
		diff := 0
		for i := range min(len(gotL), len(wantL)) {
			if gotL[i] != wantL[i] {
				diff++
			}
		}
		t.Errorf("ClusterID differs from the in-memory labels at %d of %d points (%d vs %d points)", diff, len(wantL), len(gotL), len(wantL))
	}
	clusters := map[int32]bool{}
	for _, l := range wantL {
		clusters[l] = true
	}
	t.Logf("%d points, %d labels (noise included)", len(wantL), len(clusters))
}

// TestRandomClouds runs random clouds and a lattice, each cut into three
// files (a tile collection), at several tile sizes down to 2ε.
func TestRandomClouds(t *testing.T) {
	r := fntest.Rand(21)
	// A lattice of step ε/2 centred on 0 (its corners included), so that
	// local coordinates are lattice values: points on tile edges, pairs at
	// exactly ε.
	lattice := []float32{-5, -5, 0, 5, 5, 0.75}
	for range 1500 {
		lattice = append(lattice, float32(r.IntN(41))*0.25-5, float32(r.IntN(41))*0.25-5, float32(r.IntN(4))*0.25)
	}
	clouds := []struct {
		name string
		xyz  []float32
		eps  float64
	}{
		{"clustered", fntest.Clustered(r, 1200, 8, 10, 0.6), 0.71},
		{"duplicated", fntest.Duplicated(r, 900, 100, 10), 0.71},
		{"lattice", lattice, 0.5},
	}
	for _, c := range clouds {
		eps := c.eps
		dir := t.TempDir()
		cl := cloudOf(c.xyz)
		n := cl.Len()
		var in []string
		for k, cut := range [][2]int{{0, n / 4}, {n / 4, n / 2}, {n / 2, n}} {
			idx := make([]int, 0, cut[1]-cut[0])
			for i := cut[0]; i < cut[1]; i++ {
				idx = append(idx, i)
			}
			in = append(in, write(t, dir, fmt.Sprintf("%s%d.ply", c.name, k), cl.Select(idx)))
		}
		for _, s := range algotest.TileSizes(eps)[:3] {
			t.Run(fmt.Sprintf("%s/tile%g", c.name, s), func(t *testing.T) {
				out := t.TempDir()
				cfg := pipeline.Config{Inputs: in, Eps: eps, MinPts: 4, MinClusterSize: 3, TileSize: s}
				for _, f := range in {
					cfg.Outputs = append(cfg.Outputs, filepath.Join(out, filepath.Base(f)))
				}
				check(t, cfg)
			})
		}
	}
}

// TestHaystackRock runs the shipped LAS cloud at several tile sizes, in 3D
// and in the XY plane.
func TestHaystackRock(t *testing.T) {
	in := "../../testdata/haystack_rock.las"
	if _, err := os.Stat(in); err != nil {
		t.Fatal(err)
	}
	const eps = 6
	for _, flat := range []bool{false, true} {
		for _, s := range []float64{3 * eps, 8 * eps} {
			t.Run(fmt.Sprintf("flat%v/tile%g", flat, s), func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "out.las")
				check(t, pipeline.Config{Inputs: []string{in}, Outputs: []string{out}, Eps: eps, MinPts: 10, TileSize: s, Flat: flat})
			})
		}
	}
}
