package laz

import "github.com/pctk/pctk/io/las/internal/arith"

// The RGB14 and RGBNIR14 layered codecs (LASzip compressor versions 3 and
// 4) code colours with RGB12 version 2's scheme (rgb12.go) per scanner
// channel context; RGBNIR14 codes the NIR channel in a second layer, its
// two bytes as differences to the last. Followed: LASzip's
// LASreadItemCompressed_RGB14_v3 / RGBNIR14_v3 (and _v4) and their
// writers, laz-perf's field_rgb14.cpp and field_nir14.cpp, laz-rs's
// src/las/rgb.rs and nir.rs.

// nirModels are the symbol models of one NIR context.
type nirModels struct {
	used *arith.SymbolModel // which of the two bytes changed
	diff [2]*arith.SymbolModel
}

func (m *nirModels) init() {
	if m.used == nil {
		m.used = arith.NewSymbolModel(4)
		m.diff[0] = arith.NewSymbolModel(256)
		m.diff[1] = arith.NewSymbolModel(256)
		return
	}
	m.used.Init()
	m.diff[0].Init()
	m.diff[1].Init()
}

// contextSwitch follows LASzip's context switch of the v3/v4 items other
// than POINT14: from the current context cur to ctx, where unused tells
// whether ctx is yet unused in the chunk. It returns the new current
// context, whose models code the point, and the context whose last item
// predicts it and takes its value. A context's first use starts it (start)
// from cur's last item; after that, version 4 predicts from the context's
// own last item, while version 3 predicts from cur's at the switching
// point (a quirk of LASzip 3 that its writer shares, so v3 streams depend
// on it; laz-rs's rgb.rs documents it too).
func contextSwitch(version uint16, cur, ctx uint32, unused bool, start func(ctx, from uint32)) (uint32, uint32) {
	switch {
	case cur == ctx:
		return cur, cur
	case unused:
		start(ctx, cur)
		return ctx, ctx
	case version >= 4:
		return ctx, ctx
	}
	return ctx, cur
}

// rgb14Context is the state of one scanner channel: an RGB12 v2 coder,
// whose last colour is the context's, and the NIR channel's.
type rgb14Context struct {
	unused  bool
	rgb     *rgb12v2
	nirLast uint16
	nir     nirModels
}

func (x *rgb14Context) start(item []byte) {
	if x.rgb == nil {
		x.rgb = newRGB12v2()
	}
	x.rgb.init(item)
	if len(item) >= 8 {
		x.nir.init()
		x.nirLast = le.Uint16(item[6:])
	}
	x.unused = false
}

// put writes the context's last item to b (6 or 8 bytes).
func (x *rgb14Context) put(b []byte) {
	x.rgb.last.put(b)
	if len(b) >= 8 {
		le.PutUint16(b[6:], x.nirLast)
	}
}

// rgb14Codec codes an RGB14 (nir false) or RGBNIR14 item in one direction.
type rgb14Codec struct {
	version     uint16
	nir         bool
	contexts    [4]rgb14Context
	cur         uint32 // the current context
	layerCoders        // RGB, and NIR for RGBNIR14
}

func (c *rgb14Codec) size() int {
	if c.nir {
		return 8
	}
	return 6
}

func (c *rgb14Codec) startContext(ctx, from uint32) {
	b := make([]byte, c.size())
	c.contexts[from].put(b)
	c.contexts[ctx].start(b)
}

func (c *rgb14Codec) begin(first []byte, ctx uint32) {
	for i := range c.contexts {
		c.contexts[i].unused = true
	}
	c.cur = ctx
	c.contexts[ctx].start(first[:c.size()])
}

// switchTo switches to context ctx and returns the context whose last item
// predicts the point (see contextSwitch).
func (c *rgb14Codec) switchTo(ctx uint32) *rgb14Context {
	var from uint32
	c.cur, from = contextSwitch(c.version, c.cur, ctx, c.contexts[ctx].unused, c.startContext)
	return &c.contexts[from]
}

func (c *rgb14Codec) decode(b []byte, ctx uint32) {
	last := c.switchTo(ctx)
	x := &c.contexts[c.cur]
	if c.decodes[0] {
		d := &c.dec[0]
		last.rgb.last = decodeRGBv2(d, d.DecodeSymbol(x.rgb.mUsed), &last.rgb.last, &x.rgb.mDiff)
	}
	if c.nir && c.decodes[1] {
		d := &c.dec[1]
		sym := d.DecodeSymbol(x.nir.used)
		v := last.nirLast
		if sym&1 != 0 {
			v = v&0xFF00 | uint16(uint8(d.DecodeSymbol(x.nir.diff[0])+uint32(v)))
		}
		if sym&2 != 0 {
			v = v&0xFF | uint16(uint8(d.DecodeSymbol(x.nir.diff[1])+uint32(v>>8)))<<8
		}
		last.nirLast = v
	}
	last.put(b[:c.size()])
}

func (c *rgb14Codec) encode(b []byte, ctx uint32) {
	last := c.switchTo(ctx)
	x := &c.contexts[c.cur]
	var q rgb
	q.get(b)
	sym := rgbSymbol(&q, &last.rgb.last)
	c.enc[0].EncodeSymbol(x.rgb.mUsed, sym)
	encodeRGBv2(&c.enc[0], sym, &q, &last.rgb.last, &x.rgb.mDiff)
	last.rgb.last = q
	if sym != 0 {
		c.changed[0] = true
	}
	if !c.nir {
		return
	}
	e := &c.enc[1]
	v, l := le.Uint16(b[6:]), last.nirLast
	lo, hi := v&0xFF != l&0xFF, v>>8 != l>>8
	e.EncodeSymbol(x.nir.used, b2u(lo)|b2u(hi)<<1)
	if lo {
		e.EncodeSymbol(x.nir.diff[0], uint32(uint8(v-l)))
	}
	if hi {
		e.EncodeSymbol(x.nir.diff[1], uint32(uint8(v>>8-l>>8)))
	}
	if lo || hi {
		c.changed[1] = true
	}
	last.nirLast = v
}
