// Package tile cuts a point cloud into square tiles with a halo, for exact
// tiled runs of neighbour-based algorithms (docs/scale.md): each tile owns
// the points of its box and sees, besides them, the points within a halo
// width of the box (its halo points), so that a kernel run on the tile finds
// every neighbour of its owned points. It knows no algorithm: the kernels
// live in the algorithms' packages (dbscan.CountTile, ...).
//
// Tiles cut the XY plane of the run's ONE float32 local frame (the in-memory
// run's, core.Cloud.Local of the whole cloud), with Z unbounded, as LiDAR
// tiles are cut: tile (I, J) owns the points with I·Size ≤ x < (I+1)·Size
// and J·Size ≤ y < (J+1)·Size, x and y being the float32 local coordinates.
// A tile lists its points in increasing global index order, so that an
// index built on them breaks ties by index as the in-memory index does.
package tile

import (
	"fmt"
	"math"
	"slices"

	"github.com/pctk/pctk/internal/par"
)

// haloPad widens every halo by this fraction: a pair that a float32
// distance test puts within r may be up to a few float32 roundings (2⁻²²
// relative) farther apart in exact arithmetic, so the halo holds every
// point that any backend counts within r of an owned point. Extra halo
// points never change a kernel's answer; missing ones would.
const haloPad = 1e-5

// Key names a tile: its column I and row J.
type Key struct{ I, J int32 }

// String returns "I_J".
func (k Key) String() string { return fmt.Sprintf("%d_%d", k.I, k.J) }

// Compare orders keys by row, then column.
func (k Key) Compare(o Key) int {
	if k.J != o.J {
		return int(k.J) - int(o.J)
	}
	return int(k.I) - int(o.I)
}

// Grid is a tiling of the XY plane: square tiles of side Size from the
// local origin, each seeing the points within Halo of its box.
type Grid struct {
	Size float64
	// Halo is the halo width asked for; Reach, slightly more, is the width
	// the tiles take (haloPad).
	Halo, Reach float64
	// Centred puts the origin at the centre of tile (0, 0) instead of its
	// corner: a run whose local origin is its centre then fits one tile
	// of side at least twice its farthest coordinate (Centre), where
	// tiles from the origin would cut it in four, each holding most of the
	// others' points as its halo.
	Centred bool
}

// Centre centres g (Centred) when one tile of g then holds every point
// whose XY coordinates lie in [lo, hi], and reports whether it did.
func (g *Grid) Centre(lo, hi [2]float64) bool {
	g.Centred = max(math.Abs(lo[0]), math.Abs(lo[1]), math.Abs(hi[0]), math.Abs(hi[1])) < g.Size/2
	return g.Centred
}

// SizeError reports a tile size or halo that cannot tile a cloud.
type SizeError struct {
	What  string // "tile size", "halo"
	Value float64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("tile: %s %g: want a finite value > 0 (halo ≥ 0)", e.What, e.Value)
}

// NewGrid returns the grid of tiles of side size with halo width halo.
func NewGrid(size, halo float64) (Grid, error) {
	if !(size > 0) || math.IsInf(size, 0) {
		return Grid{}, &SizeError{"tile size", size}
	}
	if !(halo >= 0) || math.IsInf(halo, 0) {
		return Grid{}, &SizeError{"halo", halo}
	}
	return Grid{Size: size, Halo: halo, Reach: halo * (1 + haloPad)}, nil
}

// maxCell bounds the tile columns and rows a grid may use (Covers): far
// inside int32, so that ranges of keys and loops over them never overflow
// and no tile is pinned at the int32 limits by cell's clamp.
const maxCell = 1 << 30

// SpanError reports a cloud too wide for a grid: a tile size so small
// for its coordinates that tiles would lie more than 2³⁰ from the origin.
type SpanError struct {
	Size   float64 // the tile size
	Widest float64 // the largest |X| or |Y| to tile, halo included
}

func (e *SpanError) Error() string {
	return fmt.Sprintf("tile: tile size %g is too small for coordinates up to %g (more than 2^30 tiles from the origin); want at least %g", e.Size, e.Widest, e.Widest/(maxCell-1))
}

