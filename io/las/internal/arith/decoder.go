package arith

import (
	"errors"
	"fmt"
)

// ErrShortStream reports that a decoder read past the end of its input: the
// stream is truncated or corrupt.
var ErrShortStream = errors.New("arith: stream ends early")

// ErrCorrupt reports a decoded value that no encoder can have written.
var ErrCorrupt = errors.New("arith: corrupt stream")

// Decoder decodes one arithmetic-coded stream held in memory (LASzip's
// ArithmeticDecoder). Its zero value is ready for Init.
type Decoder struct {
	src    []byte
	pos    int
	value  uint32
	length uint32
	over   int  // bytes read past the end of src
	bad    bool // a decoded value was out of range
}

// Init starts decoding src, the whole stream of this coder, and reads its
// first 4 bytes.
func (d *Decoder) Init(src []byte) error {
	d.src = src
	d.pos = 0
	d.over = 0
	d.bad = false
	d.length = maxLength
	d.value = uint32(d.byte())<<24 | uint32(d.byte())<<16 | uint32(d.byte())<<8 | uint32(d.byte())
	return d.Err()
}

// Err reports ErrShortStream once the decoder has read past the end of its
// input (the reads past the end yield zero bytes) and ErrCorrupt once it has
// decoded an impossible value (then clamped into range).
func (d *Decoder) Err() error {
	if d.bad {
		return fmt.Errorf("%w at byte %d of %d", ErrCorrupt, d.pos, len(d.src))
	}
	if d.over > 0 {
		return fmt.Errorf("%w (%d bytes past the %d of the stream)", ErrShortStream, d.over, len(d.src))
	}
	return nil
}

// Pos returns how many bytes of the stream the decoder has consumed.
func (d *Decoder) Pos() int { return d.pos }

func (d *Decoder) byte() byte {
	if d.pos < len(d.src) {
		b := d.src[d.pos]
		d.pos++
		return b
	}
	d.over++
	return 0
}

// renorm shifts in bytes until the interval is at least minLength long.
func (d *Decoder) renorm() {
	for {
		var b byte
		if d.pos < len(d.src) {
			b = d.src[d.pos]
			d.pos++
		} else {
			d.over++
		}
		d.value = d.value<<8 | uint32(b)
		d.length <<= 8
		if d.length >= minLength {
			return
		}
	}
}

// DecodeBit decodes one binary decision with model m.
func (d *Decoder) DecodeBit(m *BitModel) uint32 {
	x := m.prob0 * (d.length >> bmLengthShift)
	var sym uint32
	if d.value < x {
		d.length = x
		m.count0++
	} else {
		sym = 1
		d.value -= x
		d.length -= x
	}
	if d.length < minLength {
		d.renorm()
	}
	m.untilUpdate--
	if m.untilUpdate == 0 {
		m.update()
	}
	return sym
}

// DecodeSymbol decodes one symbol with model m.
func (d *Decoder) DecodeSymbol(m *SymbolModel) uint32 {
	if !m.ready {
		m.reset(true)
	}
	value, y := d.value, d.length
	length := y >> dmLengthShift
	dist := m.dist
	var sym, x uint32
	if tab := m.table; tab != nil {
		dv := value / length
		t := dv >> (m.tableShift & 31)
		if t >= uint32(len(tab))-1 {
			d.bad = true
			t = uint32(len(tab)) - 2
		}
		sym = tab[t]
		n := tab[t+1] + 1
		for n > sym+1 {
			k := (sym + n) >> 1
			if dist[k] > dv {
				n = k
			} else {
				sym = k
			}
		}
		x = dist[sym] * length
		if sym != m.lastSymbol {
			y = dist[sym+1] * length
		}
	} else {
		n := m.symbols
		k := n >> 1
		for {
			z := length * dist[k]
			if z > value {
				n = k
				y = z
			} else {
				sym = k
				x = z
			}
			k = (sym + n) >> 1
			if k == sym {
				break
			}
		}
	}
	d.value = value - x
	d.length = y - x
	if d.length < minLength {
		d.renorm()
	}
	m.count[sym]++
	m.untilUpdate--
	if m.untilUpdate == 0 {
		m.update()
	}
	return sym
}

// ReadBits decodes n raw bits, 1 <= n <= 32.
func (d *Decoder) ReadBits(n uint32) uint32 {
	if n > 19 {
		lo := uint32(d.ReadShort())
		return d.ReadBits(n-16)<<16 | lo
	}
	d.length >>= n
	sym := d.value / d.length
	d.value -= d.length * sym
	if d.length < minLength {
		d.renorm()
	}
	if sym>>n != 0 {
		// Only a corrupt stream gives a quotient this large; keep the
		// value in range so that callers may index with it.
		d.bad = true
		sym &= 1<<n - 1
	}
	return sym
}

// ReadShort decodes 16 raw bits.
func (d *Decoder) ReadShort() uint16 {
	d.length >>= 16
	sym := d.value / d.length
	d.value -= d.length * sym
	if d.length < minLength {
		d.renorm()
	}
	if sym>>16 != 0 {
		d.bad = true
	}
	return uint16(sym)
}

// ReadInt decodes 32 raw bits, low half first.
func (d *Decoder) ReadInt() uint32 {
	lo := uint32(d.ReadShort())
	return uint32(d.ReadShort())<<16 | lo
}

// ReadInt64 decodes 64 raw bits, low half first.
func (d *Decoder) ReadInt64() uint64 {
	lo := uint64(d.ReadInt())
	return uint64(d.ReadInt())<<32 | lo
}
