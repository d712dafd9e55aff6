package las

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/las/internal/laz"
	"github.com/pctk/pctk/io/pcio"
)

// maxChunkBytes bounds the record buffer of one Read.
const maxChunkBytes = 8 << 20

// Decoder reads a LAS file in chunks of points. Its zero value is not
// usable; call NewDecoder.
type Decoder struct {
	r      io.Reader
	pos    int64 // bytes consumed from r
	info   *Info
	header pcio.Header
	fields []field // native then extra fields, in schema order
	recLen int
	left   uint64 // points still to read
	read   int64  // points read so far
	buf    []byte
	done   bool
	opt    pcio.ReadOptions
	evlrAt []int64       // byte offsets of the EVLRs' payloads
	lz     *lazReader    // LAZ: the compressed records' reader
	sel    laz.Selection // LAZ: the layers to decode (ReadOptions.Dims); 0 all
	// compressed is the size of the compressed point data of a LAZ file.
	compressed int64
	size       int64 // LAZ: the file size
}

// NewDecoder reads the header and VLRs of a LAS file from r and returns a
// decoder positioned at the first point. When r is an io.ReadSeeker the
// promised point count is checked against the file size and the EVLRs are
// read up front; otherwise they are read after the last point and added to
// the Info then. A file that holds fewer points than its header promises is
// an error (a *codec.ShortError, wrapping io.ErrUnexpectedEOF) unless opts
// (at most one) asks to salvage it: then the points it holds are read and
// the defect goes to the options' Warn.
func NewDecoder(r io.Reader, opts ...pcio.ReadOptions) (*Decoder, error) {
	d := &Decoder{r: r, info: &Info{}, opt: pcio.Options(opts)}
	if err := d.readHeader(); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Decoder) warnf(format string, args ...any) {
	d.info.Warnings = append(d.info.Warnings, fmt.Sprintf(format, args...))
}

// readFull reads len(b) bytes and names field when the input ends early.
func (d *Decoder) readFull(b []byte, field string) error {
	n, err := io.ReadFull(d.r, b)
	d.pos += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return &FormatError{Field: field, Offset: d.pos - int64(n), Msg: fmt.Sprintf("file ends after %d of %d bytes", n, len(b)), Err: io.ErrUnexpectedEOF}
		}
		return fmt.Errorf("las: reading %s: %w", field, err)
	}
	return nil
}

