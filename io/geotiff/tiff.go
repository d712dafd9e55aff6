package geotiff

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/io/internal/codec"
)

// TIFF field types.
const (
	tASCII  = 2
	tShort  = 3
	tLong   = 4
	tDouble = 12
)

// TIFF and GeoTIFF tags written.
const (
	tagNewSubfileType   = 254
	tagImageWidth       = 256
	tagImageLength      = 257
	tagBitsPerSample    = 258
	tagCompression      = 259
	tagPhotometric      = 262
	tagSamplesPerPixel  = 277
	tagPlanarConfig     = 284
	tagTileWidth        = 322
	tagTileLength       = 323
	tagTileOffsets      = 324
	tagTileByteCounts   = 325
	tagExtraSamples     = 338
	tagSampleFormat     = 339
	tagModelPixelScale  = 33550
	tagModelTiepoint    = 33922
	tagGeoKeyDirectory  = 34735
	tagGeoDoubleParams  = 34736
	tagGeoAsciiParams   = 34737
	tagGDALMetadata     = 42112
	tagGDALNoData       = 42113
	sampleFormatIEEE    = 3
	compressionNone     = 1
	compressionDeflate  = 8
	subfileReducedImage = 1
	keyPCSCitation      = 3073 // PCSCitationGeoKey
)

// entry is one IFD field: its tag, type, count and little-endian value.
type entry struct {
	tag, typ uint16
	count    uint32
	data     []byte
}

func shorts(tag uint16, v ...uint16) entry {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return entry{tag, tShort, uint32(len(v)), b}
}

func longs(tag uint16, v ...uint32) entry {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return entry{tag, tLong, uint32(len(v)), b}
}

func doubles(tag uint16, v ...float64) entry {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return entry{tag, tDouble, uint32(len(v)), b}
}

func ascii(tag uint16, s string) entry {
	return entry{tag, tASCII, uint32(len(s) + 1), append([]byte(s), 0)}
}

// ifd is an image file directory with its values.
type ifd struct{ entries []entry }

// size is the IFD's bytes: count, entries, next offset and the values
// that do not fit in an entry, each at an even offset.
func (d *ifd) size() int {
	n := 2 + 12*len(d.entries) + 4
	for _, e := range d.entries {
		if len(e.data) > 4 {
			n += len(e.data) + len(e.data)%2
		}
	}
	return n
}

// write appends the IFD, at buf.Len(), with the offset of the next one.
func (d *ifd) write(buf *bytes.Buffer, next int) {
	slices.SortFunc(d.entries, func(a, b entry) int { return int(a.tag) - int(b.tag) })
	at := buf.Len()
	values := at + 2 + 12*len(d.entries) + 4
	le := binary.LittleEndian
	var out, extra []byte
	out = le.AppendUint16(out, uint16(len(d.entries)))
	for _, e := range d.entries {
		out = le.AppendUint16(out, e.tag)
		out = le.AppendUint16(out, e.typ)
		out = le.AppendUint32(out, e.count)
		if len(e.data) <= 4 {
			var v [4]byte
			copy(v[:], e.data)
			out = append(out, v[:]...)
			continue
		}
		out = le.AppendUint32(out, uint32(values+len(extra)))
		extra = append(extra, e.data...)
		if len(e.data)%2 == 1 {
			extra = append(extra, 0)
		}
	}
	out = le.AppendUint32(out, uint32(next))
	buf.Write(out)
	buf.Write(extra)
}

// overview halves l (rounding up) with nearest-neighbour resampling as
// GDAL's does: destination cell c takes source cell floor((c+0.5)·ratio).
// The bands are resampled on all cores.
func overview(l *level) *level {
	o := &level{w: (l.w + 1) / 2, h: (l.h + 1) / 2, bands: make([][]float64, len(l.bands))}
	rx, ry := float64(l.w)/float64(o.w), float64(l.h)/float64(o.h)
	cols := make([]int, o.w) // the source column of each destination one
	for c := range o.w {
		cols[c] = min(l.w-1, int((float64(c)+0.5)*rx))
	}
	par.Each(len(l.bands), func(b int) {
		src, dst := l.bands[b], make([]float64, o.w*o.h)
		for r := range o.h {
			sr := min(l.h-1, int((float64(r)+0.5)*ry))
			line, out := src[sr*l.w:(sr+1)*l.w], dst[r*o.w:(r+1)*o.w]
			for c, sc := range cols {
				out[c] = line[sc]
			}
		}
		o.bands[b] = dst
	})
	return o
}

