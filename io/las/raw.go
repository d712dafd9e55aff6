package las

// This file exports what readers and writers that handle point records
// themselves need (io/las/copc fetches and compresses the records of each
// octree node on its own).

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las/internal/laz"
)

// ParseHeader decodes the public header block at the start of b, which
// must hold at least the standard header size of the file's version.
func ParseHeader(b []byte) (*Header, error) {
	if len(b) < headerSize12 {
		return nil, formatErr("public header block", 0, "%d bytes is less than the %d of LAS 1.0", len(b), headerSize12)
	}
	if string(b[:4]) != "LASF" {
		return nil, formatErr("file signature", 0, "got %q, want \"LASF\"", b[:4])
	}
	if want := minHeaderSize(b[25]); len(b) < want {
		return nil, formatErr("public header block", 0, "%d bytes is less than the %d of LAS 1.%d", len(b), want, b[25])
	}
	return parseHeader(b), nil
}

// DataFormat returns the point data format number (0-10), without the LAZ
// compression bits.
func (h *Header) DataFormat() int { return h.pointFormat() }

// NewVLR returns a VLR with the given user ID, record ID, description and
// payload.
func NewVLR(user string, record uint16, desc string, data []byte) VLR {
	return newVLR(user, record, desc, data)
}

// AppendVLR appends the encoding of v to b: a VLR header, or an EVLR
// header when extended, then the payload.
func AppendVLR(b []byte, v *VLR, extended bool) []byte { return appendVLR(b, v, extended) }

// RecordWriter encodes point records for a writer that places them itself
// (COPC): LAS 1.4, point formats 6, 7 or 8 (the ones COPC allows), every
// column that no native field holds in Extra Bytes, the source's scale
// and offset when the points still fit them. It keeps the header fields
// the records determine (bounds, counts by return) as it goes.
type RecordWriter struct {
	e   *Encoder
	buf recordBuffer
}

// recordBuffer collects what the Encoder writes.
type recordBuffer struct{ b []byte }

func (r *recordBuffer) Write(p []byte) (int, error) {
	r.b = append(r.b, p...)
	return len(p), nil
}

// NewRecordWriter plans the records of the n points of c (its schema,
// metadata and coordinates choose the layout, scale and offset). It fails
// for columns that need waveform formats 9 or 10.
func NewRecordWriter(c *core.Cloud, o *WriteOptions) (*RecordWriter, error) {
	rw := &RecordWriter{}
	m := withoutArrayExtra(&c.Meta)
	if o != nil && (o.Version != "" && o.Version != "1.4" || o.PointFormat != nil && (*o.PointFormat < 6 || *o.PointFormat > 8)) {
		return nil, errors.New("las: these records are LAS 1.4 in point format 6, 7 or 8")
	}
	e, err := newEncoder(&rw.buf, c.Attrs, m, int64(c.Len()), "1.4", o)
	if err != nil {
		return nil, err
	}
	if e.lay.pf > 8 {
		return nil, fmt.Errorf("las: the waveform fields need point format %d; these records hold formats 6 to 8", e.lay.pf)
	}
	b, ok := c.Bounds()
	e.fitScale(c, b, ok)
	rw.e = e
	return rw, nil
}

// withoutArrayExtra returns m, or a copy of it whose LAS Info lacks the
// Extra Bytes fields of the array data types 11-30, which LAS 1.4 R14
// deprecates and COPC readers (copc.js) reject: their columns then get a
// descriptor each, of types 1-10.
func withoutArrayExtra(m *core.Metadata) *core.Metadata {
	src := InfoOf(m)
	if src == nil {
		return m
	}
	keep := slices.DeleteFunc(slices.Clone(src.Extra), func(ef ExtraField) bool {
		return ef.Descriptor != nil && ef.Descriptor[ebType] > 10
	})
	if len(keep) == len(src.Extra) {
		return m
	}
	info := *src
	info.Extra = keep
	out := *m
	out.Extra = maps.Clone(m.Extra)
	out.Extra[MetaKey] = &info
	return &out
}

// PointFormat returns the point data format (6-8) and the record length.
func (rw *RecordWriter) PointFormat() (format uint8, recLen int) {
	return uint8(rw.e.lay.pf), rw.e.lay.recLen
}

// Scale returns the scale and offset of the coordinates.
func (rw *RecordWriter) Scale() (scale, offset [3]float64) { return rw.e.hdr.Scale, rw.e.hdr.Offset }

// Records encodes the points of c, which has the schema the writer was
// planned for, and returns their records (valid until the next call).
func (rw *RecordWriter) Records(c *core.Cloud) ([]byte, error) {
	if need := c.Len() * rw.e.lay.recLen; cap(rw.buf.b) < need {
		rw.buf.b = make([]byte, 0, need)
	}
	rw.buf.b = rw.buf.b[:0]
	if err := rw.e.Write(c); err != nil {
		return nil, err
	}
	return rw.buf.b, nil
}

