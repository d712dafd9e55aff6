#!/bin/sh
# GDAL from Debian, the independent reader of io/geotiff's files and of
# PDAL's writers.gdal output in algos/raster's side-by-side test:
#   gdal-bin      gdalinfo
#   python3-gdal  osgeo.gdal, and osgeo_utils' validate_cloud_optimized_geotiff
# Idempotent: installs only what is missing, and retries while another
# apt-get holds the dpkg lock.
set -eu
command -v gdalinfo >/dev/null 2>&1 && /usr/bin/python3 -c 'from osgeo import gdal' >/dev/null 2>&1 && exit 0
exec sh "$(dirname "$0")/../apt-install" debian-gdal.sh gdal-bin python3-gdal