func (d *Decoder) readHeader() error {
	b := make([]byte, headerSize12)
	if err := d.readFull(b[:4], "file signature"); err != nil {
		return err
	}
	if string(b[:4]) != "LASF" {
		return formatErr("file signature", 0, "got %q, want \"LASF\"", b[:4])
	}
	if err := d.readFull(b[4:], "public header block"); err != nil {
		return err
	}
	if b[24] != 1 || b[25] > 4 {
		return &UnsupportedError{Field: "version", Offset: 24, Msg: fmt.Sprintf("LAS %d.%d (pctk reads 1.0 to 1.4)", b[24], b[25])}
	}
	hs := int(le.Uint16(b[offHeaderSize:]))
	if want := minHeaderSize(b[25]); hs < want {
		return formatErr("header size", offHeaderSize, "%d bytes is less than the %d of LAS 1.%d", hs, want, b[25])
	}
	b = append(b, make([]byte, hs-headerSize12)...)
	if err := d.readFull(b[headerSize12:], "public header block"); err != nil {
		return err
	}
	h := parseHeader(b)
	if std := minHeaderSize(h.VersionMinor); hs > std {
		h.Extra = b[std:]
		d.warnf("header size %d exceeds the %d bytes of LAS %s; the %d extra bytes are kept", hs, std, h.Version(), hs-std)
	}
	d.info.Header = *h
	if err := checkScale(h); err != nil {
		return err
	}
	if h.PointOffset < uint32(hs) {
		return formatErr("offset to point data", offPointOffset, "%d lies inside the %d-byte header", h.PointOffset, hs)
	}
	pf := h.pointFormat()
	if pf >= len(formatSizes) {
		return &UnsupportedError{Field: "point data format", Offset: offPointFormat, Msg: fmt.Sprintf("format %d (LAS defines 0 to 10)", pf)}
	}
	if pf >= 6 && h.VersionMinor < 4 {
		d.warnf("point format %d needs LAS 1.4 but the file says %s; read as 1.4 records", pf, h.Version())
	}
	if int(h.RecordLength) < formatSizes[pf] {
		return formatErr("point data record length", offRecordLength, "%d bytes is less than the %d of point format %d", h.RecordLength, formatSizes[pf], pf)
	}
	d.recLen = int(h.RecordLength)
	if err := d.readVLRs(); err != nil {
		return err
	}
	d.left = h.PointCount()
	if h.VersionMinor >= 4 && h.Count != 0 && h.LegacyCount != 0 && uint64(h.LegacyCount) != h.Count {
		d.warnf("legacy point count %d (byte offset %d) disagrees with the 64-bit count %d (byte offset %d); using the legacy count, as LAS 1.4 says", h.LegacyCount, offLegacyCount, h.Count, offCount)
	}
	// The EVLRs come before the schema: they may hold Extra Bytes
	// descriptors (LAS 1.4 R15).
	var lazVLR *laz.VLR
	if h.isLAZ() {
		v, err := d.lazSource()
		if err != nil {
			return err
		}
		lazVLR = v
	} else if s, ok := d.r.(io.ReadSeeker); ok {
		if err := d.checkSize(s); err != nil {
			return err
		}
	}
	if err := d.zeroCount(lazVLR != nil); err != nil {
		return err
	}
	if err := d.buildSchema(); err != nil {
		return err
	}
	if d.opt.Dims != nil {
		d.keepFields(d.opt.Dims)
	}
	if lazVLR != nil {
		if err := d.openLAZ(lazVLR); err != nil {
			return err
		}
	}
	d.header = pcio.Header{Count: int64(min(d.left, 1<<62)), Schema: d.schema(), Meta: core.Metadata{
		Format: MetaKey,
		CRS:    crsFromVLRs(d.info.VLRs),
		Extra:  map[string]any{MetaKey: d.info},
	}}
	if d.header.Meta.CRS.IsZero() {
		d.header.Meta.CRS = crsFromVLRs(d.info.EVLRs)
	}
	return nil
}

// readVLRs reads the VLRs between the header and the point data, and the
// bytes after them. A VLR that does not fit ends the list with a warning;
// its bytes stay in Pad.
func (d *Decoder) readVLRs() error {
	h := &d.info.Header
	end := int64(h.PointOffset)
	for i := range h.NumVLRs {
		if d.pos+vlrHeaderSize > end {
			d.warnf("header promises %d VLRs (byte offset %d) but only %d fit before the point data at byte offset %d", h.NumVLRs, offNumVLRs, i, end)
			break
		}
		hb := make([]byte, vlrHeaderSize)
		if err := d.readFull(hb, fmt.Sprintf("VLR %d header", i)); err != nil {
			return err
		}
		v, n := parseVLRHeader(hb, false)
		if d.pos+int64(n) > end {
			d.warnf("VLR %d (%s/%d) at byte offset %d: record length %d runs past the point data at byte offset %d; it and later VLRs are kept as raw bytes", i, v.User(), v.RecordID, d.pos-vlrHeaderSize, n, end)
			d.info.Pad = hb
			break
		}
		data, err := readN(d.r, n)
		start := d.pos
		d.pos += int64(len(data))
		if err != nil {
			return &FormatError{Field: fmt.Sprintf("VLR %d data", i), Offset: start, Msg: fmt.Sprintf("file ends after %d of %d bytes", len(data), n), Err: io.ErrUnexpectedEOF}
		}
		v.Data = data
		d.info.VLRs = append(d.info.VLRs, v)
	}
	rest, err := readN(d.r, uint64(end-d.pos))
	d.pos += int64(len(rest))
	if err != nil {
		return &FormatError{Field: "offset to point data", Offset: offPointOffset, Msg: fmt.Sprintf("file ends at byte offset %d, before the point data at %d", d.pos, end), Err: io.ErrUnexpectedEOF}
	}
	d.info.Pad = append(d.info.Pad, rest...)
	return nil
}

