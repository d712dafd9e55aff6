package las

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
)

// WriteOptions are a LAS writer's choices beyond the variant: PDAL's
// writers.las scale_x/y/z, offset_x/y/z, minor_version, dataformat_id and
// extra_dims (io/LasWriter.cpp of PDAL 2.9.2). The zero value, or nil,
// writes as Encode does.
type WriteOptions struct {
	// Scale and Offset of X, Y and Z: an axis not Set keeps the writer's
	// choice (the source's, else the one docs/las.md describes).
	Scale, Offset [3]Axis
	// Version, when not "", is the version to write, "1.0" to "1.4", in
	// place of the variant.
	Version string
	// PointFormat, when not nil, is the point data record format to write
	// (0-10; the version must hold it, and without Version it is raised to
	// the first that does). The cloud's native LAS fields the format lacks
	// are dropped, with a warning, unless ExtraDims or AllExtra names them.
	PointFormat *int
	// ExtraDims, when not nil, are the only columns written as Extra
	// Bytes besides the point format's fields, in this order and in these
	// types (PDAL's extra_dims "Name=type,..."); other columns are
	// dropped, with a warning. Nil writes every column the format lacks
	// (but native fields an explicit PointFormat drops).
	ExtraDims []ExtraDim
	// AllExtra writes every column the point format lacks as Extra Bytes,
	// native fields included (PDAL's extra_dims "all").
	AllExtra bool
}

// Axis is the scale or the offset of one axis as asked for: not Set, a
// Value, or PDAL's "auto" (Scaling::setAutoXForm: the offset is the middle
// of the points' range, the scale the one that spreads the farther end
// over the whole int32 range).
type Axis struct {
	Set   bool
	Auto  bool
	Value float64 // when Set and not Auto
}

// ExtraDim is a column to write as Extra Bytes, in a type.
type ExtraDim struct {
	Name string
	Type core.Type
}

// ParseAxes parses a scale or offset as pctk's --scale and --offset take
// it: "" (none set), one value or "auto" for all three axes, or three
// comma-separated ones, any of them empty (that axis not set). A scale
// (isScale) must not be 0; every value must be finite.
func ParseAxes(s string, isScale bool) ([3]Axis, error) {
	var a [3]Axis
	if strings.TrimSpace(s) == "" {
		return a, nil
	}
	parts := strings.Split(s, ",")
	switch len(parts) {
	case 1:
		parts = []string{parts[0], parts[0], parts[0]}
	case 3:
	default:
		return a, fmt.Errorf("%q: want one value or three (x,y,z), each a number or auto", s)
	}
	for k, p := range parts {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
		case strings.EqualFold(p, "auto"):
			a[k] = Axis{Set: true, Auto: true}
		default:
			v, err := strconv.ParseFloat(p, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return a, fmt.Errorf("%q: %q is neither a finite number nor auto", s, p)
			}
			if isScale && v == 0 {
				return a, fmt.Errorf("%q: a scale of 0 is invalid", s)
			}
			a[k] = Axis{Set: true, Value: v}
		}
	}
	return a, nil
}

// pdalTypes maps PDAL's type names (pdal/DimUtil.hpp, Dimension::type) to
// column types.
var pdalTypes = map[string]core.Type{
	"int8_t": core.Int8, "int8": core.Int8, "char": core.Int8,
	"int16_t": core.Int16, "int16": core.Int16, "short": core.Int16,
	"int32_t": core.Int32, "int32": core.Int32, "int": core.Int32,
	"int64_t": core.Int64, "int64": core.Int64, "long": core.Int64,
	"uint8_t": core.Uint8, "uint8": core.Uint8, "uchar": core.Uint8,
	"uint16_t": core.Uint16, "uint16": core.Uint16, "ushort": core.Uint16,
	"uint32_t": core.Uint32, "uint32": core.Uint32, "uint": core.Uint32,
	"uint64_t": core.Uint64, "uint64": core.Uint64, "ulong": core.Uint64,
	"float": core.Float32, "float32": core.Float32,
	"double": core.Float64, "float64": core.Float64,
}

