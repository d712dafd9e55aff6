package stage

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pctk/pctk/internal/par"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pctk/pctk/algos/render"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// Stage declares a stage: a neighbour-based filter "pctk NAME IN OUT",
// PDAL's filters.NAME. It says what is particular to it: its name, help,
// options and computation. The driver (Run) does the rest the same way for
// every stage: reading IN (a path or -, --salvage), --backend (the cpu
// backend for "auto" when the work suits it), --dims, --ignore-class,
// progress, --json and --summary FILE, the timing line, scattering the new
// columns over the cloud, checking every output path before any work,
// writing side outputs and OUT atomically, tiles, out of core, tile
// collections and pipelines. docs/extending.md walks through one.
type Stage struct {
	// Name is the stage's command words: "density", or a command and its
	// mode, "denoise statistical" (the mode's group is registered with
	// RegisterGroup).
	Name    string
	Aliases []string // other names of its last word
	// PDAL is the PDAL stage it follows ("filters.radialdensity"), for
	// pipeline JSON; "" when none. PDALMode, for a PDAL stage that several
	// pctk stages serve, is the value of PDAL's "method" option this one
	// takes ("statistical" of filters.outlier).
	PDAL, PDALMode string
	// PDALArgs are the words a pipeline's PDAL stage implies before its
	// options ("--convention pdal" where pctk's default follows another
	// peer). PDALAs maps the other PDAL stages this one serves to the
	// words each implies (filters.voxeldownsize: --mode downsize-center).
	PDALArgs []string
	PDALAs   map[string][]string
	// Usage is the one-line description "pctk help" lists.
	Usage string
	// Description is the help text; Examples are appended to it, one
	// command line each.
	Description string
	Examples    []string
	// Options are the stage's own options; the driver adds the shared ones
	// (AllOptions).
	Options []*Option
	// Writes declares the dimensions the stage adds (PDAL's
	// addDimensions): Register registers those core does not know
	// (core.RegisterDimension), so no central list is edited.
	Writes []core.Dimension
	// Dims adds --dims xyz|xy; IgnoreClass adds --ignore-class.
	Dims, IgnoreClass bool
	// Tiled declares that the stage's Compute honours Points.TileSize
	// (its algorithm has tile kernels, docs/scale.md): the driver adds
	// --tile-size, and --max-memory, --tmpdir and tile collections (IN
	// several files, OUT a folder) for jobs with a Stream (outofcore.go).
	Tiled bool
	// InOrder declares a stage with no tile kernels whose job's Stream
	// reads the points once in input order (Streamed.InOrder): the driver
	// adds --max-memory, --tmpdir and tile collections, not --tile-size.
	InOrder bool
	// Preview, when set, adds --preview FILE.png: a picture of the written
	// cloud from the top, coloured as Preview says (a pctk render --color).
	Preview string
	// Params maps the parameter names of the algorithm's
	// findneighbor.ParamError to the stage's options ("k": "knn"), so that
	// a parameter out of its limits is a usage error naming the option.
	Params map[string]string
	// Prepare checks the stage's options, before anything is read, and
	// returns the job to run.
	Prepare func(v Values) (*Job, error)
}

// Job is one run of a filter, as Prepare set it up.
type Job struct {
	// Compute computes the new columns from the points.
	Compute func(p *Points) (*Result, error)
	// CPUWork says "--backend auto" takes the cpu backend (see backendName).
	CPUWork bool
	// Outputs are the side output paths the job will write (Result.Side),
	// checked with OUT and --summary before any work.
	Outputs []string
	// Project, when set, replaces Cloud.Local for the float32 coordinates
	// (dbscan --geographic projects lon/lat to metres).
	Project func(c *core.Cloud, flat bool) (core.Local, error)
	// Stream, when set, is the job's out-of-core run (--max-memory, tile
	// collections; outofcore.go); without it those are refused.
	Stream *Streamed
	// Local, when set, is the whole work of a local stage, which the
	// driver runs in memory, on tiles and out of core: it sets Compute and
	// Stream (local.go).
	Local *Local
}

