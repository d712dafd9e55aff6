package pcd

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

// wslot is one value of a point as the encoder writes it.
type wslot struct {
	t      core.Type
	coord  int    // 0, 1, 2 or -1
	attrs  [4]int // schema indices: attrs[0] for a scalar; R, G, B, A for a packed colour (A may be -1)
	packed bool
	pad    uint8 // the high byte of a packed colour without A (Field.Pad)
	off    int   // byte offset in a binary row
	soaOff int   // byte offset of the field in compressed data
	stride int   // field bytes per point in compressed data
}

// Encoder writes a PCD file in chunks of points.
type Encoder struct {
	w       *bufio.Writer
	h       *Header
	schema  []*core.Attribute
	slots   []wslot
	row     int
	count   int64
	written int64
	soa     []byte // binary_compressed data, column by column, written by Close
	err     error
	fromPCD bool // the cloud came from PCD: coordinates keep their declared types
	check32 bool // F 4 coordinates were chosen from the source's note: check them
}

// NewEncoder writes the header of a PCD 0.7 file for a cloud described by
// h. variant is "", "ascii", "binary" or "compressed" (binary_compressed);
// "" keeps the encoding of the source PCD file, or picks binary for a cloud
// from elsewhere, whose coordinates are then written as F 8.
//
// Coordinates of a cloud from another format are written as F 4 when its
// decoder noted float32 coordinates (codec.CoordsKey; Write then fails on
// a coordinate that is not a float32 value rather than round it), else as
// F 8.
func NewEncoder(w io.Writer, h *pcio.Header, variant string) (*Encoder, error) {
	if codec.SourceFloat32(&h.Meta) {
		e, err := newEncoder(w, h, variant, 4)
		if e != nil {
			e.check32 = !e.fromPCD
		}
		return e, err
	}
	return newEncoder(w, h, variant, 8)
}

func newEncoder(w io.Writer, h *pcio.Header, variant string, coordSize int) (*Encoder, error) {
	src, _ := h.Meta.Extra[codecName].(*Header)
	if src != nil && src.Data == "" {
		src = nil
	}
	srcData := ""
	if src != nil {
		srcData = src.Data
	}
	data, err := codec.Variant(codecName, variant, srcData, Binary, variants, []string{ASCII, Binary, Compressed})
	if err != nil {
		return nil, err
	}
	out := &Header{Version: "0.7", Width: h.Count, Height: 1, Viewpoint: [7]float64{3: 1}, Data: data}
	if src != nil {
		out.Viewpoint = src.Viewpoint
		if src.Width*src.Height == h.Count {
			out.Width, out.Height = src.Width, src.Height
		}
	}
	e := &Encoder{w: bufio.NewWriterSize(w, 64<<10), h: out, schema: h.Schema, count: h.Count}
	e.fromPCD = src != nil
	e.layout(src, coordSize)
	e.row = int(out.rowSize())
	if data == Compressed {
		e.soa = make([]byte, int(h.Count)*e.row)
	}
	var hb strings.Builder
	hb.WriteString("# .PCD v0.7 - Point Cloud Data file format\n")
	for _, c := range append(slices.Clip(h.Meta.Comments), codec.CRSComments(h.Meta.CRS)...) {
		for _, l := range strings.Split(c, "\n") {
			hb.WriteString("# " + l + "\n")
		}
	}
	hb.WriteString("VERSION 0.7\nFIELDS")
	for _, f := range out.Fields {
		hb.WriteString(" " + f.Name)
	}
	hb.WriteString("\nSIZE")
	for _, f := range out.Fields {
		fmt.Fprintf(&hb, " %d", f.Size)
	}
	hb.WriteString("\nTYPE")
	for _, f := range out.Fields {
		fmt.Fprintf(&hb, " %c", f.Type)
	}
	hb.WriteString("\nCOUNT")
	for _, f := range out.Fields {
		fmt.Fprintf(&hb, " %d", f.Count)
	}
	fmt.Fprintf(&hb, "\nWIDTH %d\nHEIGHT %d\nVIEWPOINT", out.Width, out.Height)
	for _, v := range out.Viewpoint {
		hb.WriteString(" " + strconv.FormatFloat(v, 'g', -1, 64))
	}
	fmt.Fprintf(&hb, "\nPOINTS %d\nDATA %s\n", h.Count, data)
	e.w.WriteString(hb.String())
	return e, nil
}

