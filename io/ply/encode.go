package ply

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

// column is how one vertex property is written.
type column struct {
	prop  Property
	t     core.Type
	coord int // 0, 1, 2 for x, y, z; -1 otherwise
	attr  int // index into the schema; -1 for coordinates and lists
}

// Encoder writes a PLY file in chunks of vertices. Its header, elements
// other than vertex, property names, types and order come from the
// Meta.Extra["ply"] of the header it was made with, when there is one.
type Encoder struct {
	w       *bufio.Writer
	sink    sink
	schema  []*core.Attribute
	cols    []column
	lists   *Element // source vertex element whose list data is written
	after   []*Element
	count   int64
	written int64
	err     error
	fromPLY bool // the cloud came from PLY: coordinates keep their declared types
	check32 bool // float coordinates were chosen from the source's note: check them
}

// vertexLinked names elements whose records index vertices; they are
// dropped when the number of vertices changed, since their indices would
// no longer point at the right vertices.
var vertexLinked = map[string]bool{"face": true, "edge": true, "tristrips": true, "range_grid": true}

// NewEncoder writes the header for a cloud described by h, and any elements
// that precede the vertex element, to w. variant is "", "ascii", "binary" or
// "binary-be"; "" keeps the encoding of the source PLY file, or picks
// binary little-endian for a cloud from elsewhere.
//
// Coordinates of a cloud from another format are written as float when its
// decoder noted float32 coordinates (codec.CoordsKey; Write then fails on
// a coordinate that is not a float32 value rather than round it), else as
// double.
func NewEncoder(w io.Writer, h *pcio.Header, variant string) (*Encoder, error) {
	if codec.SourceFloat32(&h.Meta) {
		e, err := newEncoder(w, h, variant, "float")
		if e != nil {
			e.check32 = !e.fromPLY
		}
		return e, err
	}
	return newEncoder(w, h, variant, "double")
}