// Covers checks that the grid can tile points whose XY coordinates lie in
// [lo, hi]: every tile they touch, halo included, has a column and row
// within ±2³⁰. A grid that does not would pin far tiles to the same keys.
func (g Grid) Covers(lo, hi [2]float64) error {
	widest := max(math.Abs(lo[0]), math.Abs(lo[1]), math.Abs(hi[0]), math.Abs(hi[1])) + g.Reach
	if widest/g.Size < maxCell-1 {
		return nil
	}
	return &SpanError{Size: g.Size, Widest: widest}
}

// GridFor is NewGrid for the points xyz (interleaved x, y, z): it also
// checks that the grid covers their XY bounds (Covers).
func GridFor(size, halo float64, xyz []float32) (Grid, error) {
	g, err := NewGrid(size, halo)
	if err != nil || len(xyz) < 3 {
		return g, err
	}
	lo, hi := bounds(xyz)
	return g, g.Covers(lo, hi)
}

// cell returns the tile column (or row) of coordinate v.
func (g Grid) cell(v float64) int32 {
	v /= g.Size
	if g.Centred {
		v += 0.5
	}
	c := math.Floor(v)
	return int32(max(math.MinInt32, min(math.MaxInt32, c)))
}

// Owner returns the tile that owns the point (x, y).
func (g Grid) Owner(x, y float32) Key {
	return Key{g.cell(float64(x)), g.cell(float64(y))}
}

// Box returns the tile's owned box, lo inclusive, hi exclusive.
func (g Grid) Box(k Key) (lo, hi [2]float64) {
	i, j := float64(k.I), float64(k.J)
	if g.Centred {
		i, j = i-0.5, j-0.5
	}
	lo = [2]float64{i * g.Size, j * g.Size}
	return lo, [2]float64{lo[0] + g.Size, lo[1] + g.Size}
}

// Touch calls fn for every tile that holds the point (x, y), as owned or
// halo point: the tiles whose box widened by Reach contains it.
func (g Grid) Touch(x, y float32, fn func(Key)) {
	x0, x1 := g.cell(float64(x)-g.Reach), g.cell(float64(x)+g.Reach)
	y0, y1 := g.cell(float64(y)-g.Reach), g.cell(float64(y)+g.Reach)
	for j := y0; j <= y1; j++ {
		for i := x0; i <= x1; i++ {
			fn(Key{i, j})
		}
	}
}

// Gap returns how far the point (x, y) is inside tile k's box widened by
// Reach: every point outside that box is farther than Gap from it (in XY,
// hence in XYZ). It is negative for points outside the widened box.
func (g Grid) Gap(k Key, x, y float32) float64 {
	lo, hi := g.Box(k)
	gx := min(float64(x)-(lo[0]-g.Reach), (hi[0]+g.Reach)-float64(x))
	gy := min(float64(y)-(lo[1]-g.Reach), (hi[1]+g.Reach)-float64(y))
	return min(gx, gy)
}

// Points are the points of one tile, the input of the tile kernels: owned
// and halo points together, in increasing global index order.
type Points struct {
	Key Key
	// XYZ holds the points' float32 coordinates in the run's local frame,
	// interleaved x, y, z.
	XYZ []float32
	// ID holds each point's global index (its index in the whole cloud, or
	// among the points that take part).
	ID []int64
	// Owned reports which points the tile owns; the others are halo points.
	Owned []bool
}

// Source gives the tiles of a run one at a time, by index: cut in memory
// (Bins) or stored on disk (Store.Source), so that one driver serves
// both (dbscan.ClusterTiles).
type Source interface {
	Len() int
	Tile(k int) (*Points, error)
}

// Bins are tiles cut in memory (Bin), a Source.
type Bins []*Points

// Len returns the number of tiles.
func (b Bins) Len() int { return len(b) }

// Tile returns tile k.
func (b Bins) Tile(k int) (*Points, error) { return b[k], nil }