// Points is what the runner hands a filter's Compute.
type Points struct {
	// In is IN as given, Out OUT; Cloud the whole cloud as read (for attributes and
	// metadata: change it through Result, not directly); From its format.
	In    string
	Out   string // OUT as given
	Cloud *core.Cloud
	From  *pcio.Format
	// XYZ are the float32 coordinates of the points that take part,
	// relative to Origin (flat: Z = 0 with --dims xy). The filter owns
	// them: it may let an index take them over (BuildOptions.Reuse).
	XYZ    []float32
	Origin [3]float64
	// Index lists the cloud indices of the points that take part, in
	// order; nil when every point does.
	Index []int
	// Dims is "xyz" or "xy" (Flat).
	Dims string
	Flat bool
	// Backend is the backend --backend chose; Build carries --workers and
	// the progress line.
	Backend findneighbor.Backend
	Build   findneighbor.BuildOptions
	// Progress reports the fraction done of a named stage, for filters
	// with several (dbscan): each stage gets its own progress line.
	Progress func(stage string, done float64)
	// TileSize, when > 0 (--tile-size, Stage.Tiled), asks Compute to work
	// on square tiles of this side in XY, several at a time on the cpu
	// backend's workers (or, Backend being a tile.Pool of --gpus
	// backends, one per backend at a time), with the same output as
	// without (the algorithms' TileSize options).
	TileSize float64

	pos    []float64   // Pos, once computed
	bounds core.Bounds // the cloud's (core.Local.Bounds)
}

// Len returns the number of points that take part.
func (p *Points) Len() int { return len(p.XYZ) / 3 }

// values returns the values of the dimensions reads names of the points
// that take part, as float64; an error names a dimension the cloud lacks.
func (p *Points) values(reads []string) ([][]float64, error) {
	attrs, err := readAttrs(p.Cloud, reads)
	if err != nil {
		return nil, err
	}
	vals := make([][]float64, len(attrs))
	for d := range attrs {
		vals[d] = make([]float64, p.Len())
	}
	par.For(par.Ranges(p.Len(), par.Grain), func(_, lo, hi int) {
		for d, a := range attrs {
			if p.Index == nil {
				a.Float64s(lo, vals[d][lo:hi])
				continue
			}
			for k := lo; k < hi; k++ {
				vals[d][k] = a.Float64(p.Index[k])
			}
		}
	})
	return vals, nil
}

// Pos returns the float64 coordinates of the points that take part,
// relative to Origin (interleaved x, y, z; z 0 with --dims xy): what
// XYZ rounds to float32, for arithmetic that must match a peer computing
// in float64 (PDAL). It is computed once.
func (p *Points) Pos() []float64 {
	if p.pos != nil || p.Len() == 0 {
		return p.pos
	}
	p.pos = p.coords(p.Origin)
	return p.pos
}

// abs returns the absolute float64 coordinates of the points that take
// part, as read (interleaved x, y, z; z 0 with --dims xy).
func (p *Points) abs() []float64 { return p.coords([3]float64{}) }

// coords returns the float64 coordinates of the points that take part
// less origin (interleaved x, y, z; z 0 with --dims xy), on all cores.
func (p *Points) coords(origin [3]float64) []float64 {
	out := make([]float64, 3*p.Len())
	c := p.Cloud
	par.For(par.Ranges(p.Len(), par.Grain), func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			i := p.cloudIndex(k)
			out[3*k], out[3*k+1] = c.X[i]-origin[0], c.Y[i]-origin[1]
			if !p.Flat {
				out[3*k+2] = c.Z[i] - origin[2]
			}
		}
	})
	return out
}

