package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/urfave/cli/v2"
)

// Filter declares a neighbour-based command "pctk NAME IN OUT". It says
// what is particular to it: its name, help, flags and computation. The
// runner (Filter.Command) does the rest the same way for every filter:
// reading IN (a path or -, --salvage), --backend (the cpu backend for
// "auto" when the work suits it), --dims, --ignore-class, progress,
// --json and --summary FILE, the timing line, spreading the new columns
// over the cloud, checking every output path before any work, and writing
// side outputs and OUT atomically. docs/extending.md walks through one.
type Filter struct {
	Name    string
	Aliases []string
	// Label names the filter in messages and the summary, when it is not
	// Name alone (a subcommand: "denoise radius").
	Label string
	// Usage is the one-line description "pctk help" lists.
	Usage string
	// Description is the help text; Examples are appended to it, one
	// command line each.
	Description string
	Examples    []string
	// Flags are the filter's own flags; the runner adds the shared ones.
	Flags []cli.Flag
	// Dims adds --dims xyz|xy; IgnoreClass adds --ignore-class.
	Dims, IgnoreClass bool
	// Tiled declares that the filter's Compute honours Points.TileSize
	// (its algorithm has tile kernels, docs/scale.md): the runner adds
	// --tile-size.
	Tiled bool
	// Params maps the parameter names of the algorithm's
	// findneighbor.ParamError to the filter's flags ("k": "knn"), so that
	// a parameter out of its limits is a usage error naming the flag.
	Params map[string]string
	// Prepare checks the filter's flags, before anything is read, and
	// returns the job to run.
	Prepare func(c *cli.Context) (*Job, error)
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
	// Select, when set, checks the cloud instead of Cloud.Validate and
	// returns the points that take part (nil: all), for filters that accept
	// some non-finite points. Points it leaves out are treated like points
	// --ignore-class leaves out.
	Select func(c *core.Cloud) ([]int, error)
	// Project, when set, replaces Cloud.Local for the float32 coordinates
	// (dbscan --geographic projects lon/lat to metres).
	Project func(c *core.Cloud, flat bool) (core.Local, error)
	// Stream, when set, is the job's out-of-core run (--max-memory,
	// outofcore.go); without it --max-memory is refused.
	Stream *Streamed
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
	// TileSize, when > 0 (--tile-size, Filter.Tiled), asks Compute to work
	// on square tiles of this side in XY, one at a time, with the same
	// output as without (the algorithms' TileSize options).
	TileSize float64
}

// Len returns the number of points that take part.
func (p *Points) Len() int { return len(p.XYZ) / 3 }

