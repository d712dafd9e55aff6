package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs moves a subcommand's flags in front of its positional
// arguments, so that "pctk dbscan in.las out.las --eps 0.5" works like
// "pctk dbscan --eps 0.5 in.las out.las". urfave/cli v2 stops parsing flags
// at the first positional argument; reordering before it parses keeps its
// own validation and help. "--" ends flag processing, and a lone "-" (stdin
// or stdout) is a positional argument.
func reorderArgs(args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	i := 1
	// Global flags stand before the command name.
	for i < len(args) && isFlag(args[i]) {
		out = append(out, args[i])
		i++
	}
	cmds := commands
	var cmd *cli.Command
	cmdName := ""
	for i < len(args) {
		c := findCommand(cmds, args[i])
		if c == nil {
			break
		}
		if cmd == nil {
			cmdName = args[i]
		}
		cmd = c
		out = append(out, args[i])
		i++
		cmds = c.Subcommands
	}
	if cmd == nil {
		return append(out, args[i:]...)
	}
	var globals, flags, pos []string
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !isFlag(a) {
			pos = append(pos, a)
			continue
		}
		if isGlobal(cmd, a) {
			globals = append(globals, a)
			continue
		}
		flags = append(flags, a)
		if !strings.Contains(a, "=") && takesValue(cmd, a) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if len(globals) > 0 {
		// Global flags given after the command move in front of it.
		at := slices.Index(out, cmdName)
		out = slices.Insert(out, at, globals...)
	}
	out = append(out, flags...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}

func isFlag(a string) bool { return len(a) > 1 && a[0] == '-' }

// globalFlags are pctk's own flags (see newApp), all boolean.
var globalFlags = []string{"quiet", "q", "verbose", "v"}

// isGlobal reports whether flag a is a global flag that cmd does not
// define itself.
func isGlobal(cmd *cli.Command, a string) bool {
	name := strings.TrimLeft(a, "-")
	if !slices.Contains(globalFlags, name) {
		return false
	}
	for _, f := range cmd.Flags {
		if slices.Contains(f.Names(), name) {
			return false
		}
	}
	return true
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	return nil
}

// takesValue reports whether flag a of cmd expects a value argument
// (anything but a boolean flag). Unknown flags are assumed to take none,
// and urfave/cli reports them.
func takesValue(cmd *cli.Command, a string) bool {
	name := strings.TrimLeft(a, "-")
	for _, f := range cmd.Flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		_, isBool := f.(*cli.BoolFlag)
		return !isBool
	}
	return false
}
