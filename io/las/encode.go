package las

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/las/internal/laz"
	"github.com/pctk/pctk/io/pcio"
)

// WarningHandler receives the writer's warnings (a coarser scale than
// 1 mm, dropped records). It prints to standard error by default.
var WarningHandler = func(msg string) { fmt.Fprintln(os.Stderr, "las: warning:", msg) }

// Software is written as the generating software of files pctk creates.
const Software = "pctk"

// Encoder writes a LAS file in chunks. Call Close to finish the file.
type Encoder struct {
	w       io.Writer
	ws      io.WriteSeeker // w when it can seek, to patch the header at Close
	base    int64          // offset of the header in ws
	src     *Info
	lay     *layout
	hdr     Header
	crs     core.CRS
	vlrs    []VLR
	pad     []byte
	count   int64 // points announced
	written int64

	pointStats // of the points written so far
	// scaleSet is false while a streaming encoder without a LAS source
	// waits for its first chunk to choose scale and offset.
	scaleSet bool
	opt      *WriteOptions // nil: Encode's choices
	err      error
	lz       *lazWriter // LAZ: the compressor
}

// NewEncoder starts writing a LAS file of h.Count points with h's schema
// and metadata. The header is written at once; when w is an
// io.WriteSeeker, Close patches the point counts by return and the bounds.
// Otherwise (standard output) those come from h up front: h.Meta must be
// from a LAS file (its header's bounds and counts by return are written),
// and Close warns when the points exceed those bounds.
func NewEncoder(w io.Writer, h *pcio.Header, variant string) (*Encoder, error) {
	return (*WriteOptions)(nil).NewEncoder(w, h, variant)
}

// NewEncoder is the package's NewEncoder with the options o. A scale or
// offset "auto" needs every point first, which a stream has not: it is an
// error here (Encode takes it).
func (o *WriteOptions) NewEncoder(w io.Writer, h *pcio.Header, variant string) (*Encoder, error) {
	return newStreamEncoder(w, h, variant, false, o)
}

// newStreamEncoder is NewEncoder, writing LAZ when compress is set.
func newStreamEncoder(w io.Writer, h *pcio.Header, variant string, compress bool, o *WriteOptions) (*Encoder, error) {
	if o.NeedsBounds() {
		return nil, errors.New("las: a scale or offset \"auto\" needs the bounds of every point before the first is written, which a streaming writer has not")
	}
	e, err := newEncoderZ(w, h.Schema, &h.Meta, h.Count, variant, compress, o)
	if err != nil {
		return nil, err
	}
	if e.ws == nil {
		if e.src == nil {
			return nil, errors.New("las: streaming to a writer that cannot seek needs the bounds up front; only a cloud read from LAS brings them (write to a file instead)")
		}
		e.hdr.Min, e.hdr.Max = e.src.Header.Min, e.src.Header.Max
		for i := range 15 {
			e.byReturn[i] = e.src.Header.ByReturn[i]
			if i < 5 && e.src.Header.VersionMinor < 4 {
				e.byReturn[i] = uint64(e.src.Header.LegacyByReturn[i])
			}
		}
		e.setCounts()
	}
	if e.src != nil {
		e.setScale(e.src.Header.Scale, e.src.Header.Offset)
	}
	return e, e.writeHead()
}

func newEncoder(w io.Writer, schema []*core.Attribute, m *core.Metadata, count int64, variant string, o *WriteOptions) (*Encoder, error) {
	src := InfoOf(m)
	lay, err := planLayout(schema, src, variant, o)
	if err != nil {
		return nil, err
	}
	if len(lay.dropped) > 0 {
		WarningHandler(fmt.Sprintf("point format %d with the extra dimensions asked for leaves out %s", lay.pf, strings.Join(lay.dropped, ", ")))
	}
	if count < 0 {
		return nil, fmt.Errorf("las: negative point count %d", count)
	}
	if lay.minor < 4 && count > math.MaxUint32 {
		return nil, fmt.Errorf("las: %d points exceed the 4294967295 of LAS 1.%d; write LAS 1.4", count, lay.minor)
	}
	e := &Encoder{w: w, src: src, lay: lay, crs: m.CRS, count: count, pointStats: noPoints(), opt: o}
	if ws, ok := w.(io.WriteSeeker); ok {
		if pos, err := ws.Seek(0, io.SeekCurrent); err == nil {
			e.ws, e.base = ws, pos
		}
	}
	e.buildHeader()
	return e, nil
}

