// Command pctk-beam runs pctk's stages as Apache Beam pipelines
// (docs/beam.md): in-process on Beam's Prism runner, or on a Flink, Spark
// or Dataflow cluster through a portable job endpoint. Its outputs are
// those of pctk on the same points.
//
// Usage:
//
//	pctk-beam [flags] --tile-size T IN... OUT STEP...
//	pctk-beam [flags] --eps E --tile-size T IN... OUT
//
// Each STEP is a stage's words as pctk pipeline takes them ("lof --minpts
// 20", "dbscan --eps 1 --min-pts 8"): dbscan, and every local stage (one
// whose values depend on the points within a reach: lof, denoise, ...;
// every stage is, for most of their options), run through the stage package's own declaration; several steps run one
// after another, each on the previous one's outputs. Without a STEP the
// flags --eps, --min-pts, --min-cluster-size and --dims make a dbscan step.
//
// IN are point-cloud files (LAS, LAZ, PLY, PCD, STL) or globs ('tiles/*.laz'),
// read as one cloud in the order given (globs sorted). With one input OUT is
// the output file; with several, OUT is a directory that gets one output per
// input, under the input's name. Each output is its input with ClusterID
// (int64, -1 for noise) and NeighborCount (uint32) added. Flags come before
// the files. Usage errors exit 2, failed runs 1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/pctk/pctk/beam/pipeline"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/stage"

	// The runners pctk-beam offers: Prism in-process, Dataflow, and the
	// portable job endpoints of Flink and Spark (universal).
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/exec/optimized"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"
)

var (
	eps            = flag.Float64("eps", 0, "neighbourhood radius ε in coordinate units; required")
	minPts         = flag.Int("min-pts", 5, "minimum points within ε for a core point, itself included")
	minClusterSize = flag.Int("min-cluster-size", 0, "relabel clusters of fewer points as noise")
	tileSize       = flag.Float64("tile-size", 0, "side of the square XY tiles in coordinate units, at least a few ε; required")
	dims           = flag.String("dims", "xyz", "xyz, or xy to cluster in the XY plane")
)

// ownFlags are pctk-beam's flags; beamFlags the Beam pipeline options
// the usage shows (Beam registers many more, all accepted).
var (
	ownFlags  = []string{"eps", "min-pts", "min-cluster-size", "tile-size", "dims"}
	beamFlags = []string{"runner", "endpoint", "environment_type", "environment_config", "job_name", "worker_binary", "project", "region", "staging_location"}
)

// usage prints the command's usage: its own flags, then Beam's main ones.
func usage() {
	w := flag.CommandLine.Output()
	fmt.Fprint(w, "usage: pctk-beam [flags] --tile-size T IN... OUT STEP...\n"+
		"       pctk-beam [flags] --eps E --tile-size T IN... OUT\n\n"+
		"pctk's stages as Apache Beam pipelines; see docs/beam.md. A STEP is a stage's words\n"+
		"as pctk pipeline takes them (\"lof --minpts 20\", \"dbscan --eps 1 --min-pts 8\").\n"+
		"--runner prism (the default) runs in-process; --runner flink|spark|universal\n"+
		"--endpoint HOST:PORT submits to a Flink or Spark job server; --runner dataflow\n"+
		"--project P --region R --staging_location gs://... submits to Google Cloud Dataflow.\n"+
		"IN and OUT must be paths every worker sees (a shared file system).\n\nflags:\n")
	show := func(names []string) {
		for _, n := range names {
			if f := flag.Lookup(n); f != nil {
				fmt.Fprintf(w, "  --%s\t%s", n, strings.SplitN(f.Usage, "\n", 2)[0])
				if f.DefValue != "" && f.DefValue != "0" {
					fmt.Fprintf(w, " (default %s)", f.DefValue)
				}
				fmt.Fprintln(w)
			}
		}
	}
	show(ownFlags)
	fmt.Fprint(w, "\nBeam pipeline options (the main ones; Beam's others are accepted too):\n")
	show(beamFlags)
}

// usageError is a mistake on the command line (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

func main() {
	flag.Usage = usage
	flag.Parse()
	// Beam and Prism log every job step at level INFO; keep warnings.
	beamlog.LogLevel = "warn"
	// A worker process started by a runner never returns from Init.
	beam.Init()
	err := run(context.Background(), flag.Args())
	var ue *usageError
	var se stage.UsageError
	switch {
	case errors.As(err, &ue) || errors.As(err, &se):
		fmt.Fprintln(os.Stderr, "pctk-beam:", err)
		fmt.Fprintln(os.Stderr, "run 'pctk-beam -help' for usage")
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "pctk-beam:", err)
		os.Exit(1)
	}
}

