// Package eigenvalues computes PDAL's filters on the eigenvalues of a
// point's neighbourhood covariance:
//
//   - Compute is filters.eigenvalues (PDAL 2.9.2
//     filters/EigenvaluesFilter.cpp, EigenvaluesFilter::filter): the three
//     eigenvalues, ascending (Eigenvalue0..2), of the k nearest (strided)
//     or of every point within a radius, optionally normalized;
//   - Coplanar is filters.approximatecoplanar
//     (filters/ApproximateCoplanarFilter.cpp): 1 where the eigenvalues of
//     the k nearest say the neighbourhood is nearly a plane;
//   - Optimal is filters.optimalneighborhood
//     (filters/OptimalNeighborhoodFilter.cpp): the neighbourhood size
//     between min_k and max_k of least eigenentropy (OptimalKNN) and its
//     radius (OptimalRadius).
//
// Neighbourhoods come from findneighbor's whole-cloud queries and hold the
// point itself, as PDAL's do; the covariances are PDAL's, computed in
// float64 from the points' coordinates (algos/internal/eigen's
// PDALCovariance, and Optimal's running update), and decomposed by
// algos/internal/eigen's solver. See docs/eigenvalues.md.
package eigenvalues