// Spread returns per-point flags of the taking-part points (sub, one per
// point of XYZ) as one flag per cloud point, rest for the points that take
// no part: the outliers of a filter (rest false), the points a thinning
// keeps (rest true).
func (p *Points) Spread(sub []bool, rest bool) []bool {
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

// WarnClamped says on stderr, when a neighbourhood size k given by --flag
// exceeds the available neighbours (noun: "point", "other point"), that
// every point then uses all it has, as PCL and Open3D do, rather than
// failing: a tile smaller than k must not stop a batch.
func (p *Points) WarnClamped(flag string, k, available int, noun string) {
	if k > available {
		infof("warning: --%s %d exceeds the %s of the cloud; each point uses all it has (as PCL and Open3D do)", flag, k, count(available, noun))
	}
}

// Result is what a filter computed.
type Result struct {
	// Columns hold one value per point that takes part. The runner spreads
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

// Timings are the phases of a run, in seconds.
type Timings struct {
	Read    float64 `json:"read"`
	Compute float64 `json:"compute"`
	Write   float64 `json:"write"`
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
	jsonFlag        = &cli.BoolFlag{Name: "json", Usage: "print the summary as JSON on stdout (not when OUT is -)"}
	summaryFlag     = &cli.StringFlag{Name: "summary", Usage: "write the summary as JSON to `FILE`"}
	tileSizeFlag    = &cli.Float64Flag{Name: "tile-size", Usage: "compute on square tiles of side `SIZE` in XY (the cloud's units), one at a time, each with a halo of the neighbours it needs: the same output as without (docs/scale.md)"}
	ignoreClassFlag = &cli.StringFlag{Name: "ignore-class", Usage: "comma list of Classification codes whose points take no part (e.g. 7,18): they are nobody's neighbours and get no value (NaN, 0)"}
)

func (f *Filter) label() string {
	if f.Label != "" {
		return f.Label
	}
	return f.Name
}

// Command returns the cli command that runs f.
func (f *Filter) Command() *cli.Command {
	flags := append([]cli.Flag(nil), f.Flags...)
	if f.Dims {
		flags = append(flags, dimsFlag)
	}
	if f.IgnoreClass {
		flags = append(flags, ignoreClassFlag)
	}
	if f.Tiled {
		flags = append(flags, tileSizeFlag, maxMemoryFlag, tmpdirFlag)
	}
	flags = append(flags, jsonFlag, summaryFlag, workersFlag, backendFlag, formatFlag, salvageFlag, forceFlag)
	desc := f.Description
	if len(f.Examples) > 0 {
		desc += "\n\nExamples:\n  " + strings.Join(f.Examples, "\n  ")
	}
	args := "IN OUT"
	if f.Tiled {
		args = "IN OUT | IN... OUTDIR (a tile collection: several files or a glob, docs/scale.md)"
	}
	return &cli.Command{
		Name: f.Name, Aliases: f.Aliases, Usage: f.Usage, ArgsUsage: args, Description: desc,
		Flags:        flags,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageError{err.Error()} },
		Action:       f.run,
	}
}

// run is the action of every filter: see Filter.
func (f *Filter) run(c *cli.Context) error {
	var ins, outs []string
	var in, out string
	var err error
	if f.Tiled {
		if ins, outs, out, err = collectionArgs(c); err != nil {
			return err
		}
		in = strings.Join(ins, " ")
	}
	if ins == nil {
		if in, out, err = inOut(c); err != nil {
			return err
		}
	}
	dims, flat := "xyz", false
	if f.Dims {
		if dims, flat, err = parseDims(c); err != nil {
			return err
		}
	}
	var ignore []int
	if f.IgnoreClass {
		if ignore, err = parseClasses(c.String(ignoreClassFlag.Name)); err != nil {
			return err
		}
	}
	var tileSize float64
	if f.Tiled {
		if tileSize = c.Float64(tileSizeFlag.Name); !(tileSize >= 0) || math.IsInf(tileSize, 0) {
			return usagef("--tile-size %v: want a finite size > 0 (0: no tiles)", tileSize)
		}
	}
	jsonOut, summaryPath := c.Bool(jsonFlag.Name), c.String(summaryFlag.Name)
	if jsonOut && out == pcio.Stdio {
		return usagef("--json prints on stdout, where OUT - writes the cloud; use --summary FILE")
	}
	job, err := f.Prepare(c)
	if err != nil {
		return f.paramError(err)
	}
	if ins != nil {
		if job.Stream == nil {
			return usagef("pctk %s runs one file in memory with these flags; a collection of files (IN several files or a glob) needs its out-of-core run (docs/scale.md)", f.label())
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if err := checkOutputs(c, append(append([]string{summaryPath}, outs...), job.Outputs...)...); err != nil {
			return err
		}
		return f.runStreamed(c, job, streamArgs{in: in, out: out, ins: ins, outs: outs, dims: dims, flat: flat, ignore: ignore, tileSize: tileSize})
	}
	if err := checkOutputs(c, append([]string{out, summaryPath}, job.Outputs...)...); err != nil {
		return err
	}
	if f.Tiled && c.IsSet(maxMemoryFlag.Name) {
		return f.runStreamed(c, job, streamArgs{in: in, out: out, dims: dims, flat: flat, ignore: ignore, tileSize: tileSize})
	}
	p, src, err := loadPoints(c, job, in, out, ignore, flat)
	if err != nil {
		return err
	}
	p.Dims, p.Flat, p.TileSize = dims, flat, tileSize
	report, finish := stageProgress(f.label())
	p.Progress = report
	p.Build = findneighbor.BuildOptions{Workers: c.Int(workersFlag.Name), Progress: func(done float64) { report("", done) }}

	t1 := time.Now()
	res, err := job.Compute(p)
	finish()
	if err != nil {
		var ue usageError
		if pe := f.paramError(err); errors.As(pe, &ue) {
			return pe
		}
		return fmt.Errorf("%s: %w", in, err)
	}
	t2 := time.Now()
	if err := writeResult(c, p, res); err != nil {
		return err
	}
	t3 := time.Now()
	t := Timings{Read: t1.Sub(src.start).Seconds(), Compute: t2.Sub(t1).Seconds(), Write: t3.Sub(t2).Seconds()}
	return f.report(c, res, t, summaryDoc{Command: f.label(), Input: in, Output: out, Points: p.Cloud.Len(), Used: p.Len(), Backend: p.Backend.Name()})
}

// report writes the summary of a run: --summary FILE, then --json on
// stdout or the result's lines and one timing line on stderr. doc is the
// runner's document with the run's counts and backend; the result fills
// in the rest (or replaces it: Result.Doc).
func (f *Filter) report(c *cli.Context, res *Result, t Timings, doc summaryDoc) error {
	doc.Seconds, doc.Result = t, res.JSON
	var d any = doc
	if res.Doc != nil {
		d = res.Doc(t)
	}
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if summaryPath := c.String(summaryFlag.Name); summaryPath != "" {
		if err := writeFile(c, summaryPath, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return err
		}
	}
	if c.Bool(jsonFlag.Name) {
		_, err := os.Stdout.Write(data)
		return err
	}
	for _, l := range res.Lines {
		infof("%s", l)
	}
	infof("%s: %s, backend %s; %.3fs (read %.3fs, compute %.3fs, write %.3fs)", f.label(), count(doc.Points, "point"), doc.Backend,
		t.Read+t.Compute+t.Write, t.Read, t.Compute, t.Write)
	return nil
}

// loadPoints resolves the backend, reads and checks IN (job.Select or
// Cloud.Validate), checks OUT's format now that IN's is known, and returns
// the float32 coordinates of the points that take part: those job.Select
// keeps whose class is not in ignore.
func loadPoints(c *cli.Context, job *Job, in, out string, ignore []int, flat bool) (*Points, *input, error) {
	check := (*core.Cloud).Validate
	var selected []int
	if job.Select != nil {
		check = func(cl *core.Cloud) (err error) {
			selected, err = job.Select(cl)
			return err
		}
	}
	src, err := loadInput(c, in, job.CPUWork, check)
	if err != nil {
		return nil, nil, err
	}
	cloud := src.cloud
	if _, _, err := pcio.OutputFormat(out, c.String("format"), src.from); err != nil {
		return nil, nil, usagef("%v", err)
	}
	part, err := participants(cloud, ignore, selected)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", in, err)
	}
	var local core.Local
	if job.Project != nil {
		if local, err = job.Project(cloud, flat); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", in, err)
		}
	} else {
		local = cloud.Local(flat)
	}
	xyz := local.XYZ
	if part != nil {
		xyz = make([]float32, 0, 3*len(part))
		for _, i := range part {
			xyz = append(xyz, local.XYZ[3*i:3*i+3]...)
		}
	}
	p := &Points{In: in, Out: out, Cloud: cloud, From: src.from, XYZ: xyz, Origin: local.Origin, Index: part, Backend: src.backend}
	return p, src, nil
}