// buildHeader fills the header from the source's, or afresh.
func (e *Encoder) buildHeader() {
	h := &e.hdr
	lay := e.lay
	if e.src != nil {
		*h = e.src.Header
		if h.VersionMinor != lay.minor {
			h.Extra = nil
		}
		e.pad = e.src.Pad
		if e.src.Header.VersionMinor != lay.minor {
			e.pad = nil
		}
	} else {
		now := time.Now().UTC()
		setCString(h.SystemID[:], "pctk")
		setCString(h.Software[:], Software)
		h.CreationDay, h.CreationYear = uint16(now.YearDay()), uint16(now.Year())
	}
	h.VersionMajor, h.VersionMinor = 1, lay.minor
	h.HeaderSize = uint16(minHeaderSize(lay.minor) + len(h.Extra))
	h.PointFormat = uint8(lay.pf)
	if e.lz != nil {
		h.PointFormat |= 0x80 // LASzip's mark of compression
	}
	h.RecordLength = uint16(lay.recLen)
	e.vlrs = e.lazVLRs(lay.vlrs(e.src, e.crs))
	if lay.minor < 4 {
		// EVLRs of a 1.4 source become VLRs where they fit, except the
		// waveform data, which LAS 1.3 keeps after the points.
		for _, v := range e.evlrs() {
			if lay.minor == 3 && v.Is(userSpec, recWaveform) {
				continue
			}
			if len(v.Data) <= math.MaxUint16 {
				e.vlrs = append(e.vlrs, v)
			} else {
				WarningHandler(fmt.Sprintf("EVLR %s is too long for a VLR of LAS 1.%d; dropped", v.String(), lay.minor))
			}
		}
	}
	h.NumVLRs = uint32(len(e.vlrs))
	size := int(h.HeaderSize) + len(e.pad)
	for _, v := range e.vlrs {
		size += vlrHeaderSize + len(v.Data)
	}
	h.PointOffset = uint32(size)
	h.GlobalEncoding &^= 1 << 4
	if lay.minor >= 4 && (findVLR(e.vlrs, userProjection, recWKT) >= 0 || findVLR(e.evlrs(), userProjection, recWKT) >= 0) {
		h.GlobalEncoding |= 1 << 4
	}
	e.placeEVLRs()
	e.setCounts()
}

// evlrFields returns the header fields that locate the EVLRs.
func (e *Encoder) evlrFields() [3]uint64 {
	return [3]uint64{e.hdr.WaveformStart, e.hdr.EVLRStart, uint64(e.hdr.NumEVLRs)}
}

// placeEVLRs sets the header fields that locate the EVLRs, which follow the
// announced points, and returns their encoding. LAS 1.3 keeps only the
// waveform data packet record; earlier versions keep none here (buildHeader
// turned them into VLRs).
func (e *Encoder) placeEVLRs() []byte {
	h := &e.hdr
	h.WaveformStart, h.EVLRStart, h.NumEVLRs = 0, 0, 0
	if h.VersionMinor < 3 {
		return nil
	}
	pos := uint64(h.PointOffset) + uint64(e.count)*uint64(e.lay.recLen)
	if e.lz != nil {
		pos = uint64(e.lz.end) // past the chunk table; 0 until it is written
	}
	var b []byte
	for _, v := range e.evlrs() {
		wave := v.Is(userSpec, recWaveform)
		if h.VersionMinor == 3 && (!wave || h.WaveformStart != 0) {
			continue
		}
		if wave && h.WaveformStart == 0 {
			h.WaveformStart = pos + uint64(len(b))
		}
		if h.VersionMinor >= 4 {
			if h.NumEVLRs == 0 {
				h.EVLRStart = pos
			}
			h.NumEVLRs++
		}
		b = appendVLR(b, &v, true)
	}
	return b
}

