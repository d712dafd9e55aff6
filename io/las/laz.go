package las

// Reading and writing LAZ, LASzip-compressed LAS: the records go through
// io/las/internal/laz, everything else (header, VLRs, EVLRs, schema) is the
// LAS code's. See docs/laz.md.

import (
	"errors"
	"fmt"
	"io"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las/internal/laz"
	"github.com/pctk/pctk/io/pcio"
)

// lazSkipped reports a chunk that did not decode and was skipped
// (pcio.ReadOptions.Salvage, the option that also reads a LAS file cut
// short).
func (d *Decoder) lazSkipped(err error) {
	d.warnf("%v", err)
	d.opt.Warning(err)
}

// keepFields drops the columns not named in dims (pcio.ReadOptions.Dims)
// and selects the LAZ layers the kept ones need: X, Y, Z and the groups
// of laz.Selection that hold a kept field.
func (d *Decoder) keepFields(dims []string) {
	want := map[string]bool{}
	for _, n := range dims {
		want[n] = true
	}
	d.sel = laz.SelectXYZ
	kept := d.fields[:0]
	for _, f := range d.fields {
		if want[f.name] {
			kept = append(kept, f)
			d.sel |= lazGroup(f.name)
		}
	}
	d.fields = kept
}

// lazGroup is the laz.Selection group that holds the field name: the layer
// of LASzip's point formats 6-10 it is stored in.
func lazGroup(name string) laz.Selection {
	switch name {
	case core.DimIntensity:
		return laz.SelectIntensity
	case core.DimReturnNumber, core.DimNumberOfReturns, core.DimScanDirectionFlag, core.DimEdgeOfFlightLine,
		core.DimScanChannel, core.DimSynthetic, core.DimKeyPoint, core.DimWithheld, core.DimOverlap:
		return laz.SelectReturns
	case core.DimClassification:
		return laz.SelectClassification
	case core.DimScanAngleRank:
		return laz.SelectScanAngle
	case core.DimUserData:
		return laz.SelectUserData
	case core.DimPointSourceID:
		return laz.SelectPointSourceID
	case core.DimGpsTime:
		return laz.SelectGPSTime
	case core.DimRed, core.DimGreen, core.DimBlue:
		return laz.SelectRGB
	case core.DimInfrared:
		return laz.SelectNIR
	}
	// Wave packet fields and extra bytes.
	return laz.SelectWavePacket | laz.SelectExtraBytes
}

// lazReader hands out the records of a LAZ file chunk by chunk.
type lazReader struct {
	rd   *laz.Reader
	recs []byte // records of the current chunk not yet returned
}

// lazBits are the bits of the point format byte that mark compression
// (LASzip sets bit 7; bit 6 marked early versions).
const lazBits = 0xc0

// isLAZ reports whether the header's point format byte marks compression.
func (h *Header) isLAZ() bool { return h.PointFormat&lazBits != 0 }

// lazSource finds and parses the LASzip VLR and reads the EVLRs. A stream
// that cannot seek is read into memory first (the compressed bytes only),
// as the chunk table sits after the points.
func (d *Decoder) lazSource() (*laz.VLR, error) {
	h := &d.info.Header
	i := findVLR(d.info.VLRs, laz.VLRUserID, laz.VLRRecordID)
	if i < 0 {
		return nil, &UnsupportedError{Field: "point data format", Offset: offPointFormat, Msg: fmt.Sprintf("byte 0x%02x marks LAZ compression but the file has no LASzip VLR (%s/%d)", h.PointFormat, laz.VLRUserID, laz.VLRRecordID)}
	}
	v, err := laz.ParseVLR(d.info.VLRs[i].Data)
	if err != nil {
		return nil, &FormatError{Field: fmt.Sprintf("VLR %d (LASzip) data", i), Offset: d.vlrDataOffset(i), Msg: err.Error(), Err: err}
	}
	if _, ok := d.r.(interface {
		io.ReaderAt
		io.ReadSeeker
	}); !ok {
		b, err := io.ReadAll(d.r)
		if err != nil {
			return nil, fmt.Errorf("las: reading the compressed points: %w", err)
		}
		d.r = &memFile{base: d.pos, b: b, pos: d.pos}
	}
	size, err := d.r.(io.Seeker).Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("las: %w", err)
	}
	d.size = size
	d.readEVLRs(d.r.(io.Seeker), size)
	return v, nil
}

