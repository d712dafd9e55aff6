// Package knn holds what pctk's ports of PDAL's k-nearest-neighbour
// filters share (algos/lof, algos/nndistance, algos/reciprocity,
// algos/eigenvalues): every point's k nearest other points from one
// whole-cloud findneighbor query, the float64 distances PDAL's KD3Index
// computes (pdal/private/KDImpl.hpp, KD3Impl::kdtree_distance: d0²+d1²+d2²
// from double coordinates), and the Reach the stage driver needs, for a
// point's own k nearest and for the hops through its neighbours'.
package knn
