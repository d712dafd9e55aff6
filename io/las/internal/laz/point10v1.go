package laz

import "github.com/pctk/pctk/io/las/internal/arith"

// point10v1 codes POINT10 version 1 (LASzip's
// LASreadItemCompressed_POINT10_v1 and its writer, LASzip 1.0-1.3): X and Y
// as differences predicted by the median of the last three, Z from the last
// Z, then a 6-bit symbol of the other fields that changed.
type point10v1 struct {
	last    point10
	lastDX  [3]int32
	lastDY  [3]int32
	lastInc int

	mChanged *arith.SymbolModel
	mBits    byteModels
	mClass   byteModels
	mUser    byteModels
	icDX     *arith.IntCompressor
	icDY     *arith.IntCompressor
	icZ      *arith.IntCompressor
	icInt    *arith.IntCompressor
	icAngle  *arith.IntCompressor
	icPSID   *arith.IntCompressor
}

func newPoint10v1() *point10v1 {
	return &point10v1{
		mChanged: arith.NewSymbolModel(64),
		icDX:     arith.NewIntCompressor(32, 1, 8, 0),
		icDY:     arith.NewIntCompressor(32, 20, 8, 0),
		icZ:      arith.NewIntCompressor(32, 20, 8, 0),
		icInt:    arith.NewIntCompressor(16, 1, 8, 0),
		icAngle:  arith.NewIntCompressor(8, 2, 8, 0),
		icPSID:   arith.NewIntCompressor(16, 1, 8, 0),
	}
}

func (c *point10v1) init(item []byte) {
	c.lastDX, c.lastDY, c.lastInc = [3]int32{}, [3]int32{}, 0
	c.icDX.Init()
	c.icDY.Init()
	c.icZ.Init()
	c.icInt.Init()
	c.icAngle.Init()
	c.icPSID.Init()
	c.mChanged.Init()
	c.mBits.init()
	c.mClass.init()
	c.mUser.init()
	c.last.get(item)
}

// median3 returns the median of three values as LASzip's v1 codec picks it.
func median3(v *[3]int32) int32 {
	if v[0] < v[1] {
		switch {
		case v[1] < v[2]:
			return v[1]
		case v[0] < v[2]:
			return v[2]
		default:
			return v[0]
		}
	}
	switch {
	case v[0] < v[2]:
		return v[0]
	case v[1] < v[2]:
		return v[2]
	default:
		return v[1]
	}
}

func (c *point10v1) decode(d *arith.Decoder, out []byte) {
	p := &c.last
	dx := c.icDX.Decompress(d, median3(&c.lastDX), 0)
	p.x += dx
	k := c.icDX.K()
	dy := c.icDY.Decompress(d, median3(&c.lastDY), min(k, 19))
	p.y += dy
	k = (k + c.icDY.K()) / 2
	p.z = c.icZ.Decompress(d, p.z, min(k, 19))
	changed := d.DecodeSymbol(c.mChanged)
	if changed != 0 {
		if changed&32 != 0 {
			p.intensity = uint16(c.icInt.Decompress(d, int32(p.intensity), 0))
		}
		if changed&16 != 0 {
			p.bits = uint8(d.DecodeSymbol(c.mBits.get(p.bits)))
		}
		if changed&8 != 0 {
			p.class = uint8(d.DecodeSymbol(c.mClass.get(p.class)))
		}
		if changed&4 != 0 {
			p.angle = uint8(c.icAngle.Decompress(d, int32(p.angle), b2u(k < 3)))
		}
		if changed&2 != 0 {
			p.user = uint8(d.DecodeSymbol(c.mUser.get(p.user)))
		}
		if changed&1 != 0 {
			p.psid = uint16(c.icPSID.Decompress(d, int32(p.psid), 0))
		}
	}
	c.push(dx, dy)
	p.put(out)
}

func (c *point10v1) push(dx, dy int32) {
	c.lastDX[c.lastInc] = dx
	c.lastDY[c.lastInc] = dy
	c.lastInc++
	if c.lastInc > 2 {
		c.lastInc = 0
	}
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func (c *point10v1) encode(e *arith.Encoder, item []byte) {
	var q point10
	q.get(item)
	p := &c.last
	dx := q.x - p.x
	dy := q.y - p.y
	c.icDX.Compress(e, median3(&c.lastDX), dx, 0)
	k := c.icDX.K()
	c.icDY.Compress(e, median3(&c.lastDY), dy, min(k, 19))
	k = (k + c.icDY.K()) / 2
	c.icZ.Compress(e, p.z, q.z, min(k, 19))
	changed := p.changedLow(&q)
	if p.intensity != q.intensity {
		changed |= 32
	}
	if p.bits != q.bits {
		changed |= 16
	}
	e.EncodeSymbol(c.mChanged, changed)
	if changed&32 != 0 {
		c.icInt.Compress(e, int32(p.intensity), int32(q.intensity), 0)
	}
	if changed&16 != 0 {
		e.EncodeSymbol(c.mBits.get(p.bits), uint32(q.bits))
	}
	if changed&8 != 0 {
		e.EncodeSymbol(c.mClass.get(p.class), uint32(q.class))
	}
	if changed&4 != 0 {
		c.icAngle.Compress(e, int32(p.angle), int32(q.angle), b2u(k < 3))
	}
	if changed&2 != 0 {
		e.EncodeSymbol(c.mUser.get(p.user), uint32(q.user))
	}
	if changed&1 != 0 {
		c.icPSID.Compress(e, int32(p.psid), int32(q.psid), 0)
	}
	c.push(dx, dy)
	*p = q
}
