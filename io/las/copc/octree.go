package copc

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/pctk/pctk/core"
)

// Parameters of the octree a writer builds, as untwine (and so PDAL's
// writers.copc) chooses them: untwine/Common.hpp CellCount,
// epf/EpfTypes.hpp MaxPointsPerNode, bu/Processor.cpp MinimumPoints and
// MinimumTotalPoints.
const (
	// cellCount is the number of grid cells across a node, which sets the
	// spacing: the root's is its side / cellCount.
	cellCount = 128
	// maxLeafPoints is the most points a leaf holds before it splits.
	maxLeafPoints = 100_000
	// minChildPoints: a child with fewer points moves whole into its parent.
	minChildPoints = 100
	// minTotalPoints: children holding fewer points in all move whole into
	// their parent.
	minTotalPoints = 1500
	// buildLevels is the depth of the grid the points are sorted on; no
	// leaf lies deeper. 3·21 bits fill a uint64 Morton code.
	buildLevels = 21
)

// octreeParams are the builder's thresholds; tests shrink them to get
// deep trees from few points.
type octreeParams struct {
	maxLeaf, minChild, minTotal int
	// cells is the number of grid cells across a node (cellCount).
	cells int
}

var defaultParams = octreeParams{maxLeafPoints, minChildPoints, minTotalPoints, cellCount}

// node is a node of an octree being built.
type node struct {
	key      Key
	pts      []int32 // the points the node keeps, indices into the cloud
	children []*node // non-nil children only
}

// cubeFor returns the centre and half size of the root cube for points
// within b, as untwine chooses it: centred on the box, with the box's
// longest side, at least minSide. The half size is widened until the cube
// readers compute, centre ± half size (Info.Cube), holds the box despite
// rounding.
func cubeFor(b core.Bounds, minSide float64) (center [3]float64, halfsize float64) {
	halfsize = max(b.Max[0]-b.Min[0], b.Max[1]-b.Min[1], b.Max[2]-b.Min[2], minSide) / 2
	center = b.Center()
	for k := 0; k < 3; {
		if center[k]-halfsize > b.Min[k] || center[k]+halfsize < b.Max[k] {
			halfsize = math.Nextafter(halfsize, math.Inf(1))
			k = 0
			continue
		}
		k++
	}
	return center, halfsize
}

// buildOctree arranges the points xyz (x, y, z interleaved) in an octree
// over cube the way untwine does (bu/Processor.cpp): points go to leaves
// of at most maxLeaf points; then, from the deepest level up, each parent
// takes from its children a spatially even sample: the children's points
// in random order, each taken when its cell of a grid over the parent
// (cells spacing/√3 wide, so two taken points are at least about the
// level's spacing apart) is still empty. The points a parent does not take
// stay in the child. Children with fewer than minChild points, or all
// children when they hold fewer than minTotal in all, move up whole. So
// the nodes down to any level hold a fair thinning of the cloud. The
// random order is seeded from each node's key, so output is reproducible.
func buildOctree(xyz []float64, cube core.Bounds, prm octreeParams, workers int) *node {
	n := len(xyz) / 3
	codes := make([]uint64, n)
	order := make([]int32, n)
	var wg sync.WaitGroup
	step := (n + max(workers, 1) - 1) / max(workers, 1)
	for lo := 0; lo < n; lo += step {
		wg.Go(func() {
			for i := lo; i < min(lo+step, n); i++ {
				p := [3]float64{xyz[3*i], xyz[3*i+1], xyz[3*i+2]}
				k := keyAt(p, cube, buildLevels)
				codes[i], order[i] = morton(uint32(k.X), uint32(k.Y), uint32(k.Z)), int32(i)
			}
		})
	}
	wg.Wait()
	radixSort(codes, order)
	root := split(RootKey, order, codes, prm.maxLeaf)
	b := &builder{xyz: xyz, cube: cube, prm: prm}
	b.sampleTree(root, workers)
	prune(root)
	sortPoints(root, n)
	return root
}

