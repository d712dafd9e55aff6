// Package cluster is PDAL's filters.cluster (PDAL 2.9.2,
// filters/ClusterFilter.cpp, ClusterFilter::filter, and
// filters/private/Segmentation.hpp, Segmentation::extractClusters):
// Euclidean cluster extraction. Two points are linked when their distance
// is strictly less than Tolerance (nanoflann's RadiusResultSet::addPoint
// keeps dist < r², computed in float64); a cluster is a connected
// component of that graph, in 3D or, with Flat (PDAL's is3d=false), in XY.
//
// # Numbering
//
// extractClusters seeds a breadth-first search at every point not yet in a
// cluster, in index order, so its clusters come in the order of their
// smallest point index; clusters of fewer than MinPoints or more than
// MaxPoints points are dropped, and ClusterFilter::filter numbers the
// others 1, 2, ... in that order. Points of dropped clusters keep the
// value ClusterID had, 0 for a dimension PDAL registers anew; here they get
// 0 (NoCluster).
//
// # Relation to DBSCAN
//
// With min_pts 1 every point is a DBSCAN core point, and DBSCAN's clusters
// are the connected components of the graph of pairs within ε: the same
// partition as filters.cluster with Tolerance ε, except that DBSCAN (and
// pctk's neighbour search) links pairs at distance ≤ ε and filters.cluster
// only pairs at < ε. dbscan.Cluster numbers clusters 0, 1, ... in the
// same order (smallest index) with −1 for noise; filters.cluster numbers
// from 1 with 0 for points of dropped clusters, and has MaxPoints, which
// DBSCAN lacks (dbscan's MinClusterSize is MinPoints).
//
// # Exact ties
//
// The links are found on the host in float64 on every backend
// (pairs.Forest): a pair is linked only when dx²+dy²(+dz²) < Tolerance²
// in float64, from Options.Pos when given (PDAL's own arithmetic on the
// same coordinates: pairs exactly at the tolerance are not linked) or from
// the float32 coordinates otherwise. A float64 grid of side Tolerance/√3
// orders the tests so that a point costs a few of them, not one per
// neighbour; every link is a tested pair, so the partition is exact.
//
// # Tiles
//
// Clusters are global: a point's ClusterID depends on points arbitrarily
// far away, so there is no per-point Reach for the stage driver. A tiled or
// out-of-core run uses the exact merge of the tiled DBSCAN
// (algos/dbscan/tiled.go) instead: Tile on every tile whose halo is at
// least Options.Reach of the run's frame returns the tile's links (a
// spanning forest of its points' links), a Merge fed every tile's links in any
// order unites them in dbscan's union-find, and Merge.Result numbers the
// clusters exactly as Cluster does on the whole cloud.
package cluster
