// Package denoise removes isolated points from LiDAR and depth-camera
// clouds with the two outlier filters users know from PCL and Open3D:
//
//   - Statistical: a point is an outlier when the mean distance to its K
//     nearest neighbours exceeds mean + StdRatio·stddev of those means over
//     the whole cloud (PCL's StatisticalOutlierRemoval, Open3D's
//     remove_statistical_outlier).
//   - Radius: a point is an outlier when fewer than MinNeighbors other points
//     lie within Radius (PCL's RadiusOutlierRemoval, Open3D's
//     remove_radius_outlier).
//
// Both reproduce their peers' exact definitions, down to which standard
// deviation is used, whether the point counts as its own neighbour, and
// whether a point exactly at the threshold is kept; docs/denoise.md records
// what was read in each peer's source. The filters only flag points; what
// to do with the flags (remove, classify, mark) is the caller's choice.
//
// The package works on float32 coordinates relative to a local origin (see
// core.Cloud.Local) and finds neighbours only through
// primitives/findneighbor, so every backend (cpu, cuda, optix) runs it.
package denoise
