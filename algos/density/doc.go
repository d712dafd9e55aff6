// Package density computes per-point measures of how crowded a point's
// neighbourhood is, on any findneighbor backend:
//
//   - Radial is PDAL's filters.radialdensity: the number of points within a
//     radius R of a point, the point itself included, divided by the volume
//     of the sphere, 4/3·π·R³ (PDAL filters/RadialDensityFilter.cpp; see
//     docs/density.md for where pctk differs: the boundary, and PDAL's π).
//   - KnnMeanDistance is the mean distance to the k nearest other points,
//     within a radius when one is given: what statistical outlier removal
//     ranks points by, written per point to help choose DBSCAN's ε.
//
// Coordinates are float32, interleaved x, y, z, relative to a local origin
// (core.Cloud.Local), as every algorithm in pctk takes them.
package density
