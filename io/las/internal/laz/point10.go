package laz

import "github.com/pctk/pctk/io/las/internal/arith"

// POINT10 is the 20-byte core of point formats 0-5: X, Y, Z (int32),
// intensity (uint16), the bit byte (return number bits 0-2, number of
// returns bits 3-5, scan direction bit 6, edge of flight line bit 7),
// classification, scan angle rank, user data (one byte each) and point
// source ID (uint16).
type point10 struct {
	x, y, z   int32
	intensity uint16
	bits      uint8 // the bit byte
	class     uint8
	angle     uint8
	user      uint8
	psid      uint16
}

func (p *point10) get(b []byte) {
	_ = b[19]
	p.x = int32(le.Uint32(b[0:]))
	p.y = int32(le.Uint32(b[4:]))
	p.z = int32(le.Uint32(b[8:]))
	p.intensity = le.Uint16(b[12:])
	p.bits, p.class, p.angle, p.user = b[14], b[15], b[16], b[17]
	p.psid = le.Uint16(b[18:])
}

func (p *point10) put(b []byte) {
	_ = b[19]
	le.PutUint32(b[0:], uint32(p.x))
	le.PutUint32(b[4:], uint32(p.y))
	le.PutUint32(b[8:], uint32(p.z))
	le.PutUint16(b[12:], p.intensity)
	b[14], b[15], b[16], b[17] = p.bits, p.class, p.angle, p.user
	le.PutUint16(b[18:], p.psid)
}

// changedLow returns the low four bits both versions' "changed values"
// symbol give classification (8), scan angle (4), user data (2) and point
// source ID (1) when q's differ from p's.
func (p *point10) changedLow(q *point10) uint32 {
	var changed uint32
	if p.class != q.class {
		changed |= 8
	}
	if p.angle != q.angle {
		changed |= 4
	}
	if p.user != q.user {
		changed |= 2
	}
	if p.psid != q.psid {
		changed |= 1
	}
	return changed
}

// returnMap maps (number of returns, return number) to one of 16 contexts
// (LASzip's number_return_map, laszip_common_v2.hpp): the 15 valid pairs
// get their own, and the invalid ones are folded onto nearby contexts.
var returnMap = [8][8]uint8{
	{15, 14, 13, 12, 11, 10, 9, 8},
	{14, 0, 1, 3, 6, 10, 10, 9},
	{13, 1, 2, 4, 7, 11, 11, 10},
	{12, 3, 4, 5, 8, 12, 12, 11},
	{11, 6, 7, 8, 9, 13, 13, 12},
	{10, 10, 11, 12, 13, 14, 14, 13},
	{9, 10, 11, 12, 13, 14, 15, 14},
	{8, 9, 10, 11, 12, 13, 14, 15},
}

// returnLevel is LASzip's number_return_level: |n - r|, how far a return
// lies from the last one of its pulse.
func returnLevel(n, r uint8) uint8 {
	if n > r {
		return n - r
	}
	return r - n
}

// median5 is LASzip's StreamingMedian5: the median of the last five
// values added, kept sorted with a flag that alternates the side a new
// value displaces.
type median5 struct {
	v    [5]int32
	high bool
}

func (m *median5) init() { *m = median5{high: true} }

func (m *median5) get() int32 { return m.v[2] }

func (m *median5) add(x int32) {
	v := &m.v
	if m.high {
		if x < v[2] {
			v[4], v[3] = v[3], v[2]
			switch {
			case x < v[0]:
				v[2], v[1], v[0] = v[1], v[0], x
			case x < v[1]:
				v[2], v[1] = v[1], x
			default:
				v[2] = x
			}
		} else {
			if x < v[3] {
				v[4], v[3] = v[3], x
			} else {
				v[4] = x
			}
			m.high = false
		}
		return
	}
	if v[2] < x {
		v[0], v[1] = v[1], v[2]
		switch {
		case v[4] < x:
			v[2], v[3], v[4] = v[3], v[4], x
		case v[3] < x:
			v[2], v[3] = v[3], x
		default:
			v[2] = x
		}
	} else {
		if v[1] < x {
			v[0], v[1] = v[1], x
		} else {
			v[0] = x
		}
		m.high = true
	}
}

// byteModels is a set of 256 symbol models chosen by the previous value
// of a byte, created on first use as LASzip does.
type byteModels [256]*arith.SymbolModel

func (b *byteModels) get(prev uint8) *arith.SymbolModel {
	m := b[prev]
	if m == nil {
		m = arith.NewSymbolModel(256)
		b[prev] = m
	}
	return m
}

func (b *byteModels) init() {
	for _, m := range b {
		if m != nil {
			m.Init()
		}
	}
}

// point10v2 codes POINT10 version 2 (LASzip's
// LASreadItemCompressed_POINT10_v2 and its writer): which fields changed as
// one 6-bit symbol, the bit byte, classification and user data with a
// model per previous value, intensity per return context, X and Y as
// differences predicted by the median of the last five, Z from the last Z
// of the same return level.
type point10v2 struct {
	last          point10
	lastIntensity [16]uint16
	lastHeight    [8]int32
	medX, medY    [16]median5

	mChanged *arith.SymbolModel
	mBits    byteModels
	mClass   byteModels
	mUser    byteModels
	mAngle   [2]*arith.SymbolModel
	icInt    *arith.IntCompressor
	icPSID   *arith.IntCompressor
	icDX     *arith.IntCompressor
	icDY     *arith.IntCompressor
	icZ      *arith.IntCompressor
}

