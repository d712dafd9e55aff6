package laz

import "github.com/pctk/pctk/io/las/internal/arith"

// The POINT14 layered codec (LASzip compressor versions 3 and 4) codes the
// 30 bytes of a LAS 1.4 point (formats 6 to 10) in nine layers, each its
// own arithmetic-coded stream: channel, returns and XY; Z; classification;
// flags; intensity; scan angle; user data; point source ID; GPS time. Each
// of the four scanner channels keeps its own models and its own last point
// (a "context"), created from the previous channel's last point when the
// channel first appears in a chunk. Followed: LASzip's
// lasreaditemcompressed_v3.cpp and laswriteitemcompressed_v3.cpp (and their
// v4 twins, see itemContext), laz-perf's field_point14.cpp and laz-rs's
// src/las/point6.rs; docs/laz.md cites them.

// Layers of POINT14, in their order in a chunk.
const (
	p14ReturnsXY = iota
	p14Z
	p14Class
	p14Flags
	p14Intensity
	p14ScanAngle
	p14UserData
	p14PointSource
	p14GPSTime
	p14Layers
)

// point14Size is the byte length of a POINT14 item.
const point14Size = 30

// gps14Total is the alphabet of POINT14's GPS time multiplier model: one
// less than version 2's (gpstime11.go), without its "unchanged" symbol.
const gps14Total = gpsMultiTotal - 1