// ParseExtraDims parses PDAL's extra_dims (io/private/las/Utils.cpp,
// las::parse): "all" alone, or entries "Name=type" with PDAL's type names
// (uint8, int32, float, double, ...; any case).
func ParseExtraDims(spec []string) (dims []ExtraDim, all bool, err error) {
	for _, s := range spec {
		if strings.TrimSpace(s) == "all" {
			all = true
			continue
		}
		name, typ, ok := strings.Cut(s, "=")
		name, typ = strings.TrimSpace(name), strings.TrimSpace(typ)
		if !ok || name == "" {
			return nil, false, fmt.Errorf("extra dimension %q: want Name=type", s)
		}
		t, ok := pdalTypes[strings.ToLower(typ)]
		if !ok {
			return nil, false, fmt.Errorf("extra dimension %q: unknown type %q (int8 ... uint64, float, double)", s, typ)
		}
		if slices.ContainsFunc(dims, func(d ExtraDim) bool { return d.Name == name }) {
			return nil, false, fmt.Errorf("extra dimension %s given twice", name)
		}
		dims = append(dims, ExtraDim{name, t})
	}
	if all && len(dims) > 0 {
		return nil, false, fmt.Errorf("extra dimensions: \"all\" stands alone")
	}
	if dims == nil && !all && len(spec) > 0 {
		return nil, false, fmt.Errorf("extra dimensions: none given")
	}
	return dims, all, nil
}

// IsZero reports whether o asks for nothing: Encode's choices.
func (o *WriteOptions) IsZero() bool {
	return o == nil || (o.Scale == [3]Axis{} && o.Offset == [3]Axis{} && o.Version == "" && o.PointFormat == nil && o.ExtraDims == nil && !o.AllExtra)
}

// NeedsBounds reports whether a scale or offset is "auto", which needs the
// bounds of all the points before the first is written: a streaming
// encoder refuses it.
func (o *WriteOptions) NeedsBounds() bool {
	if o == nil {
		return false
	}
	for k := range 3 {
		if o.Scale[k].Auto || o.Offset[k].Auto {
			return true
		}
	}
	return false
}

// fixed reports whether o sets every scale and offset, so that the
// writer's own choice plays no part.
func (o *WriteOptions) fixed() bool {
	if o == nil {
		return false
	}
	for k := range 3 {
		if !o.Scale[k].Set || !o.Offset[k].Set {
			return false
		}
	}
	return true
}

// apply returns scale and offset with the values o sets in place of
// theirs; auto ones take bounds b, and stay as they are with b nil (a
// cloud without points, or a choice already made from the bounds).
func (o *WriteOptions) apply(scale, offset [3]float64, b *core.Bounds) ([3]float64, [3]float64) {
	if o == nil {
		return scale, offset
	}
	for k := range 3 {
		switch off := o.Offset[k]; {
		case off.Auto && b != nil:
			offset[k] = 0.5*b.Min[k] + 0.5*b.Max[k]
		case off.Set && !off.Auto:
			offset[k] = off.Value
		}
		switch s := o.Scale[k]; {
		case s.Auto && b != nil:
			r := max(math.Abs(b.Max[k]-offset[k]), math.Abs(b.Min[k]-offset[k]))
			scale[k] = 1
			if r != 0 {
				scale[k] = r / math.MaxInt32
			}
		case s.Set && !s.Auto:
			scale[k] = s.Value
		}
	}
	return scale, offset
}

// minVersion returns the first LAS minor version that defines point format
// pf: formats 0 and 1 came with 1.0, 2 and 3 with 1.2, 4 and 5 with 1.3,
// 6 to 10 with 1.4.
func minVersion(pf int) uint8 {
	switch {
	case pf <= 1:
		return 0
	case pf <= 3:
		return 2
	case pf <= 5:
		return 3
	}
	return 4
}

// MinVersion returns the first LAS version that defines point format pf
// (0-10), "1.0" to "1.4".
func MinVersion(pf int) string { return "1." + string(rune('0'+minVersion(pf))) }

// nativeNames are the names of the fields of every point format.
var nativeNames = func() map[string]bool {
	m := fieldNames(nativeFields(5))
	for n := range fieldNames(nativeFields(10)) {
		m[n] = true
	}
	return m
}()
