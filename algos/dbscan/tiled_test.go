package dbscan_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
	"github.com/pctk/pctk/primitives/tile"
)

// TestTiledEqualsInMemory runs DBSCAN tiled, at several tile sizes down to
// 2ε, and holds every result to the in-memory run's: counts, labels, core
// flags, sizes, noise and dropped counts, on every usable backend.
func TestTiledEqualsInMemory(t *testing.T) {
	algotest.CheckTiled(t, "../..", func(c algotest.TileCloud, b findneighbor.Backend, size float64) (*dbscan.Run, error) {
		return cluster(c, b, size)
	}, sameRun)
}

// TestTiledPool runs the same comparison with the tiles spread over
// three cpu backends (tile.Pool) that finish them out of order, as the
// GPUs of a multi-GPU run do: the same result as in memory.
func TestTiledPool(t *testing.T) {
	b := tile.Pool(fntest.Jitters(findneighbor.CPU(), 3, 1, 100*time.Microsecond)...)
	algotest.CheckTiledExact(t, "../..", func(c algotest.TileCloud, size float64) (*dbscan.Run, error) {
		return cluster(c, b, size)
	}, sameRun)
}

// cluster runs the DBSCAN the tiled tests compare on c, tiled at size.
func cluster(c algotest.TileCloud, b findneighbor.Backend, size float64) (*dbscan.Run, error) {
	return dbscan.Cluster(c.XYZ, b, dbscan.Options{Eps: c.R, MinPts: []int{1, 4, 10}, MinClusterSize: 3, TileSize: size})
}

// sameRun holds a tiled run to the in-memory one.
func sameRun(t *testing.T, got, want *dbscan.Run) {
	if !reflect.DeepEqual(got.Counts, want.Counts) {
		t.Fatal("counts differ from the in-memory run's")
	}
	for i, r := range got.Results {
		w := want.Results[i]
		r.Stage2, w.Stage2 = 0, 0
		if !reflect.DeepEqual(r, w) {
			t.Errorf("min_pts %d: tiled result differs (%d clusters, %d noise; in memory %d, %d)", r.MinPts, len(r.Sizes), r.NoiseCount, len(w.Sizes), w.NoiseCount)
		}
	}
}
