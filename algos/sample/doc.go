// Package sample thins point clouds. Poisson is PDAL's filters.sample with
// a radius (PDAL filters/SampleFilter.cpp): a greedy Poisson-disk sample in
// input order, where kept points are at least the radius apart and every
// dropped point lies closer than the radius to a kept one.
//
// The greedy pass is sequential by definition, so it needs no neighbour
// index: one pass over a hashed grid of the kept points, O(N) whatever the
// density, the same on every machine. Neighbour lists from the cpu backend
// followed by a greedy pass over them measured 5-27× slower than PDAL's own
// pass (docs/sample.md has the design and the measurements).
// findneighbor serves only the parameter checks.
package sample