// radixSort sorts codes, 63-bit Morton codes, and order with them, stably
// (so points of one cell stay in index order): four passes of 16 bits,
// each from one pair of slices into the other, so that the result ends in
// the caller's slices.
func radixSort(codes []uint64, order []int32) {
	n := len(codes)
	c2, o2 := make([]uint64, n), make([]int32, n)
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count[:])
		for _, c := range codes {
			count[c>>shift&0xffff]++
		}
		sum := 0
		for i, k := range count {
			count[i] = sum
			sum += k
		}
		for i, c := range codes {
			d := c >> shift & 0xffff
			c2[count[d]], o2[count[d]] = c, order[i]
			count[d]++
		}
		codes, c2 = c2, codes
		order, o2 = o2, order
	}
}

// sortPoints puts every node's points in index order, so that they keep
// the source's order (scan order, which LAZ compresses best): a counting
// sort by node over the n points, linear in n.
func sortPoints(root *node, n int) {
	var nodes []*node
	root.walk(func(nd *node) { nodes = append(nodes, nd) })
	owner := make([]int32, n)
	start := make([]int, len(nodes)+1)
	for id, nd := range nodes {
		for _, p := range nd.pts {
			owner[p] = int32(id)
		}
		start[id+1] = start[id] + len(nd.pts)
	}
	all := make([]int32, start[len(nodes)])
	next := slices.Clone(start[:len(nodes)])
	for i, id := range owner {
		all[next[id]] = int32(i)
		next[id]++
	}
	for id, nd := range nodes {
		nd.pts = all[start[id]:start[id+1]]
	}
}

// morton interleaves the low 21 bits of x, y and z (x lowest), so that
// sorting by the code lists every octree node's points contiguously.
func morton(x, y, z uint32) uint64 {
	return spread(x) | spread(y)<<1 | spread(z)<<2
}

// spread puts bit i of v at bit 3i.
func spread(v uint32) uint64 {
	x := uint64(v) & 0x1fffff
	x = (x | x<<32) & 0x1f00000000ffff
	x = (x | x<<16) & 0x1f0000ff0000ff
	x = (x | x<<8) & 0x100f00f00f00f00f
	x = (x | x<<4) & 0x10c30c30c30c30c3
	x = (x | x<<2) & 0x1249249249249249
	return x
}

// split makes the subtree of key from its points (sorted by Morton code):
// a leaf when they are few enough, else a node with a child per occupied
// octant.
func split(key Key, pts []int32, codes []uint64, maxLeaf int) *node {
	nd := &node{key: key}
	if len(pts) <= maxLeaf || key.Level >= buildLevels {
		nd.pts = pts
		return nd
	}
	shift := uint(3 * (buildLevels - 1 - key.Level))
	lo := 0
	for lo < len(pts) {
		oct := int(codes[lo] >> shift & 7)
		hi := lo + sortSearch(codes[lo:], func(c uint64) bool { return int(c>>shift&7) > oct })
		nd.children = append(nd.children, split(key.Child(oct), pts[lo:hi], codes[lo:hi], maxLeaf))
		lo = hi
	}
	return nd
}

// sortSearch returns the first index of s for which f is true (false
// before, true after it).
func sortSearch(s []uint64, f func(uint64) bool) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if f(s[m]) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// builder holds what sampling needs.
type builder struct {
	xyz  []float64
	cube core.Bounds
	prm  octreeParams
}

// sampleTree samples every internal node of the tree, children before
// parents, subtrees of the first levels in parallel on workers goroutines.
func (b *builder) sampleTree(root *node, workers int) {
	var subtrees []*node
	var collect func(nd *node)
	collect = func(nd *node) {
		if nd.key.Level >= 2 || len(nd.children) == 0 {
			subtrees = append(subtrees, nd)
			return
		}
		for _, c := range nd.children {
			collect(c)
		}
	}
	collect(root)
	var wg sync.WaitGroup
	next := make(chan *node)
	for range max(workers, 1) {
		wg.Go(func() {
			g := newGrid()
			for nd := range next {
				b.sampleSubtree(nd, g)
			}
		})
	}
	for _, nd := range subtrees {
		next <- nd
	}
	close(next)
	wg.Wait()
	// The top levels, above the subtrees, last.
	g := newGrid()
	var top func(nd *node)
	top = func(nd *node) {
		if nd.key.Level >= 2 || len(nd.children) == 0 {
			return
		}
		for _, c := range nd.children {
			top(c)
		}
		b.sample(nd, g)
	}
	top(root)
}

// sampleSubtree samples the internal nodes of nd's subtree, bottom up.
func (b *builder) sampleSubtree(nd *node, g *grid) {
	for _, c := range nd.children {
		b.sampleSubtree(c, g)
	}
	if len(nd.children) > 0 {
		b.sample(nd, g)
	}
}

