// Package lof computes the Local Outlier Factor of every point (M. M.
// Breunig, H.-P. Kriegel, R. T. Ng and J. Sander, "LOF: identifying
// density-based local outliers", SIGMOD 2000) as PDAL's filters.lof does
// (PDAL 2.9.2 filters/LOFFilter.cpp, LOFFilter::filter): per point its
// k-distance (NNDistance), local reachability density
// (LocalReachabilityDistance, PDAL's name for it) and outlier factor
// (LocalOutlierFactor), or, with Convention Sklearn, as scikit-learn's
// sklearn.neighbors.LocalOutlierFactor computes them.
//
// It is written only against primitives/findneighbor: every point's k
// nearest come from one whole-cloud query (findneighbor.KNearestAll), the
// distances and means are computed in float64 as PDAL computes them
// (algos/internal/knn). See docs/lof.md for the definitions and where pctk
// differs.
package lof
