package las

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
)

// formatSizes are the record sizes of point data formats 0 to 10.
var formatSizes = [...]int{20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67}

// Names of the waveform packet fields of point formats 4, 5, 9 and 10 (PDAL's names).
const (
	DimWavePacketDescriptorIndex   = "WavePacketDescriptorIndex"
	DimWaveformDataOffset          = "WaveformDataOffset"
	DimWaveformPacketSize          = "WaveformPacketSize"
	DimReturnPointWaveformLocation = "ReturnPointWaveformLocation"
	DimWaveformXt                  = "WaveformXt"
	DimWaveformYt                  = "WaveformYt"
	DimWaveformZt                  = "WaveformZt"
)

// scanAngleStep is the unit of the scaled scan angle of formats 6-10, in degrees.
const scanAngleStep = 0.006

type fieldKind uint8

const (
	kindRaw     fieldKind = iota // little-endian value of type raw at off
	kindBits                     // (b[off] >> shift) & mask, as uint8
	kindAngle8                   // int8 degrees, as float32
	kindAngle16                  // int16 in steps of 0.006°, as float32
	kindScaled                   // value of type raw times scale plus offset, as float64
)

// field maps one attribute column onto bytes of the point record.
type field struct {
	name        string
	col         core.Type // type of the attribute column
	kind        fieldKind
	off         int       // byte offset in the record
	raw         core.Type // stored type (kindRaw, kindScaled)
	shift, mask uint8     // kindBits
	scale, add  float64   // kindScaled
}

func rawField(name string, t core.Type, off int) field {
	return field{name: name, col: t, kind: kindRaw, off: off, raw: t}
}

func bitsField(name string, off int, shift, mask uint8) field {
	return field{name: name, col: core.Uint8, kind: kindBits, off: off, shift: shift, mask: mask}
}

// nativeFields lists the fields of point data format pf after X, Y and Z,
// in record order.
func nativeFields(pf int) []field {
	fs := []field{rawField(core.DimIntensity, core.Uint16, 12)}
	off := 0
	if pf <= 5 {
		fs = append(fs,
			bitsField(core.DimReturnNumber, 14, 0, 7),
			bitsField(core.DimNumberOfReturns, 14, 3, 7),
			bitsField(core.DimScanDirectionFlag, 14, 6, 1),
			bitsField(core.DimEdgeOfFlightLine, 14, 7, 1),
			bitsField(core.DimClassification, 15, 0, 31),
			bitsField(core.DimSynthetic, 15, 5, 1),
			bitsField(core.DimKeyPoint, 15, 6, 1),
			bitsField(core.DimWithheld, 15, 7, 1),
			field{name: core.DimScanAngleRank, col: core.Float32, kind: kindAngle8, off: 16},
			rawField(core.DimUserData, core.Uint8, 17),
			rawField(core.DimPointSourceID, core.Uint16, 18),
		)
		off = 20
		if pf == 1 || pf == 3 || pf == 4 || pf == 5 {
			fs = append(fs, rawField(core.DimGpsTime, core.Float64, off))
			off += 8
		}
		if pf == 2 || pf == 3 || pf == 5 {
			fs = append(fs, rgbFields(off)...)
			off += 6
		}
		if pf == 4 || pf == 5 {
			fs = append(fs, waveFields(off)...)
		}
		return fs
	}
	fs = append(fs,
		bitsField(core.DimReturnNumber, 14, 0, 15),
		bitsField(core.DimNumberOfReturns, 14, 4, 15),
		bitsField(core.DimSynthetic, 15, 0, 1),
		bitsField(core.DimKeyPoint, 15, 1, 1),
		bitsField(core.DimWithheld, 15, 2, 1),
		bitsField(core.DimOverlap, 15, 3, 1),
		bitsField(core.DimScanChannel, 15, 4, 3),
		bitsField(core.DimScanDirectionFlag, 15, 6, 1),
		bitsField(core.DimEdgeOfFlightLine, 15, 7, 1),
		rawField(core.DimClassification, core.Uint8, 16),
		rawField(core.DimUserData, core.Uint8, 17),
		field{name: core.DimScanAngleRank, col: core.Float32, kind: kindAngle16, off: 18},
		rawField(core.DimPointSourceID, core.Uint16, 20),
		rawField(core.DimGpsTime, core.Float64, 22),
	)
	off = 30
	if pf == 7 || pf == 8 || pf == 10 {
		fs = append(fs, rgbFields(off)...)
		off += 6
	}
	if pf == 8 || pf == 10 {
		fs = append(fs, rawField(core.DimInfrared, core.Uint16, off))
		off += 2
	}
	if pf == 9 || pf == 10 {
		fs = append(fs, waveFields(off)...)
	}
	return fs
}

