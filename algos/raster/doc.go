// Package raster grids a point cloud as PDAL's writers.gdal does
// (io/GDALWriter.cpp for the options and the grid's frame,
// io/private/GDALGrid.cpp for the statistics: GDALGrid::addPoint,
// update, finalize and windowFill): every point within a radius of a
// cell's centre updates its count, min, max, mean, standard deviation and
// inverse-distance weighted mean; empty cells are filled from the
// non-empty cells of a window around them, or get nodata.
//
// PDAL walks the cells around each point; pctk asks the converse, one
// findneighbor radius query per cell centre on an index of the points
// flattened to Z = 0, and feeds each cell its points in point order, so
// the sums are PDAL's, in float64 from Options.Pos. A cell's values then
// depend only on the points within Options.Reach of its centre, and a
// tile computes its block of the whole run's grid (Options.Grid,
// Options.Cells) to the bit. It knows nothing of files: io/geotiff writes
// the bands. See docs/raster.md.
package raster
