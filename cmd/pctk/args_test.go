package main

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestReorderArgs(t *testing.T) {
	saved := commands
	defer func() { commands = saved }()
	commands = []*cli.Command{
		{Name: "dbscan", Flags: []cli.Flag{&cli.Float64Flag{Name: "eps"}, &cli.BoolFlag{Name: "drop-noise"}}},
		{Name: "denoise", Subcommands: []*cli.Command{
			{Name: "radius", Flags: []cli.Flag{&cli.Float64Flag{Name: "radius", Aliases: []string{"r"}}}},
		}},
	}
	tests := []struct {
		in, want []string
	}{
		{[]string{"pctk", "dbscan", "a.las", "b.las", "--eps", "0.5"},
			[]string{"pctk", "dbscan", "--eps", "0.5", "--", "a.las", "b.las"}},
		{[]string{"pctk", "-q", "dbscan", "--drop-noise", "-", "-", "--eps=2"},
			[]string{"pctk", "-q", "dbscan", "--drop-noise", "--eps=2", "--", "-", "-"}},
		{[]string{"pctk", "dbscan", "a", "--drop-noise", "b"},
			[]string{"pctk", "dbscan", "--drop-noise", "--", "a", "b"}},
		{[]string{"pctk", "denoise", "radius", "in.pcd", "-r", "0.1", "out.pcd"},
			[]string{"pctk", "denoise", "radius", "-r", "0.1", "--", "in.pcd", "out.pcd"}},
		{[]string{"pctk", "dbscan", "--", "-odd-name.ply", "b"},
			[]string{"pctk", "dbscan", "--", "-odd-name.ply", "b"}},
		{[]string{"pctk", "nosuch", "x", "--y"}, []string{"pctk", "nosuch", "x", "--y"}},
		{[]string{"pctk", "dbscan", "a", "b", "-q", "--eps", "1"},
			[]string{"pctk", "-q", "dbscan", "--eps", "1", "--", "a", "b"}},
		{[]string{"pctk", "--verbose", "denoise", "radius", "a", "--quiet", "b"},
			[]string{"pctk", "--verbose", "--quiet", "denoise", "radius", "--", "a", "b"}},
	}
	for _, tt := range tests {
		if got := reorderArgs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("reorderArgs(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"pctk", "backends"}, 0},
		{[]string{"pctk", "nosuch"}, 2},
		{[]string{"pctk", "info"}, 2},
		{[]string{"pctk", "info", "--no-such-flag", "x"}, 2},
		{[]string{"pctk", "convert", "only-one"}, 2},
		{[]string{"pctk", "info", "/nonexistent/file.ply"}, 1},
	}
	for _, tt := range tests {
		if got := run(tt.args); got != tt.want {
			t.Errorf("run(%q) = %d, want %d", tt.args, got, tt.want)
		}
	}
}
