package core

import (
	"fmt"
	"math"
)

// Attribute is one named, typed column of per-point values. Data holds a
// slice whose element type matches Type: []int8, []uint8, []int16, []uint16,
// []int32, []uint32, []int64, []uint64, []float32 or []float64.
type Attribute struct {
	Name string
	Type Type
	Data any
}

// Number is the set of Go element types an attribute column can hold, one
// per Type.
type Number interface {
	int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64 | float32 | float64
}

// TypeOf returns the Type of a column of T values.
func TypeOf[T Number]() Type {
	var z T
	switch any(z).(type) {
	case int8:
		return Int8
	case uint8:
		return Uint8
	case int16:
		return Int16
	case uint16:
		return Uint16
	case int32:
		return Int32
	case uint32:
		return Uint32
	case int64:
		return Int64
	case uint64:
		return Uint64
	case float32:
		return Float32
	}
	return Float64
}

// NewColumn returns a column named name holding data, its Type derived from
// T, so that the Type and the data cannot disagree (a Float32 column holding
// []float64 cannot be built). The column keeps data; it does not copy it.
func NewColumn[T Number](name string, data []T) *Attribute {
	return &Attribute{Name: name, Type: TypeOf[T](), Data: data}
}

// NewAttribute returns a zeroed column of n values of type t.
func NewAttribute(name string, t Type, n int) *Attribute {
	if !t.Valid() {
		panic(fmt.Sprintf("core: NewAttribute with invalid type %v", t))
	}
	return &Attribute{Name: name, Type: t, Data: columnOps[t].make(n)}
}

// ops are the operations on a column's data of one Type, written once for
// every element type by opsOf: each method of Attribute is one look-up in
// columnOps, instead of a switch over the ten types per method.
type ops struct {
	make       func(n int) any
	len        func(d any) (int, bool) // false: d is not of this type
	float64    func(d any, i int) float64
	float64s   func(d any, lo int, dst []float64)
	int64      func(d any, i int) int64
	uint64     func(d any, i int) uint64
	setUint64  func(d any, i int, v uint64)
	setFloat64 func(d any, i int, v float64)
	grow       func(d any, n int) any
	extend     func(d any, n int) any // n more values, zero or left over
	copyAt     func(d any, at int, src any)
	selectIdx  func(d any, idx []int) any
	slice      func(d any, lo, hi int) any
}

// columnOps holds the operations of each valid Type.
var columnOps = [...]ops{
	Int8: opsOf[int8](), Uint8: opsOf[uint8](), Int16: opsOf[int16](), Uint16: opsOf[uint16](),
	Int32: opsOf[int32](), Uint32: opsOf[uint32](), Int64: opsOf[int64](), Uint64: opsOf[uint64](),
	Float32: opsOf[float32](), Float64: opsOf[float64](),
}

func opsOf[T Number]() ops {
	return ops{
		make: func(n int) any { return make([]T, n) },
		len: func(d any) (int, bool) {
			s, ok := d.([]T)
			return len(s), ok
		},
		float64: func(d any, i int) float64 { return float64(d.([]T)[i]) },
		float64s: func(d any, lo int, dst []float64) {
			for j, v := range d.([]T)[lo : lo+len(dst)] {
				dst[j] = float64(v)
			}
		},
		int64:      func(d any, i int) int64 { return int64(d.([]T)[i]) },
		uint64:     func(d any, i int) uint64 { return toBits(d.([]T)[i]) },
		setUint64:  func(d any, i int, v uint64) { d.([]T)[i] = fromBits[T](v) },
		setFloat64: func(d any, i int, v float64) { d.([]T)[i] = T(v) },
		grow:       func(d any, n int) any { return grow(d.([]T), n) },
		extend: func(d any, n int) any {
			s := d.([]T)
			return grow(s, n)[:len(s)+n]
		},
		copyAt: func(d any, at int, src any) { copy(d.([]T)[at:], src.([]T)) },
		selectIdx: func(d any, idx []int) any {
			s, out := d.([]T), make([]T, len(idx))
			for k, i := range idx {
				out[k] = s[i]
			}
			return out
		},
		slice: func(d any, lo, hi int) any { return d.([]T)[lo:hi:hi] },
	}
}

