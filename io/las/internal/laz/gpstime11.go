package laz

import (
	"math"

	"github.com/pctk/pctk/io/las/internal/arith"
)

// GPS times are coded as the 64-bit integers of their IEEE bits: the
// difference to the last one, when it fits in 32 bits, predicted as a
// multiple of the last difference (LASzip's GPSTIME11 codecs).

// Symbols of the version 2 multiplier model (LASZIP_GPSTIME_MULTI...).
const (
	gpsMulti          = 500
	gpsMultiMinus     = -10
	gpsMultiUnchanged = gpsMulti - gpsMultiMinus + 1
	gpsMultiCodeFull  = gpsMulti - gpsMultiMinus + 2
	gpsMultiTotal     = gpsMulti - gpsMultiMinus + 6
)

// gpstime11v2 codes GPSTIME11 version 2 (LASzip's
// LASreadItemCompressed_GPSTIME11_v2 and its writer): four sequences of
// times, each with its last time and difference, so that interleaved
// flight lines keep their own prediction.
type gpstime11v2 struct {
	last, next int
	lastTime   [4]int64
	lastDiff   [4]int32
	extreme    [4]int32

	mMulti *arith.SymbolModel
	m0Diff *arith.SymbolModel
	ic     *arith.IntCompressor
}

func newGPSTime11v2() *gpstime11v2 {
	return &gpstime11v2{
		mMulti: arith.NewSymbolModel(gpsMultiTotal),
		m0Diff: arith.NewSymbolModel(6),
		ic:     arith.NewIntCompressor(32, 9, 8, 0),
	}
}

func (c *gpstime11v2) init(item []byte) {
	c.last, c.next = 0, 0
	c.lastDiff = [4]int32{}
	c.extreme = [4]int32{}
	c.mMulti.Init()
	c.m0Diff.Init()
	c.ic.Init()
	c.lastTime = [4]int64{int64(le.Uint64(item))}
}

// full decodes a time whose difference does not fit in 32 bits: its high
// half predicted from the current sequence's, its low half raw; it starts
// the next sequence.
func (c *gpstime11v2) full(d *arith.Decoder) {
	c.next = (c.next + 1) & 3
	hi := uint32(c.ic.Decompress(d, int32(uint64(c.lastTime[c.last])>>32), 8))
	c.lastTime[c.next] = int64(uint64(hi)<<32 | uint64(d.ReadInt()))
	c.last = c.next
	c.lastDiff[c.last] = 0
	c.extreme[c.last] = 0
}

// keepExtreme adopts diff as the sequence's difference after more than
// three extreme multipliers in a row.
func (c *gpstime11v2) keepExtreme(diff int32) {
	c.extreme[c.last]++
	if c.extreme[c.last] > 3 {
		c.lastDiff[c.last] = diff
		c.extreme[c.last] = 0
	}
}

func (c *gpstime11v2) decode(d *arith.Decoder, out []byte) {
	c.decodeTime(d, true)
	le.PutUint64(out, uint64(c.lastTime[c.last]))
}

// quantize is LASzip's I32_QUANTIZE of a float32 ratio (rounding half away
// from zero in double precision), clamped so that overflow is defined.
func quantize(f float32) int32 {
	q := float64(f)
	if q >= 0 {
		q += 0.5
	} else {
		q -= 0.5
	}
	return int32(max(min(q, math.MaxInt32), math.MinInt32))
}

// fits32 returns d as int32 and whether it fits.
func fits32(d int64) (int32, bool) { return int32(d), d == int64(int32(d)) }

func (c *gpstime11v2) encode(e *arith.Encoder, item []byte) {
	c.encodeTime(e, int64(le.Uint64(item)), true)
}

// otherSequence returns the step i in 1..3 to the first other sequence
// whose last time is within 32 bits of t, or 0.
func (c *gpstime11v2) otherSequence(t int64) int {
	for i := 1; i < 4; i++ {
		if _, ok := fits32(t - c.lastTime[(c.last+i)&3]); ok {
			return i
		}
	}
	return 0
}

func (c *gpstime11v2) encodeFull(e *arith.Encoder, t int64) {
	c.ic.Compress(e, int32(uint64(c.lastTime[c.last])>>32), int32(uint64(t)>>32), 8)
	e.WriteInt(uint32(t))
	c.next = (c.next + 1) & 3
	c.last = c.next
	c.lastDiff[c.last] = 0
	c.extreme[c.last] = 0
	c.lastTime[c.last] = t
}

