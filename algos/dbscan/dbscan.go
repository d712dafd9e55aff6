package dbscan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// Noise is the label of points that belong to no cluster.
const Noise int32 = -1

// Options are DBSCAN's parameters. Eps and MinPts are required.
type Options struct {
	// Eps is the neighbourhood radius ε, in the units of the coordinates.
	// A pair is within ε when its distance is at most ε.
	Eps float64
	// MinPts lists the minimum neighbourhood sizes to cluster with, each
	// ≥ 1. As in scikit-learn, the point itself counts: a point is core
	// when it has at least minPts−1 other points within ε. Several values
	// share one neighbour count (stage 1) and get one Result each.
	MinPts []int
	// MinClusterSize, when > 1, relabels clusters of fewer points (core and
	// border) as noise.
	MinClusterSize int
	// Counts, when not nil, are stage 1's results from an earlier run on the
	// same points and the same Eps (Run.Counts): the number of other points
	// within ε of each point. Stage 1 is then skipped. Counts from other
	// points or another radius give wrong clusters; callers must check.
	Counts []uint32
	// Workers bounds CPU parallelism of the backend; 0 means GOMAXPROCS.
	Workers int
	// TileSize, when > 0, runs the tiled DBSCAN (tiled.go, docs/scale.md)
	// on square tiles of this side in XY with a halo of Eps, several tiles
	// at a time on the Workers: the same Run as without it (Build stays 0:
	// every tile builds its own indexes, counted in Stage1 and Stage2).
	TileSize float64
	// Progress, when not nil, is called now and then from any goroutine
	// with the current stage (StageBuild, StageCount, StageCluster) and the
	// fraction of it done.
	Progress func(stage string, done float64)
}

// The stages Options.Progress reports.
const (
	StageBuild   = "build"
	StageCount   = "count"
	StageCluster = "cluster"
)

// Validate checks the options for a cloud of n points.
func (o *Options) Validate(n int) error {
	if err := findneighbor.CheckRadius("dbscan", "eps", o.Eps, false); err != nil {
		return err
	}
	if len(o.MinPts) == 0 {
		return &findneighbor.ParamError{Op: "dbscan", Param: "min_pts", Value: "(none)", Want: "at least one value"}
	}
	for i, m := range o.MinPts {
		if err := findneighbor.CheckMin("dbscan", "min_pts", m, 1); err != nil {
			return err
		}
		if slices.Contains(o.MinPts[:i], m) {
			return &findneighbor.ParamError{Op: "dbscan", Param: "min_pts", Value: strconv.Itoa(m), Want: "each value once (given twice)"}
		}
	}
	if err := findneighbor.CheckMin("dbscan", "min_cluster_size", o.MinClusterSize, 0); err != nil {
		return err
	}
	if err := findneighbor.CheckRadius("dbscan", "tile_size", o.TileSize, true); err != nil {
		return err
	}
	if o.Counts != nil && len(o.Counts) != n {
		return fmt.Errorf("dbscan: %d precomputed counts for %d points", len(o.Counts), n)
	}
	return findneighbor.CheckMin("dbscan", "workers", o.Workers, 0)
}

// Run is the outcome of Cluster: the shared neighbour counts and one Result
// per MinPts value, in the order given.
type Run struct {
	// Backend is the name of the findneighbor backend that ran.
	Backend string
	// Counts holds the number of other points within ε of each point
	// (stage 1), whether computed or passed in through Options.Counts.
	Counts []uint32
	// CountsReused is true when Counts came from Options.Counts.
	CountsReused bool
	// Build is the time spent building the neighbour index.
	Build time.Duration
	// Stage1 is the time spent counting neighbours (0 when reused).
	Stage1 time.Duration
	// Results holds one clustering per Options.MinPts value.
	Results []Result
}