// evlrs returns the EVLRs to write: the source's (read by now, even when
// its decoder streams), less CRS records when the CRS changed and Extra
// Bytes records when the layout's descriptors differ from the source's.
func (e *Encoder) evlrs() []VLR {
	if e.src == nil {
		return nil
	}
	change := planCRS(e.crs, crsFromVLRs(append(slices.Clone(e.src.VLRs), e.src.EVLRs...)))
	var out []VLR
	for _, v := range e.src.EVLRs {
		if !change.drops(&v) && !layoutVLR(&v) && (e.lay.keepEB || !v.Is(userSpec, recExtraBytes)) {
			out = append(out, v)
		}
	}
	return out
}

// setCounts stores the point counts in the header.
func (e *Encoder) setCounts() {
	h := &e.hdr
	n := uint64(e.count)
	h.Count, h.ByReturn = 0, [15]uint64{}
	if h.VersionMinor >= 4 {
		h.Count, h.ByReturn = n, e.byReturn
	}
	h.LegacyCount, h.LegacyByReturn = 0, [5]uint32{}
	if e.lay.pf <= 5 && n <= math.MaxUint32 {
		h.LegacyCount = uint32(n)
		for i := range 5 {
			h.LegacyByReturn[i] = uint32(min(e.byReturn[i], math.MaxUint32))
		}
	}
}

// SetScale sets the scale and offset of the coordinates to write, in place
// of the LAS source's or, for a cloud from another format, those the first
// chunk written would choose: a streaming writer sets those that Encode
// would choose for all its points (ScaleFit). Call it before Write; a
// stream that cannot seek has its header written already and refuses it.
func (e *Encoder) SetScale(scale, offset [3]float64) error {
	switch {
	case e.written > 0:
		return errors.New("las: the scale is set before the first point is written")
	case e.ws == nil:
		return errors.New("las: the header went to a stream that cannot seek; its scale stays")
	}
	e.setScale(scale, offset)
	return nil
}

func (e *Encoder) setScale(scale, offset [3]float64) {
	e.hdr.Scale, e.hdr.Offset = e.opt.apply(scale, offset, nil)
	e.scaleSet = true
}

// fitScale sets the scale and offset of a whole cloud c with bounds b (ok
// false: no points): the source's when the points fit them, else those
// chooseScale finds, with those the options set in their place (auto ones
// from b).
func (e *Encoder) fitScale(c *core.Cloud, b core.Bounds, ok bool) {
	var scale, offset [3]float64
	switch {
	case !ok:
		scale = noPointsScale
	case e.opt.fixed():
	case e.src != nil && fits(b, e.src.Header.Scale, e.src.Header.Offset):
		scale, offset = e.src.Header.Scale, e.src.Header.Offset
	default:
		if e.src != nil {
			WarningHandler("the points no longer fit the source's scale and offset; new ones are chosen")
		}
		scale, offset = chooseScale(b, c, 1)
	}
	if ok {
		scale, offset = e.opt.apply(scale, offset, &b)
	}
	e.setScale(scale, offset)
}

// writeHead writes the header, the VLRs and the padding.
func (e *Encoder) writeHead() error {
	b := e.hdr.marshal()
	for i := range e.vlrs {
		b = appendVLR(b, &e.vlrs[i], false)
	}
	b = append(b, e.pad...)
	if _, err := e.w.Write(b); err != nil {
		return err
	}
	if e.lz != nil {
		return e.startLAZ()
	}
	return nil
}

