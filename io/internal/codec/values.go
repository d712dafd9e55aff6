package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/io/pcio"
)

// Values travel between encodings as raw bits in a uint64, the way
// core.Attribute.Uint64 gives them: integers sign- or zero-extended, floats
// as their IEEE bits. No conversion happens on the way, so every value
// survives binary <-> binary and binary <-> text exactly (text floats use the
// shortest representation that parses back to the same bits).

// LoadBits decodes one value of type t from the start of b.
func LoadBits(b []byte, t core.Type, order binary.ByteOrder) uint64 {
	switch t {
	case core.Int8:
		return uint64(int8(b[0]))
	case core.Uint8:
		return uint64(b[0])
	case core.Int16:
		return uint64(int16(order.Uint16(b)))
	case core.Uint16:
		return uint64(order.Uint16(b))
	case core.Int32:
		return uint64(int32(order.Uint32(b)))
	case core.Uint32, core.Float32:
		return uint64(order.Uint32(b))
	default: // Int64, Uint64, Float64
		return order.Uint64(b)
	}
}

// StoreBits encodes v, as LoadBits returns it, at the start of b.
func StoreBits(b []byte, t core.Type, order binary.ByteOrder, v uint64) {
	switch t.Size() {
	case 1:
		b[0] = byte(v)
	case 2:
		order.PutUint16(b, uint16(v))
	case 4:
		order.PutUint32(b, uint32(v))
	default:
		order.PutUint64(b, v)
	}
}

// ToFloat64 converts bits of type t to a float64 coordinate.
func ToFloat64(t core.Type, v uint64) float64 {
	switch t {
	case core.Float32:
		return float64(math.Float32frombits(uint32(v)))
	case core.Float64:
		return math.Float64frombits(v)
	case core.Uint8, core.Uint16, core.Uint32, core.Uint64:
		return float64(v)
	}
	return float64(int64(v))
}

// FromFloat64 converts a float64 coordinate to bits of type t (integer
// types truncate, as Go conversions do).
func FromFloat64(t core.Type, f float64) uint64 {
	switch t {
	case core.Float32:
		return uint64(math.Float32bits(float32(f)))
	case core.Float64:
		return math.Float64bits(f)
	case core.Uint8, core.Uint16, core.Uint32, core.Uint64:
		return uint64(f)
	}
	return uint64(int64(f))
}

// AppendText appends the text form of bits v of type t: decimal integers,
// and floats in the shortest form that parses back to the same value, in
// plain notation where it is short (pcio.AppendFloat).
func AppendText(dst []byte, t core.Type, v uint64) []byte {
	switch t {
	case core.Float32:
		return pcio.AppendFloat(dst, float64(math.Float32frombits(uint32(v))), 32)
	case core.Float64:
		return pcio.AppendFloat(dst, math.Float64frombits(v), 64)
	case core.Uint8, core.Uint16, core.Uint32, core.Uint64:
		return strconv.AppendUint(dst, v, 10)
	}
	return strconv.AppendInt(dst, int64(v), 10)
}

// ErrRange is returned by ParseText for a value outside its type: an
// integer too large for it, or a float whose magnitude is beyond the
// largest finite value (strconv would round it to ±Inf; a reader would then
// silently keep an infinity the file never wrote).
var ErrRange = errors.New("value out of range")

