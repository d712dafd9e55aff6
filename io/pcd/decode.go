package pcd

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"strconv"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

// slot is one value of a point: a component of a field and where it goes.
type slot struct {
	t      core.Type // storage type; Uint32 for a packed colour
	field  int
	off    int // byte offset in a binary row
	soaOff int // byte offset of the field's first value in compressed data
	stride int // field bytes per point in compressed data (Size*Count)
	coord  int // 0, 1, 2 for x, y, z; -1 otherwise
	attr   int // schema index; for a packed colour that of Red (Green, Blue, Alpha follow)
	packed bool
	float  bool // a packed colour declared F: text may be a float
	rgb    bool // a packed rgb, whose high byte is no alpha (Field.Pad)
}

// slots lays out the values of a point of h and the cloud schema they fill.
func slots(h *Header, count int64) ([]slot, []*core.Attribute) {
	var out []slot
	var schema []*core.Attribute
	off, soa := 0, 0
	for i, f := range h.Fields {
		t := f.storage()
		for k := 0; k < f.Count; k++ {
			s := slot{t: t, field: i, off: off + k*f.Size, soaOff: soa + k*f.Size, stride: f.Size * f.Count, coord: -1, attr: len(schema)}
			switch {
			case f.packed():
				s.packed, s.float = true, f.Type == 'F'
				s.rgb = len(f.Attrs) == 3
				for _, c := range f.Attrs {
					schema = append(schema, &core.Attribute{Name: c, Type: core.Uint8})
				}
			case len(f.Attrs[k]) == 1 && f.Attrs[k][0] >= 'X' && f.Attrs[k][0] <= 'Z':
				s.coord, s.attr = int(f.Attrs[k][0]-'X'), -1
			default:
				schema = append(schema, &core.Attribute{Name: f.Attrs[k], Type: t})
			}
			out = append(out, s)
		}
		off += f.Size * f.Count
		soa += f.Size * f.Count * int(count)
	}
	return out, schema
}

// Decoder reads a PCD file's points in chunks.
type Decoder struct {
	r     *codec.Reader
	h     *Header
	hdr   *pcio.Header
	slots []slot
	read  int64
	known bool // the size of the data is known and was checked
	row   int
	buf   []byte
	soa   []byte // decompressed binary_compressed data
	text  *codec.TextReader
	err   error
	opt   pcio.ReadOptions
}

// NewDecoder reads a PCD header from r (and, for binary_compressed data,
// decompresses the data). Ascii or binary points cut short are an error (a
// *codec.ShortError) unless opts (at most one) asks to salvage them: then
// the whole points before the cut are read and the error goes to the
// options' Warn. Compressed data cut short cannot be salvaged: it holds
// each field's values one after the other.
func NewDecoder(r io.Reader, opts ...pcio.ReadOptions) (*Decoder, error) {
	cr := codec.NewReader(codecName, r)
	h, comments, count, err := readHeader(cr)
	if err != nil {
		return nil, err
	}
	d := &Decoder{r: cr, h: h, known: cr.Remaining() >= 0, row: int(h.rowSize()), opt: pcio.Options(opts)}
	crs, comments := codec.SplitCRS(comments)
	d.hdr = &pcio.Header{Count: count, Meta: core.Metadata{Format: codecName, Comments: comments, CRS: crs, Extra: map[string]any{codecName: h}}}
	d.slots, d.hdr.Schema = slots(h, 0)
	coords := 0
	for _, s := range d.slots {
		if s.coord >= 0 && s.t == core.Float32 {
			coords++
		}
	}
	if coords == 3 {
		d.hdr.Meta.Extra[codec.CoordsKey] = core.Float32
	}
	switch h.Data {
	case ASCII:
		err = codec.CheckCount(codecName, cr.Offset(), "points", count, h.values(), cr.Remaining())
	case Binary:
		err = codec.CheckCount(codecName, cr.Offset(), "points", count, int64(d.row), cr.Remaining())
	default:
		err = d.decompress(count)
	}
	if err == nil && count == 0 && h.Data != Compressed {
		err = cr.NothingPromised("POINTS 0")
	}
	if _, short := err.(*codec.ShortError); short && h.Data != Compressed {
		d.known, err = false, nil // read on to find where the data ends
	}
	if err != nil {
		return nil, err
	}
	d.firstPad()
	return d, nil
}