// ScatterFlags returns per-point flags of the taking-part points (sub, one per
// point of XYZ) as one flag per cloud point, rest for the points that take
// no part: the outliers of a filter (rest false), the points a thinning
// keeps (rest true).
func (p *Points) ScatterFlags(sub []bool, rest bool) []bool {
	if p.Index == nil {
		return sub
	}
	out := make([]bool, p.Cloud.Len())
	if rest {
		for i := range out {
			out[i] = true
		}
	}
	for k, i := range p.Index {
		out[i] = sub[k]
	}
	return out
}

// cloudIndex returns the cloud index of the k-th point that takes part.
func (p *Points) cloudIndex(k int) int {
	if p.Index == nil {
		return k
	}
	return p.Index[k]
}

// warnClamped says on stderr, when a neighbourhood size k given by --flag
// exceeds the available neighbours (noun: "point", "other point"), that
// every point then uses all it has, as PCL and Open3D do, rather than
// failing: a tile smaller than k must not stop a batch.
func warnClamped(flag string, k, available int, noun string) {
	if k > available {
		msg.Infof("warning: --%s %d exceeds the %s of the cloud; each point uses all it has (as PCL and Open3D do)", flag, k, Count(available, noun))
	}
}

// Result is what a filter computed.
type Result struct {
	// Columns hold one value per point that takes part. The runner scatters
	// them over the cloud (points that take no part get NaN in float
	// columns, 0 in integer ones) and sets them in order, replacing
	// columns of the same names. A column with one value per cloud point
	// (a filter that fills the others itself) is set as it is.
	Columns []*core.Attribute
	// Edit, when set, changes the cloud once the columns are set and
	// returns the cloud to write: classify points, drop some, add a
	// metadata record.
	Edit func(c *core.Cloud) (*core.Cloud, error)
	// Side outputs are written, atomically, before OUT, so that a failure
	// never leaves OUT changed. Their paths must be in Job.Outputs.
	Side []SideOutput
	// Lines are the summary printed on stderr (not with --json or -q).
	Lines []string
	// JSON is the "result" member of the --json / --summary document.
	JSON any
	// Doc, when set, makes the whole --json / --summary document instead
	// of the runner's (dbscan's, kept as it was before the runner).
	Doc func(t Timings) any
}

// SideOutput is a file a filter writes besides OUT (a GeoJSON file).
type SideOutput struct {
	Path  string
	Write func(w io.Writer) error
}

// Timings are the phases of a run, in seconds. Device is the part of
// Compute the backend's device was busy (a findneighbor.DeviceTimer's);
// 0 on the host's backends.
type Timings struct {
	Read    float64 `json:"read"`
	Compute float64 `json:"compute"`
	Write   float64 `json:"write"`
	Device  float64 `json:"device,omitempty"`
}

// deviceClock returns a function giving the device time (s) of backend
// b since deviceClock was called, or 0 when b does not time its device.
func deviceClock(b findneighbor.Backend) func() float64 {
	dt, ok := b.(findneighbor.DeviceTimer)
	if !ok {
		return func() float64 { return 0 }
	}
	t0 := dt.DeviceTime()
	return func() float64 { return (dt.DeviceTime() - t0).Seconds() }
}

// summaryDoc is the --json / --summary document of every filter but dbscan.
type summaryDoc struct {
	Command string  `json:"command"`
	Input   string  `json:"input"`
	Output  string  `json:"output"`
	Points  int     `json:"points"`
	Used    int     `json:"points_used"`
	Backend string  `json:"backend"`
	Seconds Timings `json:"seconds"`
	Result  any     `json:"result,omitempty"`
}

