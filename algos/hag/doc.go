// Package hag computes the height above ground of a classified point cloud
// as PDAL's filters.hag_nn (filters/HagNnFilter.cpp, HagNnFilter::filter and
// neighbor_interp_ground) and filters.hag_delaunay
// (filters/HagDelaunayFilter.cpp, HagDelaunayFilter::filter and
// delaunay_interp_ground, with the triangulation of
// filters/private/delaunator.cpp and pdal/private/MathUtils.cpp's
// barycentricInterpolation) do: ground points (class 2) get 0; every other
// point finds its Count nearest ground points in XY and subtracts from its
// Z either their inverse-square-distance weighted Z or the Z interpolated
// in the triangle of their Delaunay triangulation that holds it.
//
// The nearest ground points come from one findneighbor index of the ground
// points flattened to Z = 0, queried with the other points as a separate
// query set; the arithmetic is PDAL's, in float64, from Options.Pos. Where
// pctk differs from PDAL: nearest ground points at exactly the same
// distance are ordered by index (PDAL: nanoflann's traversal order), and
// points exactly as far from the seed circumcentre are ordered stably
// where delaunator-cpp's std::sort leaves them in an order of its own;
// both change a result only on exactly tied inputs. See docs/hag.md.
package hag
