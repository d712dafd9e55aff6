package algotest

// The GPU backends register with findneighbor when imported. Importing them
// here, in test-only code, puts them in every algorithm test that runs
// Check, so that the same tests hold cuda and optix to brute force and the
// cpu backend on a GPU machine; elsewhere fntest.Usable leaves them out as
// unavailable. The algorithm packages themselves still know no GPU.
import (
	_ "github.com/pctk/pctk/primitives/findneighbor/cuda"
	_ "github.com/pctk/pctk/primitives/findneighbor/optix"
)
