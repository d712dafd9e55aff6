package stage

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/pctk/pctk/algos/raster"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/io/geotiff"
)

// pctk raster --max-memory: the in-memory raster's bytes with the points
// never held whole. IN is read as a stream: a first pass finds the run's
// bounds (the in-memory run's local origin) and the chosen points' box
// (PDAL's grid), a second counts the chosen points of each cell, from which
// the blocks of cells are sized so that the points within reach of one
// block fit the budget beside the image; then passes bin the chosen points
// (their float64 coordinates relative to the origin, and value: 32 bytes,
// in input order) into a file a block, at most maxOpenBlocks at a time,
// and each block is gridded from its file as the in-memory run grids it
// from the points within its reach. The cells depend only on those points
// and their order, so the image is the in-memory one, bit for bit.

const (
	// rasterRecord is the bytes of a binned point: x, y, z relative to
	// the origin and the value gridded, float64 little-endian.
	rasterRecord = 32
	// rasterPointBytes is the memory a point within a block's reach costs
	// while the block is gridded: its record, the block's float32 and
	// float64 copies and value, gridBlock's own and the neighbour index.
	rasterPointBytes = 200
	// rasterFixedBytes is what the program holds besides: its code, the
	// runtime, a chunk of IN being decoded.
	rasterFixedBytes = 96 << 20
	// maxOpenBlocks is how many block files a binning pass writes at once.
	maxOpenBlocks = 256
)