// newEncoder is NewEncoder with the type of coordinates for a cloud that
// did not come from PLY.
func newEncoder(w io.Writer, h *pcio.Header, variant, coordType string) (*Encoder, error) {
	src, _ := h.Meta.Extra[codecName].(*Header)
	if src != nil && src.Encoding == "" {
		src = nil
	}
	srcEnc := ""
	if src != nil {
		srcEnc = src.Encoding
	}
	enc, err := codec.Variant(codecName, variant, srcEnc, BinaryLE, variants, []string{ASCII, BinaryLE, BinaryBE})
	if err != nil {
		return nil, err
	}
	e := &Encoder{w: bufio.NewWriterSize(w, 64<<10), schema: h.Schema, count: h.Count}
	switch enc {
	case ASCII:
		e.sink = &asciiSink{w: e.w, first: true}
	case BinaryLE:
		e.sink = &binarySink{w: e.w, order: binary.LittleEndian}
	default:
		e.sink = &binarySink{w: e.w, order: binary.BigEndian}
	}
	var sv *Element
	if src != nil {
		sv = src.vertex()
	}
	vertex := &Element{Name: vertexName, Count: h.Count}
	e.fromPLY = sv != nil
	e.layout(sv, coordType)
	for _, c := range e.cols {
		vertex.Props = append(vertex.Props, c.prop)
	}
	var elements []*Element
	if src != nil {
		for _, el := range src.Elements {
			switch {
			case el == sv:
				elements = append(elements, vertex)
			case sv != nil && sv.Count != h.Count && vertexLinked[el.Name]:
			default:
				elements = append(elements, el)
			}
		}
	}
	if sv == nil && (h.Count > 0 || src == nil) {
		elements = append([]*Element{vertex}, elements...)
	}
	version := "1.0"
	if src != nil {
		version = src.Version
	}
	var hb strings.Builder
	fmt.Fprintf(&hb, "ply\nformat %s %s\n", enc, version)
	for _, c := range append(slices.Clip(h.Meta.Comments), codec.CRSComments(h.Meta.CRS)...) {
		for _, l := range strings.Split(c, "\n") {
			hb.WriteString("comment " + l + "\n")
		}
	}
	if src != nil {
		for _, o := range src.ObjInfo {
			hb.WriteString("obj_info " + o + "\n")
		}
	}
	for _, el := range elements {
		fmt.Fprintf(&hb, "element %s %d\n", el.Name, el.Count)
		for _, p := range el.Props {
			if p.IsList() {
				fmt.Fprintf(&hb, "property list %s %s %s\n", p.CountType, p.Type, p.Name)
			} else {
				fmt.Fprintf(&hb, "property %s %s\n", p.Type, p.Name)
			}
		}
	}
	hb.WriteString("end_header\n")
	e.w.WriteString(hb.String())
	for i, el := range elements {
		if el == vertex {
			e.after = elements[i+1:]
			return e, nil
		}
		if err := e.writeElement(el); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// layout decides the vertex properties: those of the source vertex element
// sv, in order, whose column still exists (with the column's type if it
// changed), then every other column under its PLY name.
func (e *Encoder) layout(sv *Element, coordType string) {
	used := make([]bool, len(e.schema))
	names := map[string]bool{}
	find := func(name string) int {
		for i, a := range e.schema {
			if a.Name == name && !used[i] {
				return i
			}
		}
		return -1
	}
	add := func(c column) {
		e.cols = append(e.cols, c)
		names[c.prop.Name] = true
	}
	if sv != nil {
		if sv.hasLists() && sv.Count == e.count {
			e.lists = sv
		}
		for _, p := range sv.Props {
			switch {
			case p.IsList():
				if e.lists != nil {
					add(column{prop: p, coord: -1, attr: -1})
				}
			case isCoord(p.Attr):
				add(column{prop: p, t: types[p.Type], coord: int(p.Attr[0] - 'X'), attr: -1})
			default:
				i := find(p.Attr)
				if i < 0 {
					continue
				}
				used[i] = true
				if a := e.schema[i]; types[p.Type] != a.Type {
					p.Type = typeName(a.Type)
				}
				add(column{prop: p, t: types[p.Type], coord: -1, attr: i})
			}
		}
	} else {
		for k, n := range []string{"x", "y", "z"} {
			add(column{prop: Property{Name: n, Type: coordType, Attr: string(rune('X' + k))}, t: types[coordType], coord: k, attr: -1})
		}
	}
	for i, a := range e.schema {
		if used[i] {
			continue
		}
		name := codec.FieldName(a.Name)
		if n, ok := fromPDAL[name]; ok {
			name = n
		}
		for k := 1; names[name]; k++ {
			name = fmt.Sprintf("%s_%d", codec.FieldName(a.Name), k)
		}
		tn := typeName(a.Type)
		add(column{prop: Property{Name: name, Type: tn, Attr: a.Name}, t: types[tn], coord: -1, attr: i})
	}
}

func (e *Encoder) writeElement(el *Element) error {
	if len(el.Props) == 0 {
		return nil
	}
	src := &blobSource{b: el.Data}
	for range el.Count {
		if err := copyRecord(src, e.sink, el); err != nil {
			return fmt.Errorf("ply: element %s: %w", el.Name, err)
		}
	}
	return nil
}

// Write appends the vertices of c, whose attributes must be those of the
// header's schema, in order.
func (e *Encoder) Write(c *core.Cloud) error {
	if e.err != nil {
		return e.err
	}
	if err := codec.CheckWrite(codecName, c, e.schema, e.check32, e.written, e.count, "vertices"); err != nil {
		e.err = err
		return err
	}
	if err := e.checkFits(c); err != nil {
		e.err = err
		return err
	}
	if s, ok := e.sink.(*binarySink); ok && e.lists == nil {
		return e.writeBinary(c, s)
	}
	return e.writeValues(c)
}

// writeValues writes the vertices of c as ascii lines (formatted in
// parallel) or value by value through the sink (list properties).
func (e *Encoder) writeValues(c *core.Cloud) error {
	coords := [3][]float64{c.X, c.Y, c.Z}
	if _, ok := e.sink.(*asciiSink); ok && e.lists == nil {
		// Lines formatted in parallel; a write error sticks in e.w and
		// comes out of Close.
		codec.WriteLines(e.w, c.Len(), func(b []byte, j int) []byte {
			for i, col := range e.cols {
				if i > 0 {
					b = append(b, ' ')
				}
				if col.coord >= 0 {
					b = codec.AppendText(b, col.t, codec.FromFloat64(col.t, coords[col.coord][j]))
				} else {
					b = codec.AppendText(b, col.t, c.Attrs[col.attr].Uint64(j))
				}
			}
			return b
		})
		e.written += int64(c.Len())
		return nil
	}
	for j := range c.Len() {
		for _, col := range e.cols {
			switch {
			case col.coord >= 0:
				e.sink.put(col.t, codec.FromFloat64(col.t, coords[col.coord][j]))
			case col.attr >= 0:
				e.sink.put(col.t, c.Attrs[col.attr].Uint64(j))
			default:
				g := e.written + int64(j)
				if g+1 >= int64(len(e.lists.ListOffsets)) {
					e.err = fmt.Errorf("ply: vertex %d: list property %s not available", g, col.prop.Name)
					return e.err
				}
				src := &blobSource{b: e.lists.Data[:e.lists.ListOffsets[g+1]], off: e.lists.ListOffsets[g]}
				if err := e.skipToList(src, col.prop); err != nil {
					e.err = err
					return err
				}
				if err := copyList(src, e.sink, col.prop); err != nil {
					e.err = fmt.Errorf("ply: vertex %d: %w", g, err)
					return e.err
				}
			}
		}
		e.sink.end()
	}
	e.written += int64(c.Len())
	return nil
}

// checkFits checks that the values of attributes written as a narrower
// PLY type than their own (a 64-bit integer as int or uint) fit it.
func (e *Encoder) checkFits(c *core.Cloud) error {
	for _, col := range e.cols {
		if col.attr < 0 || col.t == c.Attrs[col.attr].Type {
			continue
		}
		a := c.Attrs[col.attr]
		get := attrBits(a)
		j := par.First(c.Len(), func(lo, hi int) int {
			for j := lo; j < hi; j++ {
				if !fits(get(j), a.Type, col.t) {
					return j
				}
			}
			return -1
		})
		if j >= 0 {
			return fmt.Errorf("ply: vertex %d: %s value %d does not fit PLY type %s", e.written+int64(j), a.Name, a.Int64(j), col.prop.Type)
		}
	}
	return nil
}

// skipToList advances src past the list properties of the source vertex
// element that precede p.
func (e *Encoder) skipToList(src *blobSource, p Property) error {
	for _, q := range e.lists.Props {
		if q.Name == p.Name {
			return nil
		}
		if q.IsList() {
			if err := copyList(src, &blobSink{}, q); err != nil {
				return err
			}
		}
	}
	return nil
}

// fits reports whether value v of a 64-bit integer type from fits the
// narrower integer type to.
func fits(v uint64, from, to core.Type) bool {
	if from == core.Int64 {
		return int64(v) >= math.MinInt32 && int64(v) <= math.MaxInt32
	}
	return v <= math.MaxUint32
}

// Close writes the elements after the vertex element and flushes. It fails
// when fewer vertices were written than announced.
func (e *Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	if e.written != e.count {
		return fmt.Errorf("ply: %d vertices written, header announced %d", e.written, e.count)
	}
	for _, el := range e.after {
		if err := e.writeElement(el); err != nil {
			return err
		}
	}
	e.after = nil
	return e.w.Flush()
}

// Encode writes c as PLY in the given variant (see NewEncoder). For a
// cloud that did not come from PLY, coordinates are written as float when
// every one of them is a float32 value, else as double: nothing is lost.
func Encode(w io.Writer, c *core.Cloud, variant string) error {
	coordType := "double"
	if codec.Float32Exact(c.X, c.Y, c.Z) {
		coordType = "float"
	}
	e, err := newEncoder(w, &pcio.Header{Count: int64(c.Len()), Schema: c.Attrs, Meta: c.Meta}, variant, coordType)
	return codec.EncodeWhole(e, err, c)
}
