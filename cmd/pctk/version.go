package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "version",
		Usage: "print the version, the Go version and the commit (as --version)",
		Description: "Examples:\n" +
			"   pctk version\n" +
			"   pctk --version",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return stage.Usagef("version takes no arguments")
			}
			fmt.Print(versionText())
			return nil
		},
	})
}

// version is pctk's module version from the build information: a tag for
// "go install ...@vX", "(devel)" for a build from a checkout.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// versionText is what --version and "pctk version" print: the version, the
// Go version and the commit with its time, "+dirty" when the checkout had
// changes (the vcs settings "go build" records).
func versionText() string {
	commit, when, dirty := "unknown", "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = " (" + s.Value + ")"
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
	}
	return fmt.Sprintf("pctk %s\ngo %s %s/%s\ncommit %s%s%s\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH, commit, dirty, when)
}
