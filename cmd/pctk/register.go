package main

// The codecs register their formats with io/pcio from their init functions;
// importing them here is what makes pctk read and write them. Backends that
// live outside primitives/findneighbor register themselves the same way.
import (
	_ "github.com/pctk/pctk/io/las"
	_ "github.com/pctk/pctk/io/pcd"
	_ "github.com/pctk/pctk/io/ply"
	_ "github.com/pctk/pctk/io/stl"
)
