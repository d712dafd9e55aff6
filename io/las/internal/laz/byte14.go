package laz

// The BYTE14 layered codec (LASzip compressor versions 3 and 4) codes n
// extra bytes per point, each byte in its own layer, as the difference to
// the same byte of its scanner channel context's last point. Followed:
// LASzip's LASreadItemCompressed_BYTE14_v3 / _v4 and their writers,
// laz-perf's field_byte14.cpp, laz-rs's src/las/extra_bytes.rs.

// byte14Context is the state of one scanner channel: a BYTE v2 coder's
// last bytes and models, each byte coded in its own layer here.
type byte14Context struct {
	unused bool
	coder  *byteV2
}

func (x *byte14Context) start(item []byte) {
	if x.coder == nil {
		x.coder = newByteV2(len(item))
	}
	x.coder.init(item)
	x.unused = false
}

// byte14Codec codes a BYTE14 item of n bytes in one direction.
type byte14Codec struct {
	version  uint16
	n        int
	contexts [4]byte14Context
	cur      uint32

	layerCoders // one layer per byte
}

func (c *byte14Codec) size() int { return c.n }

func (c *byte14Codec) startContext(ctx, from uint32) {
	c.contexts[ctx].start(c.contexts[from].coder.last)
}

func (c *byte14Codec) begin(first []byte, ctx uint32) {
	for i := range c.contexts {
		c.contexts[i].unused = true
	}
	c.cur = ctx
	c.contexts[ctx].start(first[:c.n])
}

// switchTo switches to context ctx and returns the last item predicting
// the point (see contextSwitch).
func (c *byte14Codec) switchTo(ctx uint32) []byte {
	var from uint32
	c.cur, from = contextSwitch(c.version, c.cur, ctx, c.contexts[ctx].unused, c.startContext)
	return c.contexts[from].coder.last
}

func (c *byte14Codec) decode(b []byte, ctx uint32) {
	last := c.switchTo(ctx)
	models := c.contexts[c.cur].coder.m
	for i := range c.n {
		if c.decodes[i] {
			last[i] += byte(c.dec[i].DecodeSymbol(models[i]))
		}
	}
	copy(b[:c.n], last)
}

func (c *byte14Codec) encode(b []byte, ctx uint32) {
	last := c.switchTo(ctx)
	models := c.contexts[c.cur].coder.m
	for i := range c.n {
		diff := b[i] - last[i]
		c.enc[i].EncodeSymbol(models[i], uint32(diff))
		if diff != 0 {
			c.changed[i] = true
			last[i] = b[i]
		}
	}
}
