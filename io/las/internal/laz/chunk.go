package laz

import (
	"fmt"

	"github.com/pctk/pctk/io/las/internal/arith"
)

// The item codecs of the pointwise compressors, as a closed set so that
// the per-record loop is a switch over concrete types, not interface calls.
const (
	kindPoint10v1 = iota
	kindPoint10v2
	kindGPSv1
	kindGPSv2
	kindRGBv1
	kindRGBv2
	kindByteV1
	kindByteV2
	kindWave
)

// step is one item of a record: its codec and its bytes in the record.
// The per-record loops switch on kind and call the concrete codec; start
// (once per chunk) goes through the interface.
type step struct {
	kind     int
	off, end int
	start    interface{ init(item []byte) }

	p10v1 *point10v1
	p10v2 *point10v2
	gpsv1 *gpstime11v1
	gpsv2 *gpstime11v2
	rgbv1 *rgb12v1
	rgbv2 *rgb12v2
	bytv1 *byteV1
	bytv2 *byteV2
	wave  *wavepacket13v1
}

func (s *step) init(rec []byte) { s.start.init(rec[s.off:s.end]) }

// pointwise codes the records of formats 0-5: the first record of a chunk
// raw, the others with every item's codec interleaved in one arithmetic
// stream (LASzip's LASreadPoint and LASwritePoint).
type pointwise struct {
	recLen int
	steps  []step
	dec    arith.Decoder
	enc    arith.Encoder
}

func newPointwise(items []Item) (*pointwise, error) {
	p := &pointwise{}
	for _, it := range items {
		s := step{off: p.recLen, end: p.recLen + int(it.Size)}
		p.recLen = s.end
		switch {
		case it.Type == ItemPoint10 && it.Version == 1:
			s.p10v1 = newPoint10v1()
			s.kind, s.start = kindPoint10v1, s.p10v1
		case it.Type == ItemPoint10 && it.Version == 2:
			s.p10v2 = newPoint10v2()
			s.kind, s.start = kindPoint10v2, s.p10v2
		case it.Type == ItemGPSTime11 && it.Version == 1:
			s.gpsv1 = newGPSTime11v1()
			s.kind, s.start = kindGPSv1, s.gpsv1
		case it.Type == ItemGPSTime11 && it.Version == 2:
			s.gpsv2 = newGPSTime11v2()
			s.kind, s.start = kindGPSv2, s.gpsv2
		case it.Type == ItemRGB12 && it.Version == 1:
			s.rgbv1 = newRGB12v1()
			s.kind, s.start = kindRGBv1, s.rgbv1
		case it.Type == ItemRGB12 && it.Version == 2:
			s.rgbv2 = newRGB12v2()
			s.kind, s.start = kindRGBv2, s.rgbv2
		case it.Type == ItemByte && it.Version == 1:
			s.bytv1 = newByteV1(int(it.Size))
			s.kind, s.start = kindByteV1, s.bytv1
		case it.Type == ItemByte && it.Version == 2:
			s.bytv2 = newByteV2(int(it.Size))
			s.kind, s.start = kindByteV2, s.bytv2
		case it.Type == ItemWavePacket13 && it.Version == 1:
			s.wave = newWavePacket13v1()
			s.kind, s.start = kindWave, s.wave
		default:
			return nil, &UnsupportedError{Msg: fmt.Sprintf("item type %d version %d in a pointwise chunk", it.Type, it.Version)}
		}
		p.steps = append(p.steps, s)
	}
	return p, nil
}

// decode decodes n records from src, a chunk's bytes (possibly followed by
// more), into dst, and returns how many bytes of src the chunk took.
func (p *pointwise) decode(src []byte, n int, dst []byte) (int, error) {
	if n == 0 {
		return 0, nil
	}
	rl := p.recLen
	if len(src) < rl {
		return 0, fmt.Errorf("chunk of %d bytes is shorter than its first, raw record (%d bytes)", len(src), rl)
	}
	copy(dst[:rl], src[:rl])
	for i := range p.steps {
		p.steps[i].init(dst[:rl])
	}
	d := &p.dec
	d.Init(src[rl:])
	for i := 1; i < n; i++ {
		if i&1023 == 0 && d.Err() != nil {
			break // corrupt or cut: stop early rather than decode zeros
		}
		rec := dst[i*rl : (i+1)*rl]
		for j := range p.steps {
			s := &p.steps[j]
			item := rec[s.off:s.end]
			switch s.kind {
			case kindPoint10v2:
				s.p10v2.decode(d, item)
			case kindGPSv2:
				s.gpsv2.decode(d, item)
			case kindRGBv2:
				s.rgbv2.decode(d, item)
			case kindByteV2:
				s.bytv2.decode(d, item)
			case kindPoint10v1:
				s.p10v1.decode(d, item)
			case kindGPSv1:
				s.gpsv1.decode(d, item)
			case kindRGBv1:
				s.rgbv1.decode(d, item)
			case kindByteV1:
				s.bytv1.decode(d, item)
			case kindWave:
				s.wave.decode(d, item)
			}
		}
	}
	if err := d.Err(); err != nil {
		return 0, err
	}
	return rl + d.Pos(), nil
}

