package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/urfave/cli/v2"
)

// formatFlag is the --format flag shared by every command that writes a cloud.
var formatFlag = &cli.StringFlag{
	Name:  "format",
	Usage: "output format: ply, ply-ascii, ply-binary, ply-binary-be, pcd, pcd-ascii, pcd-binary, pcd-compressed, las, las-1.2, las-1.3, las-1.4, laz, laz-1.2, laz-1.3, laz-1.4, copc, text, csv (default: from OUT's extension)",
}

// salvageFlag is --salvage, one definition for every command that reads a
// cloud: it reads what a damaged input holds instead of failing
// (pcio.ReadOptions.Salvage), and says so on stderr.
var salvageFlag = &cli.BoolFlag{
	Name:  "salvage",
	Usage: "read what a damaged IN holds instead of failing (the whole points before the cut of a file cut short), with a warning",
}

// forceFlag is --force, one definition for every command that writes a
// file (pcio.WriteOptions.Force).
var forceFlag = &cli.BoolFlag{
	Name:  "force",
	Usage: "replace OUT even when it is read-only, and write binary data to a terminal",
}

// inPlaceFlag is --in-place, for every command that reads IN and writes
// OUT: without it an OUT that is IN is refused (checkInOut).
var inPlaceFlag = &cli.BoolFlag{
	Name:  "in-place",
	Usage: "let OUT be IN (the same file, by any name): IN is replaced, atomically, once the run succeeds",
}

// readOptions returns the read options --salvage asks for; the defects it
// reads past are printed as warnings naming path.
func readOptions(c *cli.Context, path string) pcio.ReadOptions {
	return pcio.ReadOptions{Salvage: c.Bool(salvageFlag.Name), Warn: func(err error) {
		infof("pctk: %s: warning: salvaged: %v", pcio.Name(path), err)
	}}
}

// writeOptions returns the write options --force asks for.
func writeOptions(c *cli.Context) pcio.WriteOptions {
	return pcio.WriteOptions{Force: c.Bool(forceFlag.Name)}
}

