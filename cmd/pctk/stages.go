package main

import (
	"strings"

	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

// The stage package declares the stages (each one's options, help and
// work) and runs them; this file turns each declaration into a command:
// its options into flags, its help into the command's, and its Run into
// the command's action. A stage named by two words ("denoise radius") is a
// subcommand of its group's command.

// The stages register from their packages' init functions, which run
// before this package's.
func init() { commands = append(commands, stageCommands()...) }

// stageCommands returns a command for every registered stage, the modes
// of a group as its subcommands.
func stageCommands() []*cli.Command {
	var cmds []*cli.Command
	byGroup := map[string]*cli.Command{}
	for _, g := range stage.Groups() {
		cmd := &cli.Command{Name: g.Name, Usage: g.Usage, Description: g.Description}
		byGroup[g.Name] = cmd
		cmds = append(cmds, cmd)
	}
	for _, s := range stage.Stages() {
		cmd := stageCommand(s)
		words := strings.Fields(s.Name)
		if g := byGroup[words[0]]; len(words) == 2 && g != nil {
			cmd.Name = words[1]
			g.Subcommands = append(g.Subcommands, cmd)
			continue
		}
		cmds = append(cmds, cmd)
	}
	return cmds
}

// stageCommand returns the command that runs s.
func stageCommand(s *stage.Stage) *cli.Command {
	return &cli.Command{
		Name: s.Name, Aliases: s.Aliases, Usage: s.Usage, ArgsUsage: s.ArgsUsage(), Description: s.Help(),
		Flags:        flagsOf(s.AllOptions()...),
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return flagUsage(err) },
		Action:       func(c *cli.Context) error { return s.Run(c, c.Args().Slice()) },
	}
}

// flagOf returns the flag of an option, of the same name, aliases, help
// and default; urfave/cli's *cli.Context then serves as stage.Values.
func flagOf(o *stage.Option) cli.Flag {
	switch v := o.Default().(type) {
	case bool:
		return &cli.BoolFlag{Name: o.Name, Aliases: o.Aliases, Usage: o.Usage, Value: v, DefaultText: o.DefaultText, EnvVars: o.EnvVars}
	case int:
		return &cli.IntFlag{Name: o.Name, Aliases: o.Aliases, Usage: o.Usage, Value: v, DefaultText: o.DefaultText, EnvVars: o.EnvVars}
	case uint64:
		return &cli.Uint64Flag{Name: o.Name, Aliases: o.Aliases, Usage: o.Usage, Value: v, DefaultText: o.DefaultText, EnvVars: o.EnvVars}
	case float64:
		return &cli.Float64Flag{Name: o.Name, Aliases: o.Aliases, Usage: o.Usage, Value: v, DefaultText: o.DefaultText, EnvVars: o.EnvVars}
	}
	return &cli.StringFlag{Name: o.Name, Aliases: o.Aliases, Usage: o.Usage, Value: o.Default().(string), DefaultText: o.DefaultText, EnvVars: o.EnvVars}
}

// flagsOf returns the flags of options.
func flagsOf(opts ...*stage.Option) []cli.Flag {
	flags := make([]cli.Flag, len(opts))
	for i, o := range opts {
		flags[i] = flagOf(o)
	}
	return flags
}

// addTextFlags gives --columns to every command that reads a cloud (its
// arguments name IN or FILE), and --precision and the LAS output options
// (stage.LASOptions) to every command that writes one (it has --format),
// once.
func addTextFlags(cmds []*cli.Command) {
	for _, cmd := range cmds {
		addTextFlags(cmd.Subcommands)
		has := flagNames(cmd)
		if has[stage.ColumnsOption.Name] || has[stage.PrecisionOption.Name] {
			continue
		}
		if strings.Contains(cmd.ArgsUsage, "IN") || strings.Contains(cmd.ArgsUsage, "FILE") {
			cmd.Flags = append(cmd.Flags, flagOf(stage.ColumnsOption))
		}
		if has[stage.FormatOption.Name] {
			cmd.Flags = append(cmd.Flags, flagOf(stage.PrecisionOption))
			for _, o := range stage.LASOptions {
				if !has[o.Name] {
					cmd.Flags = append(cmd.Flags, flagOf(o))
				}
			}
		}
	}
}

// flagNames returns the names of cmd's flags, aliases included, read from
// the flags' own fields where they are of the kinds flagOf makes:
// cli.Flag.Names runs a regular expression on every name, which made 15%
// of every pctk process's start (4 ms) when asked of each flag of each
// command.
func flagNames(cmd *cli.Command) map[string]bool {
	set := map[string]bool{}
	add := func(name string, aliases []string) {
		set[name] = true
		for _, a := range aliases {
			set[a] = true
		}
	}
	for _, f := range cmd.Flags {
		switch f := f.(type) {
		case *cli.BoolFlag:
			add(f.Name, f.Aliases)
		case *cli.IntFlag:
			add(f.Name, f.Aliases)
		case *cli.Uint64Flag:
			add(f.Name, f.Aliases)
		case *cli.Float64Flag:
			add(f.Name, f.Aliases)
		case *cli.StringFlag:
			add(f.Name, f.Aliases)
		default:
			for _, n := range f.Names() {
				set[n] = true
			}
		}
	}
	return set
}