// The shared flags the runner adds.
var (
	jsonOption        = &Option{Kind: Bool, Name: "json", Usage: "print the summary as JSON on stdout (not when OUT is -)"}
	summaryOption     = &Option{Kind: String, Name: "summary", Usage: "write the summary as JSON to `FILE`"}
	TileSizeOption    = &Option{Kind: Float, Name: "tile-size", Usage: "compute on square tiles of side `SIZE` in XY (the cloud's units), several at a time on the cpu backend (one per GPU at a time with --backend cuda, --gpus), each with a halo of the neighbours it needs: the same output as without (docs/scale.md)"}
	previewOption     = &Option{Kind: String, Name: "preview", Usage: "also draw the result from the top into a PNG `FILE` (see pctk render)"}
	ignoreClassOption = &Option{Kind: String, Name: "ignore-class", Usage: "comma list of Classification codes whose points take no part (e.g. 7,18): they are nobody's neighbours and get no value (NaN, 0) (default: none)"}
)

func (f *Stage) label() string { return f.Name }

// AllOptions returns the stage's options followed by the shared ones the
// driver adds for it, in the order help lists them.
func (f *Stage) AllOptions() []*Option {
	opts := append([]*Option(nil), f.Options...)
	if f.Dims {
		opts = append(opts, DimsOption)
	}
	if f.IgnoreClass {
		opts = append(opts, ignoreClassOption)
	}
	if f.Preview != "" {
		opts = append(opts, previewOption)
	}
	switch {
	case f.Tiled:
		opts = append(opts, TileSizeOption, MaxMemoryOption, TmpdirOption, GPUsOption)
	case f.InOrder:
		opts = append(opts, inOrderMemoryOption, inOrderTmpdirOption)
	}
	opts = append(opts, jsonOption, summaryOption, WorkersOption, BackendOption, FormatOption, SalvageOption, ForceOption, InPlaceOption, keepNaNOption)
	return append(opts, QueryOptions...)
}

// Help returns the stage's help text: its Description, then its Examples.
func (f *Stage) Help() string {
	desc := f.Description
	if len(f.Examples) > 0 {
		desc += "\n\nExamples:\n  " + strings.Join(f.Examples, "\n  ")
	}
	return desc
}

// ArgsUsage describes the stage's arguments for help.
func (f *Stage) ArgsUsage() string {
	if f.streams() {
		return "IN OUT | IN... OUTDIR (a tile collection: several files or a glob, docs/scale.md)"
	}
	return "IN OUT"
}

// streams reports whether f runs out of core and on tile collections
// (Tiled or InOrder).
func (f *Stage) streams() bool { return f.Tiled || f.InOrder }