// vlrDataOffset returns the byte offset of VLR i's payload.
func (d *Decoder) vlrDataOffset(i int) int64 {
	off := int64(d.info.Header.HeaderSize) + vlrHeaderSize
	for k := range i {
		off += vlrHeaderSize + int64(len(d.info.VLRs[k].Data))
	}
	return off
}

// buildSchema lays out the native and extra fields of the records.
func (d *Decoder) buildSchema() error {
	pf := d.info.Header.pointFormat()
	d.fields = nativeFields(pf)
	taken := map[string]bool{core.DimX: true, core.DimY: true, core.DimZ: true}
	for _, f := range d.fields {
		taken[f.name] = true
	}
	room := d.recLen - formatSizes[pf]
	var recs []ebRecord
	for i := range d.info.VLRs {
		if d.info.VLRs[i].Is(userSpec, recExtraBytes) {
			recs = append(recs, ebRecord{"Extra Bytes VLR", d.info.VLRs[i].Data, d.vlrDataOffset(i)})
		}
	}
	for i := range d.info.EVLRs {
		if d.info.EVLRs[i].Is(userSpec, recExtraBytes) {
			recs = append(recs, ebRecord{"Extra Bytes EVLR", d.info.EVLRs[i].Data, d.evlrAt[i]})
		}
	}
	efs, warns, err := parseExtraBytes(recs, room, taken)
	if err != nil {
		return err
	}
	d.info.Warnings = append(d.info.Warnings, warns...)
	d.info.Extra = efs
	used := 0
	for _, ef := range efs {
		used += ef.size()
	}
	if used < room {
		if used > 0 {
			d.warnf("the Extra Bytes records describe %d of the %d bytes each record holds beyond point format %d; the rest are read as ExtraByte columns", used, room, pf)
		}
		d.info.Extra = append(d.info.Extra, undescribed(used, room, taken)...)
	}
	off := formatSizes[pf]
	for i := range d.info.Extra {
		ef := &d.info.Extra[i]
		d.fields = append(d.fields, ef.fields(off)...)
		off += ef.size()
	}
	return nil
}

// checkScale refuses a scale factor that is 0, NaN or infinite, or an
// offset that is not finite: no coordinate could be read with them.
func checkScale(h *Header) error {
	for k, axis := range [3]string{"X", "Y", "Z"} {
		if s := h.Scale[k]; s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
			return formatErr(axis+" scale factor", int64(offScale+8*k), "%v: a scale factor must be a finite number other than 0", s)
		}
		if o := h.Offset[k]; math.IsNaN(o) || math.IsInf(o, 0) {
			return formatErr(axis+" offset", int64(offOffset+8*k), "%v: an offset must be a finite number", o)
		}
	}
	return nil
}

// zeroCount refuses a header that promises no points while its points by
// return, or the point data (of a file that can seek; compressed when
// laz), say there are some: an error naming the count field, or, with
// Salvage, a warning, and the decoder reads the records the point data
// holds (LAS) or the points by return promise (LAZ).
func (d *Decoder) zeroCount(laz bool) error {
	h := &d.info.Header
	if h.PointCount() != 0 {
		// A count the file falls short of is checkSize's (a cut file),
		// not a count of 0.
		return nil
	}
	var byReturn uint64
	for i := range 15 {
		if h.VersionMinor >= 4 {
			byReturn += h.ByReturn[i]
		} else if i < 5 {
			byReturn += uint64(h.LegacyByReturn[i])
		}
	}
	end, seeks := d.pointsEnd()
	var held uint64
	if seeks && !laz {
		held = uint64(max(end-d.pos, 0)) / uint64(d.recLen)
	}
	if held == 0 && byReturn == 0 && !(laz && seeks && end-d.pos > lazEmptyData) {
		return nil
	}
	var why []string
	if held > 0 {
		why = append(why, fmt.Sprintf("the point data holds %d records", held))
	} else if laz {
		why = append(why, fmt.Sprintf("the point data holds %d compressed bytes", end-d.pos))
	}
	if byReturn > 0 {
		why = append(why, fmt.Sprintf("the points by return sum to %d", byReturn))
	}
	err := formatErr("number of point records", int64(d.countOffset()), "the header promises 0 points, but %s", strings.Join(why, " and "))
	if !d.opt.Salvage {
		return err
	}
	d.opt.Warning(err)
	d.left = held
	if laz || held == 0 {
		d.left = byReturn
	}
	return nil
}

