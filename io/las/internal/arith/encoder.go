package arith

// Encoder encodes one arithmetic-coded stream into a buffer it owns
// (LASzip's ArithmeticEncoder). Its zero value is ready for use and equals
// a fresh Reset.
type Encoder struct {
	out    []byte
	base   uint32
	length uint32
	began  bool
}

// Reset starts a new stream; the buffer of the last one is reused.
func (e *Encoder) Reset() {
	e.out = e.out[:0]
	e.base = 0
	e.length = maxLength
	e.began = true
}

func (e *Encoder) begin() {
	if !e.began {
		e.Reset()
	}
}

// carry adds one to the bytes already written, as an overflow of base asks.
func (e *Encoder) carry() {
	for i := len(e.out) - 1; i >= 0; i-- {
		if e.out[i] != 0xFF {
			e.out[i]++
			return
		}
		e.out[i] = 0
	}
}

// renorm writes out the top byte of base until the interval is at least
// minLength long.
func (e *Encoder) renorm() {
	for {
		e.out = append(e.out, byte(e.base>>24))
		e.base <<= 8
		e.length <<= 8
		if e.length >= minLength {
			return
		}
	}
}

// EncodeBit encodes bit (0 or 1) with model m.
func (e *Encoder) EncodeBit(m *BitModel, bit uint32) {
	e.begin()
	x := m.prob0 * (e.length >> bmLengthShift)
	if bit == 0 {
		e.length = x
		m.count0++
	} else {
		b := e.base
		e.base += x
		e.length -= x
		if b > e.base {
			e.carry()
		}
	}
	if e.length < minLength {
		e.renorm()
	}
	m.untilUpdate--
	if m.untilUpdate == 0 {
		m.update()
	}
}

// EncodeSymbol encodes sym, which must be below the model's alphabet size,
// with model m.
func (e *Encoder) EncodeSymbol(m *SymbolModel, sym uint32) {
	e.begin()
	if !m.ready {
		m.reset(false)
	}
	b := e.base
	if sym == m.lastSymbol {
		x := m.dist[sym] * (e.length >> dmLengthShift)
		e.base += x
		e.length -= x
	} else {
		e.length >>= dmLengthShift
		x := m.dist[sym] * e.length
		e.base += x
		e.length = m.dist[sym+1]*e.length - x
	}
	if b > e.base {
		e.carry()
	}
	if e.length < minLength {
		e.renorm()
	}
	m.count[sym]++
	m.untilUpdate--
	if m.untilUpdate == 0 {
		m.update()
	}
}

// WriteBits encodes the low n bits of v raw, 1 <= n <= 32.
func (e *Encoder) WriteBits(n uint32, v uint32) {
	if n > 19 {
		e.WriteShort(uint16(v))
		v >>= 16
		n -= 16
	}
	e.begin()
	b := e.base
	e.length >>= n
	e.base += v * e.length
	if b > e.base {
		e.carry()
	}
	if e.length < minLength {
		e.renorm()
	}
}

// WriteShort encodes 16 raw bits.
func (e *Encoder) WriteShort(v uint16) {
	e.begin()
	b := e.base
	e.length >>= 16
	e.base += uint32(v) * e.length
	if b > e.base {
		e.carry()
	}
	if e.length < minLength {
		e.renorm()
	}
}

// WriteInt encodes 32 raw bits, low half first.
func (e *Encoder) WriteInt(v uint32) {
	e.WriteShort(uint16(v))
	e.WriteShort(uint16(v >> 16))
}

// WriteInt64 encodes 64 raw bits, low half first.
func (e *Encoder) WriteInt64(v uint64) {
	e.WriteInt(uint32(v))
	e.WriteInt(uint32(v >> 32))
}

// Finish ends the stream as LASzip's done() does (the final bytes, then two
// or three zero bytes so that a decoder's look-ahead stays inside the
// stream) and returns its bytes, valid until the next Reset. The encoder
// must be Reset before it codes another stream.
func (e *Encoder) Finish() []byte {
	e.begin()
	b := e.base
	another := true
	if e.length > 2*minLength {
		e.base += minLength
		e.length = minLength >> 1
	} else {
		e.base += minLength >> 1
		e.length = minLength >> 9
		another = false
	}
	if b > e.base {
		e.carry()
	}
	e.renorm()
	e.out = append(e.out, 0, 0)
	if another {
		e.out = append(e.out, 0)
	}
	e.began = false
	return e.out
}
