// Command pctk-beam runs pctk's exact tiled DBSCAN as an Apache Beam
// pipeline (docs/beam.md): in-process on Beam's Prism runner, or on a
// Flink, Spark or Dataflow cluster through a portable job endpoint. Its
// labels are those of "pctk dbscan" on the same points.
//
// Usage:
//
//	pctk-beam [flags] IN... OUT
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
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/pctk/pctk/beam/pipeline"
	"github.com/pctk/pctk/io/pcio"

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
	fmt.Fprint(w, "usage: pctk-beam [flags] IN... OUT\n\n"+
		"Exact tiled DBSCAN as an Apache Beam pipeline; see docs/beam.md.\n"+
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
	switch {
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "pctk-beam:", err)
		fmt.Fprintln(os.Stderr, "run 'pctk-beam -help' for usage")
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "pctk-beam:", err)
		os.Exit(1)
	}
}

// run checks the command line and runs the pipeline.
func run(ctx context.Context, args []string) error {
	cfg, err := config(args)
	if err != nil {
		return err
	}
	r := *runners.Runner
	if r == "" {
		r = "prism"
	}
	if err := pipeline.Run(ctx, r, cfg); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "pctk-beam: clustered %d file(s) on the %s runner\n", len(cfg.Inputs), r)
	return nil
}

// config makes the run's Config from the flags and the arguments IN... OUT.
func config(args []string) (pipeline.Config, error) {
	cfg := pipeline.Config{Eps: *eps, MinPts: *minPts, MinClusterSize: *minClusterSize, TileSize: *tileSize}
	switch *dims {
	case "xyz":
	case "xy":
		cfg.Flat = true
	default:
		return cfg, usagef("--dims %q: want xyz or xy", *dims)
	}
	if *eps == 0 || *tileSize == 0 {
		return cfg, usagef("--eps and --tile-size are required")
	}
	if err := cfg.CheckParams(); err != nil {
		return cfg, usagef("%v", err)
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
	if err := cfg.Check(); err != nil {
		return cfg, usagef("%v", err)
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
