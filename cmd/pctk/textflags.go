package main

import (
	"slices"
	"strings"

	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/io/text"
	"github.com/urfave/cli/v2"
)

// The options of the text format (io/text) that a file cannot tell:
// --columns names the columns of text input without a header line,
// --precision sets the decimals of text output.
var (
	columnsFlag = &cli.StringFlag{
		Name:  "columns",
		Usage: "for text input (.xyz .txt .csv .pts): the column `NAMES`, comma-separated, when the file has no header line (x,y,z,intensity; a name may carry a type: red:uint8; default: the header line's names, else X Y Z [Intensity] or X Y Z Column4 ... by the count of values)",
	}
	precisionFlag = &cli.IntFlag{
		Name:        "precision",
		Usage:       "for text output: the number of decimals of floating-point values",
		DefaultText: "the shortest form that reads back to the same value",
	}
)

// addTextFlags gives --columns to every command that reads a cloud (its
// arguments name IN or FILE) and --precision to every command that writes
// one (it has --format), once.
func addTextFlags(cmds []*cli.Command) {
	for _, cmd := range cmds {
		addTextFlags(cmd.Subcommands)
		if slices.Contains(cmd.Flags, cli.Flag(columnsFlag)) || slices.Contains(cmd.Flags, cli.Flag(precisionFlag)) {
			continue
		}
		if strings.Contains(cmd.ArgsUsage, "IN") || strings.Contains(cmd.ArgsUsage, "FILE") {
			cmd.Flags = append(cmd.Flags, columnsFlag)
		}
		if slices.Contains(cmd.Flags, cli.Flag(formatFlag)) {
			cmd.Flags = append(cmd.Flags, precisionFlag)
		}
	}
}

// withText binds --columns (input) or --precision (output) to f when f is
// a text format; either flag with a format of another kind is a usage
// error, rather than an option silently ignored.
func withText(c *cli.Context, f *pcio.Format, input bool) (*pcio.Format, error) {
	var o text.Options
	flag := precisionFlag.Name
	if input {
		flag = columnsFlag.Name
		if s := c.String(flag); s != "" {
			o.Columns = strings.Split(s, ",")
		}
	} else {
		o.Precision = c.Int(flag)
		if o.Precision < 0 {
			return nil, usagef("--precision needs a number of decimals ≥ 0, got %d", o.Precision)
		}
	}
	if !text.IsText(f) {
		if c.IsSet(flag) {
			return nil, usagef("--%s applies to text files (.xyz .txt .csv .pts), not %s", flag, f.Name)
		}
		return f, nil
	}
	return text.WithOptions(f, o), nil
}