// Result is the clustering for one minPts value.
type Result struct {
	// MinPts is the minPts value this clustering used.
	MinPts int
	// Labels holds each point's cluster, 0..len(Sizes)−1, or Noise.
	Labels []int32
	// Core reports, for each point, whether it is a core point.
	Core []bool
	// Sizes holds the number of points (core and border) of each cluster.
	Sizes []int
	// CoreCount is the number of core points.
	CoreCount int
	// NoiseCount is the number of points labelled Noise.
	NoiseCount int
	// Dropped is the number of clusters relabelled as noise because they
	// were smaller than MinClusterSize.
	Dropped int
	// Stage2 is the time spent in stage 2 and relabelling.
	Stage2 time.Duration
}

// Cluster runs DBSCAN on the points xyz (interleaved x, y, z float32,
// relative to a local origin; set z to 0 for 2D data) with backend b.
func Cluster(xyz []float32, b findneighbor.Backend, opts Options) (*Run, error) {
	n, err := findneighbor.CheckPoints("dbscan", xyz)
	if err != nil {
		return nil, err
	}
	if err := opts.Validate(n); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, errors.New("dbscan: no backend")
	}
	run := &Run{Backend: b.Name(), Counts: opts.Counts, CountsReused: opts.Counts != nil}
	if n == 0 {
		run.Counts = []uint32{}
		for _, m := range opts.MinPts {
			run.Results = append(run.Results, Result{MinPts: m, Labels: []int32{}, Core: []bool{}, Sizes: []int{}})
		}
		return run, nil
	}

	if opts.TileSize > 0 {
		if err := clusterTiled(xyz, b, opts, run); err != nil {
			return nil, err
		}
		return run, nil
	}

	var stage atomic.Pointer[string]
	var progress func(float64)
	if opts.Progress != nil {
		progress = func(done float64) { opts.Progress(*stage.Load(), done) }
	}
	setStage := func(s string) {
		stage.Store(&s)
		if opts.Progress != nil {
			opts.Progress(s, 0)
		}
	}

	setStage(StageBuild)
	t := time.Now()
	idx, err := b.Build(xyz, float32(opts.Eps), findneighbor.BuildOptions{Workers: opts.Workers, Progress: progress})
	if err != nil {
		return nil, fmt.Errorf("dbscan: %s backend: build index: %w", b.Name(), err)
	}
	defer idx.Close()
	run.Build = time.Since(t)

	if run.Counts == nil {
		setStage(StageCount)
		t = time.Now()
		run.Counts = make([]uint32, n)
		if err := idx.Counts(nil, run.Counts); err != nil {
			return nil, fmt.Errorf("dbscan: %s backend: count neighbours: %w", b.Name(), err)
		}
		run.Stage1 = time.Since(t)
	}

	// scratch maps a stage-2 label (a point index) to a cluster number; it
	// is shared by every minPts value to keep memory at O(N).
	scratch := make([]int32, n)
	for _, m := range opts.MinPts {
		setStage(StageCluster)
		t = time.Now()
		r := Result{MinPts: m, Labels: make([]int32, n), Core: make([]bool, n)}
		r.CoreCount = coreFlags(run.Counts, m, r.Core)
		if r.CoreCount == 0 {
			// No core point: all noise, without another pass over the
			// neighbours.
			for i := range r.Labels {
				r.Labels[i] = Noise
			}
		} else if err := findneighbor.ClusterCores(idx, xyz, r.Core, r.Labels); err != nil {
			return nil, fmt.Errorf("dbscan: %s backend: cluster core points (min_pts %d): %w", b.Name(), m, err)
		}
		if err := r.relabel(scratch, opts.MinClusterSize); err != nil {
			return nil, fmt.Errorf("dbscan: %s backend (min_pts %d): %w", b.Name(), m, err)
		}
		r.Stage2 = time.Since(t)
		run.Results = append(run.Results, r)
	}
	if opts.Progress != nil {
		opts.Progress(StageCluster, 1)
	}
	return run, nil
}
