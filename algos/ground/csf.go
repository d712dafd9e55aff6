package ground

import (
	"math"
	"strconv"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// CSFOptions configure CSF. The zero value is PDAL's filters.csf with its
// defaults; a zero field takes PDAL's default.
type CSFOptions struct {
	// Resolution is the cloth's grid spacing (PDAL's resolution, default 1).
	Resolution float64
	// Rigidness is the number of constraint passes a particle's move
	// stands for, from 1 (PDAL's rigidness, default 3); 0 takes 3.
	Rigidness int
	// Iterations is the most time steps (PDAL's iterations, default 500).
	Iterations int
	// Step is the time step (PDAL's step, default 0.65).
	Step float64
	// Threshold is the largest distance from the cloth of a ground point
	// (PDAL's threshold, default 0.5).
	Threshold float64
	// HDiff is the height difference under which steep parts of the cloth
	// are pinned in the post-processing (PDAL's hdiff, default 0.3).
	HDiff float64
	// NoSmooth skips that post-processing (PDAL's smooth = false; its
	// default is true).
	NoSmooth bool
	// Ignore lists classes left as they are, taking no part (PDAL's ignore
	// ranges over Classification).
	Ignore []uint8
	// Returns selects the returns classified (PDAL's returns; zero:
	// "last, only").
	Returns Returns
	// Pos, when not nil, holds the float64 coordinates CSF computes from
	// (interleaved x, y, z); nil takes xyz's. PDAL computes from the
	// absolute coordinates: pass them for PDAL's bits.
	Pos []float64
}

// withDefaults returns o with zero fields replaced by PDAL's defaults.
func (o CSFOptions) withDefaults() CSFOptions {
	orDefault(&o.Resolution, 1)
	orDefault(&o.Step, 0.65)
	orDefault(&o.Threshold, 0.5)
	orDefault(&o.HDiff, 0.3)
	if o.Rigidness == 0 {
		o.Rigidness = 3
	}
	if o.Iterations == 0 {
		o.Iterations = 500
	}
	return o
}

// Validate reports whether the options make sense, naming the option as
// PDAL does in a *findneighbor.ParamError.
func (o CSFOptions) Validate() error {
	o = o.withDefaults()
	return checkAll(
		findneighbor.CheckRadius("csf", "resolution", o.Resolution, false),
		findneighbor.CheckMin("csf", "rigidness", o.Rigidness, 1),
		findneighbor.CheckMin("csf", "iterations", o.Iterations, 1),
		findneighbor.CheckFloat("csf", "step", o.Step),
		findneighbor.CheckFloat("csf", "threshold", o.Threshold),
		findneighbor.CheckFloat("csf", "hdiff", o.HDiff),
	)
}

// The CSF library's constants (filters/private/csf/Particle.h, CSF.cpp),
// variables so that expressions of them round as C++ rounds them.
var (
	csfDamping  = 0.01
	csfGravity  = 0.2
	csfMinInf   = -9999999999.0
	csfMaxInf   = 9999999999.0
	csfSingle   = [15]float64{0, 0.3, 0.51, 0.657, 0.7599, 0.83193, 0.88235, 0.91765, 0.94235, 0.95965, 0.97175, 0.98023, 0.98616, 0.99031, 0.99322}
	csfDouble   = [15]float64{0, 0.3, 0.42, 0.468, 0.4872, 0.4949, 0.498, 0.4992, 0.4997, 0.4999, 0.4999, 0.5, 0.5, 0.5, 0.5}
	csfClothY   = 0.05
	csfBuffer   = 2
	csfMinGroup = 50 // MAX_PARTICLE_FOR_POSTPROCESSIN
)

// cloth is the CSF library's Cloth (filters/private/csf/Cloth.cpp) in the
// library's frame, where y is up inverted (−Z) and z is Y: its particles'
// heights (only y ever moves), their constraints and flags.
type cloth struct {
	w, h         int
	ox, oy, oz   float64
	step         float64
	y, oldY      []float64
	acc          float64
	movable      []bool
	visited      []bool
	cpos         []int
	nbr          [][]int32
	nearH, nearD []float64
	heights      []float64
}

func (c *cloth) link(a, b int) {
	c.nbr[a] = append(c.nbr[a], int32(b))
	c.nbr[b] = append(c.nbr[b], int32(a))
}

// newCloth is Cloth::Cloth: particles at origin + (i·step, 0, j·step),
// linked to their neighbours 1 and 2 apart along each axis and diagonal,
// in the library's order.
func newCloth(ox, oy, oz float64, w, h int, step float64) *cloth {
	n := w * h
	c := &cloth{w: w, h: h, ox: ox, oy: oy, oz: oz, step: step,
		y: make([]float64, n), oldY: make([]float64, n), movable: make([]bool, n), visited: make([]bool, n),
		cpos: make([]int, n), nbr: make([][]int32, n), nearH: make([]float64, n), nearD: make([]float64, n)}
	for i := range n {
		c.y[i], c.oldY[i], c.movable[i] = oy, oy, true
		c.nearH[i], c.nearD[i] = csfMinInf, csfMaxInf
	}
	at := func(x, y int) int { return y*w + x }
	for _, d := range []int{1, 2} {
		for x := range w {
			for y := range h {
				if x < w-d {
					c.link(at(x, y), at(x+d, y))
				}
				if y < h-d {
					c.link(at(x, y), at(x, y+d))
				}
				if x < w-d && y < h-d {
					c.link(at(x, y), at(x+d, y+d))
					c.link(at(x+d, y), at(x, y+d))
				}
			}
		}
	}
	return c
}

// raster is Rasterization::RasterTerrian: each particle takes the height
// of the point nearest to it among those rounding to it, or, with none,
// the first found along its row (right, then left), then its column
// (down, then up), then breadth first through its constraints.
func (c *cloth) raster(px, py, pz []float64) {
	for i := range px {
		dx, dz := px[i]-c.ox, pz[i]-c.oz
		col, row := int(dx/c.step+0.5), int(dz/c.step+0.5)
		if col < 0 || row < 0 {
			continue
		}
		k := row*c.w + col
		x0, z0 := c.ox+float64(col)*c.step, c.oz+float64(row)*c.step
		d := (px[i]-x0)*(px[i]-x0) + (pz[i]-z0)*(pz[i]-z0)
		if d < c.nearD[k] {
			c.nearD[k], c.nearH[k] = d, py[i]
		}
	}
	c.heights = make([]float64, c.w*c.h)
	for k := range c.heights {
		if c.nearH[k] > csfMinInf {
			c.heights[k] = c.nearH[k]
		} else {
			c.heights[k] = c.scanline(k)
		}
	}
}

func (c *cloth) scanline(k int) float64 {
	x, y := k%c.w, k/c.w
	for i := x + 1; i < c.w; i++ {
		if v := c.nearH[y*c.w+i]; v > csfMinInf {
			return v
		}
	}
	for i := x - 1; i >= 0; i-- {
		if v := c.nearH[y*c.w+i]; v > csfMinInf {
			return v
		}
	}
	for j := y - 1; j >= 0; j-- {
		if v := c.nearH[j*c.w+x]; v > csfMinInf {
			return v
		}
	}
	for j := y + 1; j < c.h; j++ {
		if v := c.nearH[j*c.w+x]; v > csfMinInf {
			return v
		}
	}
	return c.byNeighbour(k)
}

// byNeighbour is Rasterization::findHeightValByNeighbor, with its flags:
// the particle itself stays visited (the library never clears it, which
// the post-processing then sees).
func (c *cloth) byNeighbour(k int) float64 {
	var queue, back []int32
	for _, q := range c.nbr[k] {
		c.visited[k] = true
		queue = append(queue, q)
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		back = append(back, p)
		if c.nearH[p] > csfMinInf {
			for _, b := range back {
				c.visited[b] = false
			}
			for _, q := range queue {
				c.visited[q] = false
			}
			return c.nearH[p]
		}
		for _, q := range c.nbr[p] {
			if !c.visited[q] {
				c.visited[q] = true
				queue = append(queue, q)
			}
		}
	}
	return csfMinInf
}

// offset is Particle::offsetPos along y.
func (c *cloth) offset(k int, dy float64) {
	if c.movable[k] {
		c.y[k] += dy
	}
}

// timeStep is Cloth::timeStep: Verlet steps of the movable particles, the
// constraints satisfied particle by particle in order, and the largest
// move of a movable particle.
func (c *cloth) timeStep(rigid int) float64 {
	keep := 1.0 - csfDamping
	for k := range c.y {
		if c.movable[k] {
			t := c.y[k]
			c.y[k] = c.y[k] + (c.y[k]-c.oldY[k])*keep + c.acc
			c.oldY[k] = t
		}
	}
	double, single := 0.5, 1.0
	if rigid <= 14 {
		double, single = csfDouble[rigid], csfSingle[rigid]
	}
	// Particle::satisfyConstraintSelf, inlined: a particle's own
	// movability does not change during the pass.
	y, movable := c.y, c.movable
	for k := range y {
		mk := movable[k]
		for _, q := range c.nbr[k] {
			corr := y[q] - y[k]
			switch mq := movable[q]; {
			case mk && mq:
				half := corr * double
				y[k] += half
				y[q] += -half
			case mk:
				y[k] += corr * single
			case mq:
				y[q] += -(corr * single)
			}
		}
	}
	maxDiff := 0.0
	for k := range c.y {
		if c.movable[k] {
			if d := math.Abs(c.oldY[k] - c.y[k]); d > maxDiff {
				maxDiff = d
			}
		}
	}
	return maxDiff
}

// collide is Cloth::terrCollision: a particle below its height is put on
// it and pinned.
func (c *cloth) collide() {
	for k, v := range c.y {
		if v < c.heights[k] {
			c.offset(k, c.heights[k]-v)
			c.movable[k] = false
		}
	}
}

// smooth is Cloth::movableFilter: each group of more than 50 movable
// particles (4-connected) pins its particles next to pinned ones at about
// their height (findUnmovablePoint), then spreads that from particle to
// particle (handle_slop_connected).
func (c *cloth) smooth(hdiff float64) {
	const heightThreshold = 9999.0
	for x := range c.w {
		for y := range c.h {
			start := y*c.w + x
			if !c.movable[start] || c.visited[start] {
				continue
			}
			connected := []int{start}
			var nbrs [][]int
			c.visited[start] = true
			queue := []int{start}
			for len(queue) > 0 {
				f := queue[0]
				queue = queue[1:]
				cx, cy := f%c.w, f/c.w
				var nb []int
				visit := func(k int) {
					if !c.movable[k] {
						return
					}
					if c.visited[k] {
						nb = append(nb, c.cpos[k])
						return
					}
					c.visited[k] = true
					connected = append(connected, k)
					queue = append(queue, k)
					c.cpos[k] = len(connected) - 1
					nb = append(nb, len(connected)-1)
				}
				if cx > 0 {
					visit(f - 1)
				}
				if cx < c.w-1 {
					visit(f + 1)
				}
				if cy > 0 {
					visit(f - c.w)
				}
				if cy < c.h-1 {
					visit(f + c.w)
				}
				nbrs = append(nbrs, nb)
			}
			if len(connected) > csfMinGroup {
				c.slopes(c.edges(connected, hdiff, heightThreshold), connected, nbrs, hdiff, heightThreshold)
			}
		}
	}
}

// edges is Cloth::findUnmovablePoint.
func (c *cloth) edges(connected []int, hdiff, heightThreshold float64) []int {
	var edge []int
	for i, k := range connected {
		x, y := k%c.w, k/c.w
		for _, ref := range [4]int{k - 1, k + 1, k - c.w, k + c.w} {
			switch {
			case ref == k-1 && x == 0, ref == k+1 && x == c.w-1, ref == k-c.w && y == 0, ref == k+c.w && y == c.h-1:
				continue
			}
			if c.movable[ref] {
				continue
			}
			if math.Abs(c.heights[k]-c.heights[ref]) < hdiff && c.y[k]-c.heights[k] < heightThreshold {
				c.offset(k, c.heights[k]-c.y[k])
				c.movable[k] = false
				edge = append(edge, i)
				break
			}
		}
	}
	return edge
}

// slopes is Cloth::handle_slop_connected.
func (c *cloth) slopes(edge, connected []int, nbrs [][]int, hdiff, heightThreshold float64) {
	seen := make([]bool, len(connected))
	queue := append([]int(nil), edge...)
	for _, e := range edge {
		seen[e] = true
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		center := connected[i]
		for _, j := range nbrs[i] {
			nb := connected[j]
			if math.Abs(c.heights[center]-c.heights[nb]) < hdiff && math.Abs(c.y[nb]-c.heights[nb]) < heightThreshold {
				c.offset(nb, c.heights[nb]-c.y[nb])
				c.movable[nb] = false
				if !seen[j] {
					queue = append(queue, j)
					seen[j] = true
				}
			}
		}
	}
}

// CSF classifies the points of xyz into ground and no ground as PDAL's
// filters.csf does (filters/CSFilter.cpp and the CSF library it vendors,
// filters/private/csf; W. Zhang et al., "An easy-to-use airborne LiDAR
// data filtering method based on cloth simulation", Remote Sensing 8(6),
// 2016): the cloud turned upside down, a cloth of Resolution dropped on
// it under gravity with its constraints, pinned where it meets the
// points, smoothed on steep slopes, and each point ground when within
// Threshold of the cloth (bilinear between its particles). Its Reach is
// +Inf: the cloth's constraint passes carry each particle's move across
// the whole cloth within one time step.
func CSF(xyz []float32, a Attrs, opts CSFOptions) (Result, error) {
	if err := opts.Validate(); err != nil {
		return Result{}, err
	}
	opts = opts.withDefaults()
	pos, err := positions(xyz, opts.Pos)
	if err != nil {
		return Result{}, err
	}
	n := len(pos) / 3
	out := Result{Classification: make([]uint8, n), Reach: make([]float64, n)}
	if a.Classification != nil {
		copy(out.Classification, a.Classification)
	}
	if n == 0 {
		return out, nil
	}
	sel, err := Select(n, a, opts.Ignore, opts.Returns)
	if err != nil {
		return Result{}, err
	}
	// The library's frame: x = X, y = −Z, z = Y.
	var idx []int
	var px, py, pz []float64
	for i, s := range sel {
		if s {
			idx = append(idx, i)
			px = append(px, pos[3*i])
			py = append(py, -pos[3*i+2])
			pz = append(pz, pos[3*i+1])
		}
	}
	if len(idx) == 0 {
		return Result{}, ErrNoReturns
	}
	for _, v := range [][]float64{px, py, pz} {
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return Result{}, &findneighbor.ParamError{Op: "csf", Param: "points", Value: "a coordinate of point " + strconv.Itoa(idx[i]), Want: "finite coordinates"}
			}
		}
	}
	lo := [3]float64{px[0], py[0], pz[0]}
	hi := lo
	for i := range px {
		for d, v := range [3]float64{px[i], py[i], pz[i]} {
			lo[d], hi[d] = math.Min(lo[d], v), math.Max(hi[d], v)
		}
	}
	res := opts.Resolution
	buf := float64(csfBuffer)
	w := int(math.Floor((hi[0]-lo[0])/res)) + 2*csfBuffer
	h := int(math.Floor((hi[2]-lo[2])/res)) + 2*csfBuffer
	c := newCloth(lo[0]-buf*res, hi[1]+csfClothY, lo[2]-buf*res, w, h, res)
	c.raster(px, py, pz)
	ts2 := opts.Step * opts.Step
	c.acc = (-csfGravity * ts2) / 1 * ts2
	for range opts.Iterations {
		maxDiff := c.timeStep(opts.Rigidness)
		c.collide()
		if maxDiff != 0 && maxDiff < 0.005 {
			break
		}
	}
	if !opts.NoSmooth {
		c.smooth(opts.HDiff)
	}
	for j, i := range idx {
		dx, dz := px[j]-c.ox, pz[j]-c.oz
		col0, row0 := int(dx/res), int(dz/res)
		sx := (dx - float64(col0)*res) / res
		sz := (dz - float64(row0)*res) / res
		at := func(col, row int) float64 { return c.y[row*c.w+col] }
		f := at(col0, row0)*(1-sx)*(1-sz) + at(col0, row0+1)*(1-sx)*sz + at(col0+1, row0+1)*sx*sz + at(col0+1, row0)*sx*(1-sz)
		out.Classification[i] = Unclassified
		if math.Abs(f-py[j]) < opts.Threshold {
			out.Classification[i] = Ground
		}
		out.Reach[i] = math.Inf(1)
	}
	return out, nil
}