// Version 1 constants (LASZIP_GPSTIME_MULTIMAX).
const gpsMultiMax = 512

// gpstime11v1 codes GPSTIME11 version 1 (LASzip's
// LASreadItemCompressed_GPSTIME11_v1 and its writer): one sequence.
type gpstime11v1 struct {
	lastTime int64
	lastDiff int32
	extreme  int32

	mMulti *arith.SymbolModel
	m0Diff *arith.SymbolModel
	ic     *arith.IntCompressor
}

func newGPSTime11v1() *gpstime11v1 {
	return &gpstime11v1{
		mMulti: arith.NewSymbolModel(gpsMultiMax),
		m0Diff: arith.NewSymbolModel(3),
		ic:     arith.NewIntCompressor(32, 6, 8, 0),
	}
}

func (c *gpstime11v1) init(item []byte) {
	c.lastDiff, c.extreme = 0, 0
	c.mMulti.Init()
	c.m0Diff.Init()
	c.ic.Init()
	c.lastTime = int64(le.Uint64(item))
}

func (c *gpstime11v1) keepExtreme(diff int32) {
	c.extreme++
	if c.extreme > 3 {
		c.lastDiff = diff
		c.extreme = 0
	}
}

func (c *gpstime11v1) decode(d *arith.Decoder, out []byte) {
	if c.lastDiff == 0 {
		switch d.DecodeSymbol(c.m0Diff) {
		case 1:
			c.lastDiff = c.ic.Decompress(d, 0, 0)
			c.lastTime += int64(c.lastDiff)
		case 2:
			c.lastTime = int64(d.ReadInt64())
		}
	} else {
		multi := int32(d.DecodeSymbol(c.mMulti))
		switch {
		case multi < gpsMultiMax-2:
			pred, ctx := c.predict(multi)
			diff := c.ic.Decompress(d, pred, ctx)
			c.adopt(multi, diff)
			c.lastTime += int64(diff)
		case multi < gpsMultiMax-1:
			c.lastTime = int64(d.ReadInt64())
		}
	}
	le.PutUint64(out, uint64(c.lastTime))
}

func (c *gpstime11v1) encode(e *arith.Encoder, item []byte) {
	t := int64(le.Uint64(item))
	if c.lastDiff == 0 {
		if t == c.lastTime {
			e.EncodeSymbol(c.m0Diff, 0)
			return
		}
		if diff, ok := fits32(t - c.lastTime); ok {
			e.EncodeSymbol(c.m0Diff, 1)
			c.ic.Compress(e, 0, diff, 0)
			c.lastDiff = diff
		} else {
			e.EncodeSymbol(c.m0Diff, 2)
			e.WriteInt64(uint64(t))
		}
		c.lastTime = t
		return
	}
	if t == c.lastTime {
		e.EncodeSymbol(c.mMulti, gpsMultiMax-1)
		return
	}
	diff, ok := fits32(t - c.lastTime)
	if !ok {
		e.EncodeSymbol(c.mMulti, gpsMultiMax-2)
		e.WriteInt64(uint64(t))
		c.lastTime = t
		return
	}
	// LASzip's (I32)(ratio + 0.5f), truncating, then clamped to [0, 509].
	f := float32(diff)/float32(c.lastDiff) + 0.5
	var multi int32
	switch {
	case f >= gpsMultiMax-3:
		multi = gpsMultiMax - 3
	case f >= 1:
		multi = int32(f)
	}
	e.EncodeSymbol(c.mMulti, uint32(multi))
	pred, ctx := c.predict(multi)
	c.ic.Compress(e, pred, diff, ctx)
	c.adopt(multi, diff)
	c.lastTime = t
}

// predict returns the prediction and the IntCompressor context of a
// difference coded with multiplier symbol multi (below gpsMultiMax-2).
func (c *gpstime11v1) predict(multi int32) (int32, uint32) {
	switch {
	case multi == 1:
		return c.lastDiff, 1
	case multi == 0:
		return c.lastDiff / 4, 2
	case multi < 10:
		return multi * c.lastDiff, 3
	case multi < 50:
		return multi * c.lastDiff, 4
	}
	return multi * c.lastDiff, 5
}

// adopt updates the last difference after diff was coded with multiplier
// symbol multi: taken at once for multi 1, after repeated extremes for 0
// and the largest.
func (c *gpstime11v1) adopt(multi, diff int32) {
	switch multi {
	case 1:
		c.lastDiff = diff
		c.extreme = 0
	case 0, gpsMultiMax - 3:
		c.keepExtreme(diff)
	}
}
