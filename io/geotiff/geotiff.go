package geotiff

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// DataType is the type of the samples written.
type DataType int

const (
	// Float64 writes IEEE float64 samples (PDAL writers.gdal's default
	// data_type, double).
	Float64 DataType = iota
	// Float32 writes IEEE float32 samples.
	Float32
)

func (t DataType) bytes() int {
	if t == Float32 {
		return 4
	}
	return 8
}

// Image is a raster of float bands over a georeferenced grid.
type Image struct {
	// Width and Height are the raster's size in cells.
	Width, Height int
	// Bands hold Width×Height values each, row by row from the top.
	Bands [][]float64
	// Names are the bands' descriptions (GDAL's band DESCRIPTION, as PDAL
	// names its statistics); nil or "" for none.
	Names []string
	// NoData, when not nil, is the value that marks empty cells (the
	// GDAL_NODATA tag).
	NoData *float64
	// GeoTransform is GDAL's affine transform from (column, row) to map
	// coordinates: x = gt[0] + col·gt[1] + row·gt[2], y = gt[3] +
	// col·gt[4] + row·gt[5], of cell corners. The rotation terms gt[2]
	// and gt[4] must be 0, and gt[5] < 0 (rows go down).
	GeoTransform [6]float64
	// CRS is the coordinate reference system, written as GeoKeys: from
	// its EPSG code when known, else its GeoKeys (those with inline
	// values), else its WKT in GDAL's "ESRI PE String" citation.
	CRS core.CRS
}

// Options tune Write. The zero value writes a Cloud-Optimized GeoTIFF of
// float64 samples in 256×256 tiles with overviews, uncompressed.
type Options struct {
	// Type is the samples' type.
	Type DataType
	// TileSize is the tiles' side in cells, a multiple of 16; 0: 256.
	TileSize int
	// NoOverviews leaves out the overviews (halved with nearest
	// neighbour resampling, as GDAL's COG driver does by default, until
	// one tile holds the image).
	NoOverviews bool
	// Deflate compresses the tiles with zlib (TIFF compression 8).
	Deflate bool
}

// Validate reports whether the image can be written.
func (img *Image) Validate() error {
	if img.Width < 1 || img.Height < 1 {
		return fmt.Errorf("geotiff: image of %d×%d cells", img.Width, img.Height)
	}
	if len(img.Bands) == 0 || len(img.Bands) > math.MaxUint16 {
		return fmt.Errorf("geotiff: %d bands", len(img.Bands))
	}
	for b, d := range img.Bands {
		if len(d) != img.Width*img.Height {
			return fmt.Errorf("geotiff: band %d holds %d values for %d×%d cells", b+1, len(d), img.Width, img.Height)
		}
	}
	if img.Names != nil && len(img.Names) != len(img.Bands) {
		return fmt.Errorf("geotiff: %d names for %d bands", len(img.Names), len(img.Bands))
	}
	gt := img.GeoTransform
	if gt[2] != 0 || gt[4] != 0 || !(gt[1] > 0) || !(gt[5] < 0) || math.IsInf(gt[1], 0) || math.IsInf(gt[5], 0) ||
		math.IsNaN(gt[0]) || math.IsInf(gt[0], 0) || math.IsNaN(gt[3]) || math.IsInf(gt[3], 0) {
		return fmt.Errorf("geotiff: geotransform %v: want a finite north-up transform (gt[1] > 0, gt[5] < 0, no rotation)", gt)
	}
	if img.NoData != nil && math.IsInf(*img.NoData, 0) {
		return fmt.Errorf("geotiff: nodata %v", *img.NoData)
	}
	return nil
}

// WriteFile writes img to path atomically (pcio.WriteAtomic).
func WriteFile(path string, img *Image, opts Options) error {
	if err := img.Validate(); err != nil {
		return err
	}
	return pcio.WriteAtomic(path, func(w io.Writer) error { return Write(w, img, opts) })
}