// tileCount returns the number of ts×ts tiles of the level.
func (l *level) tileCount(ts int) int {
	return ((l.w + ts - 1) / ts) * ((l.h + ts - 1) / ts)
}

// tile lays out tile t of the level's ts×ts tiles (row by row) in raw,
// of ts·ts·bands·sz bytes: samples interleaved by pixel, cells beyond the
// image set to pad.
func (l *level) tile(t, ts, sz int, pad float64, raw []byte) {
	line := ts * len(l.bands) * sz
	for r := range ts {
		l.tileLine(t, r, ts, sz, pad, raw[r*line:(r+1)*line])
	}
}

// tileLine lays out row r of tile t, as tile does, in dst, of
// ts·bands·sz bytes: pixel by pixel the image's samples, then the
// padding, one pixel's bytes repeated.
func (l *level) tileLine(t, r, ts, sz int, pad float64, dst []byte) {
	nb := len(l.bands)
	tx := (l.w + ts - 1) / ts
	y, x := t/tx, t%tx
	row, cols := y*ts+r, min(ts, l.w-x*ts)
	if row >= l.h {
		cols = 0
	}
	px := nb * sz
	if cols > 0 {
		at := row*l.w + x*ts
		var some [8][]float64 // on the stack up to 8 bands
		src := some[:0]
		for _, band := range l.bands {
			src = append(src, band[at:at+cols])
		}
		for i := range cols {
			p := dst[i*px : (i+1)*px]
			if sz == 4 {
				for b, s := range src {
					binary.LittleEndian.PutUint32(p[4*b:], math.Float32bits(float32(s[i])))
				}
			} else {
				for b, s := range src {
					binary.LittleEndian.PutUint64(p[8*b:], math.Float64bits(s[i]))
				}
			}
		}
	}
	fill(dst[cols*px:ts*px], pad, sz, nb)
}

// fill sets dst, whole pixels of nb samples of sz bytes, to v.
func fill(dst []byte, v float64, sz, nb int) {
	if len(dst) == 0 {
		return
	}
	n := min(len(dst), nb*sz)
	for k := 0; k < n; k += sz {
		if sz == 4 {
			binary.LittleEndian.PutUint32(dst[k:], math.Float32bits(float32(v)))
		} else {
			binary.LittleEndian.PutUint64(dst[k:], math.Float64bits(v))
		}
	}
	for n < len(dst) {
		n += copy(dst[n:], dst[:n])
	}
}

// deflate compresses every tile of the level (zlib), each laid out by
// tile, into l.tiles, on all cores.
func (l *level) deflate(ts int, opts Options, pad float64) error {
	sz := opts.Type.bytes()
	l.tiles = make([][]byte, l.tileCount(ts))
	errs := make([]error, len(l.tiles))
	par.For(par.Ranges(len(l.tiles), 1), func(_, lo, hi int) {
		raw := make([]byte, ts*ts*len(l.bands)*sz)
		for t := lo; t < hi; t++ {
			l.tile(t, ts, sz, pad, raw)
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			if _, err := zw.Write(raw); err != nil {
				errs[t] = err
				return
			}
			if err := zw.Close(); err != nil {
				errs[t] = err
				return
			}
			l.tiles[t] = z.Bytes()
		}
	})
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("geotiff: deflate: %w", err)
	}
	return nil
}

// chunk is about the bytes of tile rows that writeRaw lays out at a time
// in each of its two buffers.
const chunk = 1 << 20

