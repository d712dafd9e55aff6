package main

import (
	"strings"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/urfave/cli/v2"
)

// backendFlag is the --backend flag shared by every neighbour-based command.
var backendFlag = &cli.StringFlag{
	Name:    "backend",
	Usage:   "neighbour-search backend: auto, cpu, brute, cuda, optix, optix-sphere",
	EnvVars: []string{findneighbor.EnvBackend},
	Value:   "auto",
}

// backendFlags returns flags followed by the flags every neighbour-based
// command ends with: --workers, --backend and --format.
func backendFlags(flags ...cli.Flag) []cli.Flag {
	return append(flags, workersFlag, backendFlag, formatFlag)
}

// workersFlag is the --workers flag shared by every neighbour-based command.
var workersFlag = &cli.IntFlag{Name: "workers", Usage: "CPU threads for the backend (0: all)"}

// dimsFlag is the --dims flag of the commands that measure distance in
// either 3D or the XY plane; parseDims checks it.
var dimsFlag = &cli.StringFlag{Name: "dims", Usage: "distance in xyz, or xy (ignore Z, for 2D and geospatial data)", Value: "xyz"}

// parseDims checks --dims: it returns "xy" or "xyz", and whether distance
// ignores Z.
func parseDims(c *cli.Context) (dims string, flat bool, err error) {
	switch dims = strings.ToLower(c.String("dims")); dims {
	case "xy":
		return dims, true, nil
	case "xyz":
		return dims, false, nil
	}
	return "", false, usagef("--dims: want xy or xyz, got %q", c.String("dims"))
}

// backend resolves --backend; a backend named explicitly that cannot run
// here is an error, never a silent fallback.
func backend(c *cli.Context) (findneighbor.Backend, error) {
	b, err := findneighbor.Get(c.String("backend"))
	if err != nil {
		return nil, err
	}
	debugf("backend: %s", b.Name())
	return b, nil
}
