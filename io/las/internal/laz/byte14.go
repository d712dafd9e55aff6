package laz

import "github.com/pctk/pctk/io/las/internal/arith"

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

	dec     []arith.Decoder
	decodes []bool
	enc     []arith.Encoder
	changed []bool
}

func newByte14Codec(version uint16, n int) *byte14Codec {
	return &byte14Codec{version: version, n: n}
}

func (c *byte14Codec) size() int   { return c.n }
func (c *byte14Codec) layers() int { return c.n }

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

func (c *byte14Codec) initDecoder(first []byte, ctx uint32, layers [][]byte) error {
	if c.dec == nil {
		c.dec = make([]arith.Decoder, c.n)
		c.decodes = make([]bool, c.n)
	}
	for i, l := range layers {
		c.decodes[i] = len(l) > 0
		if c.decodes[i] {
			if err := c.dec[i].Init(l); err != nil {
				return layerError("BYTE14", i, err)
			}
		}
	}
	c.begin(first, ctx)
	return nil
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

func (c *byte14Codec) err() error {
	for i := range c.dec {
		if c.decodes[i] {
			if err := c.dec[i].Err(); err != nil {
				return layerError("BYTE14", i, err)
			}
		}
	}
	return nil
}

func (c *byte14Codec) initEncoder(first []byte, ctx uint32) {
	if c.enc == nil {
		c.enc = make([]arith.Encoder, c.n)
		c.changed = make([]bool, c.n)
	}
	for i := range c.enc {
		c.enc[i].Reset()
		c.changed[i] = false
	}
	c.begin(first, ctx)
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

func (c *byte14Codec) finish(layers [][]byte) [][]byte {
	for i := range c.n {
		var b []byte
		if c.changed[i] {
			b = c.enc[i].Finish()
		}
		layers = append(layers, b)
	}
	return layers
}
