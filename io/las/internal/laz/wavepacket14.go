package laz

// The WAVEPACKET14 layered codec (LASzip compressor versions 3 and 4)
// codes the 29-byte wave packet of point formats 9 and 10 in one layer,
// with WAVEPACKET13's scheme (wavepacket13.go) per scanner channel
// context. Followed: LASzip's LASreadItemCompressed_WAVEPACKET14_v3 / _v4
// and their writers, laz-rs's src/las/wavepacket.rs.

// wavepacketSize is the byte length of a wave packet item.
const wavepacketSize = 29

// wavepacket14Context is the state of one scanner channel: a WAVEPACKET13
// coder, whose last packet is the context's last item.
type wavepacket14Context struct {
	unused bool
	coder  *wavepacket13v1
}

// wavepacket14Codec codes a WAVEPACKET14 item in one direction.
type wavepacket14Codec struct {
	version  uint16
	contexts [4]wavepacket14Context
	cur      uint32
	layerCoders
}

func (c *wavepacket14Codec) size() int { return wavepacketSize }

func (c *wavepacket14Codec) startContext(ctx, from uint32) {
	var b [wavepacketSize]byte
	c.contexts[from].coder.last.put(b[:])
	c.contexts[ctx].start(b[:])
}

func (x *wavepacket14Context) start(item []byte) {
	if x.coder == nil {
		x.coder = newWavePacket13v1()
	}
	x.coder.init(item)
	x.unused = false
}

func (c *wavepacket14Codec) begin(first []byte, ctx uint32) {
	for i := range c.contexts {
		c.contexts[i].unused = true
	}
	c.cur = ctx
	c.contexts[ctx].start(first)
}

// switchTo switches to context ctx and returns the current context's coder
// and the last packet predicting the point (see contextSwitch).
func (c *wavepacket14Codec) switchTo(ctx uint32) (*wavepacket13v1, *wavepacket) {
	var from uint32
	c.cur, from = contextSwitch(c.version, c.cur, ctx, c.contexts[ctx].unused, c.startContext)
	return c.contexts[c.cur].coder, &c.contexts[from].coder.last
}

// withLast runs f on coder predicting from *last instead of its own last
// packet, and stores the new packet in *last: the version 3 quirk of
// contextSwitch.
func withLast(coder *wavepacket13v1, last *wavepacket, f func()) {
	if &coder.last == last {
		f()
		return
	}
	own := coder.last
	coder.last = *last
	f()
	*last = coder.last
	coder.last = own
}

// decode decodes the next wave packet into b. Without its layer, b takes
// the last packet: the chunk's first, as LASzip leaves it.
func (c *wavepacket14Codec) decode(b []byte, ctx uint32) {
	coder, last := c.switchTo(ctx)
	if c.decodes[0] {
		withLast(coder, last, func() { coder.decode(&c.dec[0], b) })
		return
	}
	last.put(b)
}

func (c *wavepacket14Codec) encode(b []byte, ctx uint32) {
	coder, last := c.switchTo(ctx)
	var w wavepacket
	w.get(b)
	if w != *last {
		c.changed[0] = true
	}
	withLast(coder, last, func() { coder.encode(&c.enc[0], b) })
}