// ParseText parses the text form of a value of type t. Integers may be
// written as integral floats ("3.0"), as some writers do; floats accept
// nan and inf in any case (spelled out, they are what the file says), with
// the bits strconv.ParseFloat gives, through ParseFloat64 and ParseFloat32.
func ParseText(tok []byte, t core.Type) (uint64, error) {
	switch t {
	case core.Float32:
		f, err := ParseFloat32(tok)
		if err != nil {
			return 0, numErr(err)
		}
		return uint64(math.Float32bits(f)), nil
	case core.Float64:
		f, err := ParseFloat64(tok)
		if err != nil {
			return 0, numErr(err)
		}
		return math.Float64bits(f), nil
	}
	bits := t.Size() * 8
	signed := t.IsSigned()
	if u, neg, ok := readInt(tok); ok {
		switch {
		case !signed && !neg && (bits == 64 || u < 1<<bits):
			return u, nil
		case signed && !neg && u < 1<<(bits-1):
			return u, nil
		case signed && neg && u <= 1<<(bits-1):
			return -u, nil
		case u == 0:
			return 0, nil // "-0" for an unsigned type
		}
		return 0, ErrRange
	}
	if signed {
		if i, err := strconv.ParseInt(string(tok), 10, bits); err == nil {
			return uint64(i), nil
		}
	} else if u, err := strconv.ParseUint(string(tok), 10, bits); err == nil {
		return u, nil
	}
	// An integral value written as a float.
	f, err := ParseFloat64(tok)
	if err != nil {
		return 0, numErr(err)
	}
	if f != math.Trunc(f) {
		return 0, strconv.ErrSyntax
	}
	if signed {
		lim := math.Ldexp(1, bits-1)
		if f < -lim || f >= lim {
			return 0, ErrRange
		}
		return uint64(int64(f)), nil
	}
	if f < 0 || f >= math.Ldexp(1, bits) {
		return 0, ErrRange
	}
	return uint64(f), nil
}

// readInt reads a decimal integer [+-]digits of at most 19 digits (so that
// it fits a uint64 whatever they are); anything else reports false.
func readInt(b []byte) (u uint64, neg, ok bool) {
	i := 0
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		i++
	}
	if n := len(b) - i; n == 0 || n > 19 {
		return 0, false, false
	}
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			return 0, false, false
		}
		u = u*10 + uint64(d)
	}
	return u, neg, true
}

// numErr maps strconv's errors to ErrRange and strconv.ErrSyntax, without
// the copy of the input a *strconv.NumError holds.
func numErr(err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return ErrRange
	}
	return strconv.ErrSyntax
}

// Float32Exact reports whether every value of the slices is a float32
// (NaN and ±Inf included), so that a writer can store coordinates in four
// bytes without losing anything. Long slices are checked in ranges on all
// cores.
func Float32Exact(cols ...[]float64) bool {
	for _, c := range cols {
		inexact := par.First(len(c), func(lo, hi int) int {
			for k, v := range c[lo:hi] {
				if !isFloat32(v) {
					return lo + k
				}
			}
			return -1
		})
		if inexact >= 0 {
			return false
		}
	}
	return true
}

func isFloat32(v float64) bool { return float64(float32(v)) == v || v != v }

// FieldName makes an attribute name usable as a header token: blanks
// become '_' and an empty name becomes "unnamed".
func FieldName(s string) string {
	if s == "" {
		return "unnamed"
	}
	b := []byte(s)
	for i, c := range b {
		if c <= ' ' || c == 0x7f {
			b[i] = '_'
		}
	}
	return string(b)
}

// CoordsKey is the Meta.Extra key under which a decoder notes that its
// source stored every coordinate as a float32 (the value is core.Float32).
// A streaming encoder of another format, which cannot scan the points
// before writing its header, uses it to choose four-byte coordinates, and
// then checks every coordinate it writes (see CheckFloat32).
const CoordsKey = "coords"

// SourceFloat32 reports whether m notes float32 coordinates (CoordsKey).
func SourceFloat32(m *core.Metadata) bool {
	t, _ := m.Extra[CoordsKey].(core.Type)
	return t == core.Float32
}

// CheckFloat32 returns an error naming the first coordinate of c that is
// not a float32 value, for an encoder that chose float32 coordinates from
// the CoordsKey note; point numbers start at first.
func CheckFloat32(codec string, c *core.Cloud, first int64) error {
	for k, col := range [3][]float64{c.X, c.Y, c.Z} {
		for i, v := range col {
			if !isFloat32(v) {
				return fmt.Errorf("%s: point %d: %c = %v is not a float32 value, as the source's coordinates were; write the whole cloud (Encode) to get 8-byte coordinates", codec, first+int64(i), 'X'+k, v)
			}
		}
	}
	return nil
}
