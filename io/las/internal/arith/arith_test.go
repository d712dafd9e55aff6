package arith

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// op is one coding step of a random script: which call and with what.
type op struct {
	kind  int // 0 bit, 1 symbol, 2 raw bits, 3 short, 4 int, 5 int64, 6 integer
	model int
	n     uint32
	v     uint64
	pred  int32
}

// script draws a random sequence of coding steps whose values are skewed
// so that the adaptive models move away from equiprobable.
func script(r *rand.Rand, n int, sizes []uint32) []op {
	ops := make([]op, n)
	for i := range ops {
		o := op{kind: r.IntN(7)}
		switch o.kind {
		case 0:
			o.model = r.IntN(3)
			if r.IntN(10) < 8 {
				o.v = uint64(o.model & 1)
			} else {
				o.v = uint64(r.IntN(2))
			}
		case 1:
			o.model = r.IntN(len(sizes))
			s := sizes[o.model]
			if r.IntN(4) > 0 {
				o.v = uint64(r.IntN(int(min(s, 4))))
			} else {
				o.v = uint64(r.IntN(int(s)))
			}
		case 2:
			o.n = uint32(1 + r.IntN(32))
			o.v = r.Uint64() & (1<<o.n - 1)
		case 3:
			o.v = uint64(r.Uint32() & 0xFFFF)
		case 4:
			o.v = uint64(r.Uint32())
		case 5:
			o.v = r.Uint64()
		case 6:
			o.model = r.IntN(4)
			o.pred = int32(r.Uint32())
			switch r.IntN(4) {
			case 0:
				o.v = uint64(uint32(o.pred + int32(r.IntN(5)-2)))
			case 1:
				o.v = uint64(uint32(o.pred + int32(r.IntN(2000)-1000)))
			case 2:
				o.v = uint64(r.Uint32())
			default:
				o.v = uint64(uint32(o.pred ^ math.MinInt32))
			}
			o.n = uint32(r.IntN(3)) // context
		}
		ops[i] = o
	}
	return ops
}

// coders holds one set of models for either direction.
type coders struct {
	bits []*BitModel
	syms []*SymbolModel
	ints []*IntCompressor
}

func newCoders(sizes []uint32) *coders {
	c := &coders{}
	for range 3 {
		c.bits = append(c.bits, NewBitModel())
	}
	for _, s := range sizes {
		c.syms = append(c.syms, NewSymbolModel(s))
	}
	c.ints = []*IntCompressor{
		NewIntCompressor(32, 3, 8, 0),
		NewIntCompressor(16, 3, 8, 0),
		NewIntCompressor(8, 3, 8, 0),
		NewIntCompressor(0, 3, 10, 1<<20),
	}
	return c
}

// intMask is the range each test IntCompressor wraps values into.
var intMask = []uint32{math.MaxUint32, 0xFFFF, 0xFF, 1<<20 - 1}

func TestRoundTrip(t *testing.T) {
	sizes := []uint32{2, 3, 7, 16, 17, 33, 256, 2048}
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 17))
		ops := script(r, 1+r.IntN(20000), sizes)
		for i := range ops {
			if ops[i].kind == 6 {
				m := intMask[ops[i].model]
				ops[i].pred = int32(uint32(ops[i].pred) & m)
				ops[i].v &= uint64(m)
			}
		}
		var e Encoder
		enc := newCoders(sizes)
		for _, o := range ops {
			switch o.kind {
			case 0:
				e.EncodeBit(enc.bits[o.model], uint32(o.v))
			case 1:
				e.EncodeSymbol(enc.syms[o.model], uint32(o.v))
			case 2:
				e.WriteBits(o.n, uint32(o.v))
			case 3:
				e.WriteShort(uint16(o.v))
			case 4:
				e.WriteInt(uint32(o.v))
			case 5:
				e.WriteInt64(o.v)
			case 6:
				enc.ints[o.model].Compress(&e, o.pred, int32(uint32(o.v)), o.n)
			}
		}
		stream := append([]byte(nil), e.Finish()...)
		var d Decoder
		if err := d.Init(stream); err != nil {
			t.Fatal(err)
		}
		dec := newCoders(sizes)
		for i, o := range ops {
			var got uint64
			switch o.kind {
			case 0:
				got = uint64(d.DecodeBit(dec.bits[o.model]))
			case 1:
				got = uint64(d.DecodeSymbol(dec.syms[o.model]))
			case 2:
				got = uint64(d.ReadBits(o.n))
			case 3:
				got = uint64(d.ReadShort())
			case 4:
				got = uint64(d.ReadInt())
			case 5:
				got = d.ReadInt64()
			case 6:
				got = uint64(uint32(dec.ints[o.model].Decompress(&d, o.pred, o.n)))
				if k, want := dec.ints[o.model].K(), enc.ints[o.model].K(); i == len(ops)-1 && k != want {
					t.Errorf("seed %d: K() = %d after decoding, %d after encoding", seed, k, want)
				}
			}
			if got != o.v {
				t.Fatalf("seed %d, step %d (kind %d): got %#x, want %#x", seed, i, o.kind, got, o.v)
			}
		}
		if err := d.Err(); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
		if d.Pos() != len(stream) {
			t.Errorf("seed %d: decoder consumed %d of %d bytes", seed, d.Pos(), len(stream))
		}
	}
}

// TestInit checks that a reset model codes as a fresh one: a second stream
// coded after Init is byte-identical to the first.
func TestInit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]int32, 5000)
	for i := range vals {
		vals[i] = int32(r.IntN(16) - 8)
	}
	ic := NewIntCompressor(16, 1, 8, 0)
	var e Encoder
	var first []byte
	for pass := range 2 {
		ic.Init()
		e.Reset()
		for _, v := range vals {
			ic.Compress(&e, 0, v, 0)
		}
		out := e.Finish()
		if pass == 0 {
			first = append([]byte(nil), out...)
		} else if string(out) != string(first) {
			t.Fatalf("stream after Init differs: %d vs %d bytes", len(out), len(first))
		}
	}
	if len(first) > len(vals)*5/8 {
		t.Errorf("5000 values in [-8,8) took %d bytes, want about 4 bits each", len(first))
	}
}

func TestShortStream(t *testing.T) {
	var e Encoder
	m := NewSymbolModel(256)
	for i := range 1000 {
		e.EncodeSymbol(m, uint32(i*7)&255)
	}
	stream := e.Finish()
	var d Decoder
	if err := d.Init(stream[:len(stream)/2]); err != nil {
		t.Fatal(err)
	}
	m.Init()
	for range 1000 {
		d.DecodeSymbol(m)
	}
	if err := d.Err(); !errors.Is(err, ErrShortStream) {
		t.Errorf("Err() = %v, want ErrShortStream", err)
	}
	if err := d.Init(nil); !errors.Is(err, ErrShortStream) {
		t.Errorf("Init(nil) = %v, want ErrShortStream", err)
	}
}

// TestGarbage decodes random bytes: no panic, whatever comes out.
func TestGarbage(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		src := make([]byte, r.IntN(64))
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		var d Decoder
		d.Init(src)
		c := newCoders([]uint32{2, 17, 256, 2048})
		for range 500 {
			d.DecodeSymbol(c.syms[r.IntN(4)])
			d.DecodeBit(c.bits[0])
			c.ints[0].Decompress(&d, 0, 1)
			d.ReadBits(uint32(1 + r.IntN(32)))
		}
	}
}