// level is one resolution of the image: the full one or an overview.
type level struct {
	w, h  int
	bands [][]float64
	tiles [][]byte
}

// Write writes img as a Cloud-Optimized GeoTIFF (classic TIFF, little
// endian): GDAL's structural metadata, the IFD of the full image then
// those of its overviews, then the tiles, from the smallest overview to the
// full image, each image's tiles row by row, samples interleaved by pixel.
func Write(w io.Writer, img *Image, opts Options) error {
	if err := img.Validate(); err != nil {
		return err
	}
	ts := opts.TileSize
	if ts == 0 {
		ts = 256
	}
	if ts < 16 || ts%16 != 0 {
		return fmt.Errorf("geotiff: tile size %d: want a multiple of 16", opts.TileSize)
	}
	if opts.Type != Float32 && opts.Type != Float64 {
		return fmt.Errorf("geotiff: data type %d", opts.Type)
	}
	levels := []*level{{w: img.Width, h: img.Height, bands: img.Bands}}
	for !opts.NoOverviews {
		prev := levels[len(levels)-1]
		if prev.w <= ts && prev.h <= ts {
			break
		}
		levels = append(levels, overview(prev))
	}
	pad := 0.0
	if img.NoData != nil {
		pad = *img.NoData
	}
	if opts.Deflate {
		for _, l := range levels {
			if err := l.deflate(ts, opts, pad); err != nil {
				return err
			}
		}
	}

	ghost := "LAYOUT=IFDS_BEFORE_DATA\nBLOCK_ORDER=ROW_MAJOR\nKNOWN_INCOMPATIBLE_EDITION=NO\n"
	ghost = fmt.Sprintf("GDAL_STRUCTURAL_METADATA_SIZE=%06d bytes\n", len(ghost)) + ghost
	ifdStart := 8 + len(ghost)
	ifdStart += ifdStart % 2
	geo := geoTags(img)
	dirs := func(offsets [][]uint32) []*ifd {
		out := make([]*ifd, len(levels))
		for k, l := range levels {
			out[k] = l.ifd(k, ts, opts, len(img.Bands), img.NoData, offsets[k])
			if k == 0 {
				out[k].entries = append(out[k].entries, geo...)
			}
		}
		return out
	}
	// The directories' sizes do not depend on the tiles' offsets: lay
	// them out with none, then the tiles after them all, the smallest
	// overview first.
	data := ifdStart
	for _, d := range dirs(make([][]uint32, len(levels))) {
		data += d.size()
	}
	offsets := make([][]uint32, len(levels))
	for k := len(levels) - 1; k >= 0; k-- {
		for _, n := range levels[k].tileSizes(ts, opts) {
			if uint64(data)+uint64(n) > math.MaxUint32 {
				return errors.New("geotiff: the image exceeds classic TIFF's 4 GiB")
			}
			offsets[k] = append(offsets[k], uint32(data))
			data += n
		}
	}
	ifds := dirs(offsets)

	var buf bytes.Buffer
	buf.WriteString("II*\x00")
	binary.Write(&buf, binary.LittleEndian, uint32(ifdStart))
	buf.WriteString(ghost)
	for buf.Len() < ifdStart {
		buf.WriteByte(0)
	}
	for k, d := range ifds {
		next := 0
		if k+1 < len(ifds) {
			next = buf.Len() + d.size()
		}
		d.write(&buf, next)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("geotiff: %w", err)
	}
	if !opts.Deflate {
		if err := writeRaw(w, levels, ts, opts.Type.bytes(), pad, chunk); err != nil {
			return fmt.Errorf("geotiff: %w", err)
		}
		return nil
	}
	for k := len(levels) - 1; k >= 0; k-- {
		for _, b := range levels[k].tiles {
			if _, err := w.Write(b); err != nil {
				return fmt.Errorf("geotiff: %w", err)
			}
		}
	}
	return nil
}
