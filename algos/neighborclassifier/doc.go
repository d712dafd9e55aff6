// Package neighborclassifier is PDAL's filters.neighborclassifier (PDAL
// 2.9.2, filters/NeighborClassifierFilter.cpp: filter, doOne,
// doOneNoDomain): each point of the domain takes, by a k-nearest vote,
// the value (Classification or another dimension, treated as an integer)
// of its k nearest candidates, the points themselves (the point among its
// own k, at distance 0) or another set of points (PDAL's candidate file).
//
// PDAL's vote (doOneNoDomain): KD3Index::neighbors(point, k) gives the
// min(k, candidates) nearest by float64 squared distance; each value's
// votes are counted in a std::map (ordered by value) and std::max_element
// with "fewer votes" takes the first value with the most votes, the
// smallest value on a tie; the point takes it when its votes exceed half
// the neighbours found (strictly) and it differs from its own. Every vote
// reads the values as they were before the filter (PDAL keeps the new
// values aside and writes them at the end).
//
// The neighbours come from pctk's float32 index (K + 4 candidates, ties by
// the smaller index; twice as many, in rounds, for the points where a
// candidate not fetched could be as near as the k-th in float64), then are
// ordered by their float64 distances (from Options.Pos and
// Options.CandidatePos when given) and the k nearest kept, as PDAL orders
// them. PDAL's order among exactly equal float64 distances is nanoflann's
// traversal order, which pctk does not reproduce: where such a tie
// straddles the k-th place between candidates of different values, the
// point is counted in Result.NearTies (its vote may differ from PDAL's).
//
// The domain is a per-point flag the caller evaluates (PDAL's domain
// option is a list of DimRanges, such as Classification[14:14]: a point is
// in the domain when it passes any; no domain is every point).
//
// Reach: a domain point's value depends only on the candidates within its
// Reach (the distance of its farthest float32 candidate); other points keep
// their value (Reach 0). With a separate candidate set the stage driver's
// tile must hold the candidates within Reach of its points.
package neighborclassifier
