package ply

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
)

// The encodings a PLY header can name.
const (
	ASCII    = "ascii"
	BinaryLE = "binary_little_endian"
	BinaryBE = "binary_big_endian"
)

// Header is everything a PLY file says besides the vertex coordinates and
// scalar vertex properties. A decoded cloud carries it in
// Meta.Extra["ply"]; the encoder uses it to write the file back as it was:
// same encoding (by default), property names, types and order, and every
// other element. Header comments live in Meta.Comments.
type Header struct {
	// Encoding is ASCII, BinaryLE or BinaryBE.
	Encoding string
	// Version is the format version, "1.0".
	Version string
	// ObjInfo holds the obj_info lines, without the keyword.
	ObjInfo []string
	// Elements are the file's elements in order, vertex included.
	Elements []*Element
}

// Element is one element of a PLY header with, except for the vertex
// element, its data.
type Element struct {
	Name  string
	Count int64
	Props []Property
	// Data holds the element's records in a canonical encoding: values
	// little-endian in their declared types, each list as its count followed
	// by its items. For the vertex element it holds only the list
	// properties, and ListOffsets[i] is where those of vertex i begin
	// (ListOffsets has Count+1 entries then).
	Data        []byte
	ListOffsets []int
}

// Property is one property of an element.
type Property struct {
	// Name is the property's name in the file.
	Name string
	// Type is the value type as the file spells it ("float", "float32", ...).
	Type string
	// CountType is the type of a list's length; "" for a scalar property.
	CountType string
	// Attr is, for a scalar vertex property, the cloud column it is read
	// into: "X", "Y" or "Z" for coordinates, else an attribute name.
	Attr string
}

// IsList reports whether p is a list property.
func (p Property) IsList() bool { return p.CountType != "" }

const vertexName = "vertex"

// types maps every PLY type spelling to a storage type. int64 and uint64
// are not in the PLY specification; pctk reads them as an extension.
var types = map[string]core.Type{
	"char": core.Int8, "int8": core.Int8,
	"uchar": core.Uint8, "uint8": core.Uint8,
	"short": core.Int16, "int16": core.Int16,
	"ushort": core.Uint16, "uint16": core.Uint16,
	"int": core.Int32, "int32": core.Int32,
	"uint": core.Uint32, "uint32": core.Uint32,
	"float": core.Float32, "float32": core.Float32,
	"double": core.Float64, "float64": core.Float64,
	"int64": core.Int64, "uint64": core.Uint64,
}

// typeName is the spelling the encoder uses for a column of type t that did
// not come from a PLY file: the classic names every reader knows. 64-bit
// integers are narrowed (and checked) to 32 bits, since PLY has none.
func typeName(t core.Type) string {
	switch t {
	case core.Int8:
		return "char"
	case core.Uint8:
		return "uchar"
	case core.Int16:
		return "short"
	case core.Uint16:
		return "ushort"
	case core.Int32, core.Int64:
		return "int"
	case core.Uint32, core.Uint64:
		return "uint"
	case core.Float32:
		return "float"
	}
	return "double"
}

// toPDAL maps well-known PLY vertex property names to PDAL's dimension names.
var toPDAL = map[string]string{
	"red": core.DimRed, "green": core.DimGreen, "blue": core.DimBlue, "alpha": core.DimAlpha,
	"nx": core.DimNormalX, "ny": core.DimNormalY, "nz": core.DimNormalZ,
	"intensity": core.DimIntensity, "curvature": core.DimCurvature,
}

// fromPDAL is toPDAL reversed, for columns that did not come from a PLY file.
var fromPDAL = func() map[string]string {
	m := make(map[string]string, len(toPDAL))
	for k, v := range toPDAL {
		m[v] = k
	}
	return m
}()

var coordAttr = map[string]string{"x": core.DimX, "y": core.DimY, "z": core.DimZ}

