package main

// The codecs register their formats with io/pcio, and the neighbour
// backends (cpu, cuda, optix) register with findneighbor, from their init functions; importing them here
// is what makes pctk read and write those formats and use those backends.
import (
	_ "github.com/pctk/pctk/io/las"
	_ "github.com/pctk/pctk/io/pcd"
	_ "github.com/pctk/pctk/io/ply"
	_ "github.com/pctk/pctk/io/stl"
	_ "github.com/pctk/pctk/primitives/findneighbor/cpu"
	_ "github.com/pctk/pctk/primitives/findneighbor/cuda"
	_ "github.com/pctk/pctk/primitives/findneighbor/optix"
)