// openLAZ prepares reading the compressed points of the LASzip VLR v
// (lazSource): the chunk table and the layers to decode.
func (d *Decoder) openLAZ(v *laz.VLR) error {
	end := d.size
	if start, n := d.evlrStart(); n > 0 && start >= d.pos && start < d.size {
		end = start
	}
	if most := uint64(max(end-d.pos, 0)) * laz.MaxPointsPerByte; d.left > most {
		// No chunk is to blame: the header promises the impossible.
		err := formatErr("number of point records", int64(d.countOffset()), "the header promises %d points, more than the %d bytes of compressed point data can hold (%d points a byte at most)", d.left, end-d.pos, laz.MaxPointsPerByte)
		if !d.opt.Salvage {
			return err
		}
		d.opt.Warning(err)
		d.left = most
	}
	l := laz.Layout{VLR: v, RecLen: d.recLen, Count: d.left, Start: d.pos, End: end, Size: d.size}
	rd, err := laz.NewReader(d.r.(io.ReaderAt), l, laz.Options{Select: d.sel, Salvage: d.opt.Salvage, Skip: d.lazSkipped, Warn: func(s string) { d.warnf("%s", s) }})
	if err != nil {
		return err
	}
	d.lz = &lazReader{rd: rd}
	d.compressed = end - d.pos
	return nil
}

// next returns up to limit records of the LAZ file, or io.EOF.
func (lz *lazReader) next(d *Decoder, limit int) ([]byte, int, error) {
	if len(lz.recs) == 0 {
		recs, _, err := lz.rd.Next()
		if err == io.EOF {
			// Only salvaging skips points; the reader checked the rest.
			d.left = 0
			return nil, 0, io.EOF
		}
		if errors.Is(err, laz.ErrCut) {
			// Cut short: the whole chunks before the cut are the points
			// present, as for a LAS file cut short.
			d.warnf("%v", err)
			serr := d.short(d.size, d.read)
			d.left = 0
			if serr != nil {
				return nil, 0, serr
			}
			return nil, 0, io.EOF
		}
		if err != nil {
			d.left = 0
			return nil, 0, err
		}
		lz.recs = recs
	}
	n := int(min(uint64(max(limit, 1)), d.left, uint64(len(lz.recs)/d.recLen)))
	b := lz.recs[:n*d.recLen]
	lz.recs = lz.recs[n*d.recLen:]
	d.left -= uint64(n)
	d.read += int64(n)
	if d.left == 0 {
		d.done = true
		lz.rd.Close()
	}
	return b, n, nil
}

// memFile is a stream read into memory, seen at its place in the file:
// offsets are the file's, starting at base.
type memFile struct {
	base int64
	b    []byte
	pos  int64
}

func (m *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off < m.base || off-m.base >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off-m.base:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (m *memFile) Read(p []byte) (int, error) {
	n, err := m.ReadAt(p, m.pos)
	m.pos += int64(n)
	if n > 0 {
		err = nil
	}
	return n, err
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += m.pos
	case io.SeekEnd:
		off += m.base + int64(len(m.b))
	}
	if off < m.base {
		return 0, errors.New("las: seek before the points of a stream read into memory")
	}
	m.pos = off
	return off, nil
}

// lazMaxRatio bounds how many record bytes Decode allocates up front per
// compressed byte of a LAZ file; beyond it (only crafted or extremely
// repetitive files) the columns grow as points arrive.
const lazMaxRatio = 16

