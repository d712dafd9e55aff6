// Package normals estimates surface normals and curvature of point clouds
// by principal component analysis of each point's neighbourhood, and orients
// them.
//
// It is written only against primitives/findneighbor: the neighbourhood
// sums come from Index.Moments (no neighbour lists are stored), so every
// backend, CPU or GPU, speeds it up.
//
// Definitions follow PCL's NormalEstimation and Open3D's EstimateNormals:
// the neighbourhood of a point is the point itself plus its K-1 nearest
// others (or every point within the radius, or both: K nearest within the
// radius); its covariance C = (1/n)Σ(pᵢ-p̄)(pᵢ-p̄)ᵀ is computed in float64;
// the normal is C's eigenvector of the smallest eigenvalue λ0 and the
// curvature is the surface variation λ0/(λ0+λ1+λ2) of Pauly, Gross and
// Kobbelt, "Efficient simplification of point-sampled surfaces" (2002).
// Neighbourhoods of fewer than MinPoints points give NaN, as in PCL.
//
// Orientation: toward +Z, toward a viewpoint (PCL's
// flipNormalTowardsViewpoint), or consistent along a minimum spanning tree
// of the k-nearest-neighbour graph (Hoppe, DeRose, Duchamp, McDonald and
// Stuetzle, "Surface reconstruction from unorganized points", SIGGRAPH
// 1992), in O(N·k·log N).
//
// See docs/normals.md for the comparison with PCL and Open3D.
package normals
