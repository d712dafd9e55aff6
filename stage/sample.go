package stage

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	poisson "github.com/pctk/pctk/algos/sample" // convert_test.go has a func sample
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/primitives/tile"
)

func init() {
	Register(&Stage{
		Name:    "sample",
		PDAL:    "filters.sample",
		Preview: "z",
		Usage:   "thin to a Poisson-disk sample, kept points at least --radius apart (PDAL filters.sample)",
		Description: `Keeps, in input order, each point no kept point is closer to than --radius R,
as PDAL's filters.sample: kept points are at least R apart and every dropped
point lies within R of a kept one (docs/sample.md). --dimension NAME keeps
every point and writes 1 (kept) or 0 in a new uint8 field instead, as PDAL's
dimension option. --dims xy thins in plan view; points --ignore-class leaves
out are kept. No neighbour index is used: --backend changes nothing.
--max-memory reads IN in input order as a stream, holding the kept points
alone, and writes the in-memory output; a tile collection is sampled in the
order of the files' concatenation (docs/scale.md).`,
		Examples: []string{"pctk sample scan.las thin.las --radius 0.5", "pctk sample big.laz thin.laz --radius 0.5 --max-memory 1GiB"},
		Options: []*Option{
			&Option{Kind: Float, Name: "radius", PDAL: "radius", Usage: "smallest distance between kept points (required)"},
			&Option{Kind: String, Name: "dimension", PDAL: "dimension", Usage: "flag kept points in this new field instead of dropping the others (default: none, drop them)"},
		},
		Dims: true, IgnoreClass: true, InOrder: true,
		Params: map[string]string{"radius": "radius"},
		Prepare: func(c Values) (*Job, error) {
			opts, flag := poisson.Options{Radius: c.Float64("radius")}, c.String("dimension")
			if err := opts.Validate(); err != nil {
				return nil, err
			}
			return &Job{CPUWork: true, Local: sampleLocal(opts, flag), Compute: func(p *Points) (*Result, error) {
				opts.Progress = p.Build.Progress
				r, err := poisson.Poisson(samplePoints(p), opts)
				if err != nil {
					return nil, err
				}
				keep, flags := p.ScatterFlags(r.Keep, true), make([]uint8, p.Cloud.Len())
				var idx []int // the kept points, and those that take no part
				for i, k := range keep {
					if k {
						idx, flags[i] = append(idx, i), 1
					}
				}
				return &Result{JSON: sampleJSON(opts, r.Kept), Lines: sampleLines(opts, r.Kept, p.Len()),
					Edit: func(c *core.Cloud) (*core.Cloud, error) {
						if flag != "" {
							return c, c.SetAttr(core.NewColumn(flag, flags))
						}
						return c.Select(idx), nil
					}}, nil
			}, Stream: &Streamed{InOrder: true, Run: func(s *StreamRun) (*StreamResult, error) {
				return streamSample(s, opts, flag)
			}}}, nil
		},
	})
}

// sampleLocal is sample as a local stage, for Beam (memory and out of
// core keep their paths, which add the summary): the thinning depends on
// every point before it in input order, so its reach is the whole cloud
// (a Halo of +Inf: one tile of every point, on one worker). Its column is
// the flag, written under --dimension's name, else hidden and the
// points it does not keep dropped.
func sampleLocal(opts poisson.Options, flag string) *Local {
	col := core.Dimension{Name: flag, Type: core.Uint8}
	if flag == "" {
		col.Name = "SampleKept"
	}
	l := &Local{Columns: []core.Dimension{col}, Halo: math.Inf(1),
		Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
			r, err := poisson.Poisson(deinterleave(in.Abs), opts)
			if err != nil {
				return nil, nil, err
			}
			return []*core.Attribute{flagColumn(col.Name, r.Keep)}, constReach(len(r.Keep), math.Inf(1)), nil
		}}
	if flag == "" {
		l.Hidden = 1
		l.Drop = func(cols []*core.Attribute, i int) bool { return cols[0].Uint64(i) == 0 }
	}
	return l
}

// samplePoints returns the absolute coordinates of the points of p that
// take part (Points.abs) as Poisson takes them: the cloud's own where
// every point does; Z nil with --dims xy.
func samplePoints(p *Points) poisson.Points {
	c := p.Cloud
	pts := poisson.Points{X: c.X, Y: c.Y, Z: c.Z}
	if p.Index != nil {
		pts = poisson.Points{X: make([]float64, p.Len()), Y: make([]float64, p.Len()), Z: make([]float64, p.Len())}
		for k, i := range p.Index {
			pts.X[k], pts.Y[k], pts.Z[k] = c.X[i], c.Y[i], c.Z[i]
		}
	}
	if p.Flat {
		pts.Z = nil
	}
	return pts
}

// deinterleave returns the interleaved points xyz as poisson.Points.
func deinterleave(xyz []float64) poisson.Points {
	n := len(xyz) / 3
	pts := poisson.Points{X: make([]float64, n), Y: make([]float64, n), Z: make([]float64, n)}
	for i := range n {
		pts.X[i], pts.Y[i], pts.Z[i] = xyz[3*i], xyz[3*i+1], xyz[3*i+2]
	}
	return pts
}

