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

// NewAttribute returns a zeroed column of n values of type t.
func NewAttribute(name string, t Type, n int) *Attribute {
	return &Attribute{Name: name, Type: t, Data: makeSlice(t, n)}
}

func makeSlice(t Type, n int) any {
	switch t {
	case Int8:
		return make([]int8, n)
	case Uint8:
		return make([]uint8, n)
	case Int16:
		return make([]int16, n)
	case Uint16:
		return make([]uint16, n)
	case Int32:
		return make([]int32, n)
	case Uint32:
		return make([]uint32, n)
	case Int64:
		return make([]int64, n)
	case Uint64:
		return make([]uint64, n)
	case Float32:
		return make([]float32, n)
	case Float64:
		return make([]float64, n)
	}
	panic(fmt.Sprintf("core: NewAttribute with invalid type %v", t))
}

// Len returns the number of values in the column.
func (a *Attribute) Len() int {
	switch d := a.Data.(type) {
	case []int8:
		return len(d)
	case []uint8:
		return len(d)
	case []int16:
		return len(d)
	case []uint16:
		return len(d)
	case []int32:
		return len(d)
	case []uint32:
		return len(d)
	case []int64:
		return len(d)
	case []uint64:
		return len(d)
	case []float32:
		return len(d)
	case []float64:
		return len(d)
	}
	return 0
}

// Float64 returns value i converted to float64 (exact for every type except
// 64-bit integers beyond 2^53).
func (a *Attribute) Float64(i int) float64 {
	switch d := a.Data.(type) {
	case []int8:
		return float64(d[i])
	case []uint8:
		return float64(d[i])
	case []int16:
		return float64(d[i])
	case []uint16:
		return float64(d[i])
	case []int32:
		return float64(d[i])
	case []uint32:
		return float64(d[i])
	case []int64:
		return float64(d[i])
	case []uint64:
		return float64(d[i])
	case []float32:
		return float64(d[i])
	case []float64:
		return d[i]
	}
	panic("core: attribute " + a.Name + " has no data")
}

// Int64 returns value i as int64; floats are truncated toward zero and
// uint64 values above MaxInt64 wrap.
func (a *Attribute) Int64(i int) int64 {
	switch d := a.Data.(type) {
	case []int8:
		return int64(d[i])
	case []uint8:
		return int64(d[i])
	case []int16:
		return int64(d[i])
	case []uint16:
		return int64(d[i])
	case []int32:
		return int64(d[i])
	case []uint32:
		return int64(d[i])
	case []int64:
		return d[i]
	case []uint64:
		return int64(d[i])
	case []float32:
		return int64(d[i])
	case []float64:
		return int64(d[i])
	}
	panic("core: attribute " + a.Name + " has no data")
}

// Uint64 returns the raw bits of value i widened to 64 bits: integers are
// sign- or zero-extended, floats give their IEEE bits. It is the lossless
// accessor codecs use to copy values without conversion.
func (a *Attribute) Uint64(i int) uint64 {
	switch d := a.Data.(type) {
	case []int8:
		return uint64(d[i])
	case []uint8:
		return uint64(d[i])
	case []int16:
		return uint64(d[i])
	case []uint16:
		return uint64(d[i])
	case []int32:
		return uint64(d[i])
	case []uint32:
		return uint64(d[i])
	case []int64:
		return uint64(d[i])
	case []uint64:
		return d[i]
	case []float32:
		return uint64(math.Float32bits(d[i]))
	case []float64:
		return math.Float64bits(d[i])
	}
	panic("core: attribute " + a.Name + " has no data")
}

// SetUint64 stores raw bits v (as Uint64 returns them) at index i.
func (a *Attribute) SetUint64(i int, v uint64) {
	switch d := a.Data.(type) {
	case []int8:
		d[i] = int8(v)
	case []uint8:
		d[i] = uint8(v)
	case []int16:
		d[i] = int16(v)
	case []uint16:
		d[i] = uint16(v)
	case []int32:
		d[i] = int32(v)
	case []uint32:
		d[i] = uint32(v)
	case []int64:
		d[i] = int64(v)
	case []uint64:
		d[i] = v
	case []float32:
		d[i] = math.Float32frombits(uint32(v))
	case []float64:
		d[i] = math.Float64frombits(v)
	default:
		panic("core: attribute " + a.Name + " has no data")
	}
}

// SetFloat64 stores v at index i, converting to the column's type (integer
// types truncate toward zero; out-of-range values wrap as Go conversions do).
func (a *Attribute) SetFloat64(i int, v float64) {
	switch d := a.Data.(type) {
	case []int8:
		d[i] = int8(v)
	case []uint8:
		d[i] = uint8(v)
	case []int16:
		d[i] = int16(v)
	case []uint16:
		d[i] = uint16(v)
	case []int32:
		d[i] = int32(v)
	case []uint32:
		d[i] = uint32(v)
	case []int64:
		d[i] = int64(v)
	case []uint64:
		d[i] = uint64(v)
	case []float32:
		d[i] = float32(v)
	case []float64:
		d[i] = v
	default:
		panic("core: attribute " + a.Name + " has no data")
	}
}

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
	for i, n := 0, a.Len(); i < n; i++ {
		b.SetUint64(i, a.Uint64(i))
	}
	return b
}

// Select returns a new column holding the values at the given indices, in order.
func (a *Attribute) Select(idx []int) *Attribute {
	b := NewAttribute(a.Name, a.Type, len(idx))
	for k, i := range idx {
		b.SetUint64(k, a.Uint64(i))
	}
	return b
}

// appendFrom appends the n values of src (same Type) to a.
func (a *Attribute) appendFrom(src *Attribute) {
	switch d := a.Data.(type) {
	case []int8:
		a.Data = append(d, src.Data.([]int8)...)
	case []uint8:
		a.Data = append(d, src.Data.([]uint8)...)
	case []int16:
		a.Data = append(d, src.Data.([]int16)...)
	case []uint16:
		a.Data = append(d, src.Data.([]uint16)...)
	case []int32:
		a.Data = append(d, src.Data.([]int32)...)
	case []uint32:
		a.Data = append(d, src.Data.([]uint32)...)
	case []int64:
		a.Data = append(d, src.Data.([]int64)...)
	case []uint64:
		a.Data = append(d, src.Data.([]uint64)...)
	case []float32:
		a.Data = append(d, src.Data.([]float32)...)
	case []float64:
		a.Data = append(d, src.Data.([]float64)...)
	}
}
