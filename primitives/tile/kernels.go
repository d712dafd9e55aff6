package tile

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
)

// The neighbour queries of one tile that the algorithms' tile kernels are
// made of, and their in-memory drivers (CountsTiled, MomentsTiled), which
// bin the cloud with Bin and run the tiles with Each: on the cpu backend
// several at a time, each on its share of the workers (Share), or on a
// Pool's backends at once, or one after another.

// Counts returns the number of other points within r of each owned point
// of t, in the order of t.OwnedIndex(): what Index.Counts(nil, ...) on an
// index of the whole cloud stores for them. t's halo must be at least r.
func Counts(t *Points, b findneighbor.Backend, r float64, bo findneighbor.BuildOptions) ([]uint32, error) {
	owned := t.OwnedIndex()
	out := make([]uint32, len(owned))
	if len(owned) == 0 {
		return out, nil
	}
	ix, err := t.index(b, float32(r), bo)
	if err != nil {
		return nil, err
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

// index builds b's index of radius eps over the tile's points, leaving
// t.XYZ as it is (no BuildOptions.Reuse): the start of every kernel.
func (t *Points) index(b findneighbor.Backend, eps float32, bo findneighbor.BuildOptions) (findneighbor.Index, error) {
	bo.Reuse = false
	ix, err := b.Build(t.XYZ, eps, bo)
	if err != nil {
		return nil, fmt.Errorf("tile %v: %s backend: build index: %w", t.Key, b.Name(), err)
	}
	return ix, nil
}

// coords returns the coordinates of the points pts of xyz.
func coords(xyz []float32, pts []int32) []float32 {
	q := make([]float32, 0, 3*len(pts))
	for _, i := range pts {
		q = append(q, xyz[3*i:3*i+3]...)
	}
	return q
}

// Moments calls fn with the moments of the tile's points pts (tile
// positions, queried as a query set; nil: the owned points, queried as the
// index's own points), each point's m[j] being what
// findneighbor.Moments(ix, xyz, nil, k, ...) on an index of the whole cloud built with
// ε = r stores for it: the moments of its k nearest other points within r
// (k > 0; fewer where it has fewer), or of all its other points within r
// (k = 0). The neighbour sets are exact when t's halo is at least r (and,
// for r = +Inf, when the tile holds the whole cloud, or for the points
// whose k nearest lie closer than what the tile holds around them:
// MomentsTiled checks). The brute and cpu
// backends add the k nearest in KNearest's order (distance, then index),
// which the tile's points, in global index order, share with the whole
// cloud, so exact k-nearest sets give the whole cloud's sums to the bit
// (a query set's own point, among its k+1 nearest, adds zeros). All
// within r (k = 0) are added in the backend's order of the tile's points:
// for the owned points (pts nil) the whole cloud's on the brute backend,
// which adds in the neighbours' order, and on the cpu backend when b is
// in the whole cloud's findneighbor.Frame (findneighbor.InFrame) and t's
// halo at least cpu.TileHalo(r, ...), so that the tile's grid
// has the whole cloud's cells, whole, around every owned point; on cuda
// when b is in the whole cloud's frame, box and points (its grid takes
// the whole cloud's cells); and on optix, which adds them in index order
// (MomentsTiled sets all of it; docs/scale.md). fn is called
// from several goroutines at once (up to bo.Workers), each call with
// points of its own.
func Moments(t *Points, pts []int32, b findneighbor.Backend, r float64, k int, bo findneighbor.BuildOptions, fn func(pts []int32, m []findneighbor.Moment)) error {
	if pts == nil && !slices.Contains(t.Owned, true) {
		return nil
	}
	if len(pts) == 0 && pts != nil {
		return nil
	}
	ix, err := t.index(b, float32(r), bo)
	if err != nil {
		return err
	}
	defer ix.Close()
	if pts == nil {
		// The index's own points (halo points too, needlessly: they are
		// faster to query than a query set), handed on for the owned.
		// Their blocks are the callback's own to overwrite: the owned
		// points are moved to the front, no copy made.
		err := findneighbor.MomentsFunc(ix, t.XYZ, k, bo.Workers, func(p []int32, m []findneighbor.Moment) {
			w := 0
			for j, i := range p {
				if t.Owned[i] {
					p[w], m[w] = i, m[j]
					w++
				}
			}
			if w > 0 {
				fn(p[:w], m[:w])
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
	if err := findneighbor.Moments(ix, t.XYZ, coords(t.XYZ, pts), kq, m); err != nil {
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

// Nearest calls fn with the moments of the k nearest of those owned
// points of t whose k nearest among the tile's points
// (findneighbor.KNearestMomentsFarFunc: the cpu backend's kd-tree, a GPU's
// finite-radius rounds) all lie closer than gap(i) (i: the point's
// tile position), and returns the positions of the others. When every
// point that t lacks is farther than gap(i) from point i (Grid.Gap), the
// moments are what Moments gives for a tile holding the whole cloud, to
// the bit (Moments says why): the points t lacks are farther than all of
// its k nearest, ties broken by index as there. far holds, for each
// point of short, the distance of its k-th nearest in t (+Inf where t has
// fewer than k others), no nearer than its k-th nearest in the cloud
// (NewLeftovers takes it so). fn is called as Moments calls it.
func Nearest(t *Points, b findneighbor.Backend, k int, gap func(i int32) float64, bo findneighbor.BuildOptions, fn func(pts []int32, m []findneighbor.Moment)) (short []int32, far []float32, err error) {
	if !slices.Contains(t.Owned, true) {
		return nil, nil, nil
	}
	var mu sync.Mutex
	err = findneighbor.KNearestMomentsFarFunc(b, t.XYZ, k, bo, func(p []int32, m []findneighbor.Moment, kth []float32) {
		w := 0
		var s []int32
		var sf []float32
		for j, i := range p {
			switch {
			case !t.Owned[i]:
			case farWithin(kth[j], gap(i)):
				p[w], m[w] = i, m[j]
				w++
			default:
				s, sf = append(s, i), append(sf, kth[j])
			}
		}
		if len(s) > 0 {
			mu.Lock()
			short, far = append(short, s...), append(far, sf...)
			mu.Unlock()
		}
		if w > 0 {
			fn(p[:w], m[:w])
		}
	})
	if err != nil {
		return nil, nil, fmt.Errorf("tile %v: %s backend: moments: %w", t.Key, b.Name(), err)
	}
	return short, far, nil
}

// farWithin reports whether a k-th nearest distance far, as the index
// computed it in float32, is surely closer than gap: the factor covers
// the float32 roundings of the distances the index compares (a few 2⁻²⁴
// relative) with room to spare, so that every point farther than gap
// compares farther. It is false for far = +Inf (fewer than k found).
func farWithin(far float32, gap float64) bool {
	return float64(far)*(1+haloPad) < gap
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
// the halo cpu.TileHalo asks for (about 2r), indexed in the whole
// cloud's frame (findneighbor.InFrame);
// with r = 0 what findneighbor.KNearestMomentsFunc gives (the k nearest
// with no distance limit, k > 0), in rounds: a first halo within which a
// typical point has about 2k others (from the XY density), then, for the
// points that found fewer than k within it, the halo doubled, until it
// spans the cloud. A point that found its k nearest within a halo h has
// them all: every point outside its tile is farther than h. Later rounds
// bin only the points within the halo of a point still to do (binTodo).
// On the cpu backend the tiles search with no distance limit on kd-trees,
// a point keeping what it found when its k-th nearest lies closer than
// the edge of what its tile holds (Nearest), and the points left go to
// one last round, on the whole cloud's tree.
// The sums are the in-memory ones to the bit on the brute and cpu
// backends (Moments says why) and on the GPU backends (Frame.Points:
// cuda lays a tile's grid out as the whole run's). fn is
// called as Moments calls it, from the tiles of every backend of a Pool
// at once.
func MomentsTiled(xyz []float32, b findneighbor.Backend, r float64, k int, size float64, bo findneighbor.BuildOptions, fn func(pts []int32, m []findneighbor.Moment)) error {
	n := len(xyz) / 3
	if n == 0 {
		return nil
	}
	relay := func(t *Points, keep func(findneighbor.Moment) bool, short *[]int32, mu *sync.Mutex) func([]int32, []findneighbor.Moment) {
		// m is Moments' own to overwrite: the kept moments move to its
		// front.
		return func(pts []int32, m []findneighbor.Moment) {
			g := make([]int32, 0, len(pts))
			gm := m[:0]
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
		g, err := GridFor(size, cpu.TileHalo(float32(r), frame.Extent()), xyz)
		if err != nil {
			return err
		}
		b := findneighbor.InFrame(b, findneighbor.Frame{Box: frame, Points: n})
		tiles := Bin(xyz, g)
		return Each(Share(b, bo.Workers, len(tiles)), len(tiles), func(w findneighbor.Backend, n int) (struct{}, error) {
			return struct{}{}, Moments(tiles[n], nil, w, r, k, bo, relay(tiles[n], all, nil, nil))
		}, none)
	}
	lo, hi := bounds(xyz)
	h, span := KNNHalo(int64(n), lo, hi, k)
	// tree: on the cpu backend (findneighbor.PlainKNN) each tile searches
	// its points' k nearest with no distance limit on a kd-tree, faster
	// than a radius grid there, and a point keeps them when they lie
	// closer than the edge of what its tile holds (Nearest): most points
	// do, and the few left (by the halo's edge, and isolated points,
	// whose k nearest may lie far off in Z, where a wider halo helps
	// little) go straight to the last round.
	tree := findneighbor.PlainKNN(b)
	var todo []bool // the points still to do; nil: all
	for {
		last := h >= span
		radius := h
		if last || tree {
			// The last round's tile holds every point: what a point
			// finds is all it has.
			radius = math.Inf(1)
		}
		g, err := RoundGrid(size, h, span)
		if err != nil {
			return err
		}
		var short []int32
		var mu sync.Mutex
		keep := func(m findneighbor.Moment) bool {
			// In a round with a finite radius h, a point that found k
			// within it has them all: its tile holds every point within h.
			return last || int(m.N) >= k
		}
		var todoT []tileTodo
		if last {
			todoT = whole(xyz, todo)
		} else {
			todoT = binTodo(xyz, g, todo)
		}
		err = Each(Share(b, bo.Workers, len(todoT)), len(todoT), func(w findneighbor.Backend, n int) (struct{}, error) {
			t := todoT[n]
			if !tree || last {
				return struct{}{}, Moments(t.Points, t.pts, w, radius, k, bo, relay(t.Points, keep, &short, &mu))
			}
			gap := func(i int32) float64 { return g.Gap(t.Key, t.XYZ[3*i], t.XYZ[3*i+1]) }
			s, _, err := Nearest(t.Points, w, k, gap, bo, relay(t.Points, all, nil, nil))
			mu.Lock()
			for _, i := range s {
				short = append(short, int32(t.ID[i]))
			}
			mu.Unlock()
			return struct{}{}, err
		}, none)
		if err != nil {
			return err
		}
		if len(short) == 0 {
			return nil
		}
		// short is in the order tiles finished, a set for the next round.
		todo = markTodo(todo, n, short)
		h = min(2*h, span)
		if tree {
			h = span
		}
	}
}

// markTodo returns the points still to do of n, short (in any order), in
// todo's storage when it has some (nil: a new slice).
func markTodo(todo []bool, n int, short []int32) []bool {
	if todo == nil {
		todo = make([]bool, n)
	} else {
		clear(todo)
	}
	for _, i := range short {
		todo[i] = true
	}
	return todo
}

// whole returns a single tile holding every point of xyz, with the
// positions of the points to do (todo[i]; nil: all): the last round of
// k-nearest rounds.
func whole(xyz []float32, todo []bool) []tileTodo {
	n := len(xyz) / 3
	t := &Points{XYZ: xyz, ID: make([]int64, n), Owned: make([]bool, n)}
	var pts []int32
	for i := range n {
		t.ID[i], t.Owned[i] = int64(i), true
		if todo != nil && todo[i] {
			pts = append(pts, int32(i))
		}
	}
	return []tileTodo{{t, pts}}
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

// LastGrid returns a grid of one tile (Centred) that holds every point of
// a box of diagonal span around the origin: the last round of k-nearest
// rounds.
func LastGrid(span float64) Grid {
	g, _ := NewGrid(2*span+1, span+1)
	g.Centred = true
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

// binTodo returns the tiles of g that own points still to do (todo[i];
// every point when todo is nil), each with those points' positions (nil:
// all its owned points), and how far around each of those points its
// tile holds every point of the cloud (in XY, hence in XYZ). With todo, it
// bins only the points within g.Reach of a point still to do (near), not
// the whole cloud: every point of the cloud within g.Halo of a point to
// do is then in its tile. Without, the tiles hold the whole cloud's
// points of their boxes widened by g.Reach (Grid.Gap says how far each
// point sees).
func binTodo(xyz []float32, g Grid, todo []bool) []tileTodo {
	if todo == nil {
		tiles := Bin(xyz, g)
		out := make([]tileTodo, len(tiles))
		for n, t := range tiles {
			out[n] = tileTodo{t, nil}
		}
		return out
	}
	sub := near(xyz, todo, g.Reach)
	var out []tileTodo
	for _, t := range Bin(coords(xyz, sub), g) {
		var pts []int32
		for j, s := range t.ID {
			id := sub[s]
			t.ID[j] = int64(id)
			if t.Owned[j] && todo[id] {
				pts = append(pts, int32(j))
			}
		}
		if len(pts) > 0 {
			out = append(out, tileTodo{t, pts})
		}
	}
	return out
}

// near returns, in increasing order, the points of xyz that Near holds
// near the points to do (todo[i]) at d.
func near(xyz []float32, todo []bool, d float64) []int32 {
	lo, hi := bounds(xyz)
	var pts []float32
	for i, t := range todo {
		if t {
			pts = append(pts, xyz[3*i:3*i+3]...)
		}
	}
	nr := NewNear(lo, hi, len(todo), pts, d)
	rs := par.Ranges(len(todo), par.Grain)
	parts := make([][]int32, len(rs))
	par.For(rs, func(k, from, to int) {
		var p []int32
		for i := from; i < to; i++ {
			if nr.Holds(xyz[3*i], xyz[3*i+1]) {
				p = append(p, int32(i))
			}
		}
		parts[k] = p
	})
	return slices.Concat(parts...)
}

// Near tells which points lie near the points still to do of a round:
// every point whose X and Y both lie within d of one of them, and some a
// little farther, those of the cells (of side at least d/4) within d of a
// cell that holds one. A superset serves the rounds, which need every
// point within d and gain nothing from leaving out the few beyond; it
// takes time linear in the points and cells, where testing every nearby
// point to do cost a pass over them for each point (hag's rounds).
type Near struct {
	lo     [2]float64
	side   float64
	ni, nj int
	held   []bool // the cells near a point to do
}

// NewNear returns the Near of the points to do todo (interleaved x, y, z)
// at d, among n points in the XY box lo..hi (points beyond it count as on
// its edge).
func NewNear(lo, hi [2]float64, n int, todo []float32, d float64) *Near {
	// Cells of side at least d/4 over the XY box, at most about one per
	// point; a cell is near when a cell within r of it, in both axes,
	// holds a point to do.
	side := max(d/4, math.Sqrt((hi[0]-lo[0])*(hi[1]-lo[1])/float64(max(n, 1))), 1e-30)
	nr := &Near{lo: lo, side: side}
	nr.ni = int(min((hi[0]-lo[0])/side, float64(max(n, 1)))) + 1
	nr.nj = int(min((hi[1]-lo[1])/side, float64(max(n, 1)))) + 1
	r := int(min(d/side, float64(max(nr.ni, nr.nj)))) + 1
	held := make([]bool, nr.ni*nr.nj)
	for i := 0; i+2 < len(todo); i += 3 {
		held[nr.cell(todo[i], todo[i+1])] = true
	}
	// Dilate by r along rows, then along columns (running counts).
	dilate := func(src []bool, n, stride, lines, step int) []bool {
		dst := make([]bool, len(src))
		for l := range lines {
			base := l * step
			count := 0
			for c := range min(r, n) {
				if src[base+c*stride] {
					count++
				}
			}
			for c := range n {
				if c+r < n && src[base+(c+r)*stride] {
					count++
				}
				if c-r-1 >= 0 && src[base+(c-r-1)*stride] {
					count--
				}
				dst[base+c*stride] = count > 0
			}
		}
		return dst
	}
	nr.held = dilate(dilate(held, nr.ni, 1, nr.nj, nr.ni), nr.nj, nr.ni, nr.ni, 1)
	return nr
}

// cell returns the index of the cell of (x, y).
func (nr *Near) cell(x, y float32) int {
	at := func(v float64, a, n int) int {
		return int(max(0, min(float64(n-1), math.Floor((v-nr.lo[a])/nr.side))))
	}
	return at(float64(y), 1, nr.nj)*nr.ni + at(float64(x), 0, nr.ni)
}

// Holds reports whether the point (x, y) lies near the points to do.
func (nr *Near) Holds(x, y float32) bool { return nr.held[nr.cell(x, y)] }

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
