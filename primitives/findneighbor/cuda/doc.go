// Package cuda is findneighbor's "cuda" backend: a uniform grid built and
// searched on an NVIDIA GPU through pctk's purego runtime (rt/cuda), so a
// CGO_ENABLED=0 binary uses the GPU wherever a driver is installed. Import
// it for its side effect of registering the backend:
//
//	import _ "github.com/pctk/pctk/primitives/findneighbor/cuda"
//
// The registered backend (Backend) runs on GPU 0; On(i) is the same
// backend on GPU i (Devices counts those CUDA_VISIBLE_DEVICES leaves
// visible), each with its own context, kernels and staging buffers, which
// a tiled run uses together to run a tile per GPU at a time.
//
// Build uploads the points, computes their bounding box, gives each point
// the key of its cell (cells of side slightly over ε; the linear index of a
// dense grid, x fastest, or a hash of the cell coordinates when the dense
// grid would have more than max(min(32N, 2²⁸), 65536) cells; cells of ε/2,
// searched 5×5×5, in a dense grid whose ε-cells would hold 16 points or
// more on average), sorts (key, index) with a stable LSD radix sort written
// for this package, gathers the points into that order and builds each
// key's start offset. Every query operation runs one thread per query,
// queries in cell-sorted order, over the 27 cells around the query (9 in a
// flat cloud); each row of 3 cells is one contiguous range in dense mode.
// Hashed buckets may mix cells; each sorted point keeps its cell id so that
// other cells' points are skipped.
//
// Results equal the CPU backend's exactly: the distance test is
// dx*dx+dy*dy+dz*dz <= ε*ε in float32 with every operation rounded on its
// own (no fused multiply-add) in the same order; distances are float32
// square roots (correctly rounded on both); moment sums are float64, so only
// their summation order differs.
//
// Limits: KNearest and Moments keep the k nearest in a per-thread buffer for
// k <= 128; a larger k runs as a capped, sorted Neighbors on the device with
// the selection on the host. ε = +Inf (plain kNN) is not a grid search; such
// an index (and that of an empty cloud) is the CPU backend's. Neighbors lists come from the device in cell order and are
// ordered on the host. Outputs larger than the free device memory are
// produced in windows of queries; an allocation that fails for want of
// memory is retried with half the window.
package cuda