// layout decides the fields: those of the source header src whose columns
// still exist, in order (with a column's type if it changed), then every
// other column; Red, Green and Blue of type uint8 pack into PCL's rgb.
func (e *Encoder) layout(src *Header, coordSize int) {
	used := make([]bool, len(e.schema))
	find := func(name string, t core.Type) int {
		for i, a := range e.schema {
			if a.Name == name && !used[i] && (t == core.Invalid || a.Type == t) {
				return i
			}
		}
		return -1
	}
	names := map[string]bool{}
	// add appends a field. A field new to the file gets a name no other
	// has; those of the source keep theirs (PCL repeats "_" for padding).
	fresh := false
	add := func(f Field, s []wslot) {
		if fresh {
			base := codec.FieldName(f.Name)
			f.Name = base
			for k := 1; names[f.Name]; k++ {
				f.Name = fmt.Sprintf("%s_%d", base, k)
			}
		}
		names[f.Name] = true
		e.h.Fields = append(e.h.Fields, f)
		e.slots = append(e.slots, s...)
	}
	// colourIdx finds Red, Green, Blue (and Alpha, or -1) among the unused
	// uint8 columns; ok is false when one of the three is missing.
	colourIdx := func() (idx [4]int, ok bool) {
		for k, c := range colour {
			idx[k] = find(c, core.Uint8)
			if idx[k] < 0 && k < 3 {
				return idx, false
			}
		}
		return idx, true
	}
	packColour := func(name string, typ byte, idx [4]int, pad uint8) {
		for _, i := range idx {
			if i >= 0 {
				used[i] = true
			}
		}
		attrs := colour
		if idx[3] < 0 {
			attrs = colour[:3]
		}
		add(Field{Name: name, Size: 4, Type: typ, Count: 1, Attrs: attrs, Pad: pad}, []wslot{{t: core.Uint32, coord: -1, attrs: idx, packed: true, pad: pad}})
	}
	if src != nil {
		for _, f := range src.Fields {
			switch {
			case f.packed():
				if idx, ok := colourIdx(); ok {
					pad := f.Pad
					if len(f.Attrs) == 4 {
						pad = 0xff // an rgba source's alpha column was removed
					}
					packColour(f.Name, f.Type, idx, pad)
				}
			case f.Count == 1 && len(f.Attrs[0]) == 1 && f.Attrs[0][0] >= 'X' && f.Attrs[0][0] <= 'Z':
				add(f, []wslot{{t: f.storage(), coord: int(f.Attrs[0][0] - 'X')}})
			default:
				idx := make([]int, f.Count)
				ok := true
				for k, a := range f.Attrs {
					idx[k] = find(a, core.Invalid)
					ok = ok && idx[k] >= 0 && e.schema[idx[k]].Type == e.schema[idx[0]].Type
				}
				if !ok {
					continue // its columns, if any, are written on their own
				}
				t := e.schema[idx[0]].Type
				f.Type, f.Size = pcdType(t)
				var s []wslot
				for _, i := range idx {
					used[i] = true
					s = append(s, wslot{t: t, coord: -1, attrs: [4]int{i}})
				}
				add(f, s)
			}
		}
	} else {
		fresh = true
		for k, n := range []string{"x", "y", "z"} {
			t := storageType('F', coordSize)
			add(Field{Name: n, Size: coordSize, Type: 'F', Count: 1, Attrs: []string{string(rune('X' + k))}}, []wslot{{t: t, coord: k}})
		}
	}
	fresh = true
	rgb, packRGB := colourIdx()
	for i, a := range e.schema {
		if packRGB && i == rgb[0] {
			// PCL's convention: rgb F 4, or rgba U 4 with an alpha channel.
			if rgb[3] >= 0 {
				packColour("rgba", 'U', rgb, 0)
			} else {
				packColour("rgb", 'F', rgb, 0xff)
			}
		}
		if used[i] {
			continue
		}
		name := a.Name
		if n, ok := fromPDAL[name]; ok {
			name = n
		}
		typ, size := pcdType(a.Type)
		add(Field{Name: name, Size: size, Type: typ, Count: 1, Attrs: []string{a.Name}}, []wslot{{t: a.Type, coord: -1, attrs: [4]int{i}}})
	}
	// Byte offsets, now that the fields are known.
	off, soa, k := 0, 0, 0
	for _, f := range e.h.Fields {
		for c := range f.Count {
			e.slots[k].off, e.slots[k].soaOff, e.slots[k].stride = off+c*f.Size, soa+c*f.Size, f.Size*f.Count
			k++
		}
		off += f.Size * f.Count
		soa += f.Size * f.Count * int(e.count)
	}
}