// Len returns the number of points of the tile.
func (p *Points) Len() int { return len(p.ID) }

// OwnedIndex returns the tile positions of the owned points, in order.
func (p *Points) OwnedIndex() []int32 {
	var out []int32
	for i, o := range p.Owned {
		if o {
			out = append(out, int32(i))
		}
	}
	return out
}

// Bin cuts the points xyz (interleaved x, y, z in the run's local frame;
// point i has global index i) into the tiles of g, in memory, and returns
// the tiles that own at least one point, in key order. Tiles that hold only
// halo points are left out: they own nothing to compute. g must cover the
// points (GridFor, Covers). It runs on every core: each range of points
// counts its points per tile, then copies them to its own place in each
// tile, after the earlier ranges', so the tiles list their points in
// increasing index order whatever the number of cores.
func Bin(xyz []float32, g Grid) []*Points {
	n := len(xyz) / 3
	if n == 0 {
		return nil
	}
	rs := par.Ranges(n, par.Grain)
	// A dense table of the owners' key range: slot of each key.
	los, his := make([]Key, len(rs)), make([]Key, len(rs))
	par.For(rs, func(r, from, to int) {
		l := g.Owner(xyz[3*from], xyz[3*from+1])
		h := l
		for i := from; i < to; i++ {
			k := g.Owner(xyz[3*i], xyz[3*i+1])
			l = Key{min(l.I, k.I), min(l.J, k.J)}
			h = Key{max(h.I, k.I), max(h.J, k.J)}
		}
		los[r], his[r] = l, h
	})
	lo, hi := los[0], his[0]
	for r := range rs {
		lo = Key{min(lo.I, los[r].I), min(lo.J, los[r].J)}
		hi = Key{max(hi.I, his[r].I), max(hi.J, his[r].J)}
	}
	ni, nj := int(hi.I-lo.I)+1, int(hi.J-lo.J)+1
	if ni*nj > 4*n+1024 {
		return binSparse(xyz, g)
	}
	slot := func(k Key) int {
		if k.I < lo.I || k.I > hi.I || k.J < lo.J || k.J > hi.J {
			return -1
		}
		return int(k.J-lo.J)*ni + int(k.I-lo.I)
	}
	// Each point's owner slot, then the tiles that own points, numbered
	// in slot order (key order) in tileOf (-1: owns nothing).
	own := make([]int32, n)
	par.For(rs, func(_, from, to int) {
		for i := from; i < to; i++ {
			own[i] = int32(slot(g.Owner(xyz[3*i], xyz[3*i+1])))
		}
	})
	tileOf := make([]int32, ni*nj)
	for _, s := range own {
		tileOf[s] = 1
	}
	nt := 0
	for s, o := range tileOf {
		tileOf[s] = -1
		if o != 0 {
			tileOf[s] = int32(nt)
			nt++
		}
	}
	if len(rs)*nt > n {
		rs = [][2]int{{0, n}} // tiles of a point or two: counts per range would outweigh the points
	}
	// each calls fn(i, t, owned) for every tile t that holds point i.
	each := func(from, to int, fn func(i int, t int32, owned bool)) {
		for i := from; i < to; i++ {
			x, y := float64(xyz[3*i]), float64(xyz[3*i+1])
			x0, x1 := g.cell(x-g.Reach), g.cell(x+g.Reach)
			y0, y1 := g.cell(y-g.Reach), g.cell(y+g.Reach)
			if x0 == x1 && y0 == y1 {
				fn(i, tileOf[own[i]], true) // inside its tile, away from the halo: the common case
				continue
			}
			for j := y0; j <= y1; j++ {
				for k := x0; k <= x1; k++ {
					if s := slot(Key{k, j}); s >= 0 && tileOf[s] >= 0 {
						fn(i, tileOf[s], s == int(own[i]))
					}
				}
			}
		}
	}
	// Count per range and tile; each range's place in each tile follows
	// the earlier ranges'.
	at := make([][]int32, len(rs))
	par.For(rs, func(r, from, to int) {
		c := make([]int32, nt)
		each(from, to, func(_ int, t int32, _ bool) { c[t]++ })
		at[r] = c
	})
	tiles := make([]*Points, nt)
	for s, t := range tileOf {
		if t < 0 {
			continue
		}
		m := int32(0)
		for r := range rs {
			at[r][t], m = m, m+at[r][t]
		}
		k := Key{lo.I + int32(s%ni), lo.J + int32(s/ni)}
		tiles[t] = &Points{Key: k, XYZ: make([]float32, 3*m), ID: make([]int64, m), Owned: make([]bool, m)}
	}
	par.For(rs, func(r, from, to int) {
		next := at[r]
		each(from, to, func(i int, t int32, owned bool) {
			p, j := tiles[t], next[t]
			copy(p.XYZ[3*j:3*j+3], xyz[3*i:3*i+3])
			p.ID[j], p.Owned[j] = int64(i), owned
			next[t]++
		})
	})
	return tiles
}

