// Package reciprocity computes PDAL's filters.reciprocity (PDAL 2.9.2
// filters/ReciprocityFilter.cpp, ReciprocityFilter::setReciprocity): per
// point the percentage of its k nearest other points that do not have it
// among their own k nearest, the Reciprocity dimension (0: every
// neighbourhood is mutual; 100: none is, as for an isolated point).
//
// It is written only against primitives/findneighbor: every point's k
// nearest come from one whole-cloud query (algos/internal/knn). See
// docs/reciprocity.md.
package reciprocity
