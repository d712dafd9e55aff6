// Package sample thins point clouds. Poisson is PDAL's filters.sample with
// a radius (PDAL filters/SampleFilter.cpp): a greedy Poisson-disk sample in
// input order, where kept points are at least the radius apart and every
// dropped point lies closer than the radius to a kept one.
//
// It is written only against primitives/findneighbor: the backend lists the
// neighbours of every point in whole-cloud calls (findneighbor.Batches), and
// the sequential greedy pass runs over those lists on the CPU, so a GPU
// backend is never asked one point at a time. See docs/sample.md for the
// design and its measurements.
package sample
