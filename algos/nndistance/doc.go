// Package nndistance computes PDAL's filters.nndistance (PDAL 2.9.2
// filters/NNDistanceFilter.cpp, NNDistanceFilter::filter): per point the
// distance to its k-th nearest other point (mode kth) or the mean
// distance to its k nearest (mode avg), the NNDistance dimension.
//
// It is written only against primitives/findneighbor: the k nearest come
// from one whole-cloud query, the distances are PDAL's, in float64
// (algos/internal/knn). See docs/nndistance.md.
package nndistance
