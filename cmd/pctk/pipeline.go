package main

import (
	"os"

	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "pipeline",
		Usage:     "run several filters in one process: read once, write once",
		ArgsUsage: "IN STEP... OUT | --file PIPELINE.json",
		Description: `Each STEP is one filter command's words, quoted, exactly as the command takes
them without IN and OUT ("denoise statistical --k 8 --std-ratio 2"). The cloud
passes from step to step in memory; OUT is byte-identical to the same steps
joined by shell pipes. --backend applies to the steps that name none.

--file reads a JSON pipeline close to PDAL's: {"pipeline": [IN, STAGE..., OUT]}
where IN and OUT are file names (or {"type": "readers.las", "filename": ...}),
and a stage is {"type": "dbscan", "eps": 1.5, "min-pts": 10} with pctk's
command and flag names ("denoise statistical", true for a flag without value,
a list for a comma list), or a PDAL stage pctk has (filters.dbscan,
filters.outlier, filters.normal, filters.radialdensity,
filters.covariancefeatures, filters.sample, ...) with PDAL's option names
(docs/pipeline.md lists the mapping; the computation is pctk's).

Examples:
   pctk pipeline scan.laz "denoise statistical --k 8 --std-ratio 2" "dbscan --eps 1.5 --min-pts 10" clusters.laz
   pctk pipeline --file pipeline.json`,
		Flags: append(flagsOf(stage.FormatOption, stage.BackendOption, stage.SalvageOption, stage.ForceOption, stage.InPlaceOption),
			append([]cli.Flag{&cli.StringFlag{Name: "file", Usage: "read the pipeline from a JSON `FILE` instead of the arguments"}},
				flagsOf(stage.QueryOptions...)...)...),
		Action: runPipeline,
	})
}

// runPipeline parses the pipeline's arguments, or its --file, into IN,
// the steps' words and OUT, and runs it (stage.RunPipeline).
func runPipeline(c *cli.Context) error {
	var in, out string
	var words [][]string
	if path := c.String("file"); path != "" {
		if c.NArg() > 0 {
			return stage.Usagef("pipeline: --file takes the input, steps and output from the file, not from %d argument(s)", c.NArg())
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if in, words, out, err = stage.ParsePipelineJSON(data); err != nil {
			return stage.Usagef("pipeline %s: %v", path, err)
		}
	} else {
		if c.NArg() < 3 {
			return stage.Usagef("pipeline needs IN, at least one STEP and OUT, got %d argument(s)", c.NArg())
		}
		args := c.Args().Slice()
		in, out = args[0], args[len(args)-1]
		for _, a := range args[1 : len(args)-1] {
			w, err := stage.SplitWords(a)
			if err != nil {
				return stage.Usagef("pipeline step %q: %v", a, err)
			}
			words = append(words, w)
		}
	}
	return stage.RunPipeline(c, in, words, out)
}
