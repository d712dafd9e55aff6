package stage

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
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// FormatOption is the --format flag shared by every command that writes a cloud.
var FormatOption = &Option{Kind: String,
	Name:  "format",
	Usage: "output format: ply, ply-ascii, ply-binary, ply-binary-be, pcd, pcd-ascii, pcd-binary, pcd-compressed, las, las-1.2, las-1.3, las-1.4, laz, laz-1.2, laz-1.3, laz-1.4, copc, text, csv (default: from OUT's extension)",
}

// SalvageOption is --salvage, one definition for every command that reads a
// cloud: it reads what a damaged input holds instead of failing
// (pcio.ReadOptions.Salvage), and says so on stderr.
var SalvageOption = &Option{Kind: Bool,
	Name:  "salvage",
	Usage: "read what a damaged IN holds instead of failing (the whole points before the cut of a file cut short), with a warning",
}

// ForceOption is --force, one definition for every command that writes a
// file (pcio.WriteOptions.Force).
var ForceOption = &Option{Kind: Bool,
	Name:  "force",
	Usage: "replace OUT even when it is read-only, and write binary data to a terminal",
}

// InPlaceOption is --in-place, for every command that reads IN and
// writes OUT: without it an OUT that is IN is refused (checkInOut).
var InPlaceOption = &Option{Kind: Bool, Name: "in-place", Usage: "let OUT be IN (the same file, by any name): IN is replaced, atomically, once the run succeeds"}

// ReadOptions returns the read options --salvage asks for; the defects it
// reads past are printed as warnings naming path.
func ReadOptions(c Values, path string) pcio.ReadOptions {
	return pcio.ReadOptions{Salvage: c.Bool(SalvageOption.Name), Warn: func(err error) {
		msg.Infof("pctk: %s: warning: salvaged: %v", pcio.Name(path), err)
	}}
}

// writeOptions returns the write options --force asks for.
func writeOptions(c Values) pcio.WriteOptions {
	return pcio.WriteOptions{Force: c.Bool(ForceOption.Name)}
}

// CheckOutputs checks, before any work, that every output path (OUT and
// side outputs such as --summary; "" for one not asked for) can be written
// (pcio.CheckOutput: its folder exists and takes files, it is not
// read-only unless --force) and that no two name the same file, so that a
// command never fails after its work, or after replacing OUT.
func CheckOutputs(c Values, paths ...string) error {
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
			return Usagef("%s and %s name the same output file", q, p)
		}
		seen[abs] = p
	}
	return nil
}

// CheckInOut is CheckOutputs for a command that reads ins: an output that is
// one of them (the same file by any name, symbolic and hard links
// included: pcio.SameFile) would destroy that input, and is a usage error
// naming both, unless it is one of outs (OUT, or a collection's outputs)
// and --in-place asks for it. side are the side outputs (--summary,
// --geojson, --preview), never written over an input.
func CheckInOut(c Values, ins, outs, side []string) error {
	all := append(slices.Clone(outs), side...)
	if err := CheckOutputs(c, all...); err != nil {
		return err
	}
	for i, o := range all {
		for _, in := range ins {
			switch {
			case !pcio.SameFile(in, o):
			case i >= len(outs):
				return Usagef("%s is the input %s (the same file): writing it would destroy the input; give another path", o, in)
			case !c.Bool(InPlaceOption.Name):
				return Usagef("OUT %s is the input %s (the same file): writing it would destroy the input; give another OUT, or --in-place to replace the input once the run succeeds", o, in)
			}
		}
	}
	return nil
}