// Run runs the stage as the command "pctk NAME ARGS...": args are IN and
// OUT (or a tile collection's files and its folder), c the values of its
// options (AllOptions).
func (f *Stage) Run(c Values, args []string) error {
	var ins, outs []string
	var in, out string
	var err error
	if f.streams() {
		if ins, outs, out, err = collectionArgs(c, args); err != nil {
			return err
		}
		in = strings.Join(ins, " ")
	}
	if ins == nil {
		if in, out, err = InOut(f.Name, args); err != nil {
			return err
		}
	}
	s, err := f.prepare(c, out)
	if err != nil {
		return err
	}
	if ins != nil {
		if s.job.Stream == nil {
			return Usagef("pctk %s runs one file in memory with these flags; a collection of files (IN several files or a glob) needs its out-of-core run (docs/scale.md)", f.label())
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if err := CheckInOut(c, ins, outs, s.outputs()); err != nil {
			return err
		}
		if fused, err := runPipelineFused(c, ins, outs, out, []pipelineStep{{s: s}}); fused || err != nil {
			return err
		}
		return s.runStreamed(streamArgs{in: in, out: out, ins: ins, outs: outs})
	}
	if err := CheckInOut(c, []string{in}, []string{out}, s.outputs()); err != nil {
		return err
	}
	if f.streams() && c.IsSet(MaxMemoryOption.Name) {
		return s.runStreamed(streamArgs{in: in, out: out})
	}
	src, err := loadInput(c, in, s.job.CPUWork)
	if err != nil {
		return err
	}
	if _, _, err := OutputFormat(c, out, src.from); err != nil {
		return err
	}
	t1 := time.Now()
	device := deviceClock(src.backend)
	p, res, err := s.compute(src.cloud, src.from, src.backend, in, out)
	if err != nil {
		return err
	}
	t2 := time.Now()
	written, err := s.apply(p, res)
	if err != nil {
		return err
	}
	// The device's work is over: release it while OUT is written.
	released := ReleaseBackend(src.backend)
	err = WriteCloud(c, out, written, src.from)
	released()
	if err != nil {
		return err
	}
	t3 := time.Now()
	return s.report(p, res, Timings{Read: t1.Sub(src.start).Seconds(), Compute: t2.Sub(t1).Seconds(), Write: t3.Sub(t2).Seconds(), Device: device()}, t3.Sub(src.start))
}

// step is one run of a filter on a cloud in memory: a command's whole
// work, or one step of pctk pipeline. Its context holds the filter's own
// flags.
type step struct {
	f           *Stage
	c           Values
	job         *Job
	dims        string
	flat        bool
	ignore      []int
	jsonOut     bool
	summaryPath string
	previewPath string
	tileSize    float64
	gpus        int // --gpus: GPUs of a tiled run on the cuda backend (0: all)
}

// prepare checks the filter's flags in c, before anything is read, and
// returns the step to run; out is where the cloud goes ("-": --json cannot
// share standard output).
func (f *Stage) prepare(c Values, out string) (*step, error) {
	s := &step{f: f, c: c, dims: "xyz"}
	var err error
	if f.Dims {
		if s.dims, s.flat, err = parseDims(c); err != nil {
			return nil, err
		}
	}
	if f.IgnoreClass {
		if s.ignore, err = parseClasses(c.String(ignoreClassOption.Name)); err != nil {
			return nil, err
		}
	}
	s.jsonOut, s.summaryPath = c.Bool(jsonOption.Name), c.String(summaryOption.Name)
	if f.Preview != "" {
		if s.previewPath = c.String(previewOption.Name); s.previewPath != "" {
			if err := CheckImagePath("--preview", s.previewPath); err != nil {
				return nil, err
			}
		}
	}
	if s.jsonOut && out == pcio.Stdio {
		return nil, Usagef("--json prints on stdout, where OUT - writes the cloud; use --summary FILE")
	}
	if f.Tiled {
		if s.tileSize = c.Float64(TileSizeOption.Name); !(s.tileSize >= 0) || math.IsInf(s.tileSize, 0) {
			return nil, Usagef("--tile-size %v: want a finite size > 0 (0: no tiles)", s.tileSize)
		}
		if s.gpus = c.Int(GPUsOption.Name); s.gpus < 0 {
			return nil, Usagef("--gpus %d: want a number of GPUs (0: all)", s.gpus)
		}
	}
	if s.job, err = f.Prepare(c); err != nil {
		return nil, f.paramError(err)
	}
	if s.job.Local != nil {
		s.job.Local.job(s.job, f.Name)
	}
	if c.Bool(keepNaNOption.Name) {
		s.job.Stream = nil // the out-of-core passes take every point
	}
	return s, s.checkTileSize(nil)
}

// outputs lists the files the step writes besides OUT, to be checked
// before any work.
func (s *step) outputs() []string {
	return append([]string{s.summaryPath, s.previewPath}, s.job.Outputs...)
}

// compute checks the cloud (finiteInput: --keep-nan), takes the float32
// coordinates of the points that take part (the finite ones whose class is
// not ignored) and runs the filter on them with backend b.
func (s *step) compute(cloud *core.Cloud, from *pcio.Format, b findneighbor.Backend, in, out string) (*Points, *Result, error) {
	selected, err := finiteInput(cloud, s.c.Bool(keepNaNOption.Name))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", pcio.Name(in), err)
	}
	part, err := participants(cloud, s.ignore, selected)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", in, err)
	}
	var local core.Local
	if s.job.Project != nil {
		if local, err = s.job.Project(cloud, s.flat); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", in, err)
		}
	} else {
		local = cloud.Local(s.flat)
	}
	if s.tileSize > 0 {
		if b, err = s.pool(b); err != nil {
			return nil, nil, err
		}
	}
	xyz := local.XYZ
	if part != nil {
		xyz = make([]float32, 3*len(part))
		par.For(par.Ranges(len(part), par.Grain), func(_, lo, hi int) {
			for k := lo; k < hi; k++ {
				copy(xyz[3*k:3*k+3], local.XYZ[3*part[k]:3*part[k]+3])
			}
		})
	}
	if err := s.checkTileSize(xyz); err != nil {
		return nil, nil, err
	}
	p := &Points{In: in, Out: out, Cloud: cloud, From: from, XYZ: xyz, Origin: local.Origin, Index: part,
		Dims: s.dims, Flat: s.flat, Backend: b, TileSize: s.tileSize, bounds: local.Bounds}
	report, finish := stageProgress(s.f.label())
	p.Progress = report
	p.Build = findneighbor.BuildOptions{Workers: s.c.Int(WorkersOption.Name), Progress: func(done float64) { report("", done) }}
	res, err := s.job.Compute(p)
	finish()
	if err != nil {
		return nil, nil, s.f.computeError(in, err)
	}
	return p, res, nil
}

