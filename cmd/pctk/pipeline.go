package main

import (
	"io"
	"os"

	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "pipeline",
		Usage:     "run several filters in one process: read once, write once",
		ArgsUsage: "IN STEP... OUT | 'TILES*' STEP... OUTDIR/ | --file PIPELINE.json",
		Description: `Each STEP is one filter command's words, quoted, exactly as the command takes
them without IN and OUT ("denoise statistical --k 8 --std-ratio 2"). The cloud
passes from step to step in memory; OUT is byte-identical to the same steps
joined by shell pipes. --backend applies to the steps that name none.

--file reads a JSON pipeline close to PDAL's (- reads it from standard input):
{"pipeline": [IN..., STAGE..., OUT]} where IN and OUT are file names (or
{"type": "readers.las", "filename": ...}, with the reader and writer options
docs/pipeline.md lists); several INs are merged, and no STAGE translates,
and a stage is {"type": "dbscan", "eps": 1.5, "min-pts": 10} with pctk's
command and flag names ("denoise statistical", true for a flag without value,
a list for a comma list), or a PDAL stage pctk has (filters.dbscan,
filters.outlier, filters.normal, filters.radialdensity,
filters.covariancefeatures, filters.sample, ...) with PDAL's option names
(docs/pipeline.md lists the mapping; the computation is pctk's). A
{"type": "writers.gdal", "filename": "dtm.tif", "resolution": 1, ...} grids
the cloud into a GeoTIFF, as pctk raster does (docs/raster.md).

IN several files or a glob with OUT a folder (an existing one, or ending in /)
runs the steps over the tile collection, and --max-memory runs them out of core:
each step as its command would, one after another (docs/pipeline.md).

Examples:
   pctk pipeline scan.laz "denoise statistical --k 8 --std-ratio 2" "dbscan --eps 1.5 --min-pts 10" clusters.laz
   pctk pipeline --file pipeline.json`,
		Flags: append(flagsOf(stage.PipelineOptions()...),
			&cli.StringFlag{Name: "file", Usage: "read the pipeline from a JSON `FILE` (- for standard input) instead of the arguments"}),
		Action: runPipeline,
	})
}

// runPipeline parses the pipeline's arguments, or its --file, into IN,
// the steps' words and OUT, and runs it (stage.RunPipeline).
func runPipeline(c *cli.Context) error {
	if path := c.String("file"); path != "" {
		if c.NArg() > 0 {
			return stage.Usagef("pipeline: --file takes the input, steps and output from the file, not from %d argument(s)", c.NArg())
		}
		return runPipelineFile(c, path)
	}
	if c.NArg() < 3 {
		return stage.Usagef("pipeline needs IN, at least one STEP and OUT, got %d argument(s)", c.NArg())
	}
	args := c.Args().Slice()
	var words [][]string
	for _, a := range args[1 : len(args)-1] {
		w, err := stage.SplitWords(a)
		if err != nil {
			return stage.Usagef("pipeline step %q: %v", a, err)
		}
		words = append(words, w)
	}
	return stage.RunPipeline(c, args[0], words, args[len(args)-1])
}

// runPipelineFile runs the JSON pipeline in the file path (- reads it
// from standard input): its readers merged, its filters, its writer, with
// the options its readers and writer set over the command's.
func runPipelineFile(c *cli.Context, path string) error {
	var data []byte
	var err error
	if path == pcio.Stdio {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return err
	}
	p, err := stage.ParsePipelineJSON(data)
	if err != nil {
		return stage.Usagef("pipeline %s: %v", path, err)
	}
	return p.Run(c)
}