// run checks the command line and runs the pipelines: one per step, each
// step's inputs the previous one's outputs (in a folder beside OUT, removed
// at the end).
func run(ctx context.Context, args []string) error {
	args, steps, err := splitSteps(args)
	if err != nil {
		return err
	}
	cfg, err := config(args, steps == nil)
	if err != nil {
		return err
	}
	if steps == nil {
		steps = [][]string{nil} // the flags' dbscan
	}
	r := *runners.Runner
	if r == "" {
		r = "prism"
	}
	ins, final := cfg.Inputs, cfg.Outputs
	for k, step := range steps {
		outs := final
		if k < len(steps)-1 {
			dir, err := os.MkdirTemp(filepath.Dir(final[0]), ".pctk-beam-step-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			outs = make([]string, len(ins))
			for i, in := range ins {
				outs[i] = filepath.Join(dir, filepath.Base(in))
			}
		}
		if err := runStep(ctx, r, cfg, step, ins, outs); err != nil {
			return err
		}
		ins = outs
	}
	fmt.Fprintf(os.Stderr, "pctk-beam: %s on %d file(s), %s runner\n", stepNames(steps), len(cfg.Inputs), r)
	return nil
}

// runStep runs one step on ins into outs: dbscan (nil: the flags') as the
// DBSCAN pipeline, any other stage as a local stage's.
func runStep(ctx context.Context, runner string, cfg pipeline.Config, step []string, ins, outs []string) error {
	cfg.Inputs, cfg.Outputs = ins, outs
	if step != nil {
		s, _ := stage.Lookup(step)
		if s.Name != "dbscan" {
			return pipeline.RunLocal(ctx, runner, pipeline.LocalConfig{Inputs: ins, Outputs: outs, Step: step, TileSize: cfg.TileSize})
		}
		var err error
		if cfg, err = dbscanStep(cfg, step); err != nil {
			return err
		}
	}
	return pipeline.Run(ctx, runner, cfg)
}

// dbscanStep returns cfg with the DBSCAN parameters of a dbscan step's
// words, read through the stage's declaration; options the DBSCAN
// pipeline does not offer are usage errors.
func dbscanStep(cfg pipeline.Config, step []string) (pipeline.Config, error) {
	s, rest := stage.Lookup(step)
	v := stage.NewSettings(s.AllOptions())
	if _, err := v.ParseWords(rest); err != nil {
		return cfg, usagef("%q: %v", strings.Join(step, " "), err)
	}
	for _, o := range s.AllOptions() {
		switch o.Name {
		case "eps", "min-pts", "min-cluster-size", "dims", "tile-size", "workers", "backend":
		default:
			if v.IsSet(o.Name) {
				return cfg, usagef("%q: --%s is not offered on Beam yet (docs/beam.md)", strings.Join(step, " "), o.Name)
			}
		}
	}
	minPts, err := strconv.Atoi(v.String("min-pts"))
	if err != nil {
		return cfg, usagef("%q: --min-pts %q: one value on Beam", strings.Join(step, " "), v.String("min-pts"))
	}
	cfg.Eps, cfg.MinPts, cfg.MinClusterSize, cfg.Flat = v.Float64("eps"), minPts, v.Int("min-cluster-size"), v.String("dims") == "xy"
	if err := cfg.CheckParams(); err != nil {
		return cfg, usagef("%v", err)
	}
	return cfg, nil
}

// splitSteps splits the arguments into IN... OUT and the trailing STEPs:
// the arguments whose words start with a stage's name. A step that names
// no stage pctk has is taken as a file.
func splitSteps(args []string) (files []string, steps [][]string, err error) {
	k := len(args)
	for k > 0 {
		words, err := stage.SplitWords(args[k-1])
		if err != nil || len(words) == 0 {
			break
		}
		if s, _ := stage.Lookup(words); s == nil || !strings.ContainsRune(args[k-1], ' ') && len(words) == 1 && fileLike(args[k-1]) {
			break
		}
		steps = append([][]string{words}, steps...)
		k--
	}
	for _, step := range steps {
		s, rest := stage.Lookup(step)
		if s.Name == "dbscan" {
			continue
		}
		if _, err := stage.ParseLocalStep(append(strings.Fields(s.Name), rest...)); err != nil {
			return nil, nil, usagef("step %q: %v", strings.Join(step, " "), err)
		}
	}
	return args[:k], steps, nil
}

// fileLike reports whether a one-word argument is more likely a file than
// a stage: it has an extension or a path separator.
func fileLike(a string) bool {
	return filepath.Ext(a) != "" || strings.ContainsRune(a, filepath.Separator)
}

// stepNames lists the steps' stage names for the closing line.
func stepNames(steps [][]string) string {
	var names []string
	for _, step := range steps {
		if step == nil {
			names = append(names, "dbscan")
			continue
		}
		s, _ := stage.Lookup(step)
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

// config makes the run's Config from the flags and the arguments IN...
// OUT; flagsDBSCAN says the flags make the step (no STEP given).
func config(args []string, flagsDBSCAN bool) (pipeline.Config, error) {
	cfg := pipeline.Config{Eps: *eps, MinPts: *minPts, MinClusterSize: *minClusterSize, TileSize: *tileSize}
	switch *dims {
	case "xyz":
	case "xy":
		cfg.Flat = true
	default:
		return cfg, usagef("--dims %q: want xyz or xy", *dims)
	}
	switch {
	case *tileSize == 0:
		return cfg, usagef("--tile-size is required")
	case flagsDBSCAN && *eps == 0:
		return cfg, usagef("--eps is required without a STEP")
	case flagsDBSCAN:
		if err := cfg.CheckParams(); err != nil {
			return cfg, usagef("%v", err)
		}
	}
	if len(args) < 2 {
		return cfg, usagef("want IN... OUT, got %d argument(s)", len(args))
	}
	for _, a := range args[:len(args)-1] {
		if !strings.ContainsAny(a, "*?[") {
			cfg.Inputs = append(cfg.Inputs, a)
			continue
		}
		m, err := filepath.Glob(a)
		if err != nil || len(m) == 0 {
			return cfg, usagef("%s: no file matches", a)
		}
		cfg.Inputs = append(cfg.Inputs, m...)
	}
	out := args[len(args)-1]
	if len(cfg.Inputs) == 1 && !strings.HasSuffix(out, "/") {
		if fi, err := os.Stat(out); err != nil || !fi.IsDir() {
			cfg.Outputs = []string{out}
		}
	}
	if cfg.Outputs == nil {
		if fi, err := os.Stat(out); (err != nil || !fi.IsDir()) && !strings.HasSuffix(out, "/") {
			return cfg, usagef("with several inputs OUT is a folder: %s is not an existing folder; end it with / to make one", out)
		}
		seen := map[string]string{}
		for _, in := range cfg.Inputs {
			name := filepath.Base(in)
			if prev, ok := seen[name]; ok {
				return cfg, usagef("%s and %s would both write %s in %s", prev, in, name, out)
			}
			seen[name] = in
			cfg.Outputs = append(cfg.Outputs, filepath.Join(out, name))
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			return cfg, err
		}
	}
	inAbs := map[string]string{}
	for _, in := range cfg.Inputs {
		if a, err := filepath.Abs(in); err == nil {
			inAbs[a] = in
		}
	}
	for i, o := range cfg.Outputs {
		if o == pcio.Stdio || cfg.Inputs[i] == pcio.Stdio {
			return cfg, usagef("standard input and output (-) cannot be read or written by several workers")
		}
		if a, err := filepath.Abs(o); err == nil && inAbs[a] != "" {
			return cfg, usagef("%s would replace the input %s: give another OUT", o, inAbs[a])
		}
		for _, in := range cfg.Inputs {
			if pcio.SameFile(in, o) { // a symbolic or hard link
				return cfg, usagef("%s would replace the input %s (the same file): give another OUT", o, in)
			}
		}
		if err := pcio.CheckOutput(o); err != nil {
			return cfg, err
		}
	}
	if len(cfg.Inputs) == 0 || len(cfg.Inputs) != len(cfg.Outputs) {
		return cfg, usagef("want IN... OUT")
	}
	for _, in := range cfg.Inputs {
		if err := checkInput(in); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// checkInput reads the header of the input file in, so that a missing or
// damaged file fails here, before any worker starts, with a plain message.
// The workers check the points.
func checkInput(in string) error {
	f, r, rc, err := pcio.Open(in)
	if err != nil {
		return err
	}
	defer rc.Close()
	if f.NewDecoder == nil {
		return nil
	}
	if _, err := f.NewDecoder(r); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	return nil
}