// readHeader reads the header through "end_header".
func readHeader(r *codec.Reader) (*Header, []string, error) {
	line, err := r.ReadLine()
	if err != nil {
		return nil, nil, codec.ReadErr(codecName, r.Pos(), err, "reading magic")
	}
	if strings.TrimSpace(line) != "ply" {
		return nil, nil, codec.Errorf(codecName, codec.Pos{Line: 1}, "not a PLY file: first line is %.40q, want \"ply\"", line)
	}
	h := &Header{}
	var comments []string
	var el *Element
	names := map[string]bool{}
	for {
		pos := r.Pos()
		line, err := r.ReadLine()
		if err != nil {
			return nil, nil, codec.ReadErr(codecName, pos, err, "header ends before end_header")
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "format":
			if len(f) != 3 || h.Encoding != "" {
				return nil, nil, codec.Errorf(codecName, pos, "bad format line %.80q", line)
			}
			switch f[1] {
			case ASCII, BinaryLE, BinaryBE:
			default:
				return nil, nil, codec.Unsupportedf(codecName, pos, "encoding %.40q", f[1])
			}
			h.Encoding, h.Version = f[1], f[2]
		case "comment":
			comments = append(comments, textAfter(line, "comment"))
		case "obj_info":
			h.ObjInfo = append(h.ObjInfo, textAfter(line, "obj_info"))
		case "element":
			if len(f) != 3 {
				return nil, nil, codec.Errorf(codecName, pos, "bad element line %.80q", line)
			}
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || n < 0 {
				return nil, nil, codec.Errorf(codecName, pos, "element %.40s: bad count %.40q", f[1], f[2])
			}
			if names[f[1]] {
				return nil, nil, codec.Errorf(codecName, pos, "element %.40s declared twice", f[1])
			}
			names[f[1]] = true
			el = &Element{Name: f[1], Count: n}
			h.Elements = append(h.Elements, el)
		case "property":
			if el == nil {
				return nil, nil, codec.Errorf(codecName, pos, "property before any element")
			}
			p, err := parseProperty(f, pos)
			if err != nil {
				return nil, nil, err
			}
			for _, q := range el.Props {
				if q.Name == p.Name {
					return nil, nil, codec.Errorf(codecName, pos, "element %s: property %.40s declared twice", el.Name, p.Name)
				}
			}
			el.Props = append(el.Props, p)
		case "end_header":
			if h.Encoding == "" {
				return nil, nil, codec.Errorf(codecName, pos, "no format line before end_header")
			}
			if v := h.vertex(); v != nil {
				if v.Count > 0 && len(v.Props) == 0 {
					return nil, nil, codec.Errorf(codecName, pos, "vertex element has no properties")
				}
				nameVertexAttrs(v)
				if missing := missingCoords(v); v.Count > 0 && missing != "" {
					return nil, nil, codec.Errorf(codecName, pos, "vertex element has no %s property: vertices need x and y (a missing z reads as 0)", missing)
				}
			}
			return h, comments, nil
		default:
			// Some exporters (old Blender) write free text without the
			// comment keyword; keep it as a comment rather than fail.
			comments = append(comments, line)
		}
	}
}

func parseProperty(f []string, pos codec.Pos) (Property, error) {
	if len(f) >= 2 && f[1] == "list" {
		if len(f) != 5 {
			return Property{}, codec.Errorf(codecName, pos, "bad list property line %.80q", strings.Join(f, " "))
		}
		ct, ok := types[f[2]]
		if !ok {
			return Property{}, codec.Unsupportedf(codecName, pos, "property type %.40q", f[2])
		}
		if ct.IsFloat() {
			return Property{}, codec.Errorf(codecName, pos, "list %.40s: count type %s is not an integer type", f[4], f[2])
		}
		if _, ok := types[f[3]]; !ok {
			return Property{}, codec.Unsupportedf(codecName, pos, "property type %.40q", f[3])
		}
		return Property{Name: f[4], CountType: f[2], Type: f[3]}, nil
	}
	if len(f) != 3 {
		return Property{}, codec.Errorf(codecName, pos, "bad property line %.80q", strings.Join(f, " "))
	}
	if _, ok := types[f[1]]; !ok {
		return Property{}, codec.Unsupportedf(codecName, pos, "property type %.40q", f[1])
	}
	return Property{Name: f[2], Type: f[1]}, nil
}

// textAfter returns line after keyword and one separating blank.
func textAfter(line, keyword string) string {
	s := strings.TrimPrefix(line, keyword)
	if len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

// nameVertexAttrs chooses the cloud column of each scalar vertex property:
// x, y, z are the coordinates, well-known names become PDAL's, the rest keep
// their own. A PDAL name already taken by another property is not used.
func nameVertexAttrs(v *Element) {
	taken := map[string]bool{}
	for _, p := range v.Props {
		taken[p.Name] = true
	}
	for i := range v.Props {
		p := &v.Props[i]
		if p.IsList() {
			continue
		}
		if a, ok := coordAttr[p.Name]; ok {
			p.Attr = a
			continue
		}
		p.Attr = p.Name
		if a, ok := toPDAL[p.Name]; ok && !taken[a] {
			p.Attr = a
			taken[a] = true
		}
	}
}

// missingCoords names the plane coordinates v lacks as scalar properties
// ("y", "x, y"), or returns "". Without z a vertex is a point of the plane
// z = 0, as PDAL writes 2-D data; without x or y it is no point at all.
func missingCoords(v *Element) string {
	var missing []string
	for _, c := range []string{"x", "y"} {
		if !slices.ContainsFunc(v.Props, func(p Property) bool { return p.Name == c && !p.IsList() }) {
			missing = append(missing, c)
		}
	}
	return strings.Join(missing, ", ")
}

func (h *Header) vertex() *Element {
	for _, e := range h.Elements {
		if e.Name == vertexName {
			return e
		}
	}
	return nil
}

// minRecord is the fewest bytes a record of e can take in encoding enc.
func (e *Element) minRecord(enc string) int64 {
	var n int64
	for _, p := range e.Props {
		switch {
		case enc == ASCII:
			n++
		case p.IsList():
			n += int64(types[p.CountType].Size())
		default:
			n += int64(types[p.Type].Size())
		}
	}
	return n
}

// hasLists reports whether e has a list property.
func (e *Element) hasLists() bool {
	for _, p := range e.Props {
		if p.IsList() {
			return true
		}
	}
	return false
}