// lazEmptyData is the most compressed bytes a LAZ file of no points
// holds: the chunk table offset and a table of no chunks.
const lazEmptyData = 16

// pointsEnd returns the byte offset where the point data ends (the first
// EVLR, or the end of the file) and whether it is known: the input can
// seek, or was read into memory.
func (d *Decoder) pointsEnd() (int64, bool) {
	s, ok := d.r.(io.Seeker)
	if !ok {
		return 0, false
	}
	size := d.size
	if size == 0 {
		var err error
		if size, err = s.Seek(0, io.SeekEnd); err != nil {
			return 0, false
		}
		if _, err := s.Seek(d.pos, io.SeekStart); err != nil {
			return 0, false
		}
	}
	if start, n := d.evlrStart(); n > 0 && start >= d.pos && start < size {
		return start, true
	}
	return size, true
}

// checkSize compares the promised points with the bytes the file holds and
// reads the EVLRs, then returns s to the first point.
func (d *Decoder) checkSize(s io.ReadSeeker) error {
	size, err := s.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("las: %w", err)
	}
	if have := uint64(max(size-d.pos, 0)) / uint64(d.recLen); have < d.left {
		if err := d.short(size, int64(have)); err != nil {
			return err
		}
		d.left = have
	}
	d.readEVLRs(s, size)
	if _, err := s.Seek(d.pos, io.SeekStart); err != nil {
		return fmt.Errorf("las: %w", err)
	}
	return nil
}

// short reports a file that ends at byte offset end holding present of
// the promised points: an error, or with Salvage a warning (nil is
// returned and the caller reads the points there are).
func (d *Decoder) short(end, present int64) error {
	err := &codec.ShortError{Codec: "las", Pos: codec.Pos{Offset: end}, What: "points", Promised: d.read + int64(min(d.left, 1<<62)), Present: present,
		Count: fmt.Sprintf("number of point records, byte offset %d", d.countOffset())}
	if !d.opt.Salvage {
		return err
	}
	d.opt.Warning(err)
	return nil
}

// countOffset is the byte offset of the point count the decoder uses.
func (d *Decoder) countOffset() int {
	if d.info.Header.VersionMinor >= 4 && d.info.Header.LegacyCount == 0 {
		return offCount
	}
	return offLegacyCount
}

// evlrStart returns the byte offset of the first EVLR and their number:
// the 1.4 EVLR fields, or LAS 1.3's waveform data packet record.
func (d *Decoder) evlrStart() (int64, uint32) {
	h := &d.info.Header
	switch {
	case h.VersionMinor >= 4 && h.NumEVLRs > 0:
		return int64(min(h.EVLRStart, 1<<62)), h.NumEVLRs
	case h.VersionMinor == 3 && h.WaveformStart > 0:
		return int64(min(h.WaveformStart, 1<<62)), 1
	}
	return 0, 0
}