// Write appends the points of c, whose schema must match the header's.
func (e *Encoder) Write(c *core.Cloud) error {
	if e.err != nil {
		return e.err
	}
	if e.written+int64(c.Len()) > e.count {
		e.err = fmt.Errorf("las: writing %d points past the %d announced", e.written+int64(c.Len())-e.count, e.count)
		return e.err
	}
	if !e.scaleSet {
		b, ok := c.Bounds()
		if ok {
			// Later chunks may reach farther than the first: leave room.
			e.setScale(chooseScale(b, c, 16))
		}
	}
	// Match columns to fields once per call: files with thousands of
	// undescribed extra bytes have as many columns.
	byName := make(map[string]*core.Attribute, len(c.Attrs))
	for _, a := range c.Attrs {
		byName[a.Name] = a
	}
	cols := make([]*core.Attribute, len(e.lay.fields))
	for i, f := range e.lay.fields {
		cols[i] = byName[f.name]
	}
	if err := e.writeRecords(c, cols); err != nil {
		e.err = err
		return err
	}
	return nil
}

// pointStats are what the header states of the points written: the
// bounds of their quantized coordinates and their counts by return.
type pointStats struct {
	lo, hi   [3]float64
	byReturn [15]uint64
}

// noPoints returns the stats of no points: empty bounds, no returns.
func noPoints() pointStats {
	var s pointStats
	for k := range 3 {
		s.lo[k], s.hi[k] = math.Inf(1), math.Inf(-1)
	}
	return s
}

// add merges the stats of other points into s. Minima, maxima and sums do
// not depend on the order of the merges.
func (s *pointStats) add(o *pointStats) {
	for k := range 3 {
		s.lo[k], s.hi[k] = min(s.lo[k], o.lo[k]), max(s.hi[k], o.hi[k])
	}
	for i, n := range o.byReturn {
		s.byReturn[i] += n
	}
}

// countReturns counts points lo to hi-1 of c by return number.
func (s *pointStats) countReturns(c *core.Cloud, lo, hi int) {
	rn := c.Attr(core.DimReturnNumber)
	if rn == nil {
		return
	}
	if d, ok := rn.Data.([]uint8); ok { // the column's type as read from LAS
		for _, r := range d[lo:hi] {
			if r >= 1 && r <= 15 {
				s.byReturn[r-1]++
			}
		}
		return
	}
	for i := lo; i < hi; i++ {
		if r := rn.Int64(i); r >= 1 && r <= 15 {
			s.byReturn[r-1]++
		}
	}
}

