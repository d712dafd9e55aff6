package stage

import (
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// What a distributed driver (beam/: an Apache Beam pipeline) needs of a
// local stage to run it over tiles on workers: the stage parsed from its
// words on each worker, its kernel, its records, and the step that writes
// a file's points with their columns and the outcome applied.

// LocalStep is a local stage parsed from a pipeline step's words (as
// pctk pipeline takes them), for a distributed driver.
type LocalStep struct {
	*Local
	// Flat is --dims xy: distances in the XY plane, Z taken as 0.
	Flat bool
	// Name is the stage's name.
	Name string
	// Single says the run is over one file: Apply then completes its
	// output with the stage's File.
	Single bool
	// Global is the result of the stage's reduction (Reduce) over the
	// whole run, which Apply's outcome reads; nil without one.
	Global []float64
}

// ParseLocalStep parses a step's words; a stage that is not declared
// local (dbscan, whose merge has its own pipeline; those not converted
// yet: docs/beam.md), or options that need the whole cloud in
// memory (--ignore-class, side outputs), are usage errors naming the
// stage.
func ParseLocalStep(words []string) (*LocalStep, error) {
	s, err := parseStep(words, "")
	if err != nil {
		return nil, err
	}
	switch {
	case s.job.Local == nil:
		return nil, Usagef("%s has no distributed form yet, with these options: it is not declared as a local stage (docs/beam.md)", s.f.Name)
	case len(s.ignore) > 0 || len(s.job.Outputs) > 0 || s.summaryPath != "" || s.previewPath != "":
		return nil, Usagef("%s: --ignore-class, --summary and side outputs are not offered on Beam yet", s.f.Name)
	}
	return &LocalStep{Local: s.job.Local, Flat: s.flat, Name: s.f.Name}, nil
}

// Kernel returns the stage's tile kernel in the run's frame of origin
// origin, its points bounded by min and max, first its first point (all
// absolute, as read); inputs gives the
// absolute float64 coordinates of a tile's points as read (z 0 with
// --dims xy; nil for a stage that reads XYZ only) and their values of the
// dimensions Reads names.
func (l *LocalStep) Kernel(origin, min, max, first [3]float64, inputs func(t *tile.Points) ([]float64, [][]float64, error)) tile.LocalKernel {
	return l.kernel(LocalInput{Origin: origin, Min: min, Max: max, First: first}, func(t *tile.Points) ([]float64, []float64, [][]float64, error) {
		abs, vals, err := inputs(t)
		return l.rel(abs, origin, l.Flat), abs, vals, err
	})
}

// RecSize returns the bytes of a point's record (its values).
func (l *LocalStep) RecSize() int { return l.recSize() }

// FirstHalo returns the first tiles' halo for n points in the box b of
// the run's float32 frame.
func (l *LocalStep) FirstHalo(n int64, b findneighbor.Box) float64 { return l.halo(n, b) }

// Reduces reports whether the stage has a global reduction (Reduce),
// whose result Apply needs in Global.
func (l *LocalStep) Reduces() bool { return l.Reduce != nil }

// ReduceAll returns the result of the stage's reduction over rec, the
// records of every point of the run in global order: the step that runs
// on one worker.
func (l *LocalStep) ReduceAll(rec []byte) ([]float64, error) {
	n := len(rec) / max(l.recSize(), 1)
	cols := l.decode(rec, n, nil)
	g, _, _, err := l.reduce(func(fn func(cols []*core.Attribute, lo, hi int)) error {
		fn(cols, 0, n)
		return nil
	})
	return g, err
}

// Apply returns c, a file's points read with format from, with the
// records rec (one a point, in order) set as the stage's columns and the
// outcome applied (points dropped, classified or flagged), as the stage
// writes them.
func (l *LocalStep) Apply(c *core.Cloud, from *pcio.Format, rec []byte) (*core.Cloud, error) {
	cols := l.decode(rec, c.Len(), nil)
	for _, col := range l.written(cols) {
		if err := c.SetAttr(col); err != nil {
			return nil, err
		}
	}
	o, flag := l.outcome(l.Global)
	if o == nil {
		dims := "xyz"
		if l.Flat {
			dims = "xy"
		}
		if edit := l.edit(l.Single, dims); edit != nil {
			return edit(c)
		}
		return c, nil
	}
	mode, err := o.modeFor(from)
	if err != nil {
		return nil, err
	}
	outlier := make([]bool, c.Len())
	for i := range outlier {
		outlier[i] = flag(cols, i)
	}
	return applyOutcome(c, outlier, mode, o)
}

// Attrs returns the columns of c (a chunk of a file) holding the values
// of the dimensions Reads names, in order (X, Y and Z: the absolute
// coordinates); an error names a dimension c lacks.
func (l *LocalStep) Attrs(c *core.Cloud) ([]*core.Attribute, error) { return readAttrs(c, l.Reads) }
