// Package features computes the local covariance features of PDAL's
// filters.covariancefeatures (PDAL filters/CovarianceFeaturesFilter.cpp,
// setDimensionality; the covariance of pdal/private/MathUtils.cpp,
// math::computeCovariance): linearity, planarity, scattering and
// verticality (the "Dimensionality" set of S. Guinard and L. Landrieu,
// "Weakly supervised segmentation-aided classification of urban scenes from
// 3D LiDAR point clouds", ISPRS 2017), and omnivariance, anisotropy,
// eigenentropy, the eigenvalue sum, the surface variation and Demantke's
// verticality.
//
// It is written only against primitives/findneighbor: a neighbourhood's
// covariance comes from its moments (Index.Moments, KNearestMomentsFunc), so
// no neighbour list is stored and every backend speeds it up. The point's
// neighbourhood is the point and its K nearest others, or every point within
// a radius, as in PDAL; the covariance is divided by n-1 and decomposed in
// float64 (algos/internal/eigen, shared with algos/normals).
//
// See docs/features.md for the definitions and where pctk differs.
package features