// apply sets the result's columns, edits the cloud, writes the side
// outputs atomically and returns the cloud to write.
func (s *step) apply(p *Points, res *Result) (*core.Cloud, error) {
	for _, col := range res.Columns {
		if err := p.Cloud.SetAttr(scatterColumn(col, p.Index, p.Cloud.Len())); err != nil {
			return nil, err
		}
	}
	written := p.Cloud
	if res.Edit != nil {
		var err error
		if written, err = res.Edit(p.Cloud); err != nil {
			return nil, err
		}
	}
	side := res.Side
	if s.previewPath != "" {
		img, err := render.Render(written, render.Options{Color: s.f.Preview})
		if err != nil {
			return nil, err
		}
		side = append(side, SideOutput{s.previewPath, func(w io.Writer) error { return EncodeImage(s.previewPath, w, img) }})
	}
	for _, o := range side {
		if err := WriteFile(s.c, o.Path, o.Write); err != nil {
			return nil, err
		}
	}
	return written, nil
}

// report writes the step's summary: --summary FILE, --json on stdout, or
// the summary lines and one timing line (total: the whole command's time).
func (s *step) report(p *Points, res *Result, t Timings, total time.Duration) error {
	return s.reportDoc(summaryDoc{Command: s.f.label(), Input: p.In, Output: p.Out, Points: p.Cloud.Len(), Used: p.Len(), Backend: p.Backend.Name()}, res, t, total)
}

