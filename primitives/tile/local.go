package tile

import (
	"math"
	"sync"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// A LocalKernel computes the outputs of a local stage on the points of a
// tile (owned and halo points, in increasing global index order) on the
// backend w: rec holds size bytes for each point of t, in t's order, and
// reach[i] a distance (XY, or XYZ) such that point i's outputs depend only
// on the points within reach[i] of it and on their order. A value whose
// reach the tile holds is the value a run on the whole cloud gives, to the
// bit; the others are computed again on wider tiles (LocalTiled). The
// kernel must use bo (its Frame is the whole run's box).
//
// need lists, in increasing order, the positions in t of the points whose
// records and reaches are used (the owned points still to do); the kernel
// may leave the others' unset (any bytes, any reach): a stage whose
// per-point work is independent computes only those.
type LocalKernel func(t *Points, need []int32, w findneighbor.Backend, bo findneighbor.BuildOptions) (rec []byte, reach []float64, err error)

// Holds reports whether a tile holds every point within reach of a point
// at gap (Grid.Gap) inside it, whose points within halo all are there: a
// reach computed in float32 is widened as farWithin widens a distance.
func Holds(reach, gap, halo float64) bool {
	return !math.IsNaN(reach) && reach*(1+haloPad) < min(gap, halo)
}

// LocalTiled runs kernel on tiles of side size over the points xyz, in
// memory, and returns the size-byte records of every point, in order: what
// the kernel gives on the whole cloud, byte for byte. The first tiles take
// the halo halo; the points whose reach a tile does not hold go to rounds
// of tiles of wider halos (NextHalo; binning only what they need), and a
// last round on the whole cloud takes the rest.
func LocalTiled(xyz []float32, b findneighbor.Backend, size, halo float64, recSize int, bo findneighbor.BuildOptions, kernel LocalKernel) ([]byte, error) {
	n := len(xyz) / 3
	out := make([]byte, n*recSize)
	if n == 0 {
		return out, nil
	}
	frame := findneighbor.BoxOf(xyz)
	b = findneighbor.InFrame(b, findneighbor.Frame{Box: frame, Points: n})
	lo, hi := bounds(xyz)
	span := math.Hypot(hi[0]-lo[0], hi[1]-lo[1])
	h := max(halo, span*1e-9, 1e-30)
	var todo []bool // the points still to do; nil: all
	for round := 0; ; round++ {
		last := h >= span
		var tiles []tileTodo
		var g Grid
		if last {
			tiles = whole(xyz, todo)
		} else {
			var err error
			if g, err = GridFor(max(size, h), h, xyz); err != nil {
				return nil, err
			}
			tiles = binTodo(xyz, g, todo)
		}
		var mu sync.Mutex
		var short []int32
		var shortReach []float64
		err := Each(Share(b, bo.Workers, len(tiles)), len(tiles), func(w findneighbor.Backend, k int) (struct{}, error) {
			t := tiles[k]
			pts := t.pts
			if pts == nil {
				pts = t.OwnedIndex()
			}
			rec, reach, err := kernel(t.Points, pts, w, bo)
			if err != nil {
				return struct{}{}, err
			}
			var s []int32
			var sr []float64
			for _, i := range pts {
				id := t.ID[i]
				if !last && !Holds(reach[i], g.Gap(t.Key, t.XYZ[3*i], t.XYZ[3*i+1]), localHalo(g, todo)) {
					s, sr = append(s, int32(id)), append(sr, reach[i])
					continue
				}
				copy(out[int(id)*recSize:][:recSize], rec[int(i)*recSize:])
			}
			if len(s) > 0 {
				mu.Lock()
				short, shortReach = append(short, s...), append(shortReach, sr...)
				mu.Unlock()
			}
			return struct{}{}, nil
		}, none)
		if err != nil {
			return nil, err
		}
		if bo.Progress != nil {
			bo.Progress(1 - float64(len(short))/float64(n))
		}
		if len(short) == 0 {
			return out, nil
		}
		todo = markTodo(todo, n, short)
		h = NextHalo(h, span, shortReach)
	}
}

// NextHalo returns the halo of the round after one of halo h whose points
// still to do had, on its tiles, the reaches reach: twice h at least, and
// enough to hold the farthest finite reach (a tile's reach of a point is
// seldom less than the whole cloud's: fewer points, farther neighbours),
// so that one round settles most; span (the last round, the whole cloud)
// at most. Doubling alone took seven rounds for hag on a street, whose
// points inside buildings reach ground some metres away.
func NextHalo(h, span float64, reach []float64) float64 {
	next := 2 * h
	for _, r := range reach {
		if !math.IsInf(r, 1) && !math.IsNaN(r) {
			next = max(next, r*(1+2*haloPad))
		}
	}
	return min(next, span)
}

// localHalo is how far around a point to do a tile of g surely holds every
// point: the whole widened box when every point was binned (todo nil),
// else the halo binTodo binned around the points to do.
func localHalo(g Grid, todo []bool) float64 {
	if todo == nil {
		return math.Inf(1)
	}
	return g.Halo
}