// firstPad sets the Pad of each packed rgb field to the high byte of the
// first point's value, looked at before any point is read, so that a
// streaming copy writes it from its first point on.
func (d *Decoder) firstPad() {
	var line [][]byte
	for i := range d.slots {
		s := &d.slots[i]
		if !s.rgb || d.hdr.Count == 0 {
			continue
		}
		var v uint64
		switch {
		case d.soa != nil:
			v = codec.LoadBits(d.soa[s.soaOff:], s.t, binary.LittleEndian)
		case d.h.Data == Binary:
			b, err := d.r.Peek(d.row)
			if err != nil {
				continue
			}
			v = codec.LoadBits(b[s.off:], s.t, binary.LittleEndian)
		default:
			if line == nil {
				b, _ := d.r.Peek(64 << 10)
				if k := bytes.IndexByte(b, '\n'); k >= 0 {
					b = b[:k]
				}
				line = bytes.FieldsFunc(b, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == '\r' })
			}
			if i >= len(line) {
				continue
			}
			var err error
			if v, err = parseText(line[i], s); err != nil {
				continue
			}
		}
		d.h.Fields[s.field].Pad = uint8(v >> 24)
	}
}

// cutCompressed reports compressed data that ends at byte offset end: a
// file cut short with no whole point, since each field's values follow
// the previous field's, and a cut takes the last fields of every point.
func (d *Decoder) cutCompressed(end, count int64) error {
	return &codec.ShortError{Codec: codecName, Pos: codec.Pos{Offset: end}, What: "points", Promised: count,
		Count: "binary_compressed: no point is whole"}
}

// maxRatio bounds LZF expansion: a 3-byte back reference yields at most
// 264 bytes. The uncompressed size in a header is trusted only that far.
const maxRatio = 88

func (d *Decoder) decompress(count int64) error {
	var sz [8]byte
	pos := d.r.Offset()
	if count == 0 && d.r.Remaining() <= 0 {
		return nil
	}
	if err := d.r.ReadFull(sz[:]); err != nil {
		return codec.ReadErr(codecName, pos, err, "reading compressed sizes")
	}
	csize, usize := int64(binary.LittleEndian.Uint32(sz[:4])), int64(binary.LittleEndian.Uint32(sz[4:]))
	if want := count * int64(d.row); count > math.MaxInt64/max(int64(d.row), 1) || usize != want {
		return codec.Errorf(codecName, pos, "uncompressed size %d, want %d points x %d bytes", usize, count, d.row)
	}
	if rem := d.r.Remaining(); rem >= 0 && csize > rem {
		return d.cutCompressed(d.r.Offset().Offset+rem, count)
	}
	if usize > csize*maxRatio {
		return codec.Errorf(codecName, pos, "uncompressed size %d is more than LZF can expand %d bytes to", usize, csize)
	}
	comp, err := io.ReadAll(io.LimitReader(d.r, csize))
	if err != nil {
		return codec.ReadErr(codecName, d.r.Offset(), err, "reading compressed data")
	}
	if int64(len(comp)) < csize {
		return d.cutCompressed(d.r.Offset().Offset, count)
	}
	d.soa = make([]byte, usize)
	if err := lzfDecompress(comp, d.soa); err != nil {
		return codec.Errorf(codecName, pos, "%v", err)
	}
	d.slots, _ = slots(d.h, count)
	d.known = true
	return nil
}

// Header returns the file's header; Meta.Extra["pcd"] is a *Header.
func (d *Decoder) Header() *pcio.Header { return d.hdr }

// Read returns the next chunk of at most max points, or io.EOF after the last.
func (d *Decoder) Read(max int) (*core.Cloud, error) {
	if d.err != nil {
		return nil, d.err
	}
	if d.read == d.hdr.Count {
		d.err = io.EOF
		return nil, io.EOF
	}
	n := codec.ChunkSize(max, d.hdr.Count-d.read, d.known)
	c := codec.NewChunk(d.hdr, n)
	first := d.read
	if err := d.decodeInto(c, 0, n); err != nil {
		d.err = err
		if c, err = codec.Salvage(d.opt, err, c, first); err != nil {
			return nil, err
		}
		if d.err = io.EOF; c.Len() == 0 {
			return nil, io.EOF
		}
	}
	return c, nil
}

