// Package optix is findneighbor's ray-tracing backend: the RT-FindNeighbor
// reduction of Nagarajan et al. ("RT-DBSCAN", IPDPS 2023, section III) on
// NVIDIA OptiX, through pctk's purego runtime (rt/optix, on rt/cuda's
// context), so a CGO_ENABLED=0 binary uses it wherever a driver is
// installed. Import it for its side effect of registering the backends:
//
//	import _ "github.com/pctk/pctk/primitives/findneighbor/optix"
//
// Every indexed point becomes a sphere of radius ε, every query point
// launches one very short ray, and the program called for each candidate
// checks the true float32 distance, drops the self hit and does the
// operation's work (count, list entry, k-nearest insertion, DBSCAN
// union-find) without ever ending traversal early. Moments are summed on
// the host from the lists, in the order of the neighbours' index.
//
// Two variants register themselves with findneighbor:
//
//   - "optix": custom primitives (one AABB p±ε per point) with our own
//     intersection program, as in the paper;
//   - "optix-sphere": OptiX built-in spheres, with the work in an any-hit
//     program that ignores every intersection. A built-in sphere reports no
//     hit for a ray that starts inside it, so these rays start 3ε behind the
//     query point and end at it.
//
// The device programs are our own CUDA C++ in kernels/ (findneighbor.cu and
// pctk_optix.h, our declarations of the OptiX device intrinsics they call),
// compiled to PTX beside them by scripts/build-ptx.sh and embedded with
// go:embed; TestPTXFresh fails when a source changed without its PTX.
// docs/optix.md records the design and the measurements.
package optix
