package ply

import (
	"encoding/binary"
	"math"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
)

// binaryField writes one vertex property: get reads point j's value as
// raw bits (specialised on the column's Go type, no per-value type switch)
// and put stores them at off in the record. Values written narrower than
// their type were checked to fit by Write (checkFits).
type binaryField struct {
	off  int
	size int
	get  func(j int) uint64
	put  func(b []byte, v uint64)
}

// writeBinary is Write for binary encodings without list properties: it
// encodes blocks of whole records on all cores and writes them in order
// (codec.WriteRecords), producing exactly the bytes of the value-by-value
// path.
func (e *Encoder) writeBinary(c *core.Cloud, s *binarySink) error {
	coords := [3][]float64{c.X, c.Y, c.Z}
	fields := make([]binaryField, len(e.cols))
	rec := 0
	for i, col := range e.cols {
		f := binaryField{off: rec, size: col.t.Size(), put: storeFunc(col.t.Size(), s.order)}
		if col.coord >= 0 {
			f.get = coordBits(col.t, coords[col.coord])
		} else {
			f.get = attrBits(c.Attrs[col.attr])
		}
		fields[i] = f
		rec += f.size
	}
	if err := codec.WriteRecords(s.w, c.Len(), rec, func(buf []byte, lo, hi int) error {
		encodeBlock(fields, rec, lo, hi, buf)
		return nil
	}); err != nil {
		e.err = err
		return err
	}
	e.written += int64(c.Len())
	return nil
}

// encodeBlock fills buf with the records of vertices [a, b).
func encodeBlock(fields []binaryField, rec, a, b int, buf []byte) {
	for _, f := range fields {
		at := f.off
		for j := a; j < b; j++ {
			f.put(buf[at:at+f.size], f.get(j))
			at += rec
		}
	}
}

// storeFunc returns a function storing size bytes of v in order.
func storeFunc(size int, order binary.ByteOrder) func([]byte, uint64) {
	switch size {
	case 1:
		return func(b []byte, v uint64) { b[0] = byte(v) }
	case 2:
		return func(b []byte, v uint64) { order.PutUint16(b, uint16(v)) }
	case 4:
		return func(b []byte, v uint64) { order.PutUint32(b, uint32(v)) }
	}
	return func(b []byte, v uint64) { order.PutUint64(b, v) }
}

// coordBits reads coordinate j converted to type t, as codec.FromFloat64.
func coordBits(t core.Type, x []float64) func(int) uint64 {
	switch t {
	case core.Float32:
		return func(j int) uint64 { return uint64(math.Float32bits(float32(x[j]))) }
	case core.Float64:
		return func(j int) uint64 { return math.Float64bits(x[j]) }
	}
	return func(j int) uint64 { return codec.FromFloat64(t, x[j]) }
}

// attrBits reads value j of a as raw bits, as Attribute.Uint64.
func attrBits(a *core.Attribute) func(int) uint64 {
	switch d := a.Data.(type) {
	case []int8:
		return func(j int) uint64 { return uint64(d[j]) }
	case []uint8:
		return func(j int) uint64 { return uint64(d[j]) }
	case []int16:
		return func(j int) uint64 { return uint64(d[j]) }
	case []uint16:
		return func(j int) uint64 { return uint64(d[j]) }
	case []int32:
		return func(j int) uint64 { return uint64(d[j]) }
	case []uint32:
		return func(j int) uint64 { return uint64(d[j]) }
	case []int64:
		return func(j int) uint64 { return uint64(d[j]) }
	case []uint64:
		return func(j int) uint64 { return d[j] }
	case []float32:
		return func(j int) uint64 { return uint64(math.Float32bits(d[j])) }
	case []float64:
		return func(j int) uint64 { return math.Float64bits(d[j]) }
	}
	return a.Uint64
}