// writeRaw writes the levels' raw tiles, the smallest overview first,
// each level's tiles row by row, as tile lays them out. The rows of the
// tiles are laid out on all cores about chunk bytes at a time, in two
// buffers (the image is not held twice), while the chunk before is
// written.
func writeRaw(w io.Writer, levels []*level, ts, sz int, pad float64, chunk int) error {
	type tileOf struct {
		l *level
		t int
	}
	var tiles []tileOf
	for k := len(levels) - 1; k >= 0; k-- {
		for t := range levels[k].tileCount(ts) {
			tiles = append(tiles, tileOf{levels[k], t})
		}
	}
	line := ts * len(levels[0].bands) * sz
	lines := len(tiles) * ts
	per := min(lines, max(1, chunk/line)) // lines a chunk
	free, laid, stop := make(chan []byte, 2), make(chan []byte), make(chan struct{})
	free <- make([]byte, per*line)
	free <- make([]byte, per*line)
	go func() {
		defer close(laid)
		for lo := 0; lo < lines; lo += per {
			var buf []byte
			select {
			case buf = <-free:
			case <-stop:
				return
			}
			n := min(per, lines-lo)
			par.For(par.Ranges(n, 16), func(_, a, b int) {
				for i := a; i < b; i++ {
					tl := tiles[(lo+i)/ts]
					tl.l.tileLine(tl.t, (lo+i)%ts, ts, sz, pad, buf[i*line:(i+1)*line])
				}
			})
			select {
			case laid <- buf[:n*line]:
			case <-stop:
				return
			}
		}
	}()
	for buf := range laid {
		if _, err := w.Write(buf); err != nil {
			close(stop)
			for range laid {
			}
			return err
		}
		free <- buf[:cap(buf)]
	}
	return nil
}

// tileSizes returns the bytes of each of the level's tiles as written:
// the compressed tiles', or one raw tile's each.
func (l *level) tileSizes(ts int, opts Options) []int {
	sizes := make([]int, l.tileCount(ts))
	for t := range sizes {
		if opts.Deflate {
			sizes[t] = len(l.tiles[t])
		} else {
			sizes[t] = ts * ts * len(l.bands) * opts.Type.bytes()
		}
	}
	return sizes
}

// ifd returns the level's directory (k: 0 the full image, else an
// overview), with its tiles at offsets (zeros before they are known).
func (l *level) ifd(k, ts int, opts Options, nb int, nodata *float64, offsets []uint32) *ifd {
	rep := func(v uint16) []uint16 {
		s := make([]uint16, nb)
		for i := range s {
			s[i] = v
		}
		return s
	}
	sizes := l.tileSizes(ts, opts)
	counts := make([]uint32, len(sizes))
	for t, n := range sizes {
		counts[t] = uint32(n)
	}
	if offsets == nil {
		offsets = make([]uint32, len(sizes))
	}
	comp := uint16(compressionNone)
	if opts.Deflate {
		comp = compressionDeflate
	}
	sub := uint32(0)
	if k > 0 {
		sub = subfileReducedImage
	}
	d := &ifd{entries: []entry{
		longs(tagNewSubfileType, sub),
		longs(tagImageWidth, uint32(l.w)),
		longs(tagImageLength, uint32(l.h)),
		shorts(tagBitsPerSample, rep(uint16(8*opts.Type.bytes()))...),
		shorts(tagCompression, comp),
		shorts(tagPhotometric, 1), // BlackIsZero
		shorts(tagSamplesPerPixel, uint16(nb)),
		shorts(tagPlanarConfig, 1), // chunky: samples interleaved by pixel
		longs(tagTileWidth, uint32(ts)),
		longs(tagTileLength, uint32(ts)),
		longs(tagTileOffsets, offsets...),
		longs(tagTileByteCounts, counts...),
		shorts(tagSampleFormat, rep(sampleFormatIEEE)...),
	}}
	if nb > 1 {
		d.entries = append(d.entries, shorts(tagExtraSamples, rep(0)[1:]...)) // unspecified
	}
	if nodata != nil {
		d.entries = append(d.entries, ascii(tagGDALNoData, strconv.FormatFloat(*nodata, 'g', -1, 64)))
	}
	return d
}

// geoTags returns the full image's georeferencing: pixel scale, tie point
// (the top-left corner), GeoKeys (GTRasterTypeGeoKey PixelIsArea) and,
// when the bands have names, GDAL's metadata with their descriptions.
func geoTags(img *Image) []entry {
	gt := img.GeoTransform
	out := []entry{
		doubles(tagModelPixelScale, gt[1], -gt[5], 0),
		doubles(tagModelTiepoint, 0, 0, 0, gt[0], gt[3], 0),
	}
	keys, params, citation := geoKeys(img.CRS)
	if keys != nil {
		out = append(out, shorts(tagGeoKeyDirectory, keys...))
	}
	if params != nil {
		out = append(out, doubles(tagGeoDoubleParams, params...))
	}
	if citation != "" {
		out = append(out, ascii(tagGeoAsciiParams, citation))
	}
	if md := gdalMetadata(img.Names); md != "" {
		out = append(out, ascii(tagGDALMetadata, md))
	}
	return out
}

