package main

import (
	"strings"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/urfave/cli/v2"
)

// backendFlag is the --backend flag shared by every neighbour-based command.
var backendFlag = &cli.StringFlag{
	Name:    "backend",
	Usage:   "neighbour-search backend: auto (a GPU where usable, but cpu for plain k-nearest work), cpu, brute, cuda, optix, optix-sphere",
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
// here is an error, never a silent fallback. plainKNN says the command's
// neighbourhoods are k nearest with no radius (normals --knn alone,
// statistical outlier removal), for which "auto" takes the cpu backend
// (backendName).
func backend(c *cli.Context, plainKNN bool) (findneighbor.Backend, error) {
	b, err := findneighbor.Get(backendName(c.String("backend"), plainKNN))
	if err != nil {
		return nil, err
	}
	debugf("backend: %s", b.Name())
	return b, nil
}

// backendName returns the backend to get for --backend name: the cpu
// backend for "auto" (or none) when the work is plain k-nearest, name
// otherwise. Measured on an H200 with 16 CPU cores, 1M points, KNN 30
// normals: cpu 0.15 s, cuda 0.45 s (docs/benchmarks.md); the GPU backends
// win on radius work, which "auto" leaves to them.
func backendName(name string, plainKNN bool) string {
	if plainKNN && (name == "" || strings.EqualFold(name, "auto")) {
		return "cpu"
	}
	return name
}
