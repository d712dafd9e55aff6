// Package elm is PDAL's filters.elm (PDAL 2.9.2, filters/ELMFilter.cpp,
// ELMFilter::filter): the Extended Local Minimum of Chen et al. (ISPRS J.
// Photogramm. Remote Sens. 72, 2012), which marks low outliers. The XY
// plane is cut into square cells of side Cell from the origin (PDAL: the
// minimum X and Y of the points); in each cell the points are taken by
// increasing Z (equal Z in index order, as PDAL's std::multimap keeps
// them), and while the next point is at least Threshold higher, the lower
// one is classified Class (7, low point); the highest point of a cell is
// never classified.
//
// PDAL's cell of a point is (size_t)(floor(x − minx) / cell): the floor is
// taken before the division, so for a cell side that is not a whole number
// the cells are not the plain floor((x − minx)/cell) ones. ELM follows that
// expression exactly (CellOf), in float64 from Options.Pos when given.
//
// Where pctk differs: PDAL keys its cells by the uint32 c·rows + r, which
// wraps (merging cells) when a grid has more than 2³² cells; pctk keys them
// by (c, r). PDAL leaves the Classification of other points as it was, as
// ELM does with the classes it is given.
//
// Reach: a point's class depends only on the points of its cell; Reach is
// the XY distance from the point to the farthest corner of its cell's
// region (cells are whole units wide, from PDAL's floor), so the stage driver can run ELM on
// tiles when it passes the whole run's origin (Options.Origin).
package elm
