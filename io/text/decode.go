package text

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

// Decoder reads a text cloud in chunks.
type Decoder struct {
	text  *codec.TextReader
	hdr   *pcio.Header
	cols  []column
	count int64 // points announced by a count line, or counted; -1 if unknown
	line  bool  // count is a count line's
	known bool  // the input can hold count points: they may be allocated at once
	read  int64
	opt   pcio.ReadOptions
	err   error
}

// NewDecoder reads the header of a text cloud (comments, header line,
// count line) from r, with o naming columns the file does not. Without a
// count line the points are counted first, on every core, so that Header
// reports them; r is read whole into memory when it cannot seek. opts (at
// most one) may ask to salvage a file cut short: the whole points before
// the cut, with a warning.
func NewDecoder(r io.Reader, o Options, opts ...pcio.ReadOptions) (*Decoder, error) {
	return newDecoder(r, o, true, pcio.Options(opts))
}

// newDecoder is NewDecoder; count tells whether points not announced by a
// count line are counted (a streaming decoder must tell Header.Count,
// Decode needs not).
func newDecoder(r io.Reader, o Options, count bool, opt pcio.ReadOptions) (*Decoder, error) {
	rs, ok := r.(io.ReadSeeker)
	var base int64
	if ok {
		var err error
		if base, err = rs.Seek(0, io.SeekCurrent); err != nil {
			ok = false
		}
	}
	if !ok {
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		rs = bytes.NewReader(data)
	}
	pre, err := readPreamble(codec.NewReader(codecName, rs))
	if err != nil {
		return nil, err
	}
	names := pre.names
	switch {
	case len(o.Columns) > 0:
		names = o.Columns
	case names == nil && pre.fields > 0:
		names = defaultNames(pre.fields)
	case names == nil:
		names = []string{"X", "Y", "Z"}
	}
	at := codec.Pos{Line: pre.dataLine}
	if pre.fields > 0 && len(names) != pre.fields {
		what := "the header names"
		if len(o.Columns) > 0 {
			what = "--columns names"
		}
		return nil, errorf(at, "%s %d columns, the line has %d values", what, len(names), pre.fields)
	}
	cols, err := columns(names, codec.Pos{Line: pre.headerLine})
	if err != nil {
		return nil, err
	}
	if _, err := rs.Seek(base+pre.dataOff, io.SeekStart); err != nil {
		return nil, err
	}
	cr := codec.NewReader(codecName, rs)
	cr.SetStart(codec.Pos{Offset: pre.dataOff, Line: pre.dataLine})
	lay := &codec.TextLayout{Codec: codecName, Delim: pre.delim, Comment: '#'}
	for _, c := range cols {
		lay.Fields = append(lay.Fields, codec.TextField{Name: c.name, Type: c.t})
	}
	d := &Decoder{text: codec.NewTextReader(cr, lay), cols: cols, count: pre.count, line: pre.count >= 0, opt: opt}
	crs, comments := codec.SplitCRS(pre.comments)
	h := &Header{Delim: pre.delim, Names: names, HeaderLine: pre.names != nil, CountLine: pre.count >= 0}
	d.hdr = &pcio.Header{Meta: core.Metadata{Format: codecName, Comments: comments, CRS: crs, Extra: map[string]any{codecName: h}}}
	for _, c := range cols {
		if c.coord < 0 {
			d.hdr.Schema = append(d.hdr.Schema, &core.Attribute{Name: c.name, Type: c.t})
		}
	}
	switch {
	case d.line:
		// Each point takes at least a byte per value and a newline. A
		// count the input cannot hold is read on without trusting it,
		// to report where the data ends (or, salvaging, keep it).
		err := codec.CheckCount(codecName, at, "points", d.count, int64(len(cols))+1, cr.Remaining()+1)
		if _, short := err.(*codec.ShortError); err != nil && !short {
			return nil, err
		}
		d.known = err == nil
	case count:
		if d.count, err = codec.CountRecords(rs, lay); err != nil {
			return nil, err
		}
		d.known = true
	}
	d.hdr.Count = max(d.count, 0)
	return d, nil
}

// Header returns the file's header; Meta.Extra["text"] is a *Header. Its
// Count is 0 for a decoder of Decode that did not count the points.
func (d *Decoder) Header() *pcio.Header { return d.hdr }

