package tile

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// The neighbour queries of one tile that the algorithms' tile kernels are
// made of, and their in-memory drivers (CountsTiled, MomentsTiled), which
// bin the cloud with Bin and run the tiles with Each: on the cpu backend
// several at a time, each on its share of the workers (Share), or on a
// Spread's backends at once, or one after another.

// Counts returns the number of other points within r of each owned point
// of t, in the order of t.OwnedIndex(): what Index.Counts(nil, ...) on an
// index of the whole cloud stores for them. t's halo must be at least r.
func Counts(t *Points, b findneighbor.Backend, r float64, bo findneighbor.BuildOptions) ([]uint32, error) {
	owned := t.OwnedIndex()
	out := make([]uint32, len(owned))
	if len(owned) == 0 {
		return out, nil
	}
	bo.Reuse = false
	ix, err := b.Build(t.XYZ, float32(r), bo)
	if err != nil {
		return nil, fmt.Errorf("tile %v: %s backend: build index: %w", t.Key, b.Name(), err)
	}
	defer ix.Close()
	// Every point of the tile is counted (halo points too, needlessly, but
	// the index's own points are faster to query than a query set).
	all := make([]uint32, t.Len())
	if err := ix.Counts(nil, all); err != nil {
		return nil, fmt.Errorf("tile %v: %s backend: count neighbours: %w", t.Key, b.Name(), err)
	}
	for j, i := range owned {
		out[j] = all[i]
	}
	return out, nil
}

// coords returns the coordinates of the tile's points pts.
func (p *Points) coords(pts []int32) []float32 {
	q := make([]float32, 0, 3*len(pts))
	for _, i := range pts {
		q = append(q, p.XYZ[3*i:3*i+3]...)
	}
	return q
}

// Moments calls fn with the moments of the tile's points pts (tile
// positions, queried as a query set; nil: the owned points, queried as the
// index's own points), each point's m[j] being what
// Index.Moments(nil, k, ...) on an index of the whole cloud built with
// ε = r stores for it: the moments of its k nearest other points within r
// (k > 0; fewer where it has fewer), or of all its other points within r
// (k = 0). The neighbour sets are exact when t's halo is at least r (and,
// for r = +Inf, when the tile holds the whole cloud). The sums follow the
// backend's order of the tile's points: for the owned points (pts nil)
// they are bit-identical to the whole cloud's on the brute backend, which
// adds in the neighbours' order, and on the cpu backend when bo.Frame is
// the whole cloud's box and t's halo at least findneighbor.TileHalo(r,
// ...), so that the tile's grid has the whole cloud's cells, whole, around
// every owned point (MomentsTiled does both; docs/scale.md). fn is called
// from several goroutines at once (up to bo.Workers), each call with
// points of its own.
func Moments(t *Points, pts []int32, b findneighbor.Backend, r float64, k int, bo findneighbor.BuildOptions, fn func(pts []int32, m []findneighbor.Moment)) error {
	if pts == nil && !slices.Contains(t.Owned, true) {
		return nil
	}
	if len(pts) == 0 && pts != nil {
		return nil
	}
	bo.Reuse = false
	ix, err := b.Build(t.XYZ, float32(r), bo)
	if err != nil {
		return fmt.Errorf("tile %v: %s backend: build index: %w", t.Key, b.Name(), err)
	}
	defer ix.Close()
	if pts == nil {
		// The index's own points (halo points too, needlessly: they are
		// faster to query than a query set), handed on for the owned.
		err := findneighbor.MomentsFunc(ix, k, bo.Workers, func(p []int32, m []findneighbor.Moment) {
			op := make([]int32, 0, len(p))
			om := make([]findneighbor.Moment, 0, len(p))
			for j, i := range p {
				if t.Owned[i] {
					op, om = append(op, i), append(om, m[j])
				}
			}
			if len(op) > 0 {
				fn(op, om)
			}
		})
		if err != nil {
			return fmt.Errorf("tile %v: %s backend: moments: %w", t.Key, b.Name(), err)
		}
		return nil
	}
	m := make([]findneighbor.Moment, len(pts))
	kq := k
	if k > 0 {
		kq = k + 1
	}
	if err := ix.Moments(t.coords(pts), kq, m); err != nil {
		return fmt.Errorf("tile %v: %s backend: moments: %w", t.Key, b.Name(), err)
	}
	for j := range m {
		// Each query finds itself at distance 0 (among its k+1 nearest
		// unless k+1 others coincide with it); its offset and distance are
		// 0 either way, so one less in the count leaves the moments of the
		// others (findneighbor's momentBlocks does the same).
		m[j].N--
	}
	parallel(len(pts), bo.Workers, func(lo, hi int) { fn(pts[lo:hi], m[lo:hi]) })
	return nil
}