// store puts value v of slot s into point j of c.
func store(c *core.Cloud, s *slot, j int, v uint64) {
	switch {
	case s.coord == 0:
		c.X[j] = codec.ToFloat64(s.t, v)
	case s.coord == 1:
		c.Y[j] = codec.ToFloat64(s.t, v)
	case s.coord == 2:
		c.Z[j] = codec.ToFloat64(s.t, v)
	case s.packed:
		// PCL packs colour as 0xAARRGGBB; rgb's AA is no alpha.
		for k, shift := range [4]uint{16, 8, 0, 24} {
			if k == 3 && s.rgb {
				break
			}
			c.Attrs[s.attr+k].Data.([]uint8)[j] = uint8(v >> shift)
		}
	default:
		c.Attrs[s.attr].SetUint64(j, v)
	}
}

// getColumn decodes the n values of slot s laid out every stride bytes from
// buf[off:] into c from index at.
func getColumn(c *core.Cloud, s *slot, at int, buf []byte, off, stride, n int) {
	var dst any
	switch {
	case s.packed:
		for j := range n {
			store(c, s, at+j, codec.LoadBits(buf[off+j*stride:], s.t, binary.LittleEndian))
		}
		return
	case s.coord >= 0:
		dst = [3][]float64{c.X, c.Y, c.Z}[s.coord]
	default:
		dst = c.Attrs[s.attr]
	}
	codec.GetColumn(dst, at, s.t, buf, off, stride, n, binary.LittleEndian)
}

// decodeInto reads the next n points into c at index at.
func (d *Decoder) decodeInto(c *core.Cloud, at, n int) error {
	switch {
	case d.soa != nil:
		// Decompressed, each field's values follow the previous field's;
		// ranges of points decode on all cores as binary rows do.
		first := int(d.read)
		codec.DecodeRecords(n, func(lo, hi int) {
			for i := range d.slots {
				s := &d.slots[i]
				getColumn(c, s, at+lo, d.soa, s.soaOff+(first+lo)*s.stride, s.stride, hi-lo)
			}
		})
	case d.h.Data == Binary:
		// Ranges of rows decode on all cores.
		got, pos, err := d.r.ReadRecords(&d.buf, n, d.row, func(b []byte, lo, hi int) {
			for i := range d.slots {
				s := &d.slots[i]
				getColumn(c, s, at+lo, b, s.off, d.row, hi-lo)
			}
		})
		d.read += int64(got)
		if err != nil {
			return codec.RecordErr(codecName, pos, err, "points", "point", d.read, d.hdr.Count)
		}
		return nil
	case d.h.Data == ASCII:
		return d.decodeText(c, at, n)
	}
	d.read += int64(n)
	return nil
}

// decodeText reads n ascii points, one a line, with codec.TextReader.
func (d *Decoder) decodeText(c *core.Cloud, at, n int) error {
	if d.text == nil {
		lay := &codec.TextLayout{Codec: codecName, Comma: true}
		for i := range d.slots {
			s := &d.slots[i]
			f := codec.TextField{Name: d.h.Fields[s.field].Name, Type: s.t}
			if s.packed {
				f.Parse = func(tok []byte) (uint64, error) { return parseText(tok, s) }
			}
			lay.Fields = append(lay.Fields, f)
		}
		d.text = codec.NewTextReader(d.r, lay)
	}
	dst := make(codec.TextDst, len(d.slots))
	for i := range d.slots {
		s := &d.slots[i]
		switch {
		case s.coord >= 0:
			dst[i] = codec.Column([3][]float64{c.X, c.Y, c.Z}[s.coord], s.t)
		case s.packed:
			dst[i] = func(j int, v uint64) { store(c, s, j, v) }
		default:
			dst[i] = codec.Column(c.Attrs[s.attr], s.t)
		}
	}
	got, err := d.text.Fill(dst, at, n)
	d.read += int64(got)
	return d.text.Short(err, got, n, "points", d.read, d.hdr.Count)
}

// parseText parses an ascii value. A packed colour declared F is written by
// PCL as the integer of its bits (several opaque colours are NaN as
// floats); older writers wrote the float, which is accepted too.
func parseText(tok []byte, s *slot) (uint64, error) {
	if !s.packed {
		return codec.ParseText(tok, s.t)
	}
	if u, err := strconv.ParseUint(string(tok), 10, 32); err == nil {
		return u, nil
	}
	if !s.float {
		return 0, strconv.ErrSyntax
	}
	return codec.ParseText(tok, core.Float32)
}

// Decode reads a whole PCD file, with options as NewDecoder.
func Decode(r io.Reader, opts ...pcio.ReadOptions) (*core.Cloud, error) {
	d, err := NewDecoder(r, opts...)
	if err != nil {
		return nil, err
	}
	return codec.DecodeAll(d.hdr, d.known, d.opt, d.decodeInto, d.Read)
}
