package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/urfave/cli/v2"
)

// formatFlag is the --format flag shared by every command that writes a cloud.
var formatFlag = &cli.StringFlag{
	Name:  "format",
	Usage: "output format: ply, ply-ascii, ply-binary, ply-binary-be, pcd, pcd-ascii, pcd-binary, pcd-compressed, las, las-1.2, las-1.3, las-1.4, laz, laz-1.2, laz-1.3, laz-1.4 (default: from OUT's extension)",
}

// inOut returns the IN and OUT arguments of a processing command, which
// must be exactly two.
func inOut(c *cli.Context) (in, out string, err error) {
	if c.NArg() != 2 {
		return "", "", usagef("%s needs IN and OUT (a path or - for stdin/stdout), got %d argument(s)", c.Command.Name, c.NArg())
	}
	return c.Args().Get(0), c.Args().Get(1), nil
}

// readCloud reads a whole cloud from path ("-" for stdin).
func readCloud(path string) (*core.Cloud, *pcio.Format, error) {
	cloud, f, err := pcio.ReadFile(path)
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
			infof("pctk: %s: warning: %s", path, fact.Value)
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
// cpuWork, see backend), then reads IN and checks the cloud with check
// (Cloud.Validate when nil), naming IN in the check's error. The backend
// comes first so that a backend that cannot run fails before a long read,
// and its set-up is not counted as reading.
func loadInput(c *cli.Context, in string, cpuWork bool, check func(*core.Cloud) error) (*input, error) {
	b, err := backend(c, cpuWork)
	if err != nil {
		return nil, err
	}
	src := &input{backend: b, start: time.Now()}
	if src.cloud, src.from, err = readCloud(in); err != nil {
		return nil, err
	}
	if check == nil {
		check = (*core.Cloud).Validate
	}
	if err := check(src.cloud); err != nil {
		return nil, fmt.Errorf("%s: %w", in, err)
	}
	return src, nil
}

// writeCloud writes cloud to path ("-" for stdout) atomically, in the format
// given by --format, else by OUT's extension, else the input's format.
func writeCloud(c *cli.Context, path string, cloud *core.Cloud, from *pcio.Format) error {
	f, variant, err := pcio.OutputFormat(path, c.String("format"), from)
	if err != nil {
		return usagef("%v", err)
	}
	if err := pcio.WriteFile(path, f, variant, cloud); err != nil {
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