// readEVLRs reads the EVLRs. With a seeker s it seeks to them (size is the
// file size); otherwise it skips forward from the end of the points. A
// missing or truncated EVLR is a warning.
func (d *Decoder) readEVLRs(s io.Seeker, size int64) {
	start, n := d.evlrStart()
	if n == 0 {
		return
	}
	pos := d.pos
	if s != nil {
		if start > size {
			d.warnf("EVLRs start at byte offset %d, past the end of the file (%d bytes)", start, size)
			return
		}
		if _, err := s.Seek(start, io.SeekStart); err != nil {
			d.warnf("EVLRs at byte offset %d: %v", start, err)
			return
		}
		pos = start
	} else {
		if start < pos {
			d.warnf("EVLRs at byte offset %d lie before the end of the point data (%d); not read", start, pos)
			return
		}
		k, _ := io.CopyN(io.Discard, d.r, start-pos)
		pos += k
		d.pos = pos
		if pos < start {
			d.warnf("EVLRs start at byte offset %d, past the end of the file (%d bytes)", start, pos)
			return
		}
	}
	for i := range n {
		hb := make([]byte, evlrHeaderSize)
		k, err := io.ReadFull(d.r, hb)
		pos += int64(k)
		if err != nil {
			d.warnf("header promises %d EVLRs (byte offset %d) but the file ends in EVLR %d at byte offset %d", n, offNumEVLRs, i, pos)
			break
		}
		v, length := parseVLRHeader(hb, true)
		if s != nil && uint64(size-pos) < length {
			d.warnf("EVLR %d (%s/%d) at byte offset %d: record length %d runs past the end of the file (%d bytes)", i, v.User(), v.RecordID, pos-evlrHeaderSize, length, size)
			break
		}
		data, err := readN(d.r, length)
		pos += int64(len(data))
		if err != nil {
			d.warnf("EVLR %d (%s/%d) at byte offset %d: record length %d runs past the end of the file", i, v.User(), v.RecordID, pos-int64(len(data))-evlrHeaderSize, length)
			break
		}
		v.Data = data
		d.info.EVLRs = append(d.info.EVLRs, v)
		d.evlrAt = append(d.evlrAt, pos-int64(len(data)))
	}
	if s == nil {
		d.pos = pos
	}
}

// schema returns the attribute columns (without data) in record order.
func (d *Decoder) schema() []*core.Attribute {
	out := make([]*core.Attribute, len(d.fields))
	for i, f := range d.fields {
		out[i] = &core.Attribute{Name: f.name, Type: f.col}
	}
	return out
}

// Header returns the point count, schema and metadata; Meta.Extra["las"]
// holds the *Info.
func (d *Decoder) Header() *pcio.Header { return &d.header }

// Info returns the file's LAS header, VLRs and warnings.
func (d *Decoder) Info() *Info { return d.info }

// Read returns the next chunk of at most limit points, or io.EOF after
// the last. A file that ends before the promised count is an error, unless
// salvaged (see NewDecoder).
func (d *Decoder) Read(limit int) (*core.Cloud, error) {
	b, n, err := d.next(limit)
	if err != nil {
		return nil, err
	}
	c := core.New(n)
	c.Attrs = d.schema()
	for _, a := range c.Attrs {
		a.Data = core.NewAttribute(a.Name, a.Type, n).Data
	}
	d.decodeInto(c, 0, b, n)
	c.Meta = d.header.Meta
	c.Meta.Extra = maps.Clone(d.header.Meta.Extra)
	return c, nil
}

// next reads up to limit records and returns their bytes (valid until the
// next call) and number, or io.EOF after the last; after the last point of
// a stream that cannot seek it reads the EVLRs.
func (d *Decoder) next(limit int) ([]byte, int, error) {
	if d.left == 0 {
		if !d.done {
			d.done = true
			if _, ok := d.r.(io.Seeker); !ok {
				d.readEVLRs(nil, 0)
				if d.header.Meta.CRS.IsZero() {
					d.header.Meta.CRS = crsFromVLRs(d.info.EVLRs)
				}
			}
		}
		return nil, 0, io.EOF
	}
	if d.lz != nil {
		return d.lz.next(d, limit)
	}
	// The buffer is bounded in bytes, whatever the header promises.
	n := int(min(uint64(max(limit, 1)), d.left, uint64(max(maxChunkBytes/d.recLen, 1))))
	need := n * d.recLen
	if cap(d.buf) < need {
		d.buf = make([]byte, need)
	}
	b := d.buf[:need]
	got, err := io.ReadFull(d.r, b)
	start := d.pos
	d.pos += int64(got)
	if err != nil {
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, 0, fmt.Errorf("las: reading point %d: %w", d.read, err)
		}
		n = got / d.recLen
		if err := d.short(start+int64(got), d.read+int64(n)); err != nil {
			return nil, 0, err
		}
		d.left = uint64(n)
		d.done = true // nothing follows a truncated point block
		if n == 0 {
			d.left = 0
			return nil, 0, io.EOF
		}
	}
	d.left -= uint64(n)
	d.read += int64(n)
	return b[:n*d.recLen], n, nil
}

