// Package knn holds what pctk's ports of PDAL's neighbourhood filters
// share (algos/lof, algos/nndistance, algos/reciprocity,
// algos/eigenvalues, algos/features): every point's k nearest other points
// from one whole-cloud findneighbor query, the float64 distances PDAL's
// KD3Index computes (pdal/private/KDImpl.hpp, KD3Impl::kdtree_distance:
// d0²+d1²+d2² from double coordinates), the neighbourhoods as
// KD3Index::neighbors and radius list them (Nearest, Within), and the
// Reach the stage driver needs, for a point's own k nearest and for the
// hops through its neighbours'.
package knn
