package laz

// This file lays out the chunks of the layered compressor (LASzip's
// compressor 3, point formats 6-10), as LASzip's LASreadPoint::read and
// LASwritePoint::write / chunk do (lasreadpoint.cpp, laswritepoint.cpp):
//
//	the chunk's first point, raw (its items' bytes in item order)
//	uint32 LE  the number of points in the chunk, the first included
//	uint32 LE  the byte size of every layer of every item, in item order
//	the layers' bytes, in the same order
//
// Each layer is its own arithmetic-coded stream; a layer whose values never
// change within the chunk is empty (size 0), and its field keeps the first
// point's value. POINT14 must be the first item: its scanner channel picks
// the context (one of four) in which every item codes a point.

import (
	"errors"
	"fmt"

	"github.com/pctk/pctk/io/las/internal/arith"
)

// layerError names the layer of an item whose stream failed (the chunk
// reader adds the chunk and its offset).
func layerError(item string, layer int, err error) error {
	return fmt.Errorf("%s layer %d: %w", item, layer, err)
}

// layerCoders holds the arithmetic coders of an item's layers, one stream
// per layer, in either direction.
type layerCoders struct {
	name    string
	dec     []arith.Decoder
	decodes []bool // the layer has bytes and is wanted
	enc     []arith.Encoder
	changed []bool // a value of the layer changed within the chunk
}

func newLayerCoders(name string, n int) layerCoders {
	return layerCoders{name: name, dec: make([]arith.Decoder, n), decodes: make([]bool, n),
		enc: make([]arith.Encoder, n), changed: make([]bool, n)}
}

// layers returns the item's layer count.
func (s *layerCoders) layers() int { return len(s.dec) }

// initDecoders starts the layers' decoders on their bytes; empty layers
// (unchanged within the chunk, or not wanted) are not decoded.
func (s *layerCoders) initDecoders(layers [][]byte) error {
	for i, l := range layers {
		s.decodes[i] = len(l) > 0
		if s.decodes[i] {
			if err := s.dec[i].Init(l); err != nil {
				return layerError(s.name, i, err)
			}
		}
	}
	return nil
}

// err reports the first decoded layer whose stream failed.
func (s *layerCoders) err() error {
	for i := range s.dec {
		if s.decodes[i] {
			if err := s.dec[i].Err(); err != nil {
				return layerError(s.name, i, err)
			}
		}
	}
	return nil
}

// initEncoders starts the layers' encoders.
func (s *layerCoders) initEncoders() {
	for i := range s.enc {
		s.enc[i].Reset()
		s.changed[i] = false
	}
}

// finish ends the layers' streams and appends their bytes to layers; a
// layer whose values never changed within the chunk is empty.
func (s *layerCoders) finish(layers [][]byte) [][]byte {
	for i := range s.enc {
		var b []byte
		if s.changed[i] {
			b = s.enc[i].Finish()
		}
		layers = append(layers, b)
	}
	return layers
}

// layeredItem is the codec of one item after POINT14. A chunk starts
// with initDecoders or initEncoders, then begin from the first point's
// item in the context POINT14 starts in; every further point is decoded
// or encoded in the context POINT14 hands it.
type layeredItem interface {
	size() int   // the item's bytes
	layers() int // the item's layer count
	initDecoders(layers [][]byte) error
	initEncoders()
	begin(first []byte, ctx uint32)
	decode(b []byte, ctx uint32)
	encode(b []byte, ctx uint32)
	err() error
	finish(layers [][]byte) [][]byte
}

// layeredCodec codes the points of a layered chunk with the items' codecs.
type layeredCodec struct {
	point  point14Codec
	others []layeredItem
	recLen int
}

