// Package optix is pctk's OptiX runtime: a thin layer over NVIDIA OptiX
// (libnvoptix.so.1, which the driver installs) reached through
// github.com/ebitengine/purego, so that a CGO_ENABLED=0 binary needs
// neither cgo nor the OptiX SDK to build or run. It knows nothing of what
// the device programs compute: findneighbor's optix backends
// (primitives/findneighbor/optix) are built on it, as the cuda backend is
// on rt/cuda.
//
// Load opens the library and reads its function table of ABI version
// ABIVersion (OptiX 7.5, the first with built-in spheres); where it cannot,
// its error wraps ErrNoOptiX, so callers fall back and tests skip. A
// DeviceContext is an OptiX device context on a CUDA context of rt/cuda
// (every call that takes a *cuda.Thread runs inside that context's Do),
// with a stream of its own. NewPipeline makes a pipeline of one PTX module
// (raygen programs, one hit group over custom primitives or built-in
// spheres) with its shader binding table; BuildGAS builds and compacts a
// geometry acceleration structure; Pipeline.Launch runs a raygen program
// over a range of launch indices. Every OptixResult is checked and becomes
// an *Error naming the call, with the compiler's or linker's log where it
// has one.
//
// The host ABI is declared in abi.go, in our own words, for ABI 60; the
// sizes and offsets of every struct are asserted in abi_layout_test.go with
// the numbers a C compiler printed for NVIDIA's headers, so a wrong layout
// fails on every machine. docs/optix.md records the design.
package optix
