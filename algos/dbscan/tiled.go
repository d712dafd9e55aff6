package dbscan

import (
	"fmt"
	"slices"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// A tiled DBSCAN (docs/scale.md) gives the same Result as Cluster on the
// whole cloud, tile by tile, with the exact merge of HPDBSCAN (Götz et al.
// 2015) and of ArborX's distributed DBSCAN (Prokopenko et al.): every tile
// holds the points of its box plus a halo of width ε (tile.Grid with halo
// Eps), in the run's one float32 frame and in increasing global index
// order. The kernels are pure functions of one tile, so any scheduler can
// run them (Cluster with Options.TileSize in memory, an out-of-core
// driver, an Apache Beam DoFn):
//
//  1. CountTile: the neighbour counts of the tile's owned points (the halo
//     holds all their neighbours). A point's core flag follows from its
//     count, known only to its owner tile.
//  2. ClusterTile: given the core flag of every point of the tile (owned
//     ones from this tile's counts, halo ones from their owners'), the
//     findneighbor.ClusterCores on the tile; it returns the links of the tile:
//     union edges between the global ids of core points of one tile
//     component, and for each owned border point the core point whose
//     component it joins (its nearest core neighbour's, ties by smaller
//     index, as in memory: all its neighbours are in the tile).
//  3. Merge: one global union-find over the core points, fed every tile's
//     links; each component's root is its smallest core id, so Result
//     numbers clusters exactly as Cluster does (MinClusterSize too).

// CountTile is phase 1 of a tiled DBSCAN on the tile t (halo ≥ eps): it
// returns the number of other points within eps of each owned point of t,
// in the order of t.OwnedIndex(); the same counts as Run.Counts of the
// whole cloud.
func CountTile(t *tile.Points, b findneighbor.Backend, eps float64, bo findneighbor.BuildOptions) ([]uint32, error) {
	c, err := tile.Counts(t, b, eps, bo)
	if err != nil {
		return nil, fmt.Errorf("dbscan: %w", err)
	}
	return c, nil
}

// Links are what phase 2 of one tile hands to the merge, as global ids.
type Links struct {
	// Edges holds pairs of core points of one component of the tile:
	// Edges[2j] and Edges[2j+1] are in the same cluster.
	Edges []int64
	// Border holds pairs (border point, core point) for the owned border
	// points of the tile: Border[2j] joins the cluster of Border[2j+1].
	Border []int64
}

// ClusterTile is phase 2 of a tiled DBSCAN on the tile t (halo ≥ eps):
// given core[i], the core flag of every point of t (owned and halo), it
// returns the tile's links (see Links).
func ClusterTile(t *tile.Points, core []bool, b findneighbor.Backend, eps float64, bo findneighbor.BuildOptions) (*Links, error) {
	if len(core) != t.Len() {
		return nil, fmt.Errorf("dbscan: tile %v: %d core flags for %d points", t.Key, len(core), t.Len())
	}
	if !slices.Contains(core, true) {
		return &Links{}, nil
	}
	idx, err := b.Build(t.XYZ, float32(eps), bo)
	if err != nil {
		return nil, fmt.Errorf("dbscan: tile %v: %s backend: build index: %w", t.Key, b.Name(), err)
	}
	defer idx.Close()
	return clusterTileIndex(t, core, idx, b.Name())
}

// clusterTileIndex is ClusterTile on idx, an index of t's points with
// radius eps, and len(core) = t.Len(): several core flags (one a minPts
// value) share one index.
func clusterTileIndex(t *tile.Points, core []bool, idx findneighbor.Index, backend string) (*Links, error) {
	n := t.Len()
	l := &Links{}
	label := make([]int32, n)
	if err := findneighbor.ClusterCores(idx, t.XYZ, core, label); err != nil {
		return nil, fmt.Errorf("dbscan: tile %v: %s backend: cluster core points: %w", t.Key, backend, err)
	}
	for i, lb := range label {
		switch {
		case lb < 0 || int(lb) >= n:
			continue
		case core[i] && int(lb) != i:
			l.Edges = append(l.Edges, t.ID[lb], t.ID[i])
		case !core[i] && t.Owned[i]:
			l.Border = append(l.Border, t.ID[i], t.ID[lb])
		}
	}
	return l, nil
}

// Merge is the global step of a tiled DBSCAN: a union-find over the core
// points of the whole cloud, whose roots are each component's smallest
// core index, fed the links of every tile in any order. It keeps 5 bytes
// per point (a core flag and one int32), so that an out-of-core run holds
// it for clouds many times its tiles (Result needs 4 more).
type Merge struct {
	core []bool
	// link is, for a core point, its union-find parent; for another
	// point, the core point it joins, or -1.
	link []int32
}

// NewMerge returns the merge for a cloud whose points have the core flags
// core (from the counts of every tile's CountTile).
func NewMerge(core []bool) *Merge {
	m := &Merge{core: core, link: make([]int32, len(core))}
	for i, c := range core {
		m.link[i] = -1
		if c {
			m.link[i] = int32(i)
		}
	}
	return m
}

func (m *Merge) find(i int32) int32 {
	for m.link[i] != i {
		m.link[i] = m.link[m.link[i]]
		i = m.link[i]
	}
	return i
}

// Add merges one tile's links. A link naming a point outside the cloud or
// an edge naming a non-core point is an error (links of another run).
func (m *Merge) Add(l *Links) error {
	n := int64(len(m.core))
	for j := 0; j+1 < len(l.Edges); j += 2 {
		a, b := l.Edges[j], l.Edges[j+1]
		if a < 0 || b < 0 || a >= n || b >= n || !m.core[a] || !m.core[b] {
			return fmt.Errorf("dbscan: merge: edge %d-%d does not join two core points of %d", a, b, n)
		}
		ra, rb := m.find(int32(a)), m.find(int32(b))
		if ra < rb {
			m.link[rb] = ra
		} else {
			m.link[ra] = rb
		}
	}
	for j := 0; j+1 < len(l.Border); j += 2 {
		p, c := l.Border[j], l.Border[j+1]
		if p < 0 || c < 0 || p >= n || c >= n || m.core[p] || !m.core[c] {
			return fmt.Errorf("dbscan: merge: border link %d-%d does not join a border point to a core point of %d", p, c, n)
		}
		m.link[p] = int32(c)
	}
	return nil
}

// Result returns the clustering, exactly as Cluster returns it for minPts
// and minClusterSize on the whole cloud (Stage2 left 0). The labels take
// the merge's memory over: Add and Result must not be called again. The
// relabelling needs 4 bytes a point more, for a moment.
func (m *Merge) Result(minPts, minClusterSize int) (Result, error) {
	// Every core point to its root first, then every border point to its
	// core point's root.
	for i, c := range m.core {
		if c {
			m.link[i] = m.find(int32(i))
		}
	}
	r := Result{MinPts: minPts, Labels: m.link, Core: m.core}
	for i, c := range m.core {
		switch {
		case c:
			r.CoreCount++
		case m.link[i] >= 0:
			r.Labels[i] = m.link[m.link[i]]
		}
	}
	m.link = nil
	if err := r.relabel(make([]int32, len(m.core)), minClusterSize); err != nil {
		return Result{}, fmt.Errorf("dbscan: merge (min_pts %d): %w", minPts, err)
	}
	return r, nil
}

// ClusterTiles is the tiled DBSCAN of n points over the tiles of ts (halo ≥
// opts.Eps), every run's one driver: in memory (Cluster with
// Options.TileSize) and out of core. Phase 1 runs CountTile on each tile
// with tile.Each on b (a tile.Share of the cpu backend, a tile.Pool of
// GPUs) unless counts, the whole cloud's, are given; counted, when not
// nil, gets each tile's counts in tile order (to keep them: in memory as
// Run.Counts, out of core on disk). Phase 2 serves every opts.MinPts
// value from one index per tile, each value with its core flags (a byte a
// point) and its Merge, merged in tile order. The Run has no Counts.
func ClusterTiles(ts tile.Source, n int, b findneighbor.Backend, opts Options, bo findneighbor.BuildOptions, counts []uint32, counted func(t *tile.Points, owned []int32, c []uint32) error) (*Run, error) {
	run := &Run{Backend: b.Name()}
	progress := func(stage string, done float64) {
		if opts.Progress != nil {
			opts.Progress(stage, done)
		}
	}
	cores := make([][]bool, len(opts.MinPts))
	for v := range cores {
		cores[v] = make([]bool, n)
	}
	if counts != nil {
		for v, minPts := range opts.MinPts {
			coreFlags(counts, minPts, cores[v])
		}
	} else {
		t := time.Now()
		err := tile.Each(b, ts.Len(), func(w findneighbor.Backend, k int) (*counted1, error) {
			tl, err := ts.Tile(k)
			if err != nil {
				return nil, err
			}
			c, err := CountTile(tl, w, opts.Eps, bo)
			return &counted1{tl, c}, err
		}, func(k int, c *counted1) error {
			owned := c.t.OwnedIndex()
			for j, i := range owned {
				for v, minPts := range opts.MinPts {
					cores[v][c.t.ID[i]] = uint64(c.counts[j])+1 >= uint64(minPts)
				}
			}
			progress(StageCount, float64(k+1)/float64(ts.Len()))
			if counted != nil {
				return counted(c.t, owned, c.counts)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		run.Stage1 = time.Since(t)
	}
	t := time.Now()
	merges := make([]*Merge, len(opts.MinPts))
	for v := range opts.MinPts {
		merges[v] = NewMerge(cores[v])
	}
	err := LinkTiles(ts, b, merges, func(tl *tile.Points, w findneighbor.Backend) ([]*Links, error) {
		return tileLinks(tl, merges, w, opts.Eps, bo)
	}, func(done float64) { progress(StageCluster, done) })
	if err != nil {
		return nil, err
	}
	// Each value's Stage2: its share of the tiles' pass, and its merge.
	share := time.Since(t) / time.Duration(len(merges))
	for v, m := range merges {
		t := time.Now()
		r, err := m.Result(opts.MinPts[v], opts.MinClusterSize)
		if err != nil {
			return nil, err
		}
		r.Stage2 = share + time.Since(t)
		run.Results = append(run.Results, r)
	}
	progress(StageCluster, 1)
	return run, nil
}

// LinkTiles is phase 2 of a tiled run, the one driver of the tiled
// clusterings that end in a Merge (ClusterTiles; filters.cluster, whose
// every point is core): kernel returns the links of one tile of ts for
// each of merges (nil where it has none), run with tile.Each on b (a
// tile.Share of the cpu backend, a tile.Pool of GPUs); the links are
// merged in tile order, and progress, when not nil, gets the fraction of
// tiles merged.
func LinkTiles(ts tile.Source, b findneighbor.Backend, merges []*Merge, kernel func(t *tile.Points, w findneighbor.Backend) ([]*Links, error), progress func(done float64)) error {
	return tile.Each(b, ts.Len(), func(w findneighbor.Backend, k int) ([]*Links, error) {
		tl, err := ts.Tile(k)
		if err != nil {
			return nil, err
		}
		return kernel(tl, w)
	}, func(k int, links []*Links) error {
		if progress != nil {
			progress(float64(k+1) / float64(ts.Len()))
		}
		for v, l := range links {
			if l == nil {
				continue
			}
			if err := merges[v].Add(l); err != nil {
				return err
			}
		}
		return nil
	})
}

// counted1 is one tile's phase-1 counts.
type counted1 struct {
	t      *tile.Points
	counts []uint32
}

// clusterTiled is Cluster with Options.TileSize > 0: ClusterTiles over
// the tiles tile.Bin cuts in memory, on the cpu backend several tiles at
// a time, each on its share of the workers (tile.Share), keeping the
// counts as run.Counts.
func clusterTiled(xyz []float32, b findneighbor.Backend, opts Options, run *Run) error {
	g, err := tile.GridFor(opts.TileSize, opts.Eps, xyz)
	if err != nil {
		return err
	}
	tiles := tile.Bins(tile.Bin(xyz, g))
	counts := run.Counts // given: phase 1 is skipped
	var keep func(t *tile.Points, owned []int32, c []uint32) error
	if counts == nil {
		run.Counts = make([]uint32, len(xyz)/3)
		keep = func(t *tile.Points, owned []int32, c []uint32) error {
			for j, i := range owned {
				run.Counts[t.ID[i]] = c[j]
			}
			return nil
		}
	}
	r, err := ClusterTiles(tiles, len(xyz)/3, tile.Share(b, opts.Workers, len(tiles)), opts, findneighbor.BuildOptions{Workers: opts.Workers}, counts, keep)
	if err != nil {
		return err
	}
	if counts == nil {
		run.Stage1 = r.Stage1
	}
	run.Results = r.Results
	return nil
}

// tileLinks runs phase 2 on the tile t for the core flags of every merge
// (one a minPts value; merges read only), on one index of t (none where
// no merge has a core point in t): the tile's links for each merge, nil
// where it has none.
func tileLinks(t *tile.Points, merges []*Merge, b findneighbor.Backend, eps float64, bo findneighbor.BuildOptions) ([]*Links, error) {
	var idx findneighbor.Index
	defer func() {
		if idx != nil {
			idx.Close()
		}
	}()
	links := make([]*Links, len(merges))
	core := make([]bool, t.Len())
	for v, m := range merges {
		some := false
		for i, id := range t.ID {
			core[i] = m.core[id]
			some = some || core[i]
		}
		if !some {
			continue
		}
		if idx == nil {
			var err error
			if idx, err = b.Build(t.XYZ, float32(eps), bo); err != nil {
				return nil, fmt.Errorf("dbscan: tile %v: %s backend: build index: %w", t.Key, b.Name(), err)
			}
		}
		l, err := clusterTileIndex(t, core, idx, b.Name())
		if err != nil {
			return nil, err
		}
		links[v] = l
	}
	return links, nil
}