// parallel calls fn on chunks of [0, n) from up to nw goroutines (0:
// GOMAXPROCS).
func parallel(n, nw int, fn func(lo, hi int)) {
	if nw <= 0 {
		nw = runtime.GOMAXPROCS(0)
	}
	chunk := max(1024, (n+nw-1)/nw)
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		wg.Go(func() { fn(lo, min(n, lo+chunk)) })
	}
	wg.Wait()
}

// CountsTiled returns for every point of xyz (interleaved x, y, z in the
// run's local frame) the number of other points within r, as
// findneighbor.Counts does, computed on tiles of side size with a halo of
// r, in memory.
func CountsTiled(xyz []float32, b findneighbor.Backend, r, size float64, bo findneighbor.BuildOptions) ([]uint32, error) {
	g, err := GridFor(size, r, xyz)
	if err != nil {
		return nil, err
	}
	out := make([]uint32, len(xyz)/3)
	tiles := Bin(xyz, g)
	err = Each(Share(b, bo.Workers, len(tiles)), len(tiles), func(w findneighbor.Backend, n int) ([]uint32, error) {
		return Counts(tiles[n], w, r, findneighbor.BuildOptions{Workers: bo.Workers})
	}, func(n int, c []uint32) error {
		t := tiles[n]
		for j, i := range t.OwnedIndex() {
			out[t.ID[i]] = c[j]
		}
		if bo.Progress != nil {
			bo.Progress(float64(n+1) / float64(len(tiles)))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MomentsTiled calls fn with the moments of every point of xyz (pts:
// indices into xyz) computed on tiles of side size, in memory: with r > 0
// what findneighbor.MomentsFunc gives on an index of radius r (the k
// nearest within r, or all within r for k = 0), bit for bit, on tiles with
// the halo findneighbor.TileHalo asks for (about 2r), indexed in the whole
// cloud's frame (BuildOptions.Frame);
// with r = 0 what findneighbor.KNearestMomentsFunc gives (the k nearest
// with no distance limit, k > 0), in rounds: a first halo within which a
// typical point has about 2k others (from the XY density), then, for the
// points that found fewer than k within it, the halo doubled, until it
// spans the cloud. A point that found its k nearest within a halo h has
// them all: every point outside its tile is farther than h. fn is called
// as Moments calls it, from the tiles of every backend of a Spread at once.
func MomentsTiled(xyz []float32, b findneighbor.Backend, r float64, k int, size float64, bo findneighbor.BuildOptions, fn func(pts []int32, m []findneighbor.Moment)) error {
	n := len(xyz) / 3
	if n == 0 {
		return nil
	}
	var ids []int32 // the points still to do; nil: all
	relay := func(t *Points, keep func(findneighbor.Moment) bool, short *[]int32, mu *sync.Mutex) func([]int32, []findneighbor.Moment) {
		return func(pts []int32, m []findneighbor.Moment) {
			g := make([]int32, 0, len(pts))
			gm := make([]findneighbor.Moment, 0, len(pts))
			var s []int32
			for j, i := range pts {
				if keep(m[j]) {
					g, gm = append(g, int32(t.ID[i])), append(gm, m[j])
				} else {
					s = append(s, int32(t.ID[i]))
				}
			}
			if len(s) > 0 {
				mu.Lock()
				*short = append(*short, s...)
				mu.Unlock()
			}
			fn(g, gm)
		}
	}
	all := func(findneighbor.Moment) bool { return true }
	if r > 0 {
		frame := findneighbor.BoxOf(xyz)
		g, err := GridFor(size, findneighbor.TileHalo(float32(r), frame.Extent()), xyz)
		if err != nil {
			return err
		}
		bo.Frame = &frame
		tiles := Bin(xyz, g)
		return Each(Share(b, bo.Workers, len(tiles)), len(tiles), func(w findneighbor.Backend, n int) (struct{}, error) {
			return struct{}{}, Moments(tiles[n], nil, w, r, k, bo, relay(tiles[n], all, nil, nil))
		}, none)
	}
	lo, hi := bounds(xyz)
	h, span := KNNHalo(int64(n), lo, hi, k)
	for {
		last := h >= span
		radius := h
		if last {
			// The tiles hold every point: what a point finds is all it has.
			radius = math.Inf(1)
		}
		g, err := RoundGrid(size, h, span)
		if last {
			g = LastGrid(span)
		}
		if err != nil {
			return err
		}
		var short []int32
		var mu sync.Mutex
		keep := func(m findneighbor.Moment) bool { return last || int(m.N) >= k }
		todo := todoTiles(Bin(xyz, g), ids)
		err = Each(Share(b, bo.Workers, len(todo)), len(todo), func(w findneighbor.Backend, n int) (struct{}, error) {
			t := todo[n]
			return struct{}{}, Moments(t.Points, t.pts, w, radius, k, bo, relay(t.Points, keep, &short, &mu))
		}, none)
		if err != nil {
			return err
		}
		// short is in the order tiles finished, a set for the next round.
		if len(short) == 0 {
			return nil
		}
		ids, h = short, min(2*h, span)
	}
}

// none is the merge of Each for kernels whose fn takes their results.
func none(int, struct{}) error { return nil }

// KNNHalo returns the first halo of k-nearest rounds for n points over
// the XY box lo..hi, one within which a typical point has about 2k others
// at the box's mean density, and span, the box's diagonal, beyond which a
// halo holds every point.
func KNNHalo(n int64, lo, hi [2]float64, k int) (h, span float64) {
	span = math.Hypot(hi[0]-lo[0], hi[1]-lo[1])
	h = math.Sqrt(2 * float64(k) * (hi[0] - lo[0]) * (hi[1] - lo[1]) / (math.Pi * float64(n)))
	if !(h > 0) || h > span {
		h = span
	}
	return h, span
}

// LastGrid returns a grid whose tiles each hold every point of a box of
// diagonal span around the origin: the last round of k-nearest rounds.
func LastGrid(span float64) Grid {
	g, _ := NewGrid(2*span+1, span+1)
	return g
}

// RoundGrid returns the grid of a k-nearest round with halo h on tiles of
// side at least size: tiles at least as wide as the halo, so that a point
// lies in at most 9 of them.
func RoundGrid(size, h, span float64) (Grid, error) {
	return NewGrid(max(size, h, span*1e-9, 1e-30), max(h, span*1e-9, 1e-30))
}

// tileTodo is a tile with the positions of the points still to do.
type tileTodo struct {
	*Points
	pts []int32
}

// todoTiles returns the tiles that own points of ids (all when nil), with
// those points' positions.
func todoTiles(tiles []*Points, ids []int32) []tileTodo {
	var want map[int64]bool
	if ids != nil {
		want = make(map[int64]bool, len(ids))
		for _, i := range ids {
			want[int64(i)] = true
		}
	}
	var out []tileTodo
	for _, t := range tiles {
		if want == nil {
			out = append(out, tileTodo{t, nil}) // nil: the owned points
			continue
		}
		var pts []int32
		for i, id := range t.ID {
			if t.Owned[i] && want[id] {
				pts = append(pts, int32(i))
			}
		}
		if len(pts) > 0 {
			out = append(out, tileTodo{t, pts})
		}
	}
	return out
}

// bounds returns the XY bounding box of xyz.
func bounds(xyz []float32) (lo, hi [2]float64) {
	lo = [2]float64{math.Inf(1), math.Inf(1)}
	hi = [2]float64{math.Inf(-1), math.Inf(-1)}
	for i := 0; i+2 < len(xyz); i += 3 {
		for a := range 2 {
			v := float64(xyz[i+a])
			lo[a], hi[a] = min(lo[a], v), max(hi[a], v)
		}
	}
	return lo, hi
}