// writeResult sets the result's columns, edits the cloud, and writes the
// side outputs and then OUT, each atomically.
func writeResult(c *cli.Context, p *Points, res *Result) error {
	for _, col := range res.Columns {
		if err := p.Cloud.SetAttr(spread(col, p.Index, p.Cloud.Len())); err != nil {
			return err
		}
	}
	written := p.Cloud
	if res.Edit != nil {
		var err error
		if written, err = res.Edit(p.Cloud); err != nil {
			return err
		}
	}
	for _, s := range res.Side {
		if err := writeFile(c, s.Path, s.Write); err != nil {
			return err
		}
	}
	return writeCloud(c, p.Out, written, p.From)
}

// paramError turns an algorithm's findneighbor.ParamError into a usage
// error naming the flag (from f.Params) at fault; other errors pass.
func (f *Filter) paramError(err error) error {
	var pe *findneighbor.ParamError
	if !errors.As(err, &pe) {
		return err
	}
	if flag, ok := f.Params[pe.Param]; ok {
		return usagef("--%s %s: want %s", flag, pe.Value, pe.Want)
	}
	return usagef("%v", err)
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
			return nil, usagef("--ignore-class: %q is not a classification code (0-255); want e.g. 7,18", f)
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
		infof("warning: --ignore-class: the input has no %s attribute; every point takes part", core.DimClassification)
		return selected, nil
	}
	var skip [256]bool
	for _, v := range ignore {
		skip[v] = true
	}
	keep := func(i int) bool { v := cls.Int64(i); return v < 0 || v > 255 || !skip[v] }
	part := make([]int, 0, cloud.Len())
	if selected == nil {
		for i := range cloud.Len() {
			if keep(i) {
				part = append(part, i)
			}
		}
		if len(part) == cloud.Len() {
			return nil, nil
		}
		return part, nil
	}
	for _, i := range selected {
		if keep(i) {
			part = append(part, i)
		}
	}
	return part, nil
}

// spread returns col, one value per index in part, as a column of n
// values: NaN (float columns) or 0 elsewhere. A nil part, or a col of n
// values, means col already has a value per point.
func spread(col *core.Attribute, part []int, n int) *core.Attribute {
	if part == nil || col.Len() == n {
		return col
	}
	out := core.NewAttribute(col.Name, col.Type, n)
	if col.Type.IsFloat() {
		for i := range n {
			out.SetFloat64(i, math.NaN())
		}
	}
	for k, i := range part {
		out.SetUint64(i, col.Uint64(k))
	}
	return out
}

// count returns "1 point", "2 points": n and noun, plural unless n is 1.
func count(n int, noun string) string {
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