// Head returns the header and VLRs of the file: first the VLRs in first,
// then the source's (less those of COPC and LASzip, which describe the
// source's own layout, and with the Extra Bytes and CRS records of the
// new layout); the point format byte has bit 7 set (LAZ) when laz. The
// points start right after them, pointBytes long, and evlrs (encoded
// EVLRs, the number n) after those, before the source's EVLRs that Tail
// returns. Call it after every record is written.
func (rw *RecordWriter) Head(first []VLR, laz bool, pointBytes uint64, evlrs int) []byte {
	e := rw.e
	e.setCounts()
	h := e.hdr
	vlrs := append(slices.Clone(first), e.vlrs...) // without layoutVLRs: see lazVLRs
	h.HeaderSize = headerSize14
	h.Extra = nil
	h.NumVLRs = uint32(len(vlrs))
	size := headerSize14
	for _, v := range vlrs {
		size += vlrHeaderSize + len(v.Data)
	}
	h.PointOffset = uint32(size)
	if laz {
		h.PointFormat |= 0x80
	}
	if e.written > 0 {
		h.Min, h.Max = e.lo, e.hi
	} else {
		h.Min, h.Max = [3]float64{}, [3]float64{}
	}
	h.WaveformStart = 0
	h.EVLRStart, h.NumEVLRs = 0, uint32(evlrs+len(e.evlrs()))
	if h.NumEVLRs > 0 {
		h.EVLRStart = uint64(size) + pointBytes
	}
	b := h.marshal()
	for i := range vlrs {
		b = appendVLR(b, &vlrs[i], false)
	}
	return b
}

// Tail returns the source's EVLRs to write after the caller's, encoded.
func (rw *RecordWriter) Tail() []byte {
	var b []byte
	for _, v := range rw.e.evlrs() {
		b = appendVLR(b, &v, true)
	}
	return b
}

// layoutVLR reports whether v describes how a file's points are stored
// (the COPC info and hierarchy records, the LASzip record) rather than
// the data, so that it does not carry over to another file.
func layoutVLR(v *VLR) bool {
	return v.User() == "copc" || v.Is(laz.VLRUserID, laz.VLRRecordID)
}

// ParseEVLRHeader decodes the 60-byte header of an EVLR and returns the
// record without its payload and the payload's length.
func ParseEVLRHeader(b []byte) (VLR, uint64) { return parseVLRHeader(b, true) }

// RecordReader decodes the point records of one LAS file into columns,
// for readers that fetch and decompress the records themselves (COPC).
type RecordReader struct {
	d *Decoder
}

// NewRecordReader reads the header and VLRs in head, the first bytes of
// a LAS or LAZ file up to its point data.
func NewRecordReader(head []byte) (*RecordReader, error) {
	if len(head) <= offPointFormat {
		return nil, formatErr("public header block", 0, "%d bytes is less than the %d of LAS 1.0", len(head), headerSize12)
	}
	// The records come uncompressed: read the head as plain LAS's.
	b := append([]byte(nil), head...)
	b[offPointFormat] &^= lazBits
	d, err := NewDecoder(struct{ io.Reader }{bytes.NewReader(b)})
	if err != nil {
		return nil, err
	}
	d.info.Header.PointFormat = head[offPointFormat]
	return &RecordReader{d: d}, nil
}

// Info returns the header and VLRs read.
func (rr *RecordReader) Info() *Info { return rr.d.info }

// RecordLen returns the bytes per point record.
func (rr *RecordReader) RecordLen() int { return rr.d.recLen }

// AddEVLRs adds EVLRs read separately to the Info, and takes the CRS from
// them when the VLRs have none.
func (rr *RecordReader) AddEVLRs(vs []VLR) {
	d := rr.d
	d.info.EVLRs = append(d.info.EVLRs, vs...)
	if d.header.Meta.CRS.IsZero() {
		d.header.Meta.CRS = crsFromVLRs(d.info.EVLRs)
	}
}

// NewCloud returns a cloud of n points with the file's columns, zeroed,
// and its metadata.
func (rr *RecordReader) NewCloud(n int) *core.Cloud {
	c := core.New(n)
	c.Attrs = rr.d.schema()
	for _, a := range c.Attrs {
		a.Data = core.NewAttribute(a.Name, a.Type, n).Data
	}
	c.Meta = rr.d.header.Meta
	return c
}

// Decode decodes the n records in b into points at to at+n-1 of c, a
// cloud from NewCloud. Calls on disjoint ranges may run concurrently.
func (rr *RecordReader) Decode(c *core.Cloud, at int, b []byte, n int) {
	rr.d.decodeInto(c, at, b, n)
}