// WriteFile writes a side output (a summary, a GeoJSON file) to path
// atomically, with --force's options; errors name path.
func WriteFile(c Values, path string, write func(w io.Writer) error) error {
	if err := pcio.WriteAtomic(path, write, writeOptions(c)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// InOut returns the IN and OUT arguments of a processing command, which
// must be exactly two.
func InOut(name string, args []string) (in, out string, err error) {
	if len(args) != 2 {
		return "", "", Usagef("%s needs IN and OUT (a path or - for stdin/stdout), got %d argument(s)", name, len(args))
	}
	return args[0], args[1], nil
}

// ReadCloud reads a whole cloud from path ("-" for stdin), salvaging a
// damaged file with --salvage, with --columns for a text file. Errors name
// path.
func ReadCloud(c Values, path string) (*core.Cloud, *pcio.Format, error) {
	return ReadCloudDims(c, path, nil)
}

// ReadCloudDims is readCloud for a command that needs only the attributes
// dims (pcio.ReadOptions.Dims; nil: all): LAZ of point formats 6-10 then
// leaves the other fields compressed. It reads with pcio.ReadFileQuery,
// --columns bound to a text input and the query of --bounds, --level and
// --resolution; a query a file cannot serve is a usage error.
func ReadCloudDims(c Values, path string, dims []string) (*core.Cloud, *pcio.Format, error) {
	q, err := QueryOf(c)
	if err != nil {
		return nil, nil, err
	}
	opts := ReadOptions(c, path)
	opts.Dims = dims
	bind := func(f *pcio.Format) (*pcio.Format, error) { return WithText(c, f, true) }
	cloud, f, err := pcio.ReadFileQuery(path, q, bind, opts)
	if errors.Is(err, pcio.ErrNoIndex) {
		return nil, nil, UsageError{err.Error()}
	}
	if err != nil {
		return nil, nil, err
	}
	msg.Debugf("read %s: %d points, format %s", path, cloud.Len(), f.Name)
	WarnRead(path, f, &cloud.Meta)
	return cloud, f, nil
}

// ReadClouds reads the files ins, in order, as one cloud (PDAL's
// filters.merge: several readers into one writer): the points of each
// after the previous file's, the first file's metadata and format. The
// files must have the same dimensions, in the same order and types; an
// error names the first that does not.
func ReadClouds(c Values, ins []string) (*core.Cloud, *pcio.Format, error) {
	var all *core.Cloud
	var from *pcio.Format
	for _, in := range ins {
		cloud, f, err := ReadCloud(c, in)
		if err != nil {
			return nil, nil, err
		}
		if all == nil {
			all, from = cloud, f
			continue
		}
		if err := all.Append(cloud); err != nil {
			return nil, nil, Usagef("merge %s after %s: %v (the files to merge need the same dimensions)", pcio.Name(in), pcio.Name(ins[0]), err)
		}
		if a, b := cloud.Meta.CRS, all.Meta.CRS; a.EPSG != b.EPSG || a.WKT != b.WKT {
			msg.Infof("pctk: merge: %s has another CRS than %s; the output takes the first file's", pcio.Name(in), pcio.Name(ins[0]))
		}
	}
	if all == nil {
		return nil, nil, Usagef("merge: no input")
	}
	return all, from, nil
}

// WarnRead prints on stderr the warnings a codec reported while reading
// path (facts named "warning" in its Describe): a file that could be read
// past a defect, such as a header promising more points than the file
// holds, is processed, but the user is told.
func WarnRead(path string, f *pcio.Format, m *core.Metadata) {
	if f.Describe == nil {
		return
	}
	for _, fact := range f.Describe(m) {
		if fact.Key == "warning" {
			msg.Infof("pctk: %s: warning: %s", pcio.Name(path), fact.Value)
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
func loadInput(c Values, in string, cpuWork bool) (*input, error) {
	pending, err := backend(c, cpuWork)
	if err != nil {
		return nil, err
	}
	src := &input{start: time.Now()}
	if src.cloud, src.from, err = ReadCloud(c, in); err != nil {
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

// WriteCloud writes cloud to path ("-" for stdout) atomically, in the format
// given by --format, else by OUT's extension, else the input's format, with
// the output options (OutputFormat) and --force's options.
func WriteCloud(c Values, path string, cloud *core.Cloud, from *pcio.Format) error {
	f, variant, err := OutputFormat(c, path, from)
	if err != nil {
		return err
	}
	if err := pcio.WriteFile(path, f, variant, cloud, writeOptions(c)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	msg.Debugf("wrote %s: %d points, format %s", path, cloud.Len(), f.Name)
	return nil
}

// PrintJSON writes v to standard output as indented JSON, for --json.
func PrintJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
