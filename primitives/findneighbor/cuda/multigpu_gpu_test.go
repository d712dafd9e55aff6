package cuda

import (
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
	"github.com/pctk/pctk/primitives/tile"
)

// counted is a backend that counts its Builds, to see that every backend
// of a Pool ran tiles.
type counted struct {
	findneighbor.Backend
	builds atomic.Int64
}

func (c *counted) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	c.builds.Add(1)
	return c.Backend.Build(xyz, eps, opts)
}

// ownContext returns a cuda backend on GPU ordinal with a device of its
// own (its own context and device thread on the GPU's primary context, its
// own kernels and staging buffers) beside the ordinal's, and a func that
// releases it: two of them run tiles on one GPU at once, as two GPUs
// would.
func ownContext(ordinal int) (findneighbor.Backend, func()) {
	d := newDevice(ordinal)
	return backend{d: d}, d.stop
}

// TestGPUTiledDBSCAN runs a tiled DBSCAN of a LiDAR-like scene on GPU 0,
// on every visible GPU (cuda.On, one worker each, tile.Pool), and on two
// backends bound to GPU 0 with two contexts (two device threads at once,
// which exercises the concurrency with one GPU), and holds each to the
// in-memory run on GPU 0 and on the cpu backend: the same counts, core
// flags, labels and sizes.
func TestGPUTiledDBSCAN(t *testing.T) {
	gpuOrSkip(t)
	xyz := terrain(fntest.Rand(21), 1_000_000, 290)
	opts := dbscan.Options{Eps: 1, MinPts: []int{4, 10}, MinClusterSize: 3}
	cluster := func(name string, b findneighbor.Backend, size float64) *dbscan.Run {
		t.Helper()
		o := opts
		o.TileSize = size
		t0 := time.Now()
		run, err := dbscan.Cluster(xyz, b, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %d clusters, %v", name, len(run.Results[0].Sizes), time.Since(t0).Round(time.Millisecond))
		run.Backend, run.Build, run.Stage1 = "", 0, 0
		for i := range run.Results {
			run.Results[i].Stage2 = 0
		}
		return run
	}
	want := cluster("cpu, in memory", findneighbor.CPU(), 0)
	if got := cluster("GPU 0, in memory", Backend(), 0); !reflect.DeepEqual(got, want) {
		t.Fatal("GPU 0 in memory differs from the cpu backend")
	}
	if got := cluster("GPU 0, tiles of 30", Backend(), 30); !reflect.DeepEqual(got, want) {
		t.Error("GPU 0, tiled: differs from the in-memory run")
	}
	all := make([]findneighbor.Backend, Devices())
	for i := range all {
		all[i] = &counted{Backend: On(i)}
	}
	if got := cluster("every GPU, tiles of 30", tile.Pool(all...), 30); !reflect.DeepEqual(got, want) {
		t.Errorf("tiles on %d GPUs: differs from the in-memory run", len(all))
	}
	for i, b := range all {
		if n := b.(*counted).builds.Load(); n == 0 && len(all) > 1 {
			t.Errorf("GPU %d of %d ran no tile", i, len(all))
		}
	}
	second, release := ownContext(0)
	defer release()
	two := []findneighbor.Backend{&counted{Backend: Backend()}, &counted{Backend: second}}
	if got := cluster("two contexts on GPU 0, tiles of 30", tile.Pool(two...), 30); !reflect.DeepEqual(got, want) {
		t.Error("tiles on two contexts of GPU 0: differs from the in-memory run")
	}
	for i, b := range two {
		n := b.(*counted).builds.Load()
		t.Logf("context %d of GPU 0 built %d tile indexes", i, n)
		if n == 0 {
			t.Errorf("context %d of GPU 0 ran no tile", i)
		}
	}
}
