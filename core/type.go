package core

import (
	"fmt"
	"math"
)

// Type is the storage type of an attribute column.
type Type uint8

// The attribute storage types. Their order is stable and used in serialized
// metadata, so new types are only ever appended.
const (
	Invalid Type = iota
	Int8
	Uint8
	Int16
	Uint16
	Int32
	Uint32
	Int64
	Uint64
	Float32
	Float64
)

var typeNames = [...]string{"invalid", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"}
var typeSizes = [...]int{0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8}

// String returns the Go-style name of t ("uint16", "float64", ...).
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Size returns the size of one value of type t in bytes, 0 for Invalid.
func (t Type) Size() int {
	if int(t) < len(typeSizes) {
		return typeSizes[t]
	}
	return 0
}

// Valid reports whether t is one of the defined storage types.
func (t Type) Valid() bool { return t > Invalid && int(t) < len(typeNames) }

// IsFloat reports whether t is Float32 or Float64.
func (t Type) IsFloat() bool { return t == Float32 || t == Float64 }

// IsSigned reports whether t is a signed integer or a float type.
func (t Type) IsSigned() bool {
	switch t {
	case Int8, Int16, Int32, Int64, Float32, Float64:
		return true
	}
	return false
}

// Limits returns the least and greatest values of type t, as float64
// (the least finite and greatest finite for floats): the range a value
// must lie in to fit.
func (t Type) Limits() (lo, hi float64) {
	if t.IsFloat() {
		hi = math.MaxFloat64
		if t == Float32 {
			hi = math.MaxFloat32
		}
		return -hi, hi
	}
	bits := 8 * t.Size()
	if t.IsSigned() {
		return -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1) - 1
	}
	return 0, math.Ldexp(1, bits) - 1
}

// ParseType returns the Type named s, as printed by Type.String.
func ParseType(s string) (Type, error) {
	for i, n := range typeNames {
		if i > 0 && n == s {
			return Type(i), nil
		}
	}
	return Invalid, fmt.Errorf("core: unknown attribute type %q", s)
}