// rasterStreamed grids ins out of core within --max-memory and returns
// the image, the number of points gridded and the number read.
func rasterStreamed(c Values, ins []string, o raster.Options) (*geotiff.Image, int64, int64, error) {
	budget, err := ParseSize(c.String("max-memory"))
	if err != nil {
		return nil, 0, 0, Usagef("--max-memory: %v", err)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(goMemoryLimit(budget)))
	name := strings.Join(ins, ", ")
	rv := rasterRead{c}

	// Pass 1: the run's bounds, the chosen points' box, the returns check.
	b := core.Bounds{Min: [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, Max: [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
	selLo, selHi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	var n, total int64
	var zero, nonZero bool
	heads, err := StreamInputs(rv, ins, func(_ int64, ch *core.Cloud) error {
		if cb, ok := ch.Bounds(); ok {
			b.Add(cb.Min)
			b.Add(cb.Max)
		}
		z, nz := returnZeros(c, ch)
		zero, nonZero = zero || z, nonZero || nz
		sel, err := rasterSelect(c, ch)
		if err != nil {
			return err
		}
		if _, err := rasterValues(c, ch); err != nil {
			return err
		}
		for i := range ch.Len() {
			if sel == nil || sel[i] {
				selLo = [2]float64{min(selLo[0], ch.X[i]), min(selLo[1], ch.Y[i])}
				selHi = [2]float64{max(selHi[0], ch.X[i]), max(selHi[1], ch.Y[i])}
				n++
			}
		}
		total += int64(ch.Len())
		return nil
	})
	if err != nil {
		return nil, 0, 0, err
	}
	if zero && nonZero {
		// ground.Select's error on the whole cloud, which no chunk may see.
		return nil, 0, 0, fmt.Errorf("%s: ground: some NumberOfReturns or ReturnNumber values are 0, but not all (each must be ≥ 1)", name)
	}
	if n == 0 {
		return nil, 0, 0, fmt.Errorf("%s: %w", name, errNoPoint)
	}
	origin := b.Center()
	// Subtracting the origin is monotonic: the chosen points' box in the
	// local frame is the box of their local coordinates, as in memory.
	lo := [2]float64{selLo[0] - origin[0], selLo[1] - origin[1]}
	hi := [2]float64{selHi[0] - origin[0], selHi[1] - origin[1]}
	img, most := rasterImage(c, &o, origin, lo, hi, heads[0].Meta.CRS)
	g := o.Grid

	// Pass 2: points a cell, summed, to size the blocks.
	sat, err := cellCounts(c, ins, o, origin)
	if err != nil {
		return nil, 0, 0, err
	}
	bands := bits.OnesCount(uint(o.Outputs))
	imgBytes := int64(g.Width) * int64(g.Height) * int64(bands) * 8
	block, err := blockSide(sat, o, bands, budget-imgBytes-int64(len(sat))*8-rasterFixedBytes)
	if err != nil {
		return nil, 0, 0, Usagef("--max-memory %s: %v (the image takes %d MiB of it)", c.String("max-memory"), err, imgBytes>>20)
	}
	sat = nil
	ws := blocks(g, min(block, most)) // --tile-size: at most its blocks
	msg.Debugf("raster --max-memory: %d×%d cells in %d blocks of %d cells a side", g.Width, g.Height, len(ws), block)

	dir, err := os.MkdirTemp(c.String("tmpdir"), "pctk-raster-")
	if err != nil {
		return nil, 0, 0, err
	}
	defer os.RemoveAll(dir)
	for first := 0; first < len(ws); first += maxOpenBlocks {
		group := ws[first:min(first+maxOpenBlocks, len(ws))]
		if err := binBlocks(c, ins, o, origin, group, dir); err != nil {
			return nil, 0, 0, err
		}
		for k, w := range group {
			if err := gridBinned(img, o, w, filepath.Join(dir, fmt.Sprint(k))); err != nil {
				return nil, 0, 0, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return img, n, total, nil
}

// returnZeros reports whether ch has points whose ReturnNumber or
// NumberOfReturns is 0, and points whose are not, where --class or
// --returns make rasterSelect read them.
func returnZeros(c Values, ch *core.Cloud) (zero, nonZero bool) {
	rn, nr := ch.Attr(core.DimReturnNumber), ch.Attr(core.DimNumberOfReturns)
	if c.String("class") == "" && c.String("returns") == "" || rn == nil || nr == nil {
		return false, false
	}
	for i := range ch.Len() {
		if rn.Int64(i) == 0 || nr.Int64(i) == 0 {
			zero = true
		} else {
			nonZero = true
		}
	}
	return zero, nonZero
}

// eachChosen streams ins and calls fn with each chosen point's coordinates
// relative to origin and its value, in input order.
func eachChosen(c Values, ins []string, origin [3]float64, fn func(p [3]float64, v float64) error) error {
	_, err := StreamInputs(rasterRead{c}, ins, func(_ int64, ch *core.Cloud) error {
		sel, err := rasterSelect(c, ch)
		if err != nil {
			return err
		}
		vals, err := rasterValues(c, ch)
		if err != nil {
			return err
		}
		for i := range ch.Len() {
			if sel != nil && !sel[i] {
				continue
			}
			if err := fn([3]float64{ch.X[i] - origin[0], ch.Y[i] - origin[1], ch.Z[i] - origin[2]}, vals[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// cellCounts returns the summed-area table ((Width+1)×(Height+1), rows
// from the bottom) of the chosen points of each cell of o's grid.
func cellCounts(c Values, ins []string, o raster.Options, origin [3]float64) ([]int64, error) {
	g := o.Grid
	w := g.Width + 1
	sat := make([]int64, w*(g.Height+1))
	err := eachChosen(c, ins, origin, func(p [3]float64, _ float64) error {
		col := min(max(int((p[0]-g.OriginX)/g.Resolution), 0), g.Width-1)
		row := min(max(int((p[1]-g.OriginY)/g.Resolution), 0), g.Height-1)
		sat[(row+1)*w+col+1]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	for r := 1; r <= g.Height; r++ {
		for col := 1; col < w; col++ {
			sat[r*w+col] += sat[(r-1)*w+col] + sat[r*w+col-1] - sat[(r-1)*w+col-1]
		}
	}
	return sat, nil
}

// blockSide returns the largest side, in cells, of the blocks whose points
// within reach (an upper bound from the counts sat) and cells fit avail
// bytes; an error when not even one cell does.
func blockSide(sat []int64, o raster.Options, bands int, avail int64) (int, error) {
	g := o.Grid
	w := g.Width + 1
	halo := int(math.Ceil(o.Reach()/g.Resolution)) + 1
	within := func(col0, row0, col1, row1 int) int64 { // cells [col0, col1) × [row0, row1), rows from the bottom
		col0, row0 = max(col0, 0), max(row0, 0)
		col1, row1 = min(col1, g.Width), min(row1, g.Height)
		if col0 >= col1 || row0 >= row1 {
			return 0
		}
		return sat[row1*w+col1] - sat[row0*w+col1] - sat[row1*w+col0] + sat[row0*w+col0]
	}
	for side := max(g.Width, g.Height); ; side = (side + 1) / 2 {
		var most int64
		for _, b := range blocks(g, side) {
			// Window rows count from the top; sat's from the bottom.
			bottom := g.Height - b.Row - b.Rows
			most = max(most, within(b.Col-halo, bottom-halo, b.Col+b.Cols+halo, bottom+b.Rows+halo))
		}
		if most*rasterPointBytes+int64(side)*int64(side)*int64(bands)*16 <= avail {
			return side, nil
		}
		if side == 1 {
			return 0, fmt.Errorf("too little memory for a block of one cell (%d points within its reach)", most)
		}
	}
}

// binBlocks writes to dir/k the chosen points (rasterRecord each, in
// input order) within the reach of group[k].
func binBlocks(c Values, ins []string, o raster.Options, origin [3]float64, group []raster.Window, dir string) (err error) {
	type bin struct {
		x0, x1, y0, y1 float64
		f              *os.File
		w              *bufio.Writer
	}
	bins := make([]bin, len(group))
	defer func() {
		for _, b := range bins {
			if b.f != nil {
				if e := b.f.Close(); err == nil {
					err = e
				}
			}
		}
	}()
	for k, w := range group {
		f, err := os.Create(filepath.Join(dir, fmt.Sprint(k)))
		if err != nil {
			return err
		}
		bins[k].f, bins[k].w = f, bufio.NewWriterSize(f, 16<<10)
		bins[k].x0, bins[k].x1, bins[k].y0, bins[k].y1 = reachBox(o, w)
	}
	var rec [rasterRecord]byte
	err = eachChosen(c, ins, origin, func(p [3]float64, v float64) error {
		for k := range bins {
			b := &bins[k]
			if p[0] < b.x0 || p[0] > b.x1 || p[1] < b.y0 || p[1] > b.y1 {
				continue
			}
			for j, x := range [4]float64{p[0], p[1], p[2], v} {
				binary.LittleEndian.PutUint64(rec[8*j:], math.Float64bits(x))
			}
			if _, err := b.w.Write(rec[:]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, b := range bins {
		if err := b.w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// gridBinned grids block w of img from the points binned in path.
func gridBinned(img *geotiff.Image, o raster.Options, w raster.Window, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(data)%rasterRecord != 0 {
		return errors.New("raster: a block file is cut short: " + io.ErrUnexpectedEOF.Error())
	}
	m := len(data) / rasterRecord
	xyz, pos, vals := make([]float32, 3*m), make([]float64, 3*m), make([]float64, m)
	for i := range m {
		r := data[i*rasterRecord:]
		for j := range 3 {
			pos[3*i+j] = math.Float64frombits(binary.LittleEndian.Uint64(r[8*j:]))
			// The in-memory run's float32 coordinates: the same subtraction, rounded.
			xyz[3*i+j] = float32(pos[3*i+j])
		}
		vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(r[24:]))
	}
	data = nil
	if err := os.Remove(path); err != nil {
		return err
	}
	return gridBlock(img, xyz, pos, vals, o, w)
}
