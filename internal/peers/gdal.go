package peers

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
)

// GDAL is GDAL's Python bindings (Debian python3-gdal,
// .ci/deps/debian-gdal.sh): the independent reader of the GeoTIFFs pctk
// and PDAL write.
const GDAL = "GDAL"

// Raster is a GeoTIFF as GDAL reads it.
type Raster struct {
	GeoTransform  [6]float64
	Width, Height int
	// NoData, Names and Bands are each band's nodata value, description
	// and cells (float64, rows from the top).
	NoData []float64
	Names  []string
	Bands  [][]float64
}

// gdalRead prints a GeoTIFF's frame, nodata values and band names as JSON
// and writes its bands to a file as float64 little-endian.
const gdalRead = `import json, sys
from osgeo import gdal
ds = gdal.Open(sys.argv[1])
bands = [ds.GetRasterBand(b) for b in range(1, ds.RasterCount + 1)]
with open(sys.argv[2], 'wb') as out:
    for b in bands:
        out.write(b.ReadRaster(buf_type=gdal.GDT_Float64))
json.dump({'gt': ds.GetGeoTransform(), 'w': ds.RasterXSize, 'h': ds.RasterYSize,
           'nodata': [b.GetNoDataValue() for b in bands], 'names': [b.GetDescription() for b in bands]}, sys.stdout)
`

// ReadRaster reads the GeoTIFF path with GDAL's Python bindings.
func ReadRaster(path string) (*Raster, error) {
	tmp, err := os.CreateTemp("", "pctk-gdal-*.f64")
	if err != nil {
		return nil, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	out, err := exec.Command(Python, "-c", gdalRead, path, tmp.Name()).Output()
	if err != nil {
		return nil, fmt.Errorf("GDAL reading %s: %v", path, err)
	}
	var head struct {
		GT     [6]float64 `json:"gt"`
		W, H   int
		NoData []*float64 `json:"nodata"`
		Names  []string   `json:"names"`
	}
	if err := json.Unmarshal(out, &head); err != nil {
		return nil, fmt.Errorf("GDAL reading %s: %v", path, err)
	}
	data, err := os.ReadFile(tmp.Name())
	if err != nil {
		return nil, err
	}
	n := head.W * head.H
	if len(data) != 8*n*len(head.Names) {
		return nil, fmt.Errorf("GDAL reading %s: %d bytes of cells for %d bands of %d×%d", path, len(data), len(head.Names), head.W, head.H)
	}
	r := &Raster{GeoTransform: head.GT, Width: head.W, Height: head.H, Names: head.Names}
	for b, nd := range head.NoData {
		v := math.NaN()
		if nd != nil {
			v = *nd
		}
		cells := make([]float64, n)
		for k := range cells {
			cells[k] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*(b*n+k):]))
		}
		r.NoData, r.Bands = append(r.NoData, v), append(r.Bands, cells)
	}
	return r, nil
}
