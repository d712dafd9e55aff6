package ply

import (
	"encoding/binary"
	"io"
	"slices"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

// Decoder reads a PLY file's vertices in chunks. The elements before the
// vertex element are read by NewDecoder, those after it when the last chunk
// has been read; all of them end up in the header's Meta.Extra["ply"].
type Decoder struct {
	r      *codec.Reader
	h      *Header
	hdr    *pcio.Header
	vertex *Element
	after  []*Element // elements after the vertex element
	src    source
	order  binary.ByteOrder
	known  bool // the input size is known and the counts were checked against it
	read   int64
	stride int               // record size of a fixed-size binary vertex, else 0
	buf    []byte            // record buffer for fixed-size binary vertices
	text   *codec.TextReader // ascii vertices without lists, parsed in parallel
	err    error
	opt    pcio.ReadOptions
}

// NewDecoder reads the header of a PLY file, and any elements before the
// vertex element, from r. Vertices cut short are an error (a
// *codec.ShortError) unless opts (at most one) asks to salvage them: then
// the whole vertices before the cut are read, the elements after the
// vertex element dropped, and the error goes to the options' Warn.
func NewDecoder(r io.Reader, opts ...pcio.ReadOptions) (*Decoder, error) {
	cr := codec.NewReader(codecName, r)
	h, comments, err := readHeader(cr)
	if err != nil {
		return nil, err
	}
	d := &Decoder{r: cr, h: h, known: cr.Remaining() >= 0, opt: pcio.Options(opts)}
	var min int64
	for _, e := range h.Elements {
		m := e.minRecord(h.Encoding)
		if err := codec.CheckCount(codecName, cr.Offset(), "element "+e.Name+" records", e.Count, m, cr.Remaining()-min); err != nil {
			if _, short := err.(*codec.ShortError); !short {
				return nil, err
			}
			d.known = false // read on to find where the data ends
			break
		}
		min += e.Count * m
	}
	if !slices.ContainsFunc(h.Elements, func(e *Element) bool { return e.Count != 0 }) {
		// No element has records: the data must end with the header.
		if err := cr.NothingPromised("element " + vertexName + " 0"); err != nil {
			return nil, err
		}
	}
	switch h.Encoding {
	case ASCII:
		d.src = &asciiSource{r: cr}
	case BinaryLE:
		d.order = binary.LittleEndian
	default:
		d.order = binary.BigEndian
	}
	if d.order != nil {
		d.src = &binarySource{r: cr, order: d.order}
	}
	crs, comments := codec.SplitCRS(comments)
	d.hdr = &pcio.Header{Meta: core.Metadata{Format: codecName, Comments: comments, CRS: crs, Extra: map[string]any{codecName: h}}}
	before := true
	for _, e := range h.Elements {
		switch {
		case e.Name == vertexName:
			before = false
			d.vertex = e
		case before:
			if err := d.readElement(e); err != nil {
				return nil, err
			}
		default:
			d.after = append(d.after, e)
		}
	}
	if v := d.vertex; v != nil {
		d.hdr.Count = v.Count
		for _, p := range v.Props {
			if !p.IsList() && !isCoord(p.Attr) {
				d.hdr.Schema = append(d.hdr.Schema, &core.Attribute{Name: p.Attr, Type: types[p.Type]})
			}
		}
		if isFloat32Coords(v) {
			d.hdr.Meta.Extra[codec.CoordsKey] = core.Float32
		}
		if v.hasLists() {
			v.ListOffsets = append(v.ListOffsets[:0], 0)
		} else if d.order != nil {
			d.stride = int(v.minRecord(h.Encoding))
		}
	}
	return d, nil
}

// isFloat32Coords reports whether v has x, y and z, all float32.
func isFloat32Coords(v *Element) bool {
	n := 0
	for _, p := range v.Props {
		if !p.IsList() && isCoord(p.Attr) {
			if types[p.Type] != core.Float32 {
				return false
			}
			n++
		}
	}
	return n == 3
}

func isCoord(attr string) bool { return attr == core.DimX || attr == core.DimY || attr == core.DimZ }

// Header returns the file's header; Meta.Extra["ply"] is a *Header.
func (d *Decoder) Header() *pcio.Header { return d.hdr }

// readElement reads all records of a non-vertex element into e.Data.
func (d *Decoder) readElement(e *Element) error {
	if len(e.Props) == 0 {
		return nil // records without properties take no bytes
	}
	sink := &blobSink{}
	for i := range e.Count {
		if err := copyRecord(d.src, sink, e); err != nil {
			return d.wrap(err, e, i)
		}
	}
	e.Data = sink.b
	return nil
}

// wrap places an error of the underlying reader in the file.
func (d *Decoder) wrap(err error, e *Element, i int64) error {
	switch err.(type) {
	case *codec.FormatError, *codec.UnsupportedError:
		return err
	}
	if short := codec.Short(codecName, d.src.pos(), err, "vertices", i, e.Count); short != nil && e == d.vertex {
		return short
	}
	return codec.ReadErr(codecName, d.src.pos(), err, "element %s record %d of %d", e.Name, i, e.Count)
}

// Read returns the next chunk of at most max vertices, or io.EOF after the
// last one (once the elements after the vertex element are read too).
func (d *Decoder) Read(max int) (*core.Cloud, error) {
	if d.err != nil {
		return nil, d.err
	}
	v := d.vertex
	if v == nil || d.read == v.Count {
		d.err = io.EOF
		for _, e := range d.after {
			if err := d.readElement(e); err != nil {
				d.err = err
				break
			}
		}
		d.after = nil
		return nil, d.err
	}
	n := codec.ChunkSize(max, v.Count-d.read, d.known)
	c := codec.NewChunk(d.hdr, n)
	first := d.read
	if err := d.decodeInto(c, 0, n); err != nil {
		d.err = err
		if c, err = codec.Salvage(d.opt, err, c, first); err != nil {
			return nil, err
		}
		d.salvaged()
		if c.Len() == 0 {
			return nil, io.EOF
		}
	}
	return c, nil
}

// salvaged ends a read salvaged at a cut: the vertex element keeps the
// vertices read, and the elements after it, which the cut took, are
// dropped.
func (d *Decoder) salvaged() {
	d.err, d.after = io.EOF, nil
	d.vertex.Count = d.read
	i := slices.Index(d.h.Elements, d.vertex)
	d.h.Elements = d.h.Elements[:i+1]
}

// decodeInto reads the next n vertices into c at index at.
func (d *Decoder) decodeInto(c *core.Cloud, at, n int) error {
	v := d.vertex
	cols := make([]*core.Attribute, len(v.Props))
	coords := make([][]float64, len(v.Props))
	k := 0
	for i, p := range v.Props {
		switch {
		case p.IsList():
		case p.Attr == core.DimX:
			coords[i] = c.X
		case p.Attr == core.DimY:
			coords[i] = c.Y
		case p.Attr == core.DimZ:
			coords[i] = c.Z
		default:
			cols[i] = c.Attrs[k]
			k++
		}
	}
	if d.stride > 0 {
		return d.decodeFixed(v, cols, coords, at, n)
	}
	if d.h.Encoding == ASCII && v.ListOffsets == nil {
		return d.decodeText(v, cols, coords, at, n)
	}
	lists := &blobSink{b: v.Data}
	fail := func(err error) error {
		if v.ListOffsets != nil { // the lists of the whole vertices read
			v.Data = lists.b[:v.ListOffsets[len(v.ListOffsets)-1]]
		}
		return d.wrap(err, v, d.read)
	}
	for j := at; j < at+n; j++ {
		for i, p := range v.Props {
			if p.IsList() {
				if err := copyList(d.src, lists, p); err != nil {
					return fail(err)
				}
				continue
			}
			t := types[p.Type]
			bits, err := d.src.next(t)
			if err != nil {
				return fail(err)
			}
			if coords[i] != nil {
				coords[i][j] = codec.ToFloat64(t, bits)
			} else {
				cols[i].SetUint64(j, bits)
			}
		}
		if v.ListOffsets != nil {
			v.ListOffsets = append(v.ListOffsets, len(lists.b))
		}
		d.read++
	}
	v.Data = lists.b
	return nil
}

// decodeText reads n ascii vertices, one a line, with codec.TextReader.
func (d *Decoder) decodeText(v *Element, cols []*core.Attribute, coords [][]float64, at, n int) error {
	dst := make(codec.TextDst, len(v.Props))
	if d.text == nil {
		lay := &codec.TextLayout{Codec: codecName}
		for _, p := range v.Props {
			lay.Fields = append(lay.Fields, codec.TextField{Name: p.Name, Type: types[p.Type]})
		}
		d.text = codec.NewTextReader(d.r, lay)
	}
	for i, p := range v.Props {
		if coords[i] != nil {
			dst[i] = codec.Column(coords[i], types[p.Type])
		} else {
			dst[i] = codec.Column(cols[i], types[p.Type])
		}
	}
	got, err := d.text.Fill(dst, at, n)
	d.read += int64(got)
	err = d.text.Short(err, got, n, "vertices", d.read, v.Count)
	if err != nil || d.read == v.Count {
		d.text.Close() // what follows the vertices reads from where they end
	}
	return err
}

// decodeFixed reads n binary vertices of d.stride bytes each at once and
// decodes ranges of them on all cores (codec's ReadRecords).
func (d *Decoder) decodeFixed(v *Element, cols []*core.Attribute, coords [][]float64, at, n int) error {
	got, pos, err := d.r.ReadRecords(&d.buf, n, d.stride, func(b []byte, lo, hi int) {
		off := 0
		for i, p := range v.Props {
			t := types[p.Type]
			var dst any = cols[i]
			if coords[i] != nil {
				dst = coords[i]
			}
			codec.GetColumn(dst, at+lo, t, b, off, d.stride, hi-lo, d.order)
			off += t.Size()
		}
	})
	d.read += int64(got)
	if err != nil {
		return codec.RecordErr(codecName, pos, err, "vertices", "vertex", d.read, v.Count)
	}
	return nil
}

// Decode reads a whole PLY file, with options as NewDecoder. When r can
// report its size (a file, a bytes.Reader) the cloud is allocated once,
// after the header's counts were checked against it; otherwise it grows as
// data arrives.
func Decode(r io.Reader, opts ...pcio.ReadOptions) (*core.Cloud, error) {
	d, err := NewDecoder(r, opts...)
	if err != nil {
		return nil, err
	}
	c, err := codec.DecodeAll(d.hdr, d.known, d.opt, d.decodeInto, d.Read)
	if err != nil {
		return nil, err
	}
	if v := d.vertex; v != nil && int64(c.Len()) < v.Count {
		d.salvaged() // DecodeAll salvaged a cut
	}
	// The elements after the vertex element.
	if _, err := d.Read(1); err != io.EOF {
		return nil, err
	}
	return c, nil
}