// sample moves into internal node nd its share of its children's points,
// as untwine's Processor::runLocal and sample do.
func (b *builder) sample(nd *node, g *grid) {
	total := 0
	for _, c := range nd.children {
		total += len(c.pts)
	}
	var cand []*node
	for _, c := range nd.children {
		if len(c.pts) < b.prm.minChild || total < b.prm.minTotal {
			nd.pts = append(nd.pts, c.pts...)
			c.pts = nil
		} else {
			cand = append(cand, c)
		}
	}
	if len(cand) == 0 {
		return
	}
	// The grid over nd: untwine's VoxelInfo spacing (side/cells, 1.5
	// times that below the root) and cells spacing/√3 wide.
	nb := nd.key.Bounds(b.cube)
	width := (nb.Max[0] - nb.Min[0]) / float64(b.prm.cells)
	if nd.key.Level > 0 {
		width *= 1.5
	}
	width /= math.Sqrt(3)
	// The candidates, each with the index of its child in cand, in a
	// random order seeded by nd's key.
	g.pts, g.owner = g.pts[:0], g.owner[:0]
	for ci, c := range cand {
		g.pts = append(g.pts, c.pts...)
		for range c.pts {
			g.owner = append(g.owner, uint8(ci))
		}
	}
	k := nd.key
	rng := rand.New(rand.NewPCG(uint64(k.Level)<<32|uint64(uint32(k.X)), uint64(uint32(k.Y))<<32|uint64(uint32(k.Z))))
	rng.Shuffle(len(g.pts), func(i, j int) {
		g.pts[i], g.pts[j] = g.pts[j], g.pts[i]
		g.owner[i], g.owner[j] = g.owner[j], g.owner[i]
	})
	for _, c := range cand {
		c.pts = c.pts[:0]
	}
	for i, p := range g.pts {
		var cell [3]uint32
		for a := range 3 {
			cell[a] = uint32(min(max((b.xyz[3*int(p)+a]-nb.Min[a])/width, 0), gridSide-1))
		}
		if g.set(cell) {
			nd.pts = append(nd.pts, p)
		} else {
			c := cand[g.owner[i]]
			c.pts = append(c.pts, p)
		}
	}
	g.clear()
}

// gridSide is the number of cells along each axis of a sampling grid:
// cellCount·√3 cells across the root, fewer below it, fit in 256.
const gridSide = 256

// grid is a set of occupied cells, a bit per cell, cleared after each use
// by visiting only the words set, with a worker's scratch space.
type grid struct {
	bits  []uint64
	used  []uint32
	pts   []int32 // candidates of the node being sampled
	owner []uint8 // their children
}

func newGrid() *grid { return &grid{bits: make([]uint64, gridSide*gridSide*gridSide/64)} }

// set marks cell c and reports whether it was empty.
func (g *grid) set(c [3]uint32) bool {
	i := (c[0]*gridSide+c[1])*gridSide + c[2]
	w, m := i/64, uint64(1)<<(i%64)
	if g.bits[w]&m != 0 {
		return false
	}
	if g.bits[w] == 0 {
		g.used = append(g.used, w)
	}
	g.bits[w] |= m
	return true
}

func (g *grid) clear() {
	for _, w := range g.used {
		g.bits[w] = 0
	}
	g.used = g.used[:0]
}

// prune drops the subtrees that hold no points and reports whether nd's
// subtree holds any.
func prune(nd *node) bool {
	kept := nd.children[:0]
	for _, c := range nd.children {
		if prune(c) {
			kept = append(kept, c)
		}
	}
	nd.children = kept
	return len(nd.pts) > 0 || len(kept) > 0
}

// walk calls fn for every node of the tree in depth-first order, children
// by octant.
func (nd *node) walk(fn func(*node)) {
	fn(nd)
	for _, c := range nd.children {
		c.walk(fn)
	}
}

// boundsOf returns the box around the points xyz (x, y, z interleaved).
func boundsOf(xyz []float64) core.Bounds {
	b := core.Bounds{Min: [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, Max: [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	for i := 0; i < len(xyz); i += 3 {
		for k := range 3 {
			b.Min[k] = min(b.Min[k], xyz[i+k])
			b.Max[k] = max(b.Max[k], xyz[i+k])
		}
	}
	return b
}
