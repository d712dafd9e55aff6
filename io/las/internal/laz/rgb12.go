package laz

import "github.com/pctk/pctk/io/las/internal/arith"

// rgb is the 6-byte colour item: red, green, blue as uint16.
type rgb [3]uint16

func (c *rgb) get(b []byte) {
	_ = b[5]
	c[0], c[1], c[2] = le.Uint16(b), le.Uint16(b[2:]), le.Uint16(b[4:])
}

func (c *rgb) put(b []byte) {
	_ = b[5]
	le.PutUint16(b, c[0])
	le.PutUint16(b[2:], c[1])
	le.PutUint16(b[4:], c[2])
}

// changedBytes returns the 6 bits saying which of the 6 colour bytes
// differ between a and b (bit 2i the low byte of channel i, 2i+1 its high
// byte).
func changedBytes(a, b *rgb) uint32 {
	var sym uint32
	for i := range 3 {
		if a[i]&0xFF != b[i]&0xFF {
			sym |= 1 << (2 * i)
		}
		if a[i]&0xFF00 != b[i]&0xFF00 {
			sym |= 2 << (2 * i)
		}
	}
	return sym
}

// clamp8 is LASzip's U8_CLAMP.
func clamp8(v int32) int32 { return max(0, min(v, 255)) }

// rgb12v2 codes RGB12 version 2 (LASzip's LASreadItemCompressed_RGB12_v2
// and its writer): which bytes changed, then the red bytes as differences
// and the green and blue bytes predicted from red's change (bit 6 says
// that the colour is not a grey whose three channels are equal).
type rgb12v2 struct {
	last  rgb
	mUsed *arith.SymbolModel
	mDiff [6]*arith.SymbolModel
}

func newRGB12v2() *rgb12v2 {
	c := &rgb12v2{mUsed: arith.NewSymbolModel(128)}
	for i := range c.mDiff {
		c.mDiff[i] = arith.NewSymbolModel(256)
	}
	return c
}

func (c *rgb12v2) init(item []byte) {
	c.mUsed.Init()
	for _, m := range c.mDiff {
		m.Init()
	}
	c.last.get(item)
}

// decodeRGBv2 decodes one colour predicted from last with the models of
// LASzip's RGB12 version 2 (shared with the layered RGB14 codecs).
func decodeRGBv2(d *arith.Decoder, sym uint32, last *rgb, m *[6]*arith.SymbolModel) rgb {
	var c rgb
	lo := func(v uint16) int32 { return int32(v & 0xFF) }
	hi := func(v uint16) int32 { return int32(v >> 8) }
	if sym&1 != 0 {
		c[0] = uint16(uint8(d.DecodeSymbol(m[0]) + uint32(lo(last[0]))))
	} else {
		c[0] = last[0] & 0xFF
	}
	if sym&2 != 0 {
		c[0] |= uint16(uint8(d.DecodeSymbol(m[1])+uint32(hi(last[0])))) << 8
	} else {
		c[0] |= last[0] & 0xFF00
	}
	if sym&64 == 0 {
		c[1], c[2] = c[0], c[0]
		return c
	}
	diff := lo(c[0]) - lo(last[0])
	if sym&4 != 0 {
		c[1] = uint16(uint8(int32(d.DecodeSymbol(m[2])) + clamp8(diff+lo(last[1]))))
	} else {
		c[1] = last[1] & 0xFF
	}
	if sym&16 != 0 {
		diff = (diff + lo(c[1]) - lo(last[1])) / 2
		c[2] = uint16(uint8(int32(d.DecodeSymbol(m[4])) + clamp8(diff+lo(last[2]))))
	} else {
		c[2] = last[2] & 0xFF
	}
	diff = hi(c[0]) - hi(last[0])
	if sym&8 != 0 {
		c[1] |= uint16(uint8(int32(d.DecodeSymbol(m[3]))+clamp8(diff+hi(last[1])))) << 8
	} else {
		c[1] |= last[1] & 0xFF00
	}
	if sym&32 != 0 {
		diff = (diff + hi(c[1]) - hi(last[1])) / 2
		c[2] |= uint16(uint8(int32(d.DecodeSymbol(m[5]))+clamp8(diff+hi(last[2])))) << 8
	} else {
		c[2] |= last[2] & 0xFF00
	}
	return c
}