// reportDoc is report with the run's document (Seconds and Result filled
// in here), for runs without Points (out of core).
func (s *step) reportDoc(d summaryDoc, res *Result, t Timings, total time.Duration) error {
	d.Seconds, d.Result = t, res.JSON
	var doc any = d
	if res.Doc != nil {
		doc = res.Doc(t)
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if s.summaryPath != "" {
		if err := WriteFile(s.c, s.summaryPath, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return err
		}
	}
	if s.jsonOut {
		_, err := os.Stdout.Write(data)
		return err
	}
	for _, l := range res.Lines {
		msg.Infof("%s", l)
	}
	device := ""
	if t.Device > 0 {
		device = fmt.Sprintf(", device %.3fs of the compute", t.Device)
	}
	msg.Infof("%s: %s, backend %s; %.3fs (read %.3fs, compute %.3fs, write %.3fs%s)", s.f.label(), Count(d.Points, "point"), d.Backend,
		total.Seconds(), t.Read, t.Compute, t.Write, device)
	return nil
}

// paramError turns an algorithm's findneighbor.ParamError into a usage
// error naming the flag (from f.Params) at fault; other errors pass.
func (f *Stage) paramError(err error) error {
	var pe *findneighbor.ParamError
	if !errors.As(err, &pe) {
		return err
	}
	if flag, ok := f.Params[pe.Param]; ok {
		return Usagef("--%s %s: want %s", flag, pe.Value, pe.Want)
	}
	return Usagef("%v", err)
}

// computeError is the error of a filter's computation on in: a usage
// error naming the flag for a findneighbor.ParamError (paramError), else
// err naming in.
func (f *Stage) computeError(in string, err error) error {
	var ue UsageError
	if pe := f.paramError(err); errors.As(pe, &ue) {
		return pe
	}
	// A --tile-size too small for the cloud's coordinates, as out of core.
	if se := (*tile.SpanError)(nil); errors.As(err, &se) {
		return Usagef("--tile-size: %v", se)
	}
	return fmt.Errorf("%s: %w", in, err)
}

// parseClasses parses --ignore-class: a comma list of codes 0-255.
func parseClasses(s string) ([]int, error) {
	if s = strings.TrimSpace(s); s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 || v > 255 {
			return nil, Usagef("--ignore-class: %q is not a classification code (0-255); want e.g. 7,18", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// participants returns the indices of the points that take part: those in
// selected (all when nil) whose Classification is not in ignore; nil when
// every point does.
func participants(cloud *core.Cloud, ignore, selected []int) ([]int, error) {
	if len(ignore) == 0 {
		return selected, nil
	}
	cls := cloud.Attr(core.DimClassification)
	if cls == nil {
		warnNoClass()
		return selected, nil
	}
	skip := newClassSet(ignore)
	n := cloud.Len()
	if selected != nil {
		n = len(selected)
	}
	// Each range keeps its points, joined in order, on all cores.
	rs := par.Ranges(n, par.Grain)
	parts := make([][]int, len(rs))
	par.For(rs, func(r, lo, hi int) {
		var part []int
		for k := lo; k < hi; k++ {
			i := k
			if selected != nil {
				i = selected[k]
			}
			if skip.keeps(cls.Int64(i)) {
				part = append(part, i)
			}
		}
		parts[r] = part
	})
	part := slices.Concat(parts...)
	if selected == nil && len(part) == n {
		return nil, nil
	}
	if part == nil {
		part = []int{}
	}
	return part, nil
}

// classSet is the Classification codes --ignore-class names.
type classSet [256]bool

// newClassSet returns the set of the codes 0-255 in ignore.
func newClassSet(ignore []int) *classSet {
	var skip classSet
	for _, v := range ignore {
		skip[v] = true
	}
	return &skip
}

// keeps reports whether a point of Classification v takes part: v is not
// in the set.
func (s *classSet) keeps(v int64) bool { return v < 0 || v > 255 || !s[v] }

// warnNoClass warns that --ignore-class has no Classification to read.
func warnNoClass() {
	msg.Infof("warning: --ignore-class: the input has no %s attribute; every point takes part", core.DimClassification)
}

// scatterColumn returns col, one value per index in part, as a column of n
// values: NaN (float columns) or 0 elsewhere. A nil part, or a col of n
// values, means col already has a value per point.
func scatterColumn(col *core.Attribute, part []int, n int) *core.Attribute {
	if part == nil || col.Len() == n {
		return col
	}
	out := core.NewAttribute(col.Name, col.Type, n)
	if col.Type.IsFloat() {
		par.For(par.Ranges(n, par.Grain), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				out.SetFloat64(i, math.NaN())
			}
		})
	}
	par.For(par.Ranges(len(part), par.Grain), func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			out.SetUint64(part[k], col.Uint64(k))
		}
	})
	return out
}

// Count returns "1 point", "2 points": n and noun, plural unless n is 1.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// num formats a statistic for a summary line: integers in full (never
// 2.193e+04), other values to 4 significant digits without an exponent
// unless they are very small or very large.
func num(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', -1, 64)
	case v == math.Trunc(v) && a < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1e-4 && a < 1e15:
		s, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
		return strconv.FormatFloat(s, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