// toBits widens v to 64 bits: integers sign- or zero-extended, floats as
// their IEEE bits.
func toBits[T Number](v T) uint64 {
	switch f := any(v).(type) {
	case float32:
		return uint64(math.Float32bits(f))
	case float64:
		return math.Float64bits(f)
	}
	return uint64(v)
}

// fromBits is toBits' inverse, truncating integers to T.
func fromBits[T Number](v uint64) T {
	var z T
	switch any(z).(type) {
	case float32:
		return any(math.Float32frombits(uint32(v))).(T)
	case float64:
		return any(math.Float64frombits(v)).(T)
	}
	return T(v)
}

// ops returns the operations of the column's type; it panics, naming the
// column, when the type is invalid.
func (a *Attribute) ops() *ops {
	if !a.Type.Valid() {
		panic("core: attribute " + a.Name + " has invalid type " + a.Type.String())
	}
	return &columnOps[a.Type]
}

// Check reports a column whose Data does not hold the slice type its Type
// names (a Float32 column holding []float64): columns built with NewColumn
// or NewAttribute always pass.
func (a *Attribute) Check() error {
	if !a.Type.Valid() {
		return fmt.Errorf("core: attribute %s has invalid type %v", a.Name, a.Type)
	}
	if _, ok := columnOps[a.Type].len(a.Data); !ok {
		return fmt.Errorf("core: attribute %s is %v but holds %T", a.Name, a.Type, a.Data)
	}
	return nil
}

// Len returns the number of values in the column, 0 when its data does not
// match its type (see Check).
func (a *Attribute) Len() int {
	if !a.Type.Valid() {
		return 0
	}
	n, _ := columnOps[a.Type].len(a.Data)
	return n
}

// Float64 returns value i converted to float64 (exact for every type except
// 64-bit integers beyond 2^53).
func (a *Attribute) Float64(i int) float64 { return a.ops().float64(a.Data, i) }

// Float64s stores values lo to lo+len(dst)-1 converted to float64 in dst,
// as Float64 converts each, in one typed loop.
func (a *Attribute) Float64s(lo int, dst []float64) { a.ops().float64s(a.Data, lo, dst) }

// Int64 returns value i as int64; floats are truncated toward zero and
// uint64 values above MaxInt64 wrap.
func (a *Attribute) Int64(i int) int64 { return a.ops().int64(a.Data, i) }

// Uint64 returns the raw bits of value i widened to 64 bits: integers are
// sign- or zero-extended, floats give their IEEE bits. It is the lossless
// accessor codecs use to copy values without conversion.
func (a *Attribute) Uint64(i int) uint64 { return a.ops().uint64(a.Data, i) }

// SetUint64 stores raw bits v (as Uint64 returns them) at index i.
func (a *Attribute) SetUint64(i int, v uint64) { a.ops().setUint64(a.Data, i, v) }

// SetFloat64 stores v at index i, converting to the column's type (integer
// types truncate toward zero; out-of-range values wrap as Go conversions do).
func (a *Attribute) SetFloat64(i int, v float64) { a.ops().setFloat64(a.Data, i, v) }

// Range returns the minimum and maximum of the column, ignoring NaN values.
// ok is false when the column is empty or holds only NaN.
func (a *Attribute) Range() (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, n := 0, a.Len(); i < n; i++ {
		v := a.Float64(i)
		if v != v {
			continue
		}
		lo = min(lo, v)
		hi = max(hi, v)
		ok = true
	}
	return lo, hi, ok
}

// Clone returns a deep copy of the column.
func (a *Attribute) Clone() *Attribute {
	b := NewAttribute(a.Name, a.Type, a.Len())
	b.ops().copyAt(b.Data, 0, a.Data)
	return b
}

// Select returns a new column holding the values at the given indices, in order.
func (a *Attribute) Select(idx []int) *Attribute {
	return &Attribute{Name: a.Name, Type: a.Type, Data: a.ops().selectIdx(a.Data, idx)}
}

// Slice returns a column of values lo to hi-1 that shares a's storage, as
// a[lo:hi] would, with no room beyond hi: appending to it copies.
func (a *Attribute) Slice(lo, hi int) *Attribute {
	return &Attribute{Name: a.Name, Type: a.Type, Data: a.ops().slice(a.Data, lo, hi)}
}

// grow makes room for n more values at the end of a.
func (a *Attribute) grow(n int) { a.Data = a.ops().grow(a.Data, n) }