// newLayeredCodec returns the codec of items, which must start with
// POINT14 and hold only layered items.
func newLayeredCodec(items []Item) (*layeredCodec, error) {
	if len(items) == 0 || items[0].Type != ItemPoint14 {
		return nil, &UnsupportedError{Msg: "layered chunks whose first item is not POINT14"}
	}
	for i, it := range items {
		if err := checkItem(it, true); err != nil {
			return nil, fmt.Errorf("laz: item %d: %w", i, err)
		}
		if it.Version != 3 && it.Version != 4 {
			return nil, &UnsupportedError{Msg: fmt.Sprintf("layered item type %d version %d (LASzip has versions 3 and 4)", it.Type, it.Version)}
		}
	}
	c := &layeredCodec{recLen: point14Size}
	c.point = point14Codec{version: items[0].Version, layerCoders: newLayerCoders("POINT14", p14Layers)}
	for _, it := range items[1:] {
		var x layeredItem
		switch it.Type {
		case ItemRGB14:
			x = &rgb14Codec{version: it.Version, layerCoders: newLayerCoders("RGB14", 1)}
		case ItemRGBNIR14:
			x = &rgb14Codec{version: it.Version, nir: true, layerCoders: newLayerCoders("RGBNIR14", 2)}
		case ItemWavePacket14:
			x = &wavepacket14Codec{version: it.Version, layerCoders: newLayerCoders("WAVEPACKET14", 1)}
		case ItemByte14:
			x = &byte14Codec{version: it.Version, n: int(it.Size), layerCoders: newLayerCoders("BYTE14", int(it.Size))}
		default:
			return nil, &UnsupportedError{Msg: fmt.Sprintf("item type %d after POINT14", it.Type)}
		}
		c.others = append(c.others, x)
		c.recLen += x.size()
	}
	return c, nil
}

// layerWanted says whether sel needs layer l of an item of type t
// (layer indices as in the chunk: POINT14's p14*, RGBNIR14's 0 RGB and
// 1 NIR).
func layerWanted(sel Selection, t uint16, l int) bool {
	switch t {
	case ItemPoint14:
		g := [p14Layers]Selection{
			p14ReturnsXY: SelectXYZ | SelectReturns, p14Z: SelectXYZ, p14Class: SelectClassification,
			p14Flags: SelectReturns, p14Intensity: SelectIntensity, p14ScanAngle: SelectScanAngle,
			p14UserData: SelectUserData, p14PointSource: SelectPointSourceID, p14GPSTime: SelectGPSTime,
		}[l]
		return l == p14ReturnsXY || sel.Has(g)
	case ItemRGB14:
		return sel.Has(SelectRGB)
	case ItemRGBNIR14:
		if l == 0 {
			return sel.Has(SelectRGB)
		}
		return sel.Has(SelectNIR)
	case ItemWavePacket14:
		return sel.Has(SelectWavePacket)
	}
	return sel.Has(SelectExtraBytes)
}

// ErrPointCount reports a chunk that holds fewer points than the caller
// expects from the chunk table or the header. (A chunk that holds more
// gives the points expected, as LASzip reads it.)
var ErrPointCount = errors.New("laz: chunk holds fewer points than expected")

