package codec

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"sync"
)

// ParseFloat64 parses a decimal float as strconv.ParseFloat(string(b), 64)
// does, with the same result bits and the same errors (*strconv.NumError
// wrapping strconv.ErrSyntax, or strconv.ErrRange with ±Inf for a value
// beyond the float64 range), but faster on the plain decimal numbers that
// text point clouds hold: "-12.5", "3.0000001e-07", up to 19 significant
// digits. Those are converted exactly by Clinger's fast path (a mantissa
// below 2⁵³ times a power of ten below 10²², both exact float64s, so one
// correctly rounded operation) or by the Eisel-Lemire algorithm (Nigel Tao,
// "The Eisel-Lemire ParseNumberF64 Algorithm", 2020), which either finds
// the correctly rounded result or reports that it cannot; everything else
// (more digits, inf, nan, hex, underscores, the rare Eisel-Lemire refusal)
// goes to strconv itself. It does not allocate unless it fails.
func ParseFloat64(b []byte) (float64, error) {
	man, exp, neg, ok := readDecimal(b)
	if ok {
		if man == 0 {
			if neg {
				return math.Copysign(0, -1), nil
			}
			return 0, nil
		}
		if man < 1<<53 && exp >= -22 && exp <= 22 {
			f := float64(man)
			if exp < 0 {
				f /= exactPow10[-exp]
			} else {
				f *= exactPow10[exp]
			}
			if neg {
				f = -f
			}
			return f, nil
		}
		if f, ok := eiselLemire(man, exp, neg); ok {
			return f, nil
		}
		if f, ok := dyadic(man, exp, neg); ok {
			return f, nil
		}
	}
	return strconv.ParseFloat(string(b), 64)
}

// dyadic converts man·10^exp exactly when it is q·2^exp with an integer q,
// that is when 5^-exp divides man (exp from -27: 5²⁷ < 2⁶⁴): float64(q) is
// q correctly rounded and the power of two is exact, so the result is
// correctly rounded too. These are the decimals a float32 or a float64
// written in full has ("55.534515380859375"), which lie exactly on a
// float64, where Eisel-Lemire, working on an approximation of 10^exp,
// cannot tell which side of it the value is and gives up.
func dyadic(man uint64, exp int, neg bool) (float64, bool) {
	if exp >= 0 || exp < -27 || man%pow5[-exp] != 0 {
		return 0, false
	}
	f := math.Ldexp(float64(man/pow5[-exp]), exp)
	if neg {
		f = -f
	}
	return f, true
}

// pow5 are the powers of five that fit a uint64 up to 5²⁷.
var pow5 = func() (p [28]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 5
	}
	return p
}()

// ParseFloat32 is ParseFloat64 for strconv.ParseFloat(string(b), 32): the
// float32 nearest the decimal, not the float64 rounded again. It rounds the
// exact float64 result to float32, which gives the same float32 unless the
// float64 lies exactly halfway between two float32s (a float32 midpoint has
// 25 significant bits, so it is a float64: were it strictly between the
// decimal and the float64, it would be a nearer float64); then, and for
// float32 subnormals and overflow, strconv decides.
func ParseFloat32(b []byte) (float32, error) {
	f, err := ParseFloat64(b)
	if err == nil {
		a := math.Abs(f)
		bits := math.Float64bits(f)
		if a >= 0x1p-126 && a <= math.MaxFloat32 && bits&(1<<29-1) != 1<<28 || a == 0 || math.IsInf(f, 0) || f != f {
			return float32(f), nil
		}
	}
	g, err := strconv.ParseFloat(string(b), 32)
	return float32(g), err
}

