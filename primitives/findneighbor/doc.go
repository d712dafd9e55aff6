// Package findneighbor is pctk's fixed-radius neighbour primitive, the
// RT-FindNeighbor of Nagarajan et al., "RT-DBSCAN: Accelerating DBSCAN using
// Ray Tracing Hardware" (IPDPS 2023), section III, generalised: given points
// and a radius ε it answers, for every query point at once, neighbour counts,
// neighbour lists (CSR), the k nearest within ε, PCA moments, and DBSCAN's
// union-find stage. A point is never its own neighbour (the paper's
// self-intersection filter).
//
// Backends sit behind one interface so every algorithm built on this package
// (algos/dbscan, algos/normals, algos/denoise) runs on each of them: "brute"
// (the O(N²) reference every backend is tested against), here, and the
// backends that register themselves from their own packages: "cpu"
// (package cpu: parallel uniform grid, kd-tree for plain kNN), "cuda" and
// "optix". "auto" picks the best available one. This package holds the
// interfaces, the registry, the parameter checks, brute force and the
// generic fallbacks; what a backend does beyond the core Index it offers
// through optional interfaces found by type assertion, as io.Copy finds
// io.WriterTo (Momenter, ClusterCorer, SelfMomenter, Framer, OnHoster,
// PlainKNNer).
//
// Coordinates are float32, already relative to a local origin (see
// core.Cloud.Local), interleaved x, y, z. A pair is within ε when
// dx²+dy²+dz² ≤ ε², computed in float32; backends agree exactly except for
// pairs whose distance is within about 1e-6 relative of ε, where rounding
// differs between instruction sequences.
package findneighbor
