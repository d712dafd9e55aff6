package las

import (
	"fmt"
	"strconv"

	"github.com/pctk/pctk/core"
)

// descriptorSize is the size of one Extra Bytes descriptor (LASF_Spec/4).
const descriptorSize = 192

// Byte offsets inside an Extra Bytes descriptor.
const (
	ebType    = 2
	ebOptions = 3
	ebName    = 4
	ebScale   = 112
	ebOffset  = 136
	ebDesc    = 160
)

// ExtraField describes bytes of a point record beyond its format's size:
// one Extra Bytes descriptor, or (Descriptor nil) one undescribed byte.
type ExtraField struct {
	// Descriptor is the 192-byte Extra Bytes descriptor as stored.
	Descriptor []byte
	// Columns are the attribute columns the field's values are read into:
	// one per element (the deprecated array types have 2 or 3, type 0 one
	// uint8 column per byte).
	Columns []string
}

// ebTypes maps Extra Bytes data types 1-10 to column types.
var ebTypes = [...]core.Type{core.Invalid, core.Uint8, core.Int8, core.Uint16, core.Int16, core.Uint32, core.Int32, core.Uint64, core.Int64, core.Float32, core.Float64}

// ebTypeCode returns the Extra Bytes data type (1-10) of column type t.
func ebTypeCode(t core.Type) byte {
	for i, u := range ebTypes {
		if i > 0 && u == t {
			return byte(i)
		}
	}
	return 0
}

// descriptorShape returns the element type, element count and byte size
// of a descriptor; t is Invalid (with count = size) for type 0 and for
// reserved types.
func descriptorShape(d []byte) (t core.Type, count, size int) {
	code := int(d[ebType])
	switch {
	case code == 0:
		n := int(d[ebOptions])
		return core.Invalid, n, n
	case code <= 30:
		t = ebTypes[(code-1)%10+1]
		count = (code-1)/10 + 1
		return t, count, count * t.Size()
	}
	return core.Invalid, 0, 0
}

// extraFields builds the fields of an extra field placed at record offset
// off, named by ef.Columns.
func (ef *ExtraField) fields(off int) []field {
	if ef.Descriptor == nil {
		return []field{rawField(ef.Columns[0], core.Uint8, off)}
	}
	d := ef.Descriptor
	t, count, _ := descriptorShape(d)
	if t == core.Invalid {
		fs := make([]field, count)
		for k := range fs {
			fs[k] = rawField(ef.Columns[k], core.Uint8, off+k)
		}
		return fs
	}
	opt := d[ebOptions]
	scaled := opt&(1<<3|1<<4) != 0
	fs := make([]field, count)
	for k := range fs {
		f := rawField(ef.Columns[k], t, off+k*t.Size())
		if scaled {
			f.kind, f.col, f.scale = kindScaled, core.Float64, 1
			if opt&(1<<3) != 0 {
				f.scale = f64(d[ebScale+8*k:])
			}
			if opt&(1<<4) != 0 {
				f.add = f64(d[ebOffset+8*k:])
			}
		}
		fs[k] = f
	}
	return fs
}

// size returns the number of record bytes the field takes.
func (ef *ExtraField) size() int {
	if ef.Descriptor == nil {
		return 1
	}
	_, _, n := descriptorShape(ef.Descriptor)
	return n
}

// ebRecord is one record that holds Extra Bytes descriptors: a VLR or an
// EVLR (LAS 1.4 R15 allows both), its name in messages ("Extra Bytes
// VLR") and the byte offset of its payload.
type ebRecord struct {
	name string
	data []byte
	off  int64
}