// checkOutputs checks, before any work, that every output path (OUT and
// side outputs such as --summary; "" for one not asked for) can be written
// (pcio.CheckOutput: its folder exists and takes files, it is not
// read-only unless --force) and that no two name the same file, so that a
// command never fails after its work, or after replacing OUT.
func checkOutputs(c *cli.Context, paths ...string) error {
	seen := map[string]string{}
	for _, p := range paths {
		if p == "" || p == pcio.Stdio {
			continue
		}
		if err := pcio.CheckOutput(p, writeOptions(c)); errors.Is(err, pcio.ErrReadOnly) {
			return fmt.Errorf("%w; --force replaces it", err)
		} else if err != nil {
			return err
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		if q, dup := seen[abs]; dup {
			return usagef("%s and %s name the same output file", q, p)
		}
		seen[abs] = p
	}
	return nil
}

// checkInOut is checkOutputs for a command that reads ins: an output that is
// one of them (the same file by any name, symbolic and hard links
// included: pcio.SameFile) would destroy that input, and is a usage error
// naming both, unless it is one of outs (OUT, or a collection's outputs)
// and --in-place asks for it. side are the side outputs (--summary,
// --geojson, --preview), never written over an input.
func checkInOut(c *cli.Context, ins, outs, side []string) error {
	all := append(slices.Clone(outs), side...)
	if err := checkOutputs(c, all...); err != nil {
		return err
	}
	for i, o := range all {
		for _, in := range ins {
			switch {
			case !pcio.SameFile(in, o):
			case i >= len(outs):
				return usagef("%s is the input %s (the same file): writing it would destroy the input; give another path", o, in)
			case !c.Bool(inPlaceFlag.Name):
				return usagef("OUT %s is the input %s (the same file): writing it would destroy the input; give another OUT, or --in-place to replace the input once the run succeeds", o, in)
			}
		}
	}
	return nil
}

// writeFile writes a side output (a summary, a GeoJSON file) to path
// atomically, with --force's options; errors name path.
func writeFile(c *cli.Context, path string, write func(w io.Writer) error) error {
	if err := pcio.WriteAtomic(path, write, writeOptions(c)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// inOut returns the IN and OUT arguments of a processing command, which
// must be exactly two.
func inOut(c *cli.Context) (in, out string, err error) {
	if c.NArg() != 2 {
		return "", "", usagef("%s needs IN and OUT (a path or - for stdin/stdout), got %d argument(s)", c.Command.Name, c.NArg())
	}
	return c.Args().Get(0), c.Args().Get(1), nil
}

// readCloud reads a whole cloud from path ("-" for stdin), salvaging a
// damaged file with --salvage, with --columns for a text file. Errors name
// path.
func readCloud(c *cli.Context, path string) (*core.Cloud, *pcio.Format, error) {
	return readCloudDims(c, path, nil)
}

// readCloudDims is readCloud for a command that needs only the attributes
// dims (pcio.ReadOptions.Dims; nil: all): LAZ of point formats 6-10 then
// leaves the other fields compressed. It reads with pcio.ReadFileQuery,
// --columns bound to a text input and the query of --bounds, --level and
// --resolution; a query a file cannot serve is a usage error.
func readCloudDims(c *cli.Context, path string, dims []string) (*core.Cloud, *pcio.Format, error) {
	q, err := queryOf(c)
	if err != nil {
		return nil, nil, err
	}
	opts := readOptions(c, path)
	opts.Dims = dims
	bind := func(f *pcio.Format) (*pcio.Format, error) { return withText(c, f, true) }
	cloud, f, err := pcio.ReadFileQuery(path, q, bind, opts)
	if errors.Is(err, pcio.ErrNoIndex) {
		return nil, nil, usageError{err.Error()}
	}
	if err != nil {
		return nil, nil, err
	}
	debugf("read %s: %d points, format %s", path, cloud.Len(), f.Name)
	warnRead(path, f, &cloud.Meta)
	return cloud, f, nil
}

// warnRead prints on stderr the warnings a codec reported while reading
// path (facts named "warning" in its Describe): a file that could be read
// past a defect, such as a header promising more points than the file
// holds, is processed, but the user is told.
func warnRead(path string, f *pcio.Format, m *core.Metadata) {
	if f.Describe == nil {
		return
	}
	for _, fact := range f.Describe(m) {
		if fact.Key == "warning" {
			infof("pctk: %s: warning: %s", pcio.Name(path), fact.Value)
		}
	}
}

// input is what every neighbour-based command starts from: the backend
// --backend names and IN, read and checked.
type input struct {
	backend findneighbor.Backend
	cloud   *core.Cloud
	from    *pcio.Format // IN's format
	start   time.Time    // when reading began, once the backend was ready
}

// loadInput resolves --backend (for work the cpu backend does best when
// cpuWork, see backend), then reads IN; the filter's step checks the
// cloud. An unknown backend fails before the read; the backend's probe
// and device start-up run in the background while IN is read, and one
// that cannot run fails once IN is read (startBackend).
func loadInput(c *cli.Context, in string, cpuWork bool) (*input, error) {
	pending, err := backend(c, cpuWork)
	if err != nil {
		return nil, err
	}
	src := &input{start: time.Now()}
	if src.cloud, src.from, err = readCloud(c, in); err != nil {
		return nil, err
	}
	b, waited, err := pending.resolve()
	if err != nil {
		return nil, err
	}
	// Waiting for the probe is not reading: leave it out of the read time.
	src.backend, src.start = b, src.start.Add(waited)
	return src, nil
}

// writeCloud writes cloud to path ("-" for stdout) atomically, in the format
// given by --format, else by OUT's extension, else the input's format, with
// --force's options.
func writeCloud(c *cli.Context, path string, cloud *core.Cloud, from *pcio.Format) error {
	f, variant, err := pcio.OutputFormat(path, c.String("format"), from)
	if err != nil {
		return usagef("%v", err)
	}
	if f, err = withText(c, f, false); err != nil {
		return err
	}
	if err := pcio.WriteFile(path, f, variant, cloud, writeOptions(c)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	debugf("wrote %s: %d points, format %s", path, cloud.Len(), f.Name)
	return nil
}

// printJSON writes v to standard output as indented JSON, for --json.
func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