// sampleJSON and sampleLines are pctk sample's summary.
func sampleJSON(opts poisson.Options, kept int) any {
	return map[string]any{"radius": opts.Radius, "kept": kept}
}

func sampleLines(opts poisson.Options, kept, n int) []string {
	return []string{fmt.Sprintf("radius %g: %d of %d points kept", opts.Radius, kept, n)}
}

// streamSample is pctk sample out of core (--max-memory): one pass in
// input order through a poisson.Sampler, which holds the kept points alone
// within the budget, writes a bit a point (kept or not) to a file next to
// the run's tiles; the output pass reads the bits back in order. The
// points --ignore-class leaves out are kept (flag 1), as in memory.
func streamSample(s *StreamRun, opts poisson.Options, flag string) (*StreamResult, error) {
	opts.MaxBytes = s.Budget
	sm, err := poisson.NewSampler(opts)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(s.Store.Dir(), "kept.bits")
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w := &bitWriter{w: bufio.NewWriterSize(f, 1<<16)}
	// kept[i]: the points kept among the first i that take part, at the
	// end of every chunk, hence of every file (Count).
	kept := map[int64]int64{0: 0}
	var keep []bool
	var done int64
	err = s.Each(func(x, y, z []float64) error {
		var err error
		if keep, err = sm.Add(poisson.Points{X: x, Y: y, Z: z}, keep[:0]); err != nil {
			return err
		}
		if err := w.write(keep); err != nil {
			return err
		}
		done += int64(len(keep))
		kept[done] = int64(sm.Kept())
		s.Progress("", float64(done)/float64(max(1, s.N)))
		return nil
	})
	if me := (*poisson.MemoryError)(nil); errors.As(err, &me) {
		return nil, fmt.Errorf("--max-memory: the %d points kept among the first %d that take part, with their grid, need more than the %dMiB the run leaves them (--max-memory less %dMiB of buffers); give more memory or a larger --radius",
			me.Kept, me.Points, me.Max>>20, streamReserve>>20)
	}
	if err != nil {
		return nil, err
	}
	msg.Debugf("sample: %d of %d points kept, held in %d bytes (budget %d)", sm.Kept(), done, sm.Bytes(), s.Budget)
	if err := w.flush(); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	r := &bitReader{path: path}
	keeps := func(rows []int64) ([]bool, error) { // a point that takes no part (row -1) is kept
		k := make([]bool, len(rows))
		for i, id := range rows {
			k[i] = true
			if id >= 0 {
				var err error
				if k[i], err = r.flag(id); err != nil {
					return nil, err
				}
			}
		}
		return k, nil
	}
	res := &StreamResult{JSON: sampleJSON(opts, sm.Kept()), Lines: sampleLines(opts, sm.Kept(), int(s.N))}
	if flag != "" {
		res.Columns = func(rows []int64, _ []tile.Key) ([]*core.Attribute, error) {
			k, err := keeps(rows)
			if err != nil {
				return nil, err
			}
			v := make([]uint8, len(rows))
			for i := range k {
				if k[i] {
					v[i] = 1
				}
			}
			return []*core.Attribute{core.NewColumn(flag, v)}, nil
		}
		return res, nil
	}
	res.Columns = func([]int64, []tile.Key) ([]*core.Attribute, error) { return nil, nil }
	res.Keep = keeps
	res.Count = func(first, n, others int64) int64 { return kept[first+n] - kept[first] + others }
	return res, nil
}

// bitWriter writes flags a bit each, the first in the lowest bit.
type bitWriter struct {
	w   *bufio.Writer
	cur byte
	n   int // bits in cur
}

func (b *bitWriter) write(flags []bool) error {
	for _, f := range flags {
		if f {
			b.cur |= 1 << b.n
		}
		if b.n++; b.n == 8 {
			if err := b.w.WriteByte(b.cur); err != nil {
				return err
			}
			b.cur, b.n = 0, 0
		}
	}
	return nil
}

// flush writes the last bits and the buffer out.
func (b *bitWriter) flush() error {
	if b.n > 0 {
		if err := b.w.WriteByte(b.cur); err != nil {
			return err
		}
		b.cur, b.n = 0, 0
	}
	return b.w.Flush()
}

// bitReader reads back the flags a bitWriter wrote to path, a window at
// a time (opened, read and closed at each refill, so that no file stays
// open): in order, the window moves on; otherwise it is read again.
type bitReader struct {
	path string
	off  int64 // of buf in the file
	buf  []byte
}

// bitWindow is the bytes a bitReader reads at a time.
const bitWindow = 64 << 10

// flag returns the flag of point id (the id-th written).
func (r *bitReader) flag(id int64) (bool, error) {
	at := id / 8
	if at < r.off || at >= r.off+int64(len(r.buf)) {
		f, err := os.Open(r.path)
		if err != nil {
			return false, err
		}
		if r.buf == nil {
			r.buf = make([]byte, bitWindow)
		}
		n, err := f.ReadAt(r.buf[:cap(r.buf)], at)
		f.Close()
		if n == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				err = fmt.Errorf("%s: fewer flags than points", r.path)
			}
			return false, err
		}
		r.buf, r.off = r.buf[:n], at
	}
	return r.buf[at-r.off]>>(id%8)&1 == 1, nil
}