// lazWriter compresses the records an Encoder writes. A stream that cannot
// seek gets the whole file in memory first (compressed), since the chunk
// table's offset precedes the chunks and the EVLRs follow the table.
type lazWriter struct {
	out   io.Writer  // the caller's writer when the file is built in memory
	mem   *memWriter // the file in memory, or nil
	ws    io.WriteSeeker
	zw    *laz.Writer
	start int64    // offset of the chunk table's offset field in ws
	end   int64    // offset past the chunk table, once written
	vlr   *laz.VLR // the LASzip VLR written, once the header is built
}

// newEncoderZ is newEncoder, writing LAZ when compress is set.
func newEncoderZ(w io.Writer, schema []*core.Attribute, m *core.Metadata, count int64, variant string, compress bool, o *WriteOptions) (*Encoder, error) {
	if !compress {
		return newEncoder(w, schema, m, count, variant, o)
	}
	lw := &lazWriter{}
	target := w
	if ws, ok := w.(io.WriteSeeker); !ok || !canSeek(ws) {
		lw.mem = &memWriter{}
		lw.out, target = w, lw.mem
	}
	e, err := newEncoder(target, schema, m, count, variant, o)
	if err != nil {
		return nil, err
	}
	e.lz = lw
	lw.ws = e.ws
	e.buildHeader()
	return e, nil
}

func canSeek(ws io.WriteSeeker) bool {
	_, err := ws.Seek(0, io.SeekCurrent)
	return err == nil
}

// lazVLRs drops the source's records of how its points were stored (the
// LASzip VLR, COPC's info and hierarchy: see layoutVLR) from vs and, when
// writing LAZ, appends the one describing the records written, as LASzip
// does. A COPC file converted to LAS or LAZ is then no longer taken for
// COPC with a stale index.
func (e *Encoder) lazVLRs(vs []VLR) []VLR {
	out := vs[:0:0]
	for _, v := range vs {
		if !layoutVLR(&v) {
			out = append(out, v)
		}
	}
	if e.lz == nil {
		return out
	}
	v, err := laz.NewVLR(uint8(e.lay.pf), e.lay.recLen, laz.DefaultChunkSize)
	if err != nil {
		// planLayout only plans formats 0-10 with their record sizes.
		panic(err)
	}
	e.lz.vlr = v
	return append(out, newVLR(laz.VLRUserID, laz.VLRRecordID, "LAZ compression", v.Marshal()))
}

// startLAZ writes the placeholder of the chunk table's offset after the
// header and sets up the compressor.
func (e *Encoder) startLAZ() error {
	lz := e.lz
	lz.start = e.base + int64(e.hdr.PointOffset)
	if _, err := e.w.Write(make([]byte, 8)); err != nil {
		return err
	}
	var err error
	lz.zw, err = laz.NewWriter(lz.vlr, e.lay.recLen, laz.Options{}, func(b []byte) error {
		_, err := e.w.Write(b)
		return err
	})
	return err
}

// closeLAZ compresses the last chunk, writes the chunk table and the
// EVLRs after it, patches the table's offset and the header, and sends a
// file built in memory to its writer.
func (e *Encoder) closeLAZ() error {
	lz := e.lz
	chunks, err := lz.zw.Close()
	if err != nil {
		return err
	}
	at, err := lz.ws.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	table := laz.AppendTable(nil, chunks, false)
	if _, err := e.w.Write(table); err != nil {
		return err
	}
	lz.end = at + int64(len(table)) - e.base
	if _, err := e.w.Write(e.placeEVLRs()); err != nil {
		return err
	}
	h := &e.hdr
	e.setCounts()
	if e.ws != nil {
		// Streamed: the bounds are the points'.
		h.Min, h.Max = e.lo, e.hi
		if e.written == 0 {
			h.Min, h.Max = [3]float64{}, [3]float64{}
		}
	}
	end, err := lz.ws.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	var off [8]byte
	le.PutUint64(off[:], uint64(at-e.base))
	for _, p := range []struct {
		at int64
		b  []byte
	}{{lz.start, off[:]}, {e.base, h.marshal()}} {
		if _, err := lz.ws.Seek(p.at, io.SeekStart); err != nil {
			return err
		}
		if _, err := lz.ws.Write(p.b); err != nil {
			return err
		}
	}
	if _, err := lz.ws.Seek(end, io.SeekStart); err != nil {
		return err
	}
	if lz.mem != nil {
		_, err = lz.out.Write(lz.mem.b)
	}
	return err
}