// value returns the bits of slot s for point j of c.
func value(c *core.Cloud, s *wslot, j int) uint64 {
	switch {
	case s.coord == 0:
		return codec.FromFloat64(s.t, c.X[j])
	case s.coord == 1:
		return codec.FromFloat64(s.t, c.Y[j])
	case s.coord == 2:
		return codec.FromFloat64(s.t, c.Z[j])
	case s.packed:
		v := uint64(s.pad) << 24
		if s.attrs[3] >= 0 {
			v = uint64(c.Attrs[s.attrs[3]].Data.([]uint8)[j]) << 24
		}
		for k, shift := range [3]uint{16, 8, 0} {
			v |= uint64(c.Attrs[s.attrs[k]].Data.([]uint8)[j]) << shift
		}
		return v
	}
	return c.Attrs[s.attrs[0]].Uint64(j)
}

// Write appends the points of c, whose attributes must be the header's
// schema, in order.
func (e *Encoder) Write(c *core.Cloud) error {
	if e.err != nil {
		return e.err
	}
	if err := codec.CheckWrite(codecName, c, e.schema, e.check32, e.written, e.count, "points"); err != nil {
		e.err = err
		return err
	}
	n := c.Len()
	switch e.h.Data {
	case ASCII:
		// Lines formatted in parallel; a write error sticks in e.w and
		// comes out of Close.
		codec.WriteLines(e.w, n, func(b []byte, j int) []byte {
			for i := range e.slots {
				if i > 0 {
					b = append(b, ' ')
				}
				s := &e.slots[i]
				t := s.t
				if s.packed {
					t = core.Uint32
				}
				b = codec.AppendText(b, t, value(c, s, j))
			}
			return b
		})
	case Binary:
		// Blocks of rows encoded on all cores, written in order.
		err := codec.WriteRecords(e.w, n, e.row, func(buf []byte, lo, hi int) error {
			for j := lo; j < hi; j++ {
				row := buf[(j-lo)*e.row:]
				for i := range e.slots {
					s := &e.slots[i]
					codec.StoreBits(row[s.off:], s.t, binary.LittleEndian, value(c, s, j))
				}
			}
			return nil
		})
		if err != nil {
			e.err = err
			return err
		}
	default:
		// Each point's bytes are its own: ranges of points fill in parallel.
		par.For(par.Ranges(n, par.Grain), func(_, lo, hi int) {
			for i := range e.slots {
				s := &e.slots[i]
				base := s.soaOff + int(e.written)*s.stride
				for j := lo; j < hi; j++ {
					codec.StoreBits(e.soa[base+j*s.stride:], s.t, binary.LittleEndian, value(c, s, j))
				}
			}
		})
	}
	e.written += int64(n)
	return nil
}

// Close writes compressed data, if any, and flushes. It fails when fewer
// points were written than announced.
func (e *Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	if e.written != e.count {
		return fmt.Errorf("pcd: %d points written, header announced %d", e.written, e.count)
	}
	if e.h.Data == Compressed {
		comp := lzfCompress(e.soa)
		if int64(len(comp)) > 1<<32-1 || int64(len(e.soa)) > 1<<32-1 {
			return fmt.Errorf("pcd: %d bytes of point data is too large for binary_compressed (4 GiB at most)", len(e.soa))
		}
		var sz [8]byte
		binary.LittleEndian.PutUint32(sz[:4], uint32(len(comp)))
		binary.LittleEndian.PutUint32(sz[4:], uint32(len(e.soa)))
		e.w.Write(sz[:])
		e.w.Write(comp)
		e.soa = nil
	}
	return e.w.Flush()
}

// Encode writes c as PCD in the given variant (see NewEncoder). For a cloud
// that did not come from PCD, coordinates are written as F 4 when every one
// is a float32 value (as PCL expects), else as F 8: nothing is lost.
func Encode(w io.Writer, c *core.Cloud, variant string) error {
	size := 8
	if codec.Float32Exact(c.X, c.Y, c.Z) {
		size = 4
	}
	e, err := newEncoder(w, &pcio.Header{Count: int64(c.Len()), Schema: c.Attrs, Meta: c.Meta}, variant, size)
	return codec.EncodeWhole(e, err, c)
}
