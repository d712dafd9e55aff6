package laz

import "github.com/pctk/pctk/io/las/internal/arith"

// wavepacket is the 29-byte wave packet item: the descriptor index, then
// the byte offset to the waveform data (uint64), the packet size (uint32),
// the return point location and the X, Y, Z parametric steps (float32,
// coded as their int32 bits).
type wavepacket struct {
	index  uint8
	offset uint64
	size   uint32
	ret    int32
	xyz    [3]int32
}

func (w *wavepacket) get(b []byte) {
	_ = b[28]
	w.index = b[0]
	w.offset = le.Uint64(b[1:])
	w.size = le.Uint32(b[9:])
	w.ret = int32(le.Uint32(b[13:]))
	for i := range w.xyz {
		w.xyz[i] = int32(le.Uint32(b[17+4*i:]))
	}
}

func (w *wavepacket) put(b []byte) {
	_ = b[28]
	b[0] = w.index
	le.PutUint64(b[1:], w.offset)
	le.PutUint32(b[9:], w.size)
	le.PutUint32(b[13:], uint32(w.ret))
	for i, v := range w.xyz {
		le.PutUint32(b[17+4*i:], uint32(v))
	}
}

// wavepacket13v1 codes WAVEPACKET13 version 1 (LASzip's
// LASreadItemCompressed_WAVEPACKET13_v1 and its writer): the descriptor
// index as a symbol, the offset as unchanged, following the last packet,
// a 32-bit difference or raw, the other fields from their last values.
type wavepacket13v1 struct {
	last     wavepacket
	lastDiff int32
	lastSym  uint32

	mIndex  *arith.SymbolModel
	mOffset [4]*arith.SymbolModel
	icOff   *arith.IntCompressor
	icSize  *arith.IntCompressor
	icRet   *arith.IntCompressor
	icXYZ   *arith.IntCompressor
}

func newWavePacket13v1() *wavepacket13v1 {
	c := &wavepacket13v1{
		mIndex: arith.NewSymbolModel(256),
		icOff:  arith.NewIntCompressor(32, 1, 8, 0),
		icSize: arith.NewIntCompressor(32, 1, 8, 0),
		icRet:  arith.NewIntCompressor(32, 1, 8, 0),
		icXYZ:  arith.NewIntCompressor(32, 3, 8, 0),
	}
	for i := range c.mOffset {
		c.mOffset[i] = arith.NewSymbolModel(4)
	}
	return c
}

func (c *wavepacket13v1) init(item []byte) {
	c.lastDiff, c.lastSym = 0, 0
	c.mIndex.Init()
	for _, m := range c.mOffset {
		m.Init()
	}
	c.icOff.Init()
	c.icSize.Init()
	c.icRet.Init()
	c.icXYZ.Init()
	c.last.get(item)
}

func (c *wavepacket13v1) decode(d *arith.Decoder, out []byte) {
	var w wavepacket
	l := &c.last
	w.index = uint8(d.DecodeSymbol(c.mIndex))
	c.lastSym = d.DecodeSymbol(c.mOffset[c.lastSym])
	switch c.lastSym {
	case 0:
		w.offset = l.offset
	case 1:
		w.offset = l.offset + uint64(l.size)
	case 2:
		c.lastDiff = c.icOff.Decompress(d, c.lastDiff, 0)
		w.offset = l.offset + uint64(int64(c.lastDiff))
	default:
		w.offset = d.ReadInt64()
	}
	w.size = uint32(c.icSize.Decompress(d, int32(l.size), 0))
	w.ret = c.icRet.Decompress(d, l.ret, 0)
	for i := range w.xyz {
		w.xyz[i] = c.icXYZ.Decompress(d, l.xyz[i], uint32(i))
	}
	*l = w
	w.put(out)
}

func (c *wavepacket13v1) encode(e *arith.Encoder, item []byte) {
	var w wavepacket
	w.get(item)
	l := &c.last
	e.EncodeSymbol(c.mIndex, uint32(w.index))
	m := c.mOffset[c.lastSym]
	diff64 := int64(w.offset - l.offset)
	diff, ok := fits32(diff64)
	switch {
	case ok && diff == 0:
		c.lastSym = 0
		e.EncodeSymbol(m, 0)
	case ok && diff64 == int64(l.size):
		// LASzip compares the 32-bit difference with the size as int32;
		// comparing exactly keeps sizes of 2^31 and more decodable.
		c.lastSym = 1
		e.EncodeSymbol(m, 1)
	case ok:
		c.lastSym = 2
		e.EncodeSymbol(m, 2)
		c.icOff.Compress(e, c.lastDiff, diff, 0)
		c.lastDiff = diff
	default:
		c.lastSym = 3
		e.EncodeSymbol(m, 3)
		e.WriteInt64(w.offset)
	}
	c.icSize.Compress(e, int32(l.size), int32(w.size), 0)
	c.icRet.Compress(e, l.ret, w.ret, 0)
	for i := range w.xyz {
		c.icXYZ.Compress(e, l.xyz[i], w.xyz[i], uint32(i))
	}
	*l = w
}