func rgbFields(off int) []field {
	return []field{
		rawField(core.DimRed, core.Uint16, off),
		rawField(core.DimGreen, core.Uint16, off+2),
		rawField(core.DimBlue, core.Uint16, off+4),
	}
}

func waveFields(off int) []field {
	return []field{
		rawField(DimWavePacketDescriptorIndex, core.Uint8, off),
		rawField(DimWaveformDataOffset, core.Uint64, off+1),
		rawField(DimWaveformPacketSize, core.Uint32, off+9),
		rawField(DimReturnPointWaveformLocation, core.Float32, off+13),
		rawField(DimWaveformXt, core.Float32, off+17),
		rawField(DimWaveformYt, core.Float32, off+21),
		rawField(DimWaveformZt, core.Float32, off+25),
	}
}

// decode fills column a (of this field's type, one value per record) from
// the records in b, each rl bytes long.
func (f *field) decode(a *core.Attribute, b []byte, rl int) {
	switch f.kind {
	case kindBits:
		d := a.Data.([]uint8)
		for i := range d {
			d[i] = b[i*rl+f.off] >> f.shift & f.mask
		}
	case kindAngle8:
		d := a.Data.([]float32)
		for i := range d {
			d[i] = float32(int8(b[i*rl+f.off]))
		}
	case kindAngle16:
		d := a.Data.([]float32)
		for i := range d {
			d[i] = float32(float64(int16(le.Uint16(b[i*rl+f.off:]))) * scanAngleStep)
		}
	case kindScaled:
		d := a.Data.([]float64)
		codec.GetColumn(d, 0, f.raw, b, f.off, rl, len(d), le)
		for i, v := range d {
			d[i] = v*f.scale + f.add
		}
	case kindRaw:
		codec.GetColumn(a, 0, f.raw, b, f.off, rl, a.Len(), le)
	}
}

// typeRange returns the smallest and largest value of integer type t.
func typeRange(t core.Type) (lo, hi float64) {
	switch t {
	case core.Uint8:
		return 0, math.MaxUint8
	case core.Int8:
		return math.MinInt8, math.MaxInt8
	case core.Uint16:
		return 0, math.MaxUint16
	case core.Int16:
		return math.MinInt16, math.MaxInt16
	case core.Uint32:
		return 0, math.MaxUint32
	case core.Int32:
		return math.MinInt32, math.MaxInt32
	case core.Uint64:
		return 0, math.MaxUint64
	case core.Int64:
		return math.MinInt64, math.MaxInt64
	}
	return math.Inf(-1), math.Inf(1)
}

// putRaw stores v as stored type t in b; integer types round to nearest.
// It reports false when v is NaN (for an integer type) or out of range.
func putRaw(t core.Type, b []byte, v float64) bool {
	switch t {
	case core.Float32:
		le.PutUint32(b, math.Float32bits(float32(v)))
		return true
	case core.Float64:
		le.PutUint64(b, math.Float64bits(v))
		return true
	}
	v = math.Round(v)
	lo, hi := typeRange(t)
	if !(v >= lo && v <= hi) {
		return false
	}
	switch t {
	case core.Uint8:
		b[0] = uint8(v)
	case core.Int8:
		b[0] = uint8(int8(v))
	case core.Uint16:
		le.PutUint16(b, uint16(v))
	case core.Int16:
		le.PutUint16(b, uint16(int16(v)))
	case core.Uint32:
		le.PutUint32(b, uint32(v))
	case core.Int32:
		le.PutUint32(b, uint32(int32(v)))
	case core.Uint64:
		le.PutUint64(b, uint64(v))
	case core.Int64:
		le.PutUint64(b, uint64(int64(v)))
	}
	return true
}