// decodeInto decodes n records from b into points at to at+n-1 of c, which
// has the decoder's schema. Ranges of records decode on all cores
// (codec.DecodeRecords).
func (d *Decoder) decodeInto(c *core.Cloud, at int, b []byte, n int) {
	h := &d.info.Header
	rl := d.recLen
	codec.DecodeRecords(n, func(lo, hi int) {
		rb := b[lo*rl : hi*rl]
		for k, dst := range [3][]float64{c.X[at+lo : at+hi], c.Y[at+lo : at+hi], c.Z[at+lo : at+hi]} {
			s, o := h.Scale[k], h.Offset[k]
			for i := range dst {
				dst[i] = float64(int32(le.Uint32(rb[i*rl+4*k:])))*s + o
			}
		}
		for i := range d.fields {
			d.fields[i].decode(c.Attrs[i].Slice(at+lo, at+hi), rb, rl)
		}
	})
}

// Decode reads a whole LAS file, with options as NewDecoder. When r can
// seek, the checked point count sizes the columns up front; otherwise they
// grow as points arrive, so a lying header costs no memory.
func Decode(r io.Reader, opts ...pcio.ReadOptions) (*core.Cloud, error) {
	d, err := NewDecoder(r, opts...)
	if err != nil {
		return nil, err
	}
	// From a stream, start with what one chunk's records would hold.
	perPoint := 24
	for _, f := range d.fields {
		perPoint += f.col.Size()
	}
	size := int(min(d.left, 1<<16, uint64(max(maxChunkBytes/perPoint, 1))))
	if d.lz != nil {
		size = int(min(d.left, math.MaxInt32, uint64(d.compressed)*lazMaxRatio/uint64(d.recLen)+1))
	} else if _, ok := r.(io.Seeker); ok {
		size = int(min(d.left, math.MaxInt32)) // checked against the file size
	}
	out := core.New(size)
	out.Attrs = d.schema()
	for _, a := range out.Attrs {
		a.Data = core.NewAttribute(a.Name, a.Type, size).Data
	}
	filled := 0
	for {
		b, n, err := d.next(1 << 16)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if filled+n > out.Len() {
			resize(out, max(2*out.Len(), filled+n))
		}
		d.decodeInto(out, filled, b, n)
		filled += n
	}
	if filled < out.Len() {
		resize(out, filled)
	}
	out.Meta = d.header.Meta
	return out, nil
}

// resize sets the number of points of c to n, keeping the first ones.
func resize(c *core.Cloud, n int) {
	c.X, c.Y, c.Z = growTo(c.X, n), growTo(c.Y, n), growTo(c.Z, n)
	for _, a := range c.Attrs {
		a.Data = window(a.Data, n)
	}
}

// window returns the first n elements of a column's data slice: a view
// into the same array, or a copy into a new one when n passes its capacity.
func window(data any, n int) any {
	switch d := data.(type) {
	case []int8:
		return growTo(d, n)
	case []uint8:
		return growTo(d, n)
	case []int16:
		return growTo(d, n)
	case []uint16:
		return growTo(d, n)
	case []int32:
		return growTo(d, n)
	case []uint32:
		return growTo(d, n)
	case []int64:
		return growTo(d, n)
	case []uint64:
		return growTo(d, n)
	case []float32:
		return growTo(d, n)
	case []float64:
		return growTo(d, n)
	}
	return data
}

// growTo returns s[:n], first copying s into a new array when n passes its
// capacity.
func growTo[T any](s []T, n int) []T {
	if n > cap(s) {
		t := make([]T, n)
		copy(t, s)
		s = t
	}
	return s[:n]
}