// rgbSymbol returns the version 2 symbol for colour c after last.
func rgbSymbol(c, last *rgb) uint32 {
	sym := changedBytes(last, c)
	if c[0]&0xFF != c[1]&0xFF || c[0]&0xFF != c[2]&0xFF || c[0]&0xFF00 != c[1]&0xFF00 || c[0]&0xFF00 != c[2]&0xFF00 {
		sym |= 64
	}
	return sym
}

// encodeRGBv2 encodes colour c after last with symbol sym (rgbSymbol).
func encodeRGBv2(e *arith.Encoder, sym uint32, c, last *rgb, m *[6]*arith.SymbolModel) {
	lo := func(v uint16) int32 { return int32(v & 0xFF) }
	hi := func(v uint16) int32 { return int32(v >> 8) }
	var diffL, diffH int32
	if sym&1 != 0 {
		diffL = lo(c[0]) - lo(last[0])
		e.EncodeSymbol(m[0], uint32(uint8(diffL)))
	}
	if sym&2 != 0 {
		diffH = hi(c[0]) - hi(last[0])
		e.EncodeSymbol(m[1], uint32(uint8(diffH)))
	}
	if sym&64 == 0 {
		return
	}
	if sym&4 != 0 {
		e.EncodeSymbol(m[2], uint32(uint8(lo(c[1])-clamp8(diffL+lo(last[1])))))
	}
	if sym&16 != 0 {
		diffL = (diffL + lo(c[1]) - lo(last[1])) / 2
		e.EncodeSymbol(m[4], uint32(uint8(lo(c[2])-clamp8(diffL+lo(last[2])))))
	}
	if sym&8 != 0 {
		e.EncodeSymbol(m[3], uint32(uint8(hi(c[1])-clamp8(diffH+hi(last[1])))))
	}
	if sym&32 != 0 {
		diffH = (diffH + hi(c[1]) - hi(last[1])) / 2
		e.EncodeSymbol(m[5], uint32(uint8(hi(c[2])-clamp8(diffH+hi(last[2])))))
	}
}

func (c *rgb12v2) decode(d *arith.Decoder, out []byte) {
	sym := d.DecodeSymbol(c.mUsed)
	c.last = decodeRGBv2(d, sym, &c.last, &c.mDiff)
	c.last.put(out)
}

func (c *rgb12v2) encode(e *arith.Encoder, item []byte) {
	var q rgb
	q.get(item)
	sym := rgbSymbol(&q, &c.last)
	e.EncodeSymbol(c.mUsed, sym)
	encodeRGBv2(e, sym, &q, &c.last, &c.mDiff)
	c.last = q
}

// rgb12v1 codes RGB12 version 1 (LASzip's LASreadItemCompressed_RGB12_v1
// and its writer): which bytes changed, then each changed byte from the
// last one with an 8-bit integer compressor of six contexts.
type rgb12v1 struct {
	last  rgb
	mUsed *arith.SymbolModel
	ic    *arith.IntCompressor
}

func newRGB12v1() *rgb12v1 {
	return &rgb12v1{mUsed: arith.NewSymbolModel(64), ic: arith.NewIntCompressor(8, 6, 8, 0)}
}

func (c *rgb12v1) init(item []byte) {
	c.mUsed.Init()
	c.ic.Init()
	c.last.get(item)
}

func (c *rgb12v1) decode(d *arith.Decoder, out []byte) {
	sym := d.DecodeSymbol(c.mUsed)
	var q rgb
	for i := range 3 {
		l := c.last[i]
		if sym&(1<<(2*i)) != 0 {
			q[i] = uint16(c.ic.Decompress(d, int32(l&0xFF), uint32(2*i)))
		} else {
			q[i] = l & 0xFF
		}
		if sym&(2<<(2*i)) != 0 {
			q[i] |= uint16(c.ic.Decompress(d, int32(l>>8), uint32(2*i+1))) << 8
		} else {
			q[i] |= l & 0xFF00
		}
	}
	c.last = q
	q.put(out)
}

func (c *rgb12v1) encode(e *arith.Encoder, item []byte) {
	var q rgb
	q.get(item)
	sym := changedBytes(&c.last, &q)
	e.EncodeSymbol(c.mUsed, sym)
	for i := range 3 {
		if sym&(1<<(2*i)) != 0 {
			c.ic.Compress(e, int32(c.last[i]&0xFF), int32(q[i]&0xFF), uint32(2*i))
		}
		if sym&(2<<(2*i)) != 0 {
			c.ic.Compress(e, int32(c.last[i]>>8), int32(q[i]>>8), uint32(2*i+1))
		}
	}
	c.last = q
}