// binSparse is Bin for tiles spread far apart (a key range much larger
// than the points), with a map of the tiles.
func binSparse(xyz []float32, g Grid) []*Points {
	n := len(xyz) / 3
	owners := map[Key]*Points{}
	for i := range n {
		k := g.Owner(xyz[3*i], xyz[3*i+1])
		if owners[k] == nil {
			owners[k] = &Points{Key: k}
		}
	}
	for i := range n {
		x, y := xyz[3*i], xyz[3*i+1]
		own := g.Owner(x, y)
		g.Touch(x, y, func(k Key) {
			t := owners[k]
			if t == nil {
				return
			}
			t.XYZ = append(t.XYZ, xyz[3*i:3*i+3]...)
			t.ID = append(t.ID, int64(i))
			t.Owned = append(t.Owned, k == own)
		})
	}
	tiles := make([]*Points, 0, len(owners))
	for _, t := range owners {
		tiles = append(tiles, t)
	}
	slices.SortFunc(tiles, func(a, b *Points) int { return a.Key.Compare(b.Key) })
	return tiles
}

// MinSizeHalos is the fewest halo widths a tile's side given by the user
// may span: a narrower tile holds more halo than points of its own, and
// its work grows as (1 + 2·halo/size)².
const MinSizeHalos = 2

// minTileBound is the number of tiles CheckSize allows whatever the
// number of points.
const minTileBound = 1 << 16

// SmallError reports a tile size too small to be useful (CheckSize): a
// mistyped --tile-size (0.001 for 1000) would run for minutes.
type SmallError struct {
	Size float64 // the tile size given
	Min  float64 // the smallest size CheckSize accepts
	Why  string  // what it is too small for
}

func (e *SmallError) Error() string {
	return fmt.Sprintf("tile: tile size %g is too small %s; want at least %.3g", e.Size, e.Why, e.Min)
}

// CheckSize checks a tile size chosen by the user for n points whose XY
// coordinates (in the run's local frame) lie in [lo, hi], with tiles
// seeing halo around them: the side must span MinSizeHalos halos, and the
// tiles over the bounds must number no more than the points (or
// minTileBound, when more). It returns a *SmallError naming the smallest
// size that passes.
func CheckSize(size, halo float64, lo, hi [2]float64, n int64) error {
	if least := MinSizeHalos * halo; size < least {
		return &SmallError{size, least, fmt.Sprintf("for the neighbour reach %g (the tiles' halo: a tile must span %d of them)", halo, MinSizeHalos)}
	}
	w, h := max(hi[0]-lo[0], 0), max(hi[1]-lo[1], 0)
	bound := float64(max(n, minTileBound))
	if (math.Floor(w/size)+1)*(math.Floor(h/size)+1) <= bound {
		return nil
	}
	// The least side s with (w/s + 1)(h/s + 1) ≤ bound, rounded up.
	a := bound - 1
	least := (w + h + math.Sqrt((w+h)*(w+h)+4*a*w*h)) / (2 * a)
	return &SmallError{size, least * 1.001, fmt.Sprintf("for %d points over %.4g × %.4g: more tiles than points", n, w, h)}
}