// exactPow10 are the powers of ten that float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// readDecimal reads b as [+-]digits[.digits][(e|E)[+-]digits], with at
// least one mantissa digit, into man·10^exp. It reports false for anything
// else and for more than 19 significant digits (man would overflow), which
// the caller leaves to strconv.
func readDecimal(b []byte) (man uint64, exp int, neg, ok bool) {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	nd, digits := 0, 0 // significant digits kept, mantissa digits seen
	for ; i < len(b) && b[i]-'0' < 10; i++ {
		digits++
		if man == 0 && b[i] == '0' {
			continue // a leading zero
		}
		if nd == 19 {
			return 0, 0, false, false
		}
		man = man*10 + uint64(b[i]-'0')
		nd++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i]-'0' < 10; i++ {
			digits++
			exp--
			if man == 0 && b[i] == '0' {
				continue
			}
			if nd == 19 {
				return 0, 0, false, false
			}
			man = man*10 + uint64(b[i]-'0')
			nd++
		}
	}
	if digits == 0 {
		return 0, 0, false, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		start, e := i, 0
		for ; i < len(b) && b[i]-'0' < 10; i++ {
			if e < 100000 { // far beyond any float64 either way
				e = e*10 + int(b[i]-'0')
			}
		}
		if i == start {
			return 0, 0, false, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	return man, exp, neg, i == len(b)
}

// pow10Min and pow10Max bound the powers of ten Eisel-Lemire works with;
// outside them a non-zero 19-digit mantissa is surely 0 or Inf, which the
// caller leaves to strconv.
const (
	pow10Min = -348
	pow10Max = 347
)

// pow10Mant holds, for 10^q with q from pow10Min, the 128-bit mantissa
// {hi, lo} of 10^q rounded down, scaled so that its top bit is set:
// 10^q ≈ mant·2^(e-127) with e = ⌊q·log₂10⌋. It is computed with
// math/big, so it cannot disagree with its definition, on first use (2 ms
// that every pctk process paid at start when it was a package variable).
var pow10Mant = sync.OnceValue(func() [][2]uint64 {
	out := make([][2]uint64, pow10Max-pow10Min+1)
	one := big.NewInt(1)
	mask := new(big.Int).Sub(new(big.Int).Lsh(one, 64), one)
	for q := pow10Min; q <= pow10Max; q++ {
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(q))), nil)
		var m *big.Int
		if q >= 0 {
			// 10^q has bitlen L; keep its top 128 bits.
			if l := p.BitLen(); l > 128 {
				m = p.Rsh(p, uint(l-128))
			} else {
				m = p.Lsh(p, uint(128-l))
			}
		} else {
			// ⌊2^(L+127) / 10^-q⌋ lies in (2^127, 2^128) for q < 0.
			m = new(big.Int).Quo(new(big.Int).Lsh(one, uint(p.BitLen()+127)), p)
		}
		out[q-pow10Min] = [2]uint64{new(big.Int).Rsh(m, 64).Uint64(), new(big.Int).And(m, mask).Uint64()}
	}
	return out
})

func abs(q int) int {
	if q < 0 {
		return -q
	}
	return q
}

// eiselLemire converts man·10^exp (man > 0) to the nearest float64, or
// reports false when the 128-bit approximation cannot decide the rounding
// (or the result is subnormal, zero or infinite). The steps follow Nigel
// Tao's description (https://nigeltao.github.io/blog/2020/eisel-lemire.html),
// whose section names the comments use.
func eiselLemire(man uint64, exp int, neg bool) (float64, bool) {
	if exp < pow10Min || exp > pow10Max {
		return 0, false
	}
	pow := pow10Mant()[exp-pow10Min]
	// Normalization.
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	// 217706/2¹⁶ ≈ log₂10: ⌊exp·log₂10⌋ for |exp| < 700. The biased
	// exponent of the result before the final shifts.
	retExp2 := uint64(217706*exp>>16+64+1023) - uint64(clz)
	// Multiplication.
	xHi, xLo := bits.Mul64(man, pow[0])
	// Wider Approximation: the low 64 bits of the power matter only when
	// the product's bits below the 54 kept are all ones.
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		yHi, yLo := bits.Mul64(man, pow[1])
		mergedHi, mergedLo := xHi, xLo+yHi
		if mergedLo < xLo {
			mergedHi++
		}
		if mergedHi&0x1FF == 0x1FF && mergedLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mergedHi, mergedLo
	}
	// Shifting to 54 Bits.
	msb := xHi >> 63
	mant := xHi >> (msb + 9)
	retExp2 -= 1 ^ msb
	// Half-way Ambiguity: exactly between two floats, as far as we know.
	if xLo == 0 && xHi&0x1FF == 0 && mant&3 == 1 {
		return 0, false
	}
	// From 54 to 53 Bits: round half up (ties were excluded above).
	mant += mant & 1
	mant >>= 1
	if mant>>53 > 0 {
		mant >>= 1
		retExp2++
	}
	// A biased exponent of 0 (subnormal, after unsigned wrap-around) or of
	// 0x7FF and above (Inf) is left to strconv.
	if retExp2-1 >= 0x7FF-1 {
		return 0, false
	}
	b := retExp2<<52 | mant&(1<<52-1)
	if neg {
		b |= 1 << 63
	}
	return math.Float64frombits(b), true
}
