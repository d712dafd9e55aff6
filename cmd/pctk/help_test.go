package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// unitWords name a unit, or say what a number counts or scales, in a
// number flag's usage text.
var unitWords = regexp.MustCompile(`(?i)units|pixel|metre|degree|second|points|neighbours|per point|per unit|multiplier|threads|runs|count|code|seed|id|number of`)

// leafCommands returns every command that runs, with its words after
// "pctk": the commands and the subcommands of those made of subcommands.
func leafCommands(cmds []*cli.Command, prefix string) map[string]*cli.Command {
	out := map[string]*cli.Command{}
	for _, c := range cmds {
		if c.Name == "help" {
			continue
		}
		words := strings.TrimSpace(prefix + " " + c.Name)
		// cli adds a help subcommand to commands once they have run.
		subs := leafCommands(c.Subcommands, words)
		for k, v := range subs {
			out[k] = v
		}
		if len(subs) == 0 {
			out[words] = c
		}
	}
	return out
}

// TestHelpTeaches walks every command's --help: a one-line purpose, an
// example line in its description that starts with "pctk " and the
// command's words, and, for every flag that takes a
// value, a default (or "required") and, for numbers, a unit or what is
// counted.
func TestHelpTeaches(t *testing.T) {
	cmds := leafCommands(newApp().Commands, "")
	if len(cmds) < 15 {
		t.Fatalf("found %d commands, want every one: %v", len(cmds), cmds)
	}
	for words, c := range cmds {
		t.Run(words, func(t *testing.T) {
			out, err := pctkCmd(t, append(strings.Fields(words), "--help")...).Output()
			if err != nil {
				t.Fatalf("pctk %s --help: %v", words, err)
			}
			help := string(out)
			if c.Usage == "" || strings.Contains(c.Usage, "\n") || !strings.Contains(help, c.Usage) {
				t.Errorf("purpose line %q: want one line, shown in --help", c.Usage)
			}
			example := false
			for _, line := range strings.Split(c.Description, "\n") {
				if f := strings.Fields(line); len(f) > 1 && f[0] == "pctk" && strings.HasPrefix(strings.Join(f[1:], " "), words) {
					example = true
				}
			}
			if !example {
				t.Errorf("no example line starting with \"pctk %s\":\n%s", words, help)
			}
			for _, f := range c.Flags {
				checkFlagHelp(t, f)
			}
		})
	}
}

func checkFlagHelp(t *testing.T, f cli.Flag) {
	t.Helper()
	df, ok := f.(cli.DocGenerationFlag)
	if !ok || !df.TakesValue() {
		return
	}
	name := f.Names()[0]
	usage := df.GetUsage()
	shown := fmt.Sprint(f) // the line --help prints
	placeholder := strings.Count(usage, "`") >= 2
	if !strings.Contains(shown, "(default:") && !strings.Contains(usage, "default") && !strings.Contains(usage, "required") && !placeholder {
		t.Errorf("--%s: %q names no default (nor \"required\", nor a `PLACEHOLDER`)", name, shown)
	}
	switch f.(type) {
	case *cli.IntFlag, *cli.Float64Flag, *cli.Uint64Flag, *cli.Int64Flag:
		if !unitWords.MatchString(usage) {
			t.Errorf("--%s: %q names no unit nor what it counts", name, usage)
		}
	}
}

// TestOverview runs pctk alone: the overview of the commands on stderr,
// exit status 2, with every command's purpose and an example.
func TestOverview(t *testing.T) {
	cmd := pctkCmd(t)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if code := cmd.ProcessState.ExitCode(); code != 2 || len(out) != 0 {
		t.Fatalf("pctk alone: exit %d (%v), stdout %q; want 2 and nothing on stdout", code, err, out)
	}
	for _, c := range newApp().Commands {
		if !strings.Contains(stderr.String(), c.Usage) {
			t.Errorf("overview lacks %s: %q", c.Name, c.Usage)
		}
	}
	for _, want := range []string{"pctk help COMMAND", "  pctk info scan.laz\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("overview lacks %q:\n%s", want, stderr.String())
		}
	}
}
