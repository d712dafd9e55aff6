package arith

import (
	"math"
	"math/bits"
)

// IntCompressor codes integers as corrections to a prediction (LASzip's
// IntegerCompressor): the number k of significant bits of the correction
// with a symbol model chosen by the caller's context, then the correction
// within its k-bit interval, with a symbol model per k for the top bitsHigh
// bits and raw bits for the rest. Corrections wrap around modulo 2^bits (or
// the range, when one is given).
//
// Its models are allocated on first use; Init resets them, as a LAZ codec
// does at the start of every chunk. One IntCompressor serves either an
// encoder or a decoder.
type IntCompressor struct {
	bits, contexts, bitsHigh uint32
	corrBits                 uint32
	corrRange                uint32
	corrMin, corrMax         int32
	k                        uint32

	mBits  []SymbolModel // one per context: k
	mCorr0 BitModel      // corrections of 0 or 1
	mCorr  []SymbolModel // index k >= 1: the high bits of a k-bit correction
}

// NewIntCompressor returns a compressor of bits-bit values with contexts
// contexts; corrections of more than bitsHigh bits code their low bits raw.
// A nonzero rng replaces 2^bits as the wrap-around range. LASzip's defaults
// are bits 16, contexts 1, bitsHigh 8, rng 0.
func NewIntCompressor(bits, contexts, bitsHigh, rng uint32) *IntCompressor {
	ic := &IntCompressor{bits: bits, contexts: contexts, bitsHigh: bitsHigh}
	switch {
	case rng != 0:
		ic.corrRange = rng
		for r := rng; r != 0; r >>= 1 {
			ic.corrBits++
		}
		if rng == 1<<(ic.corrBits-1) {
			ic.corrBits--
		}
		ic.corrMin = -int32(rng / 2)
		ic.corrMax = ic.corrMin + int32(rng) - 1
	case bits != 0 && bits < 32:
		ic.corrBits = bits
		ic.corrRange = 1 << bits
		ic.corrMin = -int32(ic.corrRange / 2)
		ic.corrMax = ic.corrMin + int32(ic.corrRange) - 1
	default:
		ic.corrBits = 32
		ic.corrMin = math.MinInt32
		ic.corrMax = math.MaxInt32
	}
	ic.mBits = make([]SymbolModel, contexts)
	for i := range ic.mBits {
		ic.mBits[i] = newSymbolModel(ic.corrBits + 1)
	}
	ic.mCorr0.Init()
	ic.mCorr = make([]SymbolModel, ic.corrBits+1)
	for i := uint32(1); i <= ic.corrBits; i++ {
		ic.mCorr[i] = newSymbolModel(1 << min(i, bitsHigh))
	}
	return ic
}

// Init resets every model to its initial state.
func (ic *IntCompressor) Init() {
	for i := range ic.mBits {
		ic.mBits[i].Init()
	}
	ic.mCorr0.Init()
	for i := range ic.mCorr {
		ic.mCorr[i].Init()
	}
}

// K returns the number of significant bits of the last correction coded;
// codecs use it as context for the next value.
func (ic *IntCompressor) K() uint32 { return ic.k }

// Decompress decodes the value predicted as pred in context ctx.
func (ic *IntCompressor) Decompress(d *Decoder, pred int32, ctx uint32) int32 {
	real := pred + ic.readCorrector(d, &ic.mBits[ctx])
	if real < 0 {
		real += int32(ic.corrRange)
	} else if uint32(real) >= ic.corrRange {
		real -= int32(ic.corrRange)
	}
	return real
}

func (ic *IntCompressor) readCorrector(d *Decoder, mBits *SymbolModel) int32 {
	k := d.DecodeSymbol(mBits)
	ic.k = k
	if k == 0 {
		return int32(d.DecodeBit(&ic.mCorr0))
	}
	if k >= 32 {
		return ic.corrMin
	}
	var c int32
	if k <= ic.bitsHigh {
		c = int32(d.DecodeSymbol(&ic.mCorr[k]))
	} else {
		k1 := k - ic.bitsHigh
		c = int32(d.DecodeSymbol(&ic.mCorr[k]))
		c = c<<k1 | int32(d.ReadBits(k1))
	}
	if c >= 1<<(k-1) {
		return c + 1
	}
	return c - (1<<k - 1)
}

// Compress encodes real as predicted by pred in context ctx.
func (ic *IntCompressor) Compress(e *Encoder, pred, real int32, ctx uint32) {
	c := real - pred
	if c < ic.corrMin {
		c += int32(ic.corrRange)
	} else if c > ic.corrMax {
		c -= int32(ic.corrRange)
	}
	ic.writeCorrector(e, c, &ic.mBits[ctx])
}

func (ic *IntCompressor) writeCorrector(e *Encoder, c int32, mBits *SymbolModel) {
	var c1 uint32
	if c <= 0 {
		c1 = uint32(-c)
	} else {
		c1 = uint32(c - 1)
	}
	k := uint32(bits.Len32(c1)) // significant bits of the magnitude
	ic.k = k
	e.EncodeSymbol(mBits, k)
	if k == 0 {
		e.EncodeBit(&ic.mCorr0, uint32(c))
		return
	}
	if k >= 32 {
		return
	}
	if c < 0 {
		c += 1<<k - 1
	} else {
		c--
	}
	if k <= ic.bitsHigh {
		e.EncodeSymbol(&ic.mCorr[k], uint32(c))
		return
	}
	k1 := k - ic.bitsHigh
	e.EncodeSymbol(&ic.mCorr[k], uint32(c)>>k1)
	e.WriteBits(k1, uint32(c)&(1<<k1-1))
}
