package laz

import "github.com/pctk/pctk/io/las/internal/arith"

// byteV2 codes the extra bytes item BYTE version 2 (LASzip's
// LASreadItemCompressed_BYTE_v2 and its writer): each byte as its
// difference to the last value of the same byte, one model per byte.
type byteV2 struct {
	last []byte
	m    []*arith.SymbolModel
}

func newByteV2(n int) *byteV2 {
	c := &byteV2{last: make([]byte, n), m: make([]*arith.SymbolModel, n)}
	for i := range c.m {
		c.m[i] = arith.NewSymbolModel(256)
	}
	return c
}

func (c *byteV2) init(item []byte) {
	for _, m := range c.m {
		m.Init()
	}
	copy(c.last, item)
}

func (c *byteV2) decode(d *arith.Decoder, out []byte) {
	out = out[:len(c.last)]
	for i, m := range c.m {
		c.last[i] += uint8(d.DecodeSymbol(m))
		out[i] = c.last[i]
	}
}

func (c *byteV2) encode(e *arith.Encoder, item []byte) {
	item = item[:len(c.last)]
	for i, m := range c.m {
		e.EncodeSymbol(m, uint32(item[i]-c.last[i]))
	}
	copy(c.last, item)
}

// byteV1 codes BYTE version 1 (LASzip's LASreadItemCompressed_BYTE_v1 and
// its writer): each byte from its last value with an 8-bit integer
// compressor, one context per byte.
type byteV1 struct {
	last []byte
	ic   *arith.IntCompressor
}

func newByteV1(n int) *byteV1 {
	return &byteV1{last: make([]byte, n), ic: arith.NewIntCompressor(8, uint32(n), 8, 0)}
}

func (c *byteV1) init(item []byte) {
	c.ic.Init()
	copy(c.last, item)
}

func (c *byteV1) decode(d *arith.Decoder, out []byte) {
	out = out[:len(c.last)]
	for i := range c.last {
		c.last[i] = uint8(c.ic.Decompress(d, int32(c.last[i]), uint32(i)))
		out[i] = c.last[i]
	}
}

func (c *byteV1) encode(e *arith.Encoder, item []byte) {
	item = item[:len(c.last)]
	for i := range c.last {
		c.ic.Compress(e, int32(c.last[i]), int32(item[i]), uint32(i))
	}
	copy(c.last, item)
}
