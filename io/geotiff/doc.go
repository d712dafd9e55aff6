// Package geotiff writes rasters of float bands as Cloud-Optimized
// GeoTIFFs (classic little-endian TIFF 6.0 with the GeoTIFF 1.1 tags), for
// the grids algos/raster computes; it knows nothing of algorithms.
//
// The layout follows GDAL's COG driver (frmts/gtiff/cogdriver.cpp) and
// what its validator (osgeo_utils.samples.validate_cloud_optimized_geotiff)
// checks: GDAL's structural metadata ("ghost area") right after the
// header, the IFD of the full image and then those of its overviews, then
// the tile data from the smallest overview to the full image, each image's
// tiles row by row. Georeferencing is ModelPixelScale and ModelTiepoint
// (GDAL's north-up geotransform), GeoKeys with GTRasterTypeGeoKey
// PixelIsArea, GDAL's GDAL_NODATA tag and its GDAL_METADATA band
// descriptions. Written with encoding/binary: no TIFF library served on
// the Go module proxy was needed for this subset. See docs/raster.md.
package geotiff