// Read returns the next chunk of at most max points, or io.EOF after the
// last one.
func (d *Decoder) Read(limit int) (*core.Cloud, error) {
	if d.err != nil {
		return nil, d.err
	}
	n := max(limit, 1)
	if d.count >= 0 {
		if d.read == d.count {
			d.err = d.checkEnd()
			return nil, d.err
		}
		n = codec.ChunkSize(limit, d.count-d.read, d.known)
	}
	c := codec.NewChunk(d.hdr, n)
	first := d.read
	got, err := d.fill(c, 0, n)
	if err == nil && got == 0 && d.count < 0 {
		err = io.EOF
	}
	if err != nil {
		d.err = err
		if !d.line && d.opt.Salvage && errors.Is(err, io.ErrUnexpectedEOF) {
			// Without a count line, a last line cut short is the only
			// sign of a cut: salvaging drops it, with a warning.
			d.opt.Warning(err)
			codec.Truncate(c, got)
			err = nil
		} else if c, err = codec.Salvage(d.opt, err, c, first); err != nil {
			return nil, err
		}
		d.err = io.EOF // salvaged: the points before the cut, then the end
		if c.Len() == 0 {
			return nil, io.EOF
		}
		return c, nil
	}
	if got < n {
		codec.Truncate(c, got)
	}
	return c, nil
}

// fill parses up to n points into c from index at; fewer only at the end
// of a file without a count, else that is an error.
func (d *Decoder) fill(c *core.Cloud, at, n int) (int, error) {
	dst := make(codec.TextDst, len(d.cols))
	k := 0
	for i, col := range d.cols {
		if col.coord >= 0 {
			dst[i] = codec.Column([3][]float64{c.X, c.Y, c.Z}[col.coord], col.t)
		} else {
			dst[i] = codec.Column(c.Attrs[k], col.t)
			k++
		}
	}
	got, err := d.text.Fill(dst, at, n)
	d.read += int64(got)
	if d.line || d.count >= 0 && err == nil {
		// Fewer points than a count line announced, or the last one
		// cut: short. (Fewer than counted: the file changed meanwhile.)
		err = d.text.Short(err, got, n, "points", d.read, d.count)
	}
	return got, err
}

// checkEnd reports io.EOF when nothing but blank lines and comments
// follow the points announced, else an error.
func (d *Decoder) checkEnd() error {
	line := d.text.Line()
	got, err := d.text.Fill(make(codec.TextDst, len(d.cols)), 0, 1)
	switch {
	case err != nil:
		return err
	case got == 0:
		return io.EOF
	}
	return errorf(codec.Pos{Line: line}, "more points than the %d announced (count line, or counted before reading)", d.count)
}

// Decode reads a whole text cloud with default options; opts as
// NewDecoder.
func Decode(r io.Reader, opts ...pcio.ReadOptions) (*core.Cloud, error) {
	return DecodeOptions(r, Options{}, opts...)
}

// DecodeOptions reads a whole text cloud, with o naming columns the file
// does not; opts as NewDecoder.
func DecodeOptions(r io.Reader, o Options, opts ...pcio.ReadOptions) (*core.Cloud, error) {
	d, err := newDecoder(r, o, false, pcio.Options(opts))
	if err != nil {
		return nil, err
	}
	if d.known {
		// A count line the input can hold: one allocation.
		c := codec.NewChunk(d.hdr, int(d.count))
		if _, err := d.fill(c, 0, c.Len()); err != nil {
			return codec.Salvage(d.opt, err, c, 0)
		}
		if err := d.checkEnd(); err != io.EOF {
			return nil, err
		}
		return c, nil
	}
	c := codec.NewChunk(d.hdr, 0)
	for size := codec.Chunk; ; size = min(2*size, 1<<22) {
		chunk, err := d.Read(size)
		if err == io.EOF {
			return c, nil
		}
		if err != nil {
			return nil, err
		}
		if c.Len() == 0 {
			c = chunk
			continue
		}
		if err := c.Append(chunk); err != nil {
			return nil, err
		}
	}
}

// preamble is what precedes the points of a text file.
type preamble struct {
	comments   []string
	names      []string // from the header line, nil without one
	headerLine int
	count      int64 // from a count line, -1 without one
	delim      byte
	fields     int   // values on the first point's line, 0 without points
	dataOff    int64 // offset of the first point's line
	dataLine   int
}