// writeRecords encodes the points of c, whose column for each layout field
// is in cols (nil when c has none), and writes them, to the compressor when
// writing LAZ. Blocks of records are encoded on all cores and written in
// order (codec.WriteRecords); each block's stats are merged into e's as it
// is encoded, so the result does not depend on the number of cores.
func (e *Encoder) writeRecords(c *core.Cloud, cols []*core.Attribute) error {
	w := e.w
	if e.lz != nil {
		w = lazSink{e.lz.zw}
	}
	var mu sync.Mutex
	err := codec.WriteRecords(w, c.Len(), e.lay.recLen, func(b []byte, lo, hi int) error {
		s := noPoints()
		if err := e.encodeBlock(b, c, cols, lo, hi, &s); err != nil {
			return err
		}
		mu.Lock()
		e.add(&s)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	e.written += int64(c.Len())
	return nil
}

// encodeBlock fills b (zeroed) with the records of points lo to hi-1 of c,
// and their stats into s. It only reads e, so blocks encode concurrently.
func (e *Encoder) encodeBlock(b []byte, c *core.Cloud, cols []*core.Attribute, lo, hi int, s *pointStats) error {
	rl := e.lay.recLen
	first := e.written + int64(lo)
	h := &e.hdr
	for k, src := range [3][]float64{c.X[lo:hi], c.Y[lo:hi], c.Z[lo:hi]} {
		sc, o := h.Scale[k], h.Offset[k]
		vlo, vhi := s.lo[k], s.hi[k]
		for i, v := range src {
			r := math.Round((v - o) / sc)
			if !(r >= math.MinInt32 && r <= math.MaxInt32) {
				return fmt.Errorf("las: point %d: %c = %g does not fit a 32-bit integer with scale %g and offset %g", first+int64(i), "XYZ"[k], v, sc, o)
			}
			le.PutUint32(b[i*rl+4*k:], uint32(int32(r)))
			q := r*sc + o
			vlo, vhi = min(vlo, q), max(vhi, q)
		}
		s.lo[k], s.hi[k] = vlo, vhi
	}
	for i := range e.lay.fields {
		a := cols[i]
		if a == nil {
			continue
		}
		if err := e.lay.fields[i].encode(b, rl, a.Slice(lo, hi), first); err != nil {
			return err
		}
	}
	s.countReturns(c, lo, hi)
	return nil
}

// lazSink writes records to a LAZ compressor, which copies them.
type lazSink struct{ zw *laz.Writer }

// Write hands whole records to the compressor.
func (s lazSink) Write(b []byte) (int, error) { return len(b), s.zw.Write(b) }

// Close writes the EVLRs and completes the header. It fails when the
// number of points written differs from the number announced.
func (e *Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	if e.written != e.count {
		return fmt.Errorf("las: %d points written, %d announced", e.written, e.count)
	}
	if e.lz != nil {
		return e.closeLAZ()
	}
	head := e.evlrFields()
	if _, err := e.w.Write(e.placeEVLRs()); err != nil {
		return err
	}
	h := &e.hdr
	e.setCounts()
	if e.ws == nil {
		for k := range 3 {
			if e.written > 0 && (e.lo[k] < h.Min[k] || e.hi[k] > h.Max[k]) {
				WarningHandler(fmt.Sprintf("points reach %c from %g to %g, outside the header's bounds [%g, %g] written up front to a stream", "XYZ"[k], e.lo[k], e.hi[k], h.Min[k], h.Max[k]))
			}
		}
		if e.evlrFields() != head {
			return errors.New("las: EVLRs appeared after the header was written to a stream that cannot seek; write to a file")
		}
		return nil
	}
	if e.written > 0 {
		h.Min, h.Max = e.lo, e.hi
	} else {
		h.Min, h.Max = [3]float64{}, [3]float64{}
	}
	end, err := e.ws.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if _, err := e.ws.Seek(e.base, io.SeekStart); err != nil {
		return err
	}
	if _, err := e.ws.Write(h.marshal()); err != nil {
		return err
	}
	_, err = e.ws.Seek(end, io.SeekStart)
	return err
}

// Encode writes a whole cloud as LAS. variant is "" (keep the source's
// version and point format, or LAS 1.2 for a cloud from another format,
// 1.4 when it carries fields that need Extra Bytes), "1.2", "1.3" (waveform formats 4 and 5) or "1.4".
func Encode(w io.Writer, c *core.Cloud, variant string) error {
	return encodeZ(w, c, variant, false, nil)
}

// Encode is the package's Encode with the options o.
func (o *WriteOptions) Encode(w io.Writer, c *core.Cloud, variant string) error {
	return encodeZ(w, c, variant, false, o)
}

// encodeZ is Encode, writing LAZ when compress is set.
func encodeZ(w io.Writer, c *core.Cloud, variant string, compress bool, o *WriteOptions) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("las: %w", err)
	}
	e, err := newEncoderZ(w, c.Attrs, &c.Meta, int64(c.Len()), variant, compress, o)
	if err != nil {
		return err
	}
	b, ok := c.Bounds()
	e.fitScale(c, b, ok)
	// Everything the header states is known: write it complete, no patching.
	h := &e.hdr
	for k := range 3 {
		h.Min[k] = quantize(b.Min[k], h.Scale[k], h.Offset[k])
		h.Max[k] = quantize(b.Max[k], h.Scale[k], h.Offset[k])
	}
	rs := par.Ranges(c.Len(), par.Grain)
	parts := make([]pointStats, len(rs))
	par.For(rs, func(r, lo, hi int) {
		parts[r] = noPoints()
		parts[r].countReturns(c, lo, hi)
	})
	for r := range parts {
		e.add(&parts[r])
	}
	e.setCounts()
	e.ws = nil // the header is final; Close writes no patch
	if err := e.writeHead(); err != nil {
		return err
	}
	e.byReturn = [15]uint64{}
	if err := e.Write(c); err != nil {
		return err
	}
	return e.Close()
}