// encode stores the values of column a into the records in b (each rl
// bytes, zeroed where this field lies). first is the index of the chunk's
// first point in the file, for error messages.
func (f *field) encode(b []byte, rl int, a *core.Attribute, first int64) error {
	n := a.Len()
	if f.kind == kindRaw && a.Type == f.raw {
		codec.PutColumn(a, 0, f.raw, b, f.off, rl, n, le)
		return nil
	}
	if f.kind == kindBits {
		if d, ok := a.Data.([]uint8); ok {
			for i, v := range d {
				if v > f.mask {
					return f.rangeErr(first+int64(i), float64(v))
				}
				b[i*rl+f.off] |= v << f.shift
			}
			return nil
		}
	}
	if f.kind == kindAngle8 {
		if d, ok := a.Data.([]float32); ok { // as read from LAS
			for i, v := range d {
				r := math.Round(float64(v))
				if !(r >= math.MinInt8 && r <= math.MaxInt8) {
					return f.rangeErr(first+int64(i), float64(v))
				}
				b[i*rl+f.off] = uint8(int8(r))
			}
			return nil
		}
	}
	for i := range n {
		v := a.Float64(i)
		ok := true
		p := b[i*rl+f.off:]
		switch f.kind {
		case kindBits:
			v = math.Round(v)
			ok = v >= 0 && v <= float64(f.mask)
			if ok {
				p[0] |= uint8(v) << f.shift
			}
		case kindAngle8:
			ok = putRaw(core.Int8, p, v)
		case kindAngle16:
			ok = putRaw(core.Int16, p, v/scanAngleStep)
		case kindScaled:
			ok = putRaw(f.raw, p, (v-f.add)/f.scale)
		case kindRaw:
			if a.Type == core.Int64 || a.Type == core.Uint64 {
				ok = putInt64(f.raw, p, a, i)
			} else {
				ok = putRaw(f.raw, p, v)
			}
		}
		if !ok {
			return f.rangeErr(first+int64(i), v)
		}
	}
	return nil
}

// putInt64 stores a 64-bit integer value exactly when it fits f.raw.
func putInt64(t core.Type, p []byte, a *core.Attribute, i int) bool {
	if t.IsFloat() {
		return putRaw(t, p, a.Float64(i))
	}
	if a.Type == core.Uint64 {
		u := a.Uint64(i)
		if t == core.Uint64 {
			le.PutUint64(p, u)
			return true
		}
		if u > math.MaxInt64 {
			return false
		}
	}
	v := a.Int64(i)
	if t == core.Int64 {
		le.PutUint64(p, uint64(v))
		return true
	}
	if t == core.Uint64 {
		if v < 0 {
			return false
		}
		le.PutUint64(p, uint64(v))
		return true
	}
	return putRaw(t, p, float64(v))
}

func (f *field) rangeErr(i int64, v float64) error {
	switch f.kind {
	case kindBits:
		return fmt.Errorf("las: point %d: %s = %g does not fit this point format (0 to %d)", i, f.name, v, f.mask)
	case kindScaled:
		return fmt.Errorf("las: point %d: %s = %g does not fit extra bytes type %v with scale %g and offset %g", i, f.name, v, f.raw, f.scale, f.add)
	case kindAngle8, kindAngle16:
		return fmt.Errorf("las: point %d: %s = %g degrees does not fit this point format", i, f.name, v)
	}
	return fmt.Errorf("las: point %d: %s = %g does not fit LAS type %v", i, f.name, v, f.raw)
}
