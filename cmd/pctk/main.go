// Command pctk is the point-cloud toolkit's command line: composable
// subcommands of the form
//
//	pctk COMMAND [MODE] [flags] IN OUT
//
// where IN and OUT are paths or "-" for standard input and output, so that
// commands chain in shell pipelines. Run "pctk help" for the list.
package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/internal/scratch"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

// commands collects the subcommands; each lives in its own file and adds
// itself from an init function.
var commands []*cli.Command

func newApp() *cli.App {
	slices.SortFunc(commands, func(a, b *cli.Command) int { return strings.Compare(a.Name, b.Name) })
	// --version only: -v is --verbose.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version, the Go version and the commit"}
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprint(c.App.Writer, versionText()) }
	app := &cli.App{
		Name:                   "pctk",
		Usage:                  "point-cloud toolkit with GPU-accelerated fixed-radius neighbour search",
		Version:                version(),
		Commands:               commands,
		UseShortOptionHandling: true,
		// --header values may hold commas ("Accept: a, b").
		DisableSliceFlagSeparator: true,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing but errors"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print details of each step on stderr"},
		},
		Before: func(c *cli.Context) error {
			msg.Current = msg.Normal
			if c.Bool("quiet") {
				msg.Current = msg.Quiet
			}
			if c.Bool("verbose") {
				msg.Current = msg.Verbose
			}
			return nil
		},
		Description: "Each command reads IN and writes OUT, paths or - for standard input and output, so\n" +
			"commands chain in shell pipes. \"pctk help COMMAND\" gives its flags, with units and\n" +
			"defaults, and examples.\n\n" +
			"Examples:\n" +
			"   pctk info scan.laz\n" +
			"   pctk denoise statistical scan.laz - | pctk dbscan - clusters.laz --eps 1.5 --min-pts 10\n" +
			"   pctk synth street street.las && pctk render street.las street.png --color classification",
		OnUsageError: func(c *cli.Context, err error, isSubcommand bool) error {
			return flagUsage(err)
		},
		ExitErrHandler: func(*cli.Context, error) {},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return stage.Usagef("unknown command %q (see pctk help)", c.Args().First())
			}
			// As go does: the overview on stderr, exit 2; "pctk help"
			// prints it on stdout.
			c.App.Writer = os.Stderr
			defer func() { c.App.Writer = os.Stdout }()
			if err := cli.ShowAppHelp(c); err != nil {
				return err
			}
			return stage.Usagef("no command given")
		},
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = app.OnUsageError
		if len(cmd.Subcommands) > 0 && cmd.Action == nil {
			cmd.Action = needSubcommand
		}
	}
	addTextFlags(app.Commands)
	addRemoteFlags(app.Commands)
	return app
}

// needSubcommand is the action of a command made of subcommands (denoise's
// methods) when none was named: a usage error listing them.
func needSubcommand(c *cli.Context) error {
	var names []string
	for _, s := range c.Command.Subcommands {
		if s.Name != "help" {
			names = append(names, s.Name)
		}
	}
	list := strings.Join(names, ", ")
	if c.NArg() > 0 {
		return stage.Usagef("%s: unknown method %q (want %s; see pctk help %s)", c.Command.Name, c.Args().First(), list, c.Command.Name)
	}
	return stage.Usagef("%s needs a method: %s (see pctk help %s)", c.Command.Name, list, c.Command.Name)
}

// helpArgs turns "pctk help CMD SUB..." (after any global flags) into
// "pctk CMD SUB... --help", so that help reaches subcommands too.
func helpArgs(args []string) []string {
	i := 1
	for i < len(args) && isFlag(args[i]) {
		i++
	}
	if i+1 >= len(args) || args[i] != "help" && args[i] != "h" {
		return args
	}
	out := append(slices.Clone(args[:i]), args[i+1:]...)
	return append(out, "--help")
}

func main() {
	scratch.HandleSignals()
	scratch.Exit(run(os.Args))
}

// run executes pctk with args and returns the exit status: 0 ok, 1 runtime
// error, 2 usage error.
func run(args []string) int {
	err := newApp().Run(reorderArgs(helpArgs(args)))
	endFetchLine()
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "pctk:", err)
	var ue stage.UsageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}
