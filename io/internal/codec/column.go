package codec

import (
	"encoding/binary"
	"math"

	"github.com/pctk/pctk/core"
)

// GetColumn decodes a column of n values of type t from records laid out
// every stride bytes, the first at buf[off:], into dst at index at. dst is
// either a []float64 of coordinates (values are converted) or an attribute
// of type t (values are copied). Little-endian data takes typed loops; other
// data goes value by value through LoadBits.
func GetColumn(dst any, at int, t core.Type, buf []byte, off, stride, n int, order binary.ByteOrder) {
	le := order == binary.ByteOrder(binary.LittleEndian)
	switch d := dst.(type) {
	case []float64:
		if le && t == core.Float32 {
			for j := range n {
				d[at+j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(buf[off+j*stride:])))
			}
			return
		}
		if le && t == core.Float64 {
			for j := range n {
				d[at+j] = math.Float64frombits(binary.LittleEndian.Uint64(buf[off+j*stride:]))
			}
			return
		}
		for j := range n {
			d[at+j] = ToFloat64(t, LoadBits(buf[off+j*stride:], t, order))
		}
		return
	case *core.Attribute:
		if le && getLE(d.Data, at, buf, off, stride, n) {
			return
		}
		for j := range n {
			d.SetUint64(at+j, LoadBits(buf[off+j*stride:], t, order))
		}
	}
}

// getLE is GetColumn's typed loops for little-endian attributes; it
// reports false for a type it has no loop for.
func getLE(data any, at int, buf []byte, off, stride, n int) bool {
	le := binary.LittleEndian
	switch d := data.(type) {
	case []uint8:
		for j := range n {
			d[at+j] = buf[off+j*stride]
		}
	case []int8:
		for j := range n {
			d[at+j] = int8(buf[off+j*stride])
		}
	case []uint16:
		for j := range n {
			d[at+j] = le.Uint16(buf[off+j*stride:])
		}
	case []int16:
		for j := range n {
			d[at+j] = int16(le.Uint16(buf[off+j*stride:]))
		}
	case []uint32:
		for j := range n {
			d[at+j] = le.Uint32(buf[off+j*stride:])
		}
	case []int32:
		for j := range n {
			d[at+j] = int32(le.Uint32(buf[off+j*stride:]))
		}
	case []uint64:
		for j := range n {
			d[at+j] = le.Uint64(buf[off+j*stride:])
		}
	case []int64:
		for j := range n {
			d[at+j] = int64(le.Uint64(buf[off+j*stride:]))
		}
	case []float32:
		for j := range n {
			d[at+j] = math.Float32frombits(le.Uint32(buf[off+j*stride:]))
		}
	case []float64:
		for j := range n {
			d[at+j] = math.Float64frombits(le.Uint64(buf[off+j*stride:]))
		}
	default:
		return false
	}
	return true
}

// PutColumn encodes n values of src, from index at, as type t (src's own
// type: the values are copied bit for bit) into records laid out every
// stride bytes from off in buf: the twin of GetColumn.
func PutColumn(src *core.Attribute, at int, t core.Type, buf []byte, off, stride, n int, order binary.ByteOrder) {
	if order == binary.ByteOrder(binary.LittleEndian) && putLE(src.Data, at, buf, off, stride, n) {
		return
	}
	for j := range n {
		StoreBits(buf[off+j*stride:], t, order, src.Uint64(at+j))
	}
}

// putLE is PutColumn's typed loops for little-endian attributes; it
// reports false for a type it has no loop for.
func putLE(data any, at int, buf []byte, off, stride, n int) bool {
	le := binary.LittleEndian
	switch d := data.(type) {
	case []uint8:
		for j, v := range d[at : at+n] {
			buf[off+j*stride] = v
		}
	case []int8:
		for j, v := range d[at : at+n] {
			buf[off+j*stride] = uint8(v)
		}
	case []uint16:
		for j, v := range d[at : at+n] {
			le.PutUint16(buf[off+j*stride:], v)
		}
	case []int16:
		for j, v := range d[at : at+n] {
			le.PutUint16(buf[off+j*stride:], uint16(v))
		}
	case []uint32:
		for j, v := range d[at : at+n] {
			le.PutUint32(buf[off+j*stride:], v)
		}
	case []int32:
		for j, v := range d[at : at+n] {
			le.PutUint32(buf[off+j*stride:], uint32(v))
		}
	case []uint64:
		for j, v := range d[at : at+n] {
			le.PutUint64(buf[off+j*stride:], v)
		}
	case []int64:
		for j, v := range d[at : at+n] {
			le.PutUint64(buf[off+j*stride:], uint64(v))
		}
	case []float32:
		for j, v := range d[at : at+n] {
			le.PutUint32(buf[off+j*stride:], math.Float32bits(v))
		}
	case []float64:
		for j, v := range d[at : at+n] {
			le.PutUint64(buf[off+j*stride:], math.Float64bits(v))
		}
	default:
		return false
	}
	return true
}
