// Package optix is pctk's ray-tracing backend of findneighbor: the
// RT-FindNeighbor reduction of Nagarajan et al. ("RT-DBSCAN", IPDPS 2023,
// section III) on NVIDIA OptiX. Every indexed point becomes a sphere of radius
// ε, every query point launches one very short ray, and the program called
// for each candidate checks the true float32 distance, drops the self hit and
// does the operation's work (count, list entry, k-nearest insertion,
// DBSCAN union-find) without ever ending traversal early. Moments are
// summed on the host from the lists, in the order of the neighbours' index.
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
// The host side talks to libnvoptix.so.1 through purego (no cgo): the OptiX
// ABI is declared in abi.go for ABI version 60 (OptiX 7.5), checked by
// abi_layout_test.go. The device programs are our own CUDA C++ in device/,
// compiled to PTX beside it by scripts/build-ptx.sh rt/optix/device and embedded with go:embed.
// docs/optix.md records the design and the measurements.
package optix