// memWriter is an in-memory io.WriteSeeker.
type memWriter struct {
	b   []byte
	pos int
}

func (m *memWriter) Write(p []byte) (int, error) {
	if end := m.pos + len(p); end > len(m.b) {
		m.b = append(m.b, make([]byte, end-len(m.b))...)
	}
	copy(m.b[m.pos:], p)
	m.pos += len(p)
	return len(p), nil
}

func (m *memWriter) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += int64(m.pos)
	case io.SeekEnd:
		off += int64(len(m.b))
	}
	if off < 0 {
		return 0, errors.New("las: seek before the start")
	}
	m.pos = int(off)
	return off, nil
}

// EncodeLAZ writes a whole cloud as LAZ: the LAS file Encode writes
// (variant as there), its records compressed by LASzip's codecs in chunks
// of 50,000 points on all cores, with a chunk table.
func EncodeLAZ(w io.Writer, c *core.Cloud, variant string) error {
	return encodeZ(w, c, variant, true, nil)
}

// EncodeLAZ is the package's EncodeLAZ with the options o.
func (o *WriteOptions) EncodeLAZ(w io.Writer, c *core.Cloud, variant string) error {
	return encodeZ(w, c, variant, true, o)
}

// NewLAZEncoder is NewEncoder writing LAZ. A w that cannot seek gets the
// file at Close, built in memory (compressed).
func NewLAZEncoder(w io.Writer, h *pcio.Header, variant string) (*Encoder, error) {
	return newStreamEncoder(w, h, variant, true, nil)
}

// NewLAZEncoder is the package's NewLAZEncoder with the options o, as
// NewEncoder takes them.
func (o *WriteOptions) NewLAZEncoder(w io.Writer, h *pcio.Header, variant string) (*Encoder, error) {
	return newStreamEncoder(w, h, variant, true, o)
}

// lazSummary describes a LAZ file's compression for Describe: the LASzip
// version that wrote it, the compressor, the chunk size and the items.
func lazSummary(info *Info) string {
	i := findVLR(info.VLRs, laz.VLRUserID, laz.VLRRecordID)
	if i < 0 {
		return "LAZ, without a LASzip VLR"
	}
	v, err := laz.ParseVLR(info.VLRs[i].Data)
	if err != nil {
		return "LAZ, unreadable LASzip VLR: " + err.Error()
	}
	kind := map[uint16]string{laz.CompressorPointwise: "pointwise", laz.CompressorPointwiseChunk: "pointwise chunked", laz.CompressorLayeredChunk: "layered chunked"}[v.Compressor]
	chunks := fmt.Sprintf("chunks of %d points", v.ChunkSize)
	switch {
	case v.Compressor == laz.CompressorPointwise:
		chunks = "no chunks"
	case v.ChunkSize == laz.VariableChunkSize:
		chunks = "chunks of variable size"
	}
	names := map[uint16]string{laz.ItemByte: "BYTE", laz.ItemPoint10: "POINT10", laz.ItemGPSTime11: "GPSTIME11", laz.ItemRGB12: "RGB12", laz.ItemWavePacket13: "WAVEPACKET13",
		laz.ItemPoint14: "POINT14", laz.ItemRGB14: "RGB14", laz.ItemRGBNIR14: "RGBNIR14", laz.ItemWavePacket14: "WAVEPACKET14", laz.ItemByte14: "BYTE14"}
	s := fmt.Sprintf("LAZ (LASzip %d.%dr%d), %s, %s, items", v.VersionMajor, v.VersionMinor, v.VersionRev, kind, chunks)
	for _, it := range v.Items {
		s += fmt.Sprintf(" %s v%d (%d bytes)", names[it.Type], it.Version, it.Size)
	}
	return s
}