// readPreamble reads comment lines, a header line and a count line, in
// any order before the first point, and looks at the first point's line
// for the separator and the number of columns.
func readPreamble(r *codec.Reader) (*preamble, error) {
	p := &preamble{count: -1}
	var hashNames []string // the last '#' comment, a numpy.savetxt header
	for {
		at := r.Pos()
		line, err := r.ReadLine()
		if err == io.EOF {
			p.dataOff, p.dataLine = at.Offset, at.Line
			break
		}
		if err != nil {
			return nil, err
		}
		if at.Offset == 0 && strings.HasPrefix(line, bom) {
			// Spreadsheets' UTF-8 byte order mark: the first line
			// starts after it.
			line, at.Offset = line[len(bom):], int64(len(bom))
		}
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			continue
		case t[0] == '#':
			c := strings.TrimPrefix(t[1:], " ")
			p.comments = append(p.comments, c)
			hashNames = nil
			if f := splitFields(c, detectDelim(c)); len(f) >= 3 && !allNumbers(f) {
				hashNames = f
			}
			continue
		}
		fields := splitFields(t, detectDelim(t))
		switch {
		case p.names == nil && (strings.HasPrefix(t, "//") || !allNumbers(fields)):
			h := strings.TrimSpace(strings.TrimPrefix(t, "//"))
			p.names, p.headerLine = splitFields(h, detectDelim(h)), at.Line
			for i, n := range p.names {
				// Quotes around (PDAL's writers.text) go; blanks and
				// quotes inside become '_', as written.
				if n = strings.Trim(n, `"'`); n != "" {
					n = cleanName(n)
				}
				p.names[i] = n
			}
			continue
		case p.count < 0 && len(fields) == 1:
			n, err := strconv.ParseInt(fields[0], 10, 64)
			if err != nil || n < 0 {
				return nil, errorf(codec.Pos{Line: at.Line}, "a line with one value %.40q is neither a point count nor a point", fields[0])
			}
			p.count = n
			continue
		}
		p.delim, p.fields = detectDelim(t), len(fields)
		p.dataOff, p.dataLine = at.Offset, at.Line
		break
	}
	if p.names == nil && p.count < 0 && p.fields == 0 {
		// Nothing but blanks and comments: not a cloud of no points
		// (which has a header line or a count line), but an empty file.
		return nil, errorf(r.Pos(), "the input holds no point, header line or count line (an empty file)")
	}
	if p.names == nil && hashNames != nil && len(hashNames) == p.fields {
		p.names = hashNames
		p.comments = p.comments[:len(p.comments)-1]
	}
	return p, nil
}

// bom is the UTF-8 byte order mark some spreadsheets start files with.
const bom = "\ufeff"

// detectDelim returns the separator of a line: ';' when it has one, else
// ',' when it has one, else 0 (runs of blanks).
func detectDelim(line string) byte {
	switch {
	case strings.IndexByte(line, ';') >= 0:
		return ';'
	case strings.IndexByte(line, ',') >= 0:
		return ','
	}
	return 0
}

// splitFields splits a line at delim (0: runs of blanks), blanks trimmed.
func splitFields(line string, delim byte) []string {
	if delim == 0 {
		return strings.Fields(line)
	}
	f := strings.Split(line, string(delim))
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	return f
}

// allNumbers reports whether every field parses as a float.
func allNumbers(fields []string) bool {
	for _, f := range fields {
		if _, err := codec.ParseFloat64([]byte(f)); err != nil && !errors.Is(err, strconv.ErrRange) {
			return false
		}
	}
	return true
}

// Sniff reports whether head, the first bytes of an input, looks like a
// text cloud: text without control bytes, whose first line other than
// comments and a header holds at least three numbers.
func Sniff(head []byte) bool {
	for _, b := range head {
		if b < ' ' && b != '\n' && b != '\r' && b != '\t' || b == 0x7f {
			return false
		}
	}
	header := false
	head = bytes.TrimPrefix(head, []byte(bom))
	for len(head) > 0 {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			return false // no whole line to judge by
		}
		t := strings.TrimSpace(string(head[:i]))
		head = head[i+1:]
		if t == "" || t[0] == '#' {
			continue
		}
		f := splitFields(t, detectDelim(t))
		switch {
		case len(f) >= 3 && allNumbers(f):
			return true
		case len(f) == 1 && allNumbers(f):
			continue // a count line
		case !header:
			header = true
			continue
		}
		return false
	}
	return false
}
