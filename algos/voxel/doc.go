// Package voxel is PDAL's three voxel thinning filters (PDAL 2.9.2), as a
// keep mask over a grid of cubic voxels of side Cell:
//
//   - CenterNearest is filters.voxelcenternearestneighbor
//     (filters/VoxelCenterNearestNeighborFilter.cpp, run): in each voxel
//     the point nearest the voxel's centre (squared distance in float64,
//     the first in index order on a tie). PDAL's grid corner is the
//     points' minimum X, Y, Z; voxel = (size_t)((x − minx)/cell).
//   - CentroidNearest is filters.voxelcentroidnearestneighbor
//     (filters/VoxelCentroidNearestNeighborFilter.cpp, run): a voxel of one
//     point keeps it; of two, the one nearer the voxel's centre (the second
//     on a tie: PDAL keeps the first only when d1 < d2); of more, the point
//     nearest the centroid (math::computeCentroid's running mean per axis,
//     pdal/private/MathUtils.cpp), the first on a tie. PDAL's grid corner
//     is the first point; voxel = floor((x − x0)/cell).
//   - Downsize is filters.voxeldownsize (filters/VoxelDownsizeFilter.cpp,
//     voxelize): the first point of each voxel in index order; in mode
//     center (PDAL's default) it moves to its voxel's centre,
//     origin + (v + 0.5)·cell. PDAL's grid corner is the first point minus
//     cell/2 on each axis; voxel = (int)floor((x − origin)/cell).
//
// Options.Origin replaces PDAL's corner (the stage driver passes the whole
// run's, computed by PDAL's rule with Origin, so that tiles share voxels);
// the arithmetic is float64 on Options.Pos, in whatever frame it is given
// (absolute coordinates give PDAL's bits, moved coordinates included), or
// on xyz. Reach is the distance from a point to the farthest corner of its
// voxel: a point's flag depends on its voxel's points only.
//
// Where pctk differs: PDAL writes the points the two nearest-neighbour
// filters keep in the order of their voxels' keys (row, column, depth: Y,
// X, Z); the mask keeps input order, and Result.Order gives PDAL's. PDAL
// casts voxel numbers to size_t or int; pctk keeps them as int64 (a
// difference only beyond 2³¹ voxels from the corner).
package voxel
