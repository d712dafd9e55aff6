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
type LocalKernel func(t *Points, w findneighbor.Backend, bo findneighbor.BuildOptions) (rec []byte, reach []float64, err error)

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
// of tiles with the halo doubled (binning only what they need), and a last
// round on the whole cloud takes the rest.
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
		err := Each(Share(b, bo.Workers, len(tiles)), len(tiles), func(w findneighbor.Backend, k int) (struct{}, error) {
			t := tiles[k]
			rec, reach, err := kernel(t.Points, w, bo)
			if err != nil {
				return struct{}{}, err
			}
			pts := t.pts
			if pts == nil {
				pts = t.OwnedIndex()
			}
			var s []int32
			for _, i := range pts {
				id := t.ID[i]
				if !last && !Holds(reach[i], g.Gap(t.Key, t.XYZ[3*i], t.XYZ[3*i+1]), localHalo(g, todo)) {
					s = append(s, int32(id))
					continue
				}
				copy(out[int(id)*recSize:][:recSize], rec[int(i)*recSize:])
			}
			if len(s) > 0 {
				mu.Lock()
				short = append(short, s...)
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
		h = min(2*h, span)
	}
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