func newPoint10v2() *point10v2 {
	return &point10v2{
		mChanged: arith.NewSymbolModel(64),
		mAngle:   [2]*arith.SymbolModel{arith.NewSymbolModel(256), arith.NewSymbolModel(256)},
		icInt:    arith.NewIntCompressor(16, 4, 8, 0),
		icPSID:   arith.NewIntCompressor(16, 1, 8, 0),
		icDX:     arith.NewIntCompressor(32, 2, 8, 0),
		icDY:     arith.NewIntCompressor(32, 22, 8, 0),
		icZ:      arith.NewIntCompressor(32, 20, 8, 0),
	}
}

// init resets the codec for a chunk whose first, raw record is item.
func (c *point10v2) init(item []byte) {
	for i := range c.medX {
		c.medX[i].init()
		c.medY[i].init()
	}
	c.lastIntensity = [16]uint16{}
	c.lastHeight = [8]int32{}
	c.mChanged.Init()
	c.icInt.Init()
	c.mAngle[0].Init()
	c.mAngle[1].Init()
	c.icPSID.Init()
	c.mBits.init()
	c.mClass.init()
	c.mUser.init()
	c.icDX.Init()
	c.icDY.Init()
	c.icZ.Init()
	c.last.get(item)
	c.last.intensity = 0
}

// context returns the return map context m, the level l and whether the
// pulse has a single return, from the bit byte.
func returnContext(bits uint8) (m, l, single uint32) {
	r, n := bits&7, bits>>3&7
	if n == 1 {
		single = 1
	}
	return uint32(returnMap[n][r]), uint32(returnLevel(n, r)), single
}

func (c *point10v2) decode(d *arith.Decoder, out []byte) {
	p := &c.last
	changed := d.DecodeSymbol(c.mChanged)
	if changed&32 != 0 {
		p.bits = uint8(d.DecodeSymbol(c.mBits.get(p.bits)))
	}
	m, l, single := returnContext(p.bits)
	if changed != 0 {
		if changed&16 != 0 {
			p.intensity = uint16(c.icInt.Decompress(d, int32(c.lastIntensity[m]), min(m, 3)))
			c.lastIntensity[m] = p.intensity
		} else {
			p.intensity = c.lastIntensity[m]
		}
		if changed&8 != 0 {
			p.class = uint8(d.DecodeSymbol(c.mClass.get(p.class)))
		}
		if changed&4 != 0 {
			p.angle += uint8(d.DecodeSymbol(c.mAngle[p.bits>>6&1]))
		}
		if changed&2 != 0 {
			p.user = uint8(d.DecodeSymbol(c.mUser.get(p.user)))
		}
		if changed&1 != 0 {
			p.psid = uint16(c.icPSID.Decompress(d, int32(p.psid), 0))
		}
	}
	diff := c.icDX.Decompress(d, c.medX[m].get(), single)
	p.x += diff
	c.medX[m].add(diff)
	k := c.icDX.K()
	diff = c.icDY.Decompress(d, c.medY[m].get(), single+kContext(k, 20))
	p.y += diff
	c.medY[m].add(diff)
	k = (c.icDX.K() + c.icDY.K()) / 2
	p.z = c.icZ.Decompress(d, c.lastHeight[l], single+kContext(k, 18))
	c.lastHeight[l] = p.z
	p.put(out)
}

// kContext is LASzip's context from a k: k with bit 0 cleared, at most
// limit.
func kContext(k, limit uint32) uint32 {
	if k < limit {
		return k &^ 1
	}
	return limit
}

func (c *point10v2) encode(e *arith.Encoder, item []byte) {
	var q point10
	q.get(item)
	p := &c.last
	m, l, single := returnContext(q.bits)
	changed := p.changedLow(&q)
	if p.bits != q.bits {
		changed |= 32
	}
	if c.lastIntensity[m] != q.intensity {
		changed |= 16
	}
	e.EncodeSymbol(c.mChanged, changed)
	if changed&32 != 0 {
		e.EncodeSymbol(c.mBits.get(p.bits), uint32(q.bits))
	}
	if changed&16 != 0 {
		c.icInt.Compress(e, int32(c.lastIntensity[m]), int32(q.intensity), min(m, 3))
		c.lastIntensity[m] = q.intensity
	}
	if changed&8 != 0 {
		e.EncodeSymbol(c.mClass.get(p.class), uint32(q.class))
	}
	if changed&4 != 0 {
		e.EncodeSymbol(c.mAngle[q.bits>>6&1], uint32(q.angle-p.angle))
	}
	if changed&2 != 0 {
		e.EncodeSymbol(c.mUser.get(p.user), uint32(q.user))
	}
	if changed&1 != 0 {
		c.icPSID.Compress(e, int32(p.psid), int32(q.psid), 0)
	}
	diff := q.x - p.x
	c.icDX.Compress(e, c.medX[m].get(), diff, single)
	c.medX[m].add(diff)
	k := c.icDX.K()
	diff = q.y - p.y
	c.icDY.Compress(e, c.medY[m].get(), diff, single+kContext(k, 20))
	c.medY[m].add(diff)
	k = (c.icDX.K() + c.icDY.K()) / 2
	c.icZ.Compress(e, c.lastHeight[l], q.z, single+kContext(k, 18))
	c.lastHeight[l] = q.z
	*p = q
}
