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
// Neighbourhoods come from primitives/findneighbor on any backend and are
// listed as PDAL's KD3Index lists them (algos/internal/knn: the point and
// its K nearest others, ranked in float64, or every point within a
// radius, by distance); the covariance is PDAL's, computed on the host from
// the points' float64 coordinates (algos/internal/eigen's PDALCovariance,
// shared with algos/eigenvalues) and decomposed in float64
// (algos/internal/eigen, shared with algos/normals).
//
// See docs/features.md for the definitions and where pctk differs.
package features
