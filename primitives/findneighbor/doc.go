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
// (the O(N²) reference every backend is tested against), "cpu" (parallel
// uniform grid), and GPU backends that register themselves from their own
// packages ("cuda", "optix"). "auto" picks the best available one.
//
// Coordinates are float32, already relative to a local origin (see
// core.Cloud.Local), interleaved x, y, z. A pair is within ε when
// dx²+dy²+dz² ≤ ε², computed in float32; backends agree exactly except for
// pairs whose distance is within about 1e-6 relative of ε, where rounding
// differs between instruction sequences.
package findneighbor