// chunkError reports a malformed chunk at byte offset off of the chunk.
func chunkError(off int, format string, args ...any) error {
	return &FormatError{What: "layered chunk", Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
}

// decodeChunk decodes the n points of the layered chunk src into dst (n
// records of the items' total size). Layers that sel does not need are
// not decompressed: their fields hold the chunk's first point's values
// (as LASzip's selective decompression leaves them). No layer depends on
// another's values except through the channel/returns/XY layer, which is
// always decoded, so the fields sel needs are exact. A codec passes from
// chunk to chunk: a chunk starts every context it uses afresh (as LASzip
// re-initializes its models per chunk), and only the models' storage is
// kept, which small chunks (COPC nodes) would otherwise allocate anew.
func (c *layeredCodec) decodeChunk(items []Item, src []byte, n int, dst []byte, sel Selection) error {
	if n <= 0 {
		return nil
	}
	rl := c.recLen
	if len(dst) < n*rl {
		return fmt.Errorf("laz: %d bytes for %d records of %d bytes", len(dst), n, rl)
	}
	if len(src) < rl+4 {
		if n == 1 && len(src) >= rl {
			copy(dst, src[:rl])
			return nil
		}
		return chunkError(len(src), "chunk of %d bytes ends in its first point or count", len(src))
	}
	copy(dst, src[:rl])
	if count := le.Uint32(src[rl:]); int64(count) < int64(n) {
		return fmt.Errorf("%w: %d in the chunk, %d expected", ErrPointCount, count, n)
	}
	// layer sizes, then layer bytes; unwanted layers stay nil
	total := 1 + len(c.others)
	numLayers := p14Layers
	for _, x := range c.others {
		numLayers += x.layers()
	}
	sizesAt := rl + 4
	pos := sizesAt + 4*numLayers
	if pos > len(src) {
		return chunkError(len(src), "chunk ends in its layer sizes (%d layers)", numLayers)
	}
	layers := make([][]byte, numLayers)
	k := 0
	for it := range total {
		nl := p14Layers
		if it > 0 {
			nl = c.others[it-1].layers()
		}
		for l := range nl {
			size := int(le.Uint32(src[sizesAt+4*k:]))
			if size > len(src)-pos {
				return chunkError(sizesAt+4*k, "%s layer %d of %d bytes overruns the chunk's %d", itemName(items[it].Type), l, size, len(src))
			}
			if layerWanted(sel, items[it].Type, l) {
				layers[k] = src[pos : pos+size : pos+size]
			}
			pos += size
			k++
		}
	}
	if len(layers[p14ReturnsXY]) == 0 && n > 1 {
		return chunkError(sizesAt, "empty POINT14 returns/XY layer for %d points", n)
	}
	ctx, err := c.point.initDecoder(src, layers[:p14Layers])
	if err != nil {
		return err
	}
	off := point14Size
	k = p14Layers
	for _, x := range c.others {
		if err := x.initDecoders(layers[k : k+x.layers()]); err != nil {
			return err
		}
		x.begin(src[off:], ctx)
		off += x.size()
		k += x.layers()
	}
	c.code(dst, n, false)
	if err := c.point.err(); err != nil {
		return err
	}
	for _, x := range c.others {
		if err := x.err(); err != nil {
			return err
		}
	}
	return nil
}

// code decodes points 1 to n-1 of a chunk into recs, or encodes them from
// recs, after the first point began the chunk.
func (c *layeredCodec) code(recs []byte, n int, encode bool) {
	for i := 1; i < n; i++ {
		rec := recs[i*c.recLen : (i+1)*c.recLen]
		var ctx uint32
		if encode {
			ctx = c.point.encode(rec)
		} else {
			ctx = c.point.decode(rec)
		}
		off := point14Size
		for _, x := range c.others {
			if encode {
				x.encode(rec[off:], ctx)
			} else {
				x.decode(rec[off:], ctx)
			}
			off += x.size()
		}
	}
}

// itemName returns the LASzip name of a layered item type.
func itemName(t uint16) string {
	switch t {
	case ItemPoint14:
		return "POINT14"
	case ItemRGB14:
		return "RGB14"
	case ItemRGBNIR14:
		return "RGBNIR14"
	case ItemWavePacket14:
		return "WAVEPACKET14"
	}
	return "BYTE14"
}

// encodeChunk appends the chunk of the n records recs to out.
func (c *layeredCodec) encodeChunk(recs []byte, n int, out []byte) ([]byte, error) {
	rl := c.recLen
	if n <= 0 {
		return out, nil
	}
	if len(recs) < n*rl {
		return nil, fmt.Errorf("laz: %d bytes for %d records of %d bytes", len(recs), n, rl)
	}
	ctx := c.point.initEncoder(recs)
	off := point14Size
	for _, x := range c.others {
		x.initEncoders()
		x.begin(recs[off:], ctx)
		off += x.size()
	}
	c.code(recs, n, true)
	layers := c.point.finish(nil)
	for _, x := range c.others {
		layers = x.finish(layers)
	}
	out = append(out, recs[:rl]...)
	out = le.AppendUint32(out, uint32(n))
	for _, l := range layers {
		out = le.AppendUint32(out, uint32(len(l)))
	}
	for _, l := range layers {
		out = append(out, l...)
	}
	return out, nil
}
