package main

import (
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/urfave/cli/v2"
)

// backendFlag is the --backend flag shared by every neighbour-based command.
var backendFlag = &cli.StringFlag{
	Name:    "backend",
	Usage:   "neighbour-search backend: auto, cpu, brute, cuda, optix",
	EnvVars: []string{findneighbor.EnvBackend},
	Value:   "auto",
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