// encode appends the chunk of the n records recs to out.
func (p *pointwise) encode(recs []byte, n int, out []byte) []byte {
	if n == 0 {
		return out
	}
	rl := p.recLen
	out = append(out, recs[:rl]...)
	for i := range p.steps {
		p.steps[i].init(recs[:rl])
	}
	e := &p.enc
	e.Reset()
	for i := 1; i < n; i++ {
		rec := recs[i*rl : (i+1)*rl]
		for j := range p.steps {
			s := &p.steps[j]
			item := rec[s.off:s.end]
			switch s.kind {
			case kindPoint10v2:
				s.p10v2.encode(e, item)
			case kindGPSv2:
				s.gpsv2.encode(e, item)
			case kindRGBv2:
				s.rgbv2.encode(e, item)
			case kindByteV2:
				s.bytv2.encode(e, item)
			case kindPoint10v1:
				s.p10v1.encode(e, item)
			case kindGPSv1:
				s.gpsv1.encode(e, item)
			case kindRGBv1:
				s.rgbv1.encode(e, item)
			case kindByteV1:
				s.bytv1.encode(e, item)
			case kindWave:
				s.wave.encode(e, item)
			}
		}
	}
	return append(out, e.Finish()...)
}

// ChunkCodec decodes and encodes the chunks of one item list. It holds the
// models of every item, so each goroutine needs its own.
type ChunkCodec struct {
	items   []Item
	recLen  int
	point   *pointwise    // formats 0-5
	layered bool          // formats 6-10: lay
	lay     *layeredCodec // made at the first chunk (see codec14)
}

// NewChunkCodec returns a codec of the chunks of items.
func NewChunkCodec(items []Item) (*ChunkCodec, error) {
	c := &ChunkCodec{items: items}
	for _, it := range items {
		c.recLen += int(it.Size)
	}
	if len(items) > 0 && items[0].layered() {
		c.layered = true
		return c, nil
	}
	p, err := newPointwise(items)
	if err != nil {
		return nil, err
	}
	c.point = p
	return c, nil
}

// RecordLen returns the bytes per record.
func (c *ChunkCodec) RecordLen() int { return c.recLen }

// Decode decodes the n records of the chunk at the start of src into dst
// (n*RecordLen bytes) and returns the bytes the chunk took.
func (c *ChunkCodec) Decode(src []byte, n int, dst []byte, sel Selection) (int, error) {
	if len(dst) < n*c.recLen {
		return 0, fmt.Errorf("laz: %d-byte buffer for %d records of %d bytes", len(dst), n, c.recLen)
	}
	if c.layered {
		l, err := c.codec14()
		if err != nil {
			return 0, err
		}
		used, err := l.chunkLen(src)
		if err != nil {
			return 0, err
		}
		return used, l.decodeChunk(c.items, src[:used], n, dst, sel)
	}
	return c.point.decode(src, n, dst)
}

// codec14 returns the codec of the layered items, made on first use, so
// that an item list it does not support fails at the first chunk.
func (c *ChunkCodec) codec14() (*layeredCodec, error) {
	if c.lay == nil {
		l, err := newLayeredCodec(c.items)
		if err != nil {
			return nil, err
		}
		c.lay = l
	}
	return c.lay, nil
}

// chunkLen returns the bytes of the layered chunk at the start of src
// from its header: the first record, the point count, the layer sizes and
// the layers. A src too short to hold them gives arith.ErrShortStream, as
// a pointwise chunk does, so that a reader scanning without a chunk table
// reads more.
func (c *layeredCodec) chunkLen(src []byte) (int, error) {
	layers := p14Layers
	for _, x := range c.others {
		layers += x.layers()
	}
	at := c.recLen + 4
	end := at + 4*layers
	if end <= len(src) {
		for i := range layers {
			end += int(le.Uint32(src[at+4*i:]))
		}
	}
	if end > len(src) {
		return 0, fmt.Errorf("%w: the layered chunk needs %d bytes, %d are left", arith.ErrShortStream, end, len(src))
	}
	return end, nil
}

// Encode returns the compressed chunk of the n records recs, appended to
// out.
func (c *ChunkCodec) Encode(recs []byte, n int, out []byte) ([]byte, error) {
	if c.layered {
		l, err := c.codec14()
		if err != nil {
			return out, err
		}
		b, err := l.encodeChunk(recs, n, nil)
		return append(out, b...), err
	}
	return c.point.encode(recs, n, out), nil
}