// returnMap6 maps (number of returns, return number) to the context of
// the XY predictions (LASzip's number_return_map_6ctx in
// laszip_common_v3.hpp).
var returnMap6 = [16][16]uint8{
	{0, 1, 2, 3, 4, 5, 3, 4, 4, 5, 5, 5, 5, 5, 5, 5},
	{1, 0, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3},
	{2, 1, 2, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3},
	{3, 3, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
	{4, 3, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
	{5, 3, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
	{3, 3, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4},
	{4, 3, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4},
	{4, 3, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4},
	{5, 3, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4},
	{5, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4},
	{5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 4, 4, 4},
	{5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4, 4},
	{5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4},
	{5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5},
	{5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5},
}

// returnLevel8 is LASzip's number_return_level_8ctx[n][r]: |n - r|
// capped at 7.
func returnLevel8(n, r uint32) uint32 {
	return uint32(min(returnLevel(uint8(n), uint8(r)), 7))
}

// point14 holds the fields of a POINT14 item that the codec predicts.
type point14 struct {
	x, y, z     int32
	intensity   uint16
	ret, nret   uint32 // return number and number of returns, 4 bits each
	flags       uint32 // edge<<5 | scan direction<<4 | classification flags
	channel     uint32 // scanner channel, 2 bits
	class       uint32
	userData    uint32
	scanAngle   int16
	pointSource uint16
	gps         uint64 // the float64's bits
	gpsChanged  bool   // whether the GPS time changed at this point
}

func (p *point14) unpack(b []byte) {
	_ = b[29]
	p.x = int32(le.Uint32(b[0:]))
	p.y = int32(le.Uint32(b[4:]))
	p.z = int32(le.Uint32(b[8:]))
	p.intensity = le.Uint16(b[12:])
	p.ret = uint32(b[14] & 0x0F)
	p.nret = uint32(b[14] >> 4)
	p.flags = uint32(b[15]&0x0F) | uint32(b[15]>>2)&0x30
	p.channel = uint32(b[15]>>4) & 3
	p.class = uint32(b[16])
	p.userData = uint32(b[17])
	p.scanAngle = int16(le.Uint16(b[18:]))
	p.pointSource = le.Uint16(b[20:])
	p.gps = le.Uint64(b[22:])
}

func (p *point14) pack(b []byte) {
	_ = b[29]
	le.PutUint32(b[0:], uint32(p.x))
	le.PutUint32(b[4:], uint32(p.y))
	le.PutUint32(b[8:], uint32(p.z))
	le.PutUint16(b[12:], p.intensity)
	b[14] = byte(p.ret | p.nret<<4)
	b[15] = byte(p.flags&0x0F | (p.flags&0x30)<<2 | p.channel<<4)
	b[16] = byte(p.class)
	b[17] = byte(p.userData)
	le.PutUint16(b[18:], uint16(p.scanAngle))
	le.PutUint16(b[20:], p.pointSource)
	le.PutUint64(b[22:], p.gps)
}

// returnContext is the context of the changed flags that follow the
// point p: 1 for a first return, plus 2 for a last one, plus 4 when its
// GPS time changed (LASzip's lpr).
func (p *point14) returnContext() uint32 {
	c := b2u(p.ret == 1) | b2u(p.ret >= p.nret)<<1
	if p.gpsChanged {
		c += 4
	}
	return c
}

// fieldContexts returns the contexts that a point's number of returns n,
// return number r and GPS time change pick: idx for the X and Y medians
// (the return map, times 2, plus the GPS bit), l for the last Z (the
// return level), cpr for intensity and class (2 for a first return, plus
// 1 for a last one), the GPS bit, and single for a pulse of one return.
func fieldContexts(n, r uint32, gpsChange bool) (idx, l, cpr, gpsBit, single uint32) {
	gpsBit = b2u(gpsChange)
	cpr = b2u(r == 1)<<1 | b2u(r >= n)
	return uint32(returnMap6[n][r])<<1 | gpsBit, returnLevel8(n, r), cpr, gpsBit, b2u(n == 1)
}

// point14Context is the state of one scanner channel.
type point14Context struct {
	unused bool
	last   point14

	lastIntensity [8]uint16
	lastXDiff     [12]median5
	lastYDiff     [12]median5
	lastZ         [8]int32

	mChanged    [8]*arith.SymbolModel
	mChannel    *arith.SymbolModel
	mNRet       [16]*arith.SymbolModel
	mRet        [16]*arith.SymbolModel
	mRetGPSSame *arith.SymbolModel
	icDX, icDY  *arith.IntCompressor
	icZ         *arith.IntCompressor
	mClass      [64]*arith.SymbolModel
	mFlags      [64]*arith.SymbolModel
	mUserData   [64]*arith.SymbolModel
	icIntensity *arith.IntCompressor
	icScanAngle *arith.IntCompressor
	icSource    *arith.IntCompressor
	gps         *gpstime11v2 // the GPS time sequences, v3 symbols
}

// init starts the context from the point p at its first use in a chunk:
// its models are created the first time and reset every later time.
func (c *point14Context) init(p *point14) {
	if c.mChannel == nil {
		for i := range c.mChanged {
			c.mChanged[i] = arith.NewSymbolModel(128)
		}
		c.mChannel = arith.NewSymbolModel(3)
		c.mRetGPSSame = arith.NewSymbolModel(13)
		c.icDX = arith.NewIntCompressor(32, 2, 8, 0)
		c.icDY = arith.NewIntCompressor(32, 22, 8, 0)
		c.icZ = arith.NewIntCompressor(32, 20, 8, 0)
		c.icIntensity = arith.NewIntCompressor(16, 4, 8, 0)
		c.icScanAngle = arith.NewIntCompressor(16, 2, 8, 0)
		c.icSource = arith.NewIntCompressor(16, 1, 8, 0)
		c.gps = &gpstime11v2{
			mMulti: arith.NewSymbolModel(gps14Total),
			m0Diff: arith.NewSymbolModel(5),
			ic:     arith.NewIntCompressor(32, 9, 8, 0),
		}
	} else {
		for _, m := range c.mChanged {
			m.Init()
		}
		c.mChannel.Init()
		c.mRetGPSSame.Init()
		for _, ic := range [...]*arith.IntCompressor{c.icDX, c.icDY, c.icZ, c.icIntensity, c.icScanAngle, c.icSource} {
			ic.Init()
		}
	}
	for _, ms := range [...][]*arith.SymbolModel{c.mNRet[:], c.mRet[:], c.mClass[:], c.mFlags[:], c.mUserData[:]} {
		for _, m := range ms {
			if m != nil {
				m.Init()
			}
		}
	}
	for i := range c.lastXDiff {
		c.lastXDiff[i].init()
		c.lastYDiff[i].init()
	}
	for i := range c.lastZ {
		c.lastZ[i] = p.z
		c.lastIntensity[i] = p.intensity
	}
	var t [8]byte
	le.PutUint64(t[:], p.gps)
	c.gps.init(t[:])
	c.last = *p
	c.last.gpsChanged = false
	c.unused = false
}

// lazyModel returns (*m), creating it with n symbols on first use.
func lazyModel(m **arith.SymbolModel, n uint32) *arith.SymbolModel {
	if *m == nil {
		*m = arith.NewSymbolModel(n)
	}
	return *m
}

// point14Codec codes the POINT14 item of a layered chunk in one direction.
type point14Codec struct {
	version  uint16
	contexts [4]point14Context
	cur      uint32 // the current context: the last point's scanner channel

	layerCoders
	corrupt bool // decoding met GPS time sequence switches no encoder writes
}

// start begins a chunk at its first point p and returns the context the
// other items start in.
func (c *point14Codec) start(p *point14) uint32 {
	for i := range c.contexts {
		c.contexts[i].unused = true
	}
	c.cur = p.channel
	c.contexts[c.cur].init(p)
	return c.cur
}

// itemContext returns the context LASzip hands the other items of a point:
// version 3 hands the scanner channel only at points where it changes and
// 0 elsewhere (LASreadPoint::read resets it per point and the v3 POINT14
// reader sets it only on a change), version 4 always hands the channel.
func (c *point14Codec) itemContext(switched bool) uint32 {
	if switched || c.version >= 4 {
		return c.cur
	}
	return 0
}

// initDecoder starts decoding a chunk whose first point is first; layers
// holds the bytes of each layer, nil for those not wanted. It returns the
// other items' starting context.
func (c *point14Codec) initDecoder(first []byte, layers [][]byte) (uint32, error) {
	c.corrupt = false
	if err := c.initDecoders(layers); err != nil {
		return 0, err
	}
	var p point14
	p.unpack(first)
	return c.start(&p), nil
}

// err reports the first failing layer's error.
func (c *point14Codec) err() error {
	if err := c.layerCoders.err(); err != nil {
		return err
	}
	if c.corrupt {
		return layerError("POINT14", p14GPSTime, arith.ErrCorrupt)
	}
	return nil
}

// decode decodes the next point into b and returns the other items'
// context.
func (c *point14Codec) decode(b []byte) uint32 {
	ctx := &c.contexts[c.cur]
	last := &ctx.last
	d := &c.dec[p14ReturnsXY]

	lpr := last.returnContext()
	changed := d.DecodeSymbol(ctx.mChanged[lpr])

	switched := changed&(1<<6) != 0
	if switched {
		diff := d.DecodeSymbol(ctx.mChannel)
		ch := (c.cur + diff + 1) % 4
		if c.contexts[ch].unused {
			c.contexts[ch].init(last)
		}
		c.cur = ch
		ctx = &c.contexts[ch]
		last = &ctx.last
		last.channel = ch
	}
	sourceChange := changed&(1<<5) != 0
	gpsChange := changed&(1<<4) != 0
	angleChange := changed&(1<<3) != 0

	lastN, lastR := last.nret, last.ret
	n := lastN
	if changed&(1<<2) != 0 {
		n = d.DecodeSymbol(lazyModel(&ctx.mNRet[lastN], 16))
		last.nret = n
	}
	r := lastR
	switch changed & 3 {
	case 1:
		r = (lastR + 1) % 16
	case 2:
		r = (lastR + 15) % 16
	case 3:
		if gpsChange {
			r = d.DecodeSymbol(lazyModel(&ctx.mRet[lastR], 16))
		} else {
			r = (lastR + d.DecodeSymbol(ctx.mRetGPSSame) + 2) % 16
		}
	}
	last.ret = r

	idx, l, cpr, gpsBit, single := fieldContexts(n, r, gpsChange)
	diff := ctx.icDX.Decompress(d, ctx.lastXDiff[idx].get(), single)
	last.x += diff
	ctx.lastXDiff[idx].add(diff)
	kBits := ctx.icDX.K()
	diff = ctx.icDY.Decompress(d, ctx.lastYDiff[idx].get(), single+min(kBits&^1, 20))
	last.y += diff
	ctx.lastYDiff[idx].add(diff)

	if c.decodes[p14Z] {
		kBits = (ctx.icDX.K() + ctx.icDY.K()) / 2
		last.z = ctx.icZ.Decompress(&c.dec[p14Z], ctx.lastZ[l], single+min(kBits&^1, 18))
		ctx.lastZ[l] = last.z
	}
	if c.decodes[p14Class] {
		ccc := (last.class&0x1F)<<1 + b2u(cpr == 3)
		last.class = c.dec[p14Class].DecodeSymbol(lazyModel(&ctx.mClass[ccc], 256))
	}
	if c.decodes[p14Flags] {
		last.flags = c.dec[p14Flags].DecodeSymbol(lazyModel(&ctx.mFlags[last.flags], 64))
	}
	if c.decodes[p14Intensity] {
		i := cpr<<1 | gpsBit
		v := uint16(ctx.icIntensity.Decompress(&c.dec[p14Intensity], int32(ctx.lastIntensity[i]), cpr))
		ctx.lastIntensity[i] = v
		last.intensity = v
	}
	if c.decodes[p14ScanAngle] && angleChange {
		last.scanAngle = int16(ctx.icScanAngle.Decompress(&c.dec[p14ScanAngle], int32(last.scanAngle), gpsBit))
	}
	if c.decodes[p14UserData] {
		last.userData = c.dec[p14UserData].DecodeSymbol(lazyModel(&ctx.mUserData[last.userData/4], 256))
	}
	if c.decodes[p14PointSource] && sourceChange {
		last.pointSource = uint16(ctx.icSource.Decompress(&c.dec[p14PointSource], int32(last.pointSource), 0))
	}
	if c.decodes[p14GPSTime] && gpsChange {
		if !ctx.gps.decodeTime(&c.dec[p14GPSTime], false) {
			c.corrupt = true
		}
		last.gps = uint64(ctx.gps.lastTime[ctx.gps.last])
	}
	last.pack(b)
	last.gpsChanged = gpsChange
	return c.itemContext(switched)
}

// decodeTime decodes the next GPS time into g.lastTime[g.last], with the
// symbols of GPSTIME11 version 2 (unchanged true: LASzip's
// LASreadItemCompressed_GPSTIME11_v2::read) or of POINT14's GPS time
// layer (unchanged false: read_gps_time of lasreaditemcompressed_v3.cpp),
// which has no "unchanged" symbols since the changed flags say when a time
// is coded; its other symbols are version 2's less one. It reports false
// after more switches of sequence than any encoder writes.
func (g *gpstime11v2) decodeTime(d *arith.Decoder, unchanged bool) bool {
	off := b2u(unchanged)
	for range 4 {
		l := g.last
		if g.lastDiff[l] == 0 {
			switch sym := d.DecodeSymbol(g.m0Diff); {
			case unchanged && sym == 0:
			case sym == off:
				g.lastDiff[l] = g.ic.Decompress(d, 0, 0)
				g.lastTime[l] += int64(g.lastDiff[l])
				g.extreme[l] = 0
			case sym == off+1:
				g.full(d)
			default:
				g.last = (l + int(sym-off) - 1) & 3
				continue
			}
			return true
		}
		switch sym := int32(d.DecodeSymbol(g.mMulti)); {
		case sym < gpsMultiUnchanged:
			g.lastTime[l] += int64(g.decodeMulti(d, sym))
		case unchanged && sym == gpsMultiUnchanged:
		case sym == gpsMultiUnchanged+int32(off):
			g.full(d)
		default:
			g.last = (l + int(sym-int32(off)) - gpsMultiUnchanged) & 3
			continue
		}
		return true
	}
	return false
}

// decodeMulti decodes a time difference whose multiplier symbol multi
// (below the codes for full times and switches) relates it to the
// sequence's last difference; versions 2 and 3 share these symbols.
func (g *gpstime11v2) decodeMulti(d *arith.Decoder, multi int32) int32 {
	l := g.last
	switch {
	case multi == 1:
		g.extreme[l] = 0
		return g.ic.Decompress(d, g.lastDiff[l], 1)
	case multi == 0:
		diff := g.ic.Decompress(d, 0, 7)
		g.keepExtreme(diff)
		return diff
	case multi < 10:
		return g.ic.Decompress(d, multi*g.lastDiff[l], 2)
	case multi < gpsMulti:
		return g.ic.Decompress(d, multi*g.lastDiff[l], 3)
	case multi == gpsMulti:
		diff := g.ic.Decompress(d, gpsMulti*g.lastDiff[l], 4)
		g.keepExtreme(diff)
		return diff
	}
	if multi = gpsMulti - multi; multi > gpsMultiMinus {
		return g.ic.Decompress(d, multi*g.lastDiff[l], 5)
	}
	diff := g.ic.Decompress(d, gpsMultiMinus*g.lastDiff[l], 6)
	g.keepExtreme(diff)
	return diff
}

// encodeMulti encodes the 32-bit time difference diff as a multiple of
// the sequence's last (nonzero) difference; versions 2 and 3 share it.
func (g *gpstime11v2) encodeMulti(e *arith.Encoder, diff int32) {
	last := g.lastDiff[g.last]
	multi := quantize(float32(diff) / float32(last))
	switch {
	case multi == 1:
		e.EncodeSymbol(g.mMulti, 1)
		g.ic.Compress(e, last, diff, 1)
		g.extreme[g.last] = 0
	case multi > 0 && multi < gpsMulti:
		e.EncodeSymbol(g.mMulti, uint32(multi))
		ctx := uint32(2)
		if multi >= 10 {
			ctx = 3
		}
		g.ic.Compress(e, multi*last, diff, ctx)
	case multi > 0:
		e.EncodeSymbol(g.mMulti, gpsMulti)
		g.ic.Compress(e, gpsMulti*last, diff, 4)
		g.keepExtreme(diff)
	case multi < 0 && multi > gpsMultiMinus:
		e.EncodeSymbol(g.mMulti, uint32(gpsMulti-multi))
		g.ic.Compress(e, multi*last, diff, 5)
	case multi < 0:
		e.EncodeSymbol(g.mMulti, gpsMulti-gpsMultiMinus)
		g.ic.Compress(e, gpsMultiMinus*last, diff, 6)
		g.keepExtreme(diff)
	default:
		e.EncodeSymbol(g.mMulti, 0)
		g.ic.Compress(e, 0, diff, 7)
		g.keepExtreme(diff)
	}
}

// initEncoder starts encoding a chunk whose first point is first and
// returns the other items' starting context.
func (c *point14Codec) initEncoder(first []byte) uint32 {
	c.initEncoders()
	c.changed[p14ReturnsXY] = true
	c.changed[p14Z] = true
	var p point14
	p.unpack(first)
	return c.start(&p)
}

// encode encodes the point b and returns the other items' context.
func (c *point14Codec) encode(b []byte) uint32 {
	var p point14
	p.unpack(b)
	ctx := &c.contexts[c.cur]
	last := &ctx.last
	e := &c.enc[p14ReturnsXY]

	lpr := last.returnContext()
	switched := p.channel != c.cur
	if switched && !c.contexts[p.channel].unused {
		last = &c.contexts[p.channel].last
	}
	sourceChange := p.pointSource != last.pointSource
	gpsChange := p.gps != last.gps
	angleChange := p.scanAngle != last.scanAngle
	lastN, lastR := last.nret, last.ret
	n, r := p.nret, p.ret

	changed := b2u(switched)<<6 | b2u(sourceChange)<<5 | b2u(gpsChange)<<4 |
		b2u(angleChange)<<3 | b2u(n != lastN)<<2
	if r != lastR {
		switch r {
		case (lastR + 1) % 16:
			changed |= 1
		case (lastR + 15) % 16:
			changed |= 2
		default:
			changed |= 3
		}
	}
	e.EncodeSymbol(ctx.mChanged[lpr], changed)

	if switched {
		e.EncodeSymbol(ctx.mChannel, (p.channel-c.cur+3)%4)
		if c.contexts[p.channel].unused {
			c.contexts[p.channel].init(&ctx.last)
			last = &c.contexts[p.channel].last
		}
		c.cur = p.channel
		ctx = &c.contexts[p.channel]
	}
	if changed&(1<<2) != 0 {
		e.EncodeSymbol(lazyModel(&ctx.mNRet[lastN], 16), n)
	}
	if changed&3 == 3 {
		if gpsChange {
			e.EncodeSymbol(lazyModel(&ctx.mRet[lastR], 16), r)
		} else {
			e.EncodeSymbol(ctx.mRetGPSSame, (r-lastR+16-2)%16)
		}
	}

	idx, l, cpr, gpsBit, single := fieldContexts(n, r, gpsChange)
	diff := p.x - last.x
	ctx.icDX.Compress(e, ctx.lastXDiff[idx].get(), diff, single)
	ctx.lastXDiff[idx].add(diff)
	kBits := ctx.icDX.K()
	diff = p.y - last.y
	ctx.icDY.Compress(e, ctx.lastYDiff[idx].get(), diff, single+min(kBits&^1, 20))
	ctx.lastYDiff[idx].add(diff)

	kBits = (ctx.icDX.K() + ctx.icDY.K()) / 2
	ctx.icZ.Compress(&c.enc[p14Z], ctx.lastZ[l], p.z, single+min(kBits&^1, 18))
	ctx.lastZ[l] = p.z

	if p.class != last.class {
		c.changed[p14Class] = true
	}
	ccc := (last.class&0x1F)<<1 + b2u(cpr == 3)
	c.enc[p14Class].EncodeSymbol(lazyModel(&ctx.mClass[ccc], 256), p.class)

	if p.flags != last.flags {
		c.changed[p14Flags] = true
	}
	c.enc[p14Flags].EncodeSymbol(lazyModel(&ctx.mFlags[last.flags], 64), p.flags)

	if p.intensity != last.intensity {
		c.changed[p14Intensity] = true
	}
	i := cpr<<1 | gpsBit
	ctx.icIntensity.Compress(&c.enc[p14Intensity], int32(ctx.lastIntensity[i]), int32(p.intensity), cpr)
	ctx.lastIntensity[i] = p.intensity

	if angleChange {
		c.changed[p14ScanAngle] = true
		ctx.icScanAngle.Compress(&c.enc[p14ScanAngle], int32(last.scanAngle), int32(p.scanAngle), gpsBit)
	}
	if p.userData != last.userData {
		c.changed[p14UserData] = true
	}
	c.enc[p14UserData].EncodeSymbol(lazyModel(&ctx.mUserData[last.userData/4], 256), p.userData)

	if sourceChange {
		c.changed[p14PointSource] = true
		ctx.icSource.Compress(&c.enc[p14PointSource], int32(last.pointSource), int32(p.pointSource), 0)
	}
	if gpsChange {
		c.changed[p14GPSTime] = true
		ctx.gps.encodeTime(&c.enc[p14GPSTime], int64(p.gps), false)
	}
	*last = p
	last.gpsChanged = gpsChange
	return c.itemContext(switched)
}

// encodeTime encodes the GPS time bits t with the symbols of GPSTIME11
// version 2 (unchanged true) or of POINT14's GPS time layer (unchanged
// false), as decodeTime decodes them (LASzip's write_gps_time).
func (g *gpstime11v2) encodeTime(e *arith.Encoder, t int64, unchanged bool) {
	off := b2u(unchanged)
	for range 4 {
		l := g.last
		if unchanged && t == g.lastTime[l] {
			if g.lastDiff[l] == 0 {
				e.EncodeSymbol(g.m0Diff, 0)
			} else {
				e.EncodeSymbol(g.mMulti, gpsMultiUnchanged)
			}
			return
		}
		diff, ok := fits32(t - g.lastTime[l])
		if g.lastDiff[l] == 0 {
			if ok {
				e.EncodeSymbol(g.m0Diff, off)
				g.ic.Compress(e, 0, diff, 0)
				g.lastDiff[l] = diff
				g.extreme[l] = 0
				g.lastTime[l] = t
				return
			}
			if i := g.otherSequence(t); i > 0 {
				e.EncodeSymbol(g.m0Diff, off+1+uint32(i))
				g.last = (l + i) & 3
				continue
			}
			e.EncodeSymbol(g.m0Diff, off+1)
			g.encodeFull(e, t)
			return
		}
		if !ok {
			if i := g.otherSequence(t); i > 0 {
				e.EncodeSymbol(g.mMulti, gpsMultiUnchanged+off+uint32(i))
				g.last = (l + i) & 3
				continue
			}
			e.EncodeSymbol(g.mMulti, gpsMultiUnchanged+off)
			g.encodeFull(e, t)
			return
		}
		g.encodeMulti(e, diff)
		g.lastTime[l] = t
		return
	}
}
