// Package dbscan is exact DBSCAN (Ester et al., KDD 1996) on pctk's
// fixed-radius neighbour primitive, in the two stages of the union-find
// formulation of FDBSCAN (Prokopenko et al.) that RT-DBSCAN (Nagarajan et
// al., IPDPS 2023, section III-D, Algorithm 3) runs on ray-tracing hardware:
//
//  1. Stage 1 counts, for every point, the other points within ε
//     (Index.Counts). A point is a core point when count+1 ≥ minPts: like
//     scikit-learn, minPts counts the point itself.
//  2. Stage 2 (findneighbor.ClusterCores) unites core points within ε of each
//     other with a concurrent union-find and attaches every border point, a
//     non-core point with a core point within ε, to a cluster. It runs
//     where the index lives (on the GPU for the GPU backends) and stores no
//     neighbour lists, so memory stays O(N).
//
// Counting once serves any number of minPts values (the paper's section
// VI-B): Options.MinPts takes several values, stage 1 runs once, and stage 2
// once per value. The counts are returned so a later run can skip stage 1
// through Options.Counts.
//
// # Results
//
// Core points and the partition of core points into clusters are exactly
// DBSCAN's and scikit-learn's (up to the numbering of clusters), as is the
// noise set. A border point within ε of core points of several clusters
// belongs to all of them by DBSCAN's definition, and every implementation
// picks one; here it joins the cluster of its nearest core neighbour, the
// core neighbour of smaller index on a distance tie. scikit-learn picks the
// cluster that reaches it first in its scan order, so border points may be
// numbered differently from scikit-learn's, never wrongly.
//
// Clusters are numbered 0..C−1 in the order of the smallest point index
// (core or border) they hold; noise is −1. The output depends only on the
// points, ε and minPts: not on the backend, the number of workers or
// scheduling, except for pairs at a distance within rounding of ε (see
// package findneighbor).
//
// MinClusterSize relabels clusters of fewer points as noise and renumbers
// the rest in the same order. Their points keep their core flags: Core
// reports density, independent of that filter.
package dbscan