// geoKeys returns the GeoKeyDirectory of a CRS with the GeoDoubleParams
// and GeoAsciiParams it points into, nil without a CRS: a LAS file's keys
// when their parameters are all there, else keys for its EPSG code, else
// its WKT as GDAL writes one that no key states, else the keys with inline
// values alone. GTRasterTypeGeoKey is PixelIsArea: the geotransform
// places cell corners.
func geoKeys(c core.CRS) ([]uint16, []float64, string) {
	ascii := strings.TrimRight(c.GeoASCII, "\x00")
	if keys := withKeys(c.GeoKeys, func(k [4]uint16) bool {
		switch k[1] {
		case 0:
			return true
		case tagGeoDoubleParams:
			return int(k[3])+int(k[2]) <= len(c.GeoDoubles)
		case tagGeoAsciiParams:
			return int(k[3])+int(k[2]) <= len(ascii)
		}
		return false
	}, true); keys != nil {
		return keys, c.GeoDoubles, ascii
	}
	if keys := codec.EPSGGeoKeys(c.EPSG, codec.GeoRasterPixelArea); keys != nil {
		return keys, nil, ""
	}
	if c.WKT != "" {
		// GDAL reads a WKT that no GeoKey states from PCSCitationGeoKey
		// as "ESRI PE String = WKT" under a user-defined model type
		// (frmts/gtiff/gt_wkt_srs.cpp, GTIFGetOGISDefnAsOSR);
		// GeoAsciiParams strings end with '|'.
		cit := "ESRI PE String = " + strings.ReplaceAll(c.WKT, "|", " ") + "|"
		return []uint16{1, 1, 0, 3,
			codec.GeoKeyModelType, 0, 1, codec.GeoUserDefined,
			codec.GeoKeyRasterType, 0, 1, codec.GeoRasterPixelArea,
			keyPCSCitation, tagGeoAsciiParams, uint16(len(cit)), 0}, nil, cit
	}
	return withKeys(c.GeoKeys, func(k [4]uint16) bool { return k[1] == 0 }, false), nil, ""
}

// withKeys returns the directory keys with the keys that keep accepts and
// GTRasterTypeGeoKey set to PixelIsArea; nil when the directory is
// malformed, keeps no key, or (all) drops one.
func withKeys(keys []uint16, keep func(k [4]uint16) bool, all bool) []uint16 {
	if len(keys) < 4 || len(keys) < 4+4*int(keys[3]) {
		return nil
	}
	var kept [][4]uint16
	for i := range int(keys[3]) {
		k := [4]uint16(keys[4+4*i : 8+4*i])
		switch {
		case k[0] == codec.GeoKeyRasterType:
		case keep(k):
			kept = append(kept, k)
		case all:
			return nil
		}
	}
	if len(kept) == 0 {
		return nil
	}
	kept = append(kept, [4]uint16{codec.GeoKeyRasterType, 0, 1, codec.GeoRasterPixelArea})
	slices.SortFunc(kept, func(a, b [4]uint16) int { return int(a[0]) - int(b[0]) })
	out := []uint16{keys[0], keys[1], keys[2], uint16(len(kept))}
	for _, k := range kept {
		out = append(out, k[:]...)
	}
	return out
}

// gdalMetadata returns GDAL's metadata XML (the GDAL_METADATA tag) with
// the bands' descriptions, "" when no band has a name.
func gdalMetadata(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if n == "" {
			continue
		}
		fmt.Fprintf(&b, "  <Item name=\"DESCRIPTION\" sample=\"%d\" role=\"description\">%s</Item>\n", i, xmlEscape(n))
	}
	if b.Len() == 0 {
		return ""
	}
	return "<GDALMetadata>\n" + b.String() + "</GDALMetadata>\n"
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
