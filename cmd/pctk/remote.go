package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/io/remote"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

// headerFlag adds HTTP headers to the requests of an http(s):// IN.
var headerFlag = &cli.StringSliceFlag{Name: "header", Usage: "send `'Name: value'` with every HTTP request when IN is an http:// or https:// URL (repeatable; also $" + remote.HeaderEnv + ", one per line); never printed"}

// addRemoteFlags gives every command that reads IN or FILE --header, and
// sets up reading URLs (headers, warnings, progress) before it runs.
func addRemoteFlags(cmds []*cli.Command) {
	for _, cmd := range cmds {
		addRemoteFlags(cmd.Subcommands)
		if slices.Contains(cmd.Flags, cli.Flag(headerFlag)) || !strings.Contains(cmd.ArgsUsage, "IN") && !strings.Contains(cmd.ArgsUsage, "FILE") {
			continue
		}
		cmd.Flags = append(cmd.Flags, headerFlag)
		before := cmd.Before
		cmd.Before = func(c *cli.Context) error {
			if err := setupRemote(c); err != nil {
				return err
			}
			if before != nil {
				return before(c)
			}
			return nil
		}
	}
}

// setupRemote sets the options of the URLs the command reads.
func setupRemote(c *cli.Context) error {
	lines := c.StringSlice(headerFlag.Name)
	if env := os.Getenv(remote.HeaderEnv); env != "" {
		lines = append(strings.Split(env, "\n"), lines...)
	}
	h, err := remote.ParseHeader(lines)
	if err != nil {
		return stage.Usagef("--header or $%s: %v", remote.HeaderEnv, err)
	}
	pcio.SetRemoteOptions(remote.Options{
		Header:   h,
		Warn:     func(m string) { msg.Infof("pctk: warning: %s", m) },
		Progress: fetchProgress(),
	})
	return nil
}

// fetchProgress returns a callback that draws "fetched N MiB" on stderr
// at most ten times a second, when stderr is a terminal and --quiet is
// off (nil otherwise); the line is cleared when pctk ends (endFetchLine).
func fetchProgress() func(int64) {
	if msg.Current < msg.Normal || !msg.StderrIsTerminal() {
		return nil
	}
	var last time.Time
	return func(n int64) {
		fetchMu.Lock()
		defer fetchMu.Unlock()
		if now := time.Now(); now.Sub(last) >= 100*time.Millisecond {
			last, fetchDrawn = now, true
			fmt.Fprintf(os.Stderr, "\rfetched %.1f MiB\033[K", float64(n)/(1<<20))
		}
	}
}

var (
	fetchMu    sync.Mutex
	fetchDrawn bool
)

// endFetchLine clears the progress line of fetchProgress, if drawn.
func endFetchLine() {
	fetchMu.Lock()
	defer fetchMu.Unlock()
	if fetchDrawn {
		fmt.Fprint(os.Stderr, "\r\033[K")
		fetchDrawn = false
	}
}