// parseExtraBytes decodes the descriptors of the Extra Bytes records, in
// file order, as one list, naming columns so that none collides with
// taken (which it extends). room is the number of bytes each record holds
// beyond its format. It returns the fields it could place and warnings.
func parseExtraBytes(recs []ebRecord, room int, taken map[string]bool) ([]ExtraField, []string, error) {
	var out []ExtraField
	var warns []string
	used := 0
	i := 0
	for _, r := range recs {
		if len(r.data)%descriptorSize != 0 {
			return nil, nil, formatErr(r.name+" length", r.off, "%d bytes is not a multiple of the %d-byte descriptor", len(r.data), descriptorSize)
		}
		for j := 0; j < len(r.data)/descriptorSize; j, i = j+1, i+1 {
			d := r.data[j*descriptorSize : (j+1)*descriptorSize]
			t, count, size := descriptorShape(d)
			at := r.off + int64(j*descriptorSize)
			if size == 0 {
				return nil, nil, formatErr(fmt.Sprintf("Extra Bytes descriptor %d data type", i), at+ebType, "type %d with no size (types 0 with options = size, 1-30)", d[ebType])
			}
			if used+size > room {
				return nil, nil, formatErr(fmt.Sprintf("Extra Bytes descriptor %d", i), at, "describes bytes %d to %d of the extra bytes, but each point record has only %d bytes beyond its format (point data record length)", used, used+size, room)
			}
			used += size
			name := cString(d[ebName : ebName+32])
			if name == "" {
				name = "ExtraBytes" + strconv.Itoa(i)
			}
			ef := ExtraField{Descriptor: d}
			for k := range count {
				n := name
				if count > 1 {
					n = fmt.Sprintf("%s[%d]", name, k)
				}
				for taken[n] {
					n += "_"
				}
				taken[n] = true
				ef.Columns = append(ef.Columns, n)
			}
			if t == core.Invalid && d[ebType] != 0 {
				warns = append(warns, fmt.Sprintf("Extra Bytes descriptor %d (%s) has reserved data type %d; its bytes are read as uint8", i, name, d[ebType]))
			}
			out = append(out, ef)
		}
	}
	return out, warns, nil
}

// descriptors returns the Extra Bytes descriptors of the file, in file
// order: those of every Extra Bytes VLR, then of every Extra Bytes EVLR.
func (info *Info) descriptors() []byte {
	var b []byte
	for _, vs := range [2][]VLR{info.VLRs, info.EVLRs} {
		for i := range vs {
			if vs[i].Is(userSpec, recExtraBytes) {
				b = append(b, vs[i].Data...)
			}
		}
	}
	return b
}

// undescribed returns one ExtraField per byte from index from to room-1 of
// the extra bytes, named ExtraByte<index>.
func undescribed(from, room int, taken map[string]bool) []ExtraField {
	var out []ExtraField
	for k := from; k < room; k++ {
		n := "ExtraByte" + strconv.Itoa(k)
		for taken[n] {
			n += "_"
		}
		taken[n] = true
		out = append(out, ExtraField{Columns: []string{n}})
	}
	return out
}

// newDescriptor returns an Extra Bytes descriptor for column a.
func newDescriptor(a *core.Attribute) ([]byte, error) {
	code := ebTypeCode(a.Type)
	if code == 0 {
		return nil, fmt.Errorf("las: attribute %s has type %v, which Extra Bytes cannot store", a.Name, a.Type)
	}
	if len(a.Name) > 32 {
		return nil, fmt.Errorf("las: attribute name %q is longer than the 32 bytes an Extra Bytes descriptor holds", a.Name)
	}
	d := make([]byte, descriptorSize)
	d[ebType] = code
	copy(d[ebName:ebName+32], a.Name)
	desc := a.Name
	if dim, ok := core.LookupDimension(a.Name); ok {
		desc = dim.Description
	}
	copy(d[ebDesc:ebDesc+32], desc)
	return d, nil
}

// undocumentedDescriptor describes one undocumented extra byte: data type
// 0 with the options field holding its size, 1.
func undocumentedDescriptor(name string) []byte {
	d := make([]byte, descriptorSize)
	d[ebOptions] = 1
	copy(d[ebName:ebName+32], name)
	copy(d[ebDesc:ebDesc+32], "undocumented extra byte")
	return d
}
