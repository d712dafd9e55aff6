package codec

import (
	"bytes"
	"errors"
	"io"
	"math"
	"runtime"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/par"
)

// Text bodies (ascii PLY and PCD, text clouds) are read a block of lines
// at a time and parsed on every core, in two parallel passes over parts of
// the block cut at line starts: the first counts each part's lines and
// records, so that a prefix sum gives every part the line number and the
// point index it starts at; the second parses each part's lines straight
// into the cloud's columns. Nothing is allocated per value. The result,
// errors included (the first bad line in file order), is that of reading
// the lines one after the other.

// TextField is one value of a text record: its name and how it is parsed.
type TextField struct {
	// Name names the field in errors ("x", "intensity").
	Name string
	// Type is the type the text is parsed as (ParseText).
	Type core.Type
	// Parse, when set, replaces ParseText for this field.
	Parse func(tok []byte) (uint64, error)
}

// TextLayout describes the lines of a text body: one record a line, its
// fields separated by Delim.
type TextLayout struct {
	// Codec names the format in errors ("ply").
	Codec string
	// Fields are the values of a record, in line order.
	Fields []TextField
	// Delim separates fields: 0 for runs of blanks (space, tab), else a
	// byte such as ',' or ';' around which blanks are trimmed.
	Delim byte
	// Comma makes commas separate fields as blanks do, when Delim is 0
	// (PCD files by some writers).
	Comma bool
	// Comment starts a line that is skipped (0 for none), as are blank
	// lines.
	Comment byte

	classes byteClasses // from Delim and Comma, by prepare
}

// TextDst is where a record's values go: dst[i](j, bits) stores the value
// of field i of record j (bits as ParseText returns them); a nil entry
// skips the field. Setters of different records run concurrently.
type TextDst []func(j int, v uint64)

// Column returns the setter of TextDst for a field of type t going into
// dst: a []float64 of coordinates (converted with ToFloat64) or an
// attribute of type t (stored bit for bit).
func Column(dst any, t core.Type) func(j int, v uint64) {
	switch d := dst.(type) {
	case []float64:
		if t == core.Float64 {
			return func(j int, v uint64) { d[j] = math.Float64frombits(v) }
		}
		return func(j int, v uint64) { d[j] = ToFloat64(t, v) }
	case *core.Attribute:
		switch s := d.Data.(type) {
		case []float32:
			return func(j int, v uint64) { s[j] = math.Float32frombits(uint32(v)) }
		case []float64:
			return func(j int, v uint64) { s[j] = math.Float64frombits(v) }
		case []uint8:
			return func(j int, v uint64) { s[j] = uint8(v) }
		}
		return d.SetUint64
	}
	return nil
}

// TextReader reads the records of a text body from a Reader.
type TextReader struct {
	r    *Reader
	lay  *TextLayout
	buf  []byte // unparsed bytes read from r; buf[off:] are pending
	off  int
	line int // line number of buf[off]
	eof  bool
	bpr  int // bytes per record seen so far, to size reads
}

// textBlock is the most bytes parsed in one round.
const textBlock = 16 << 20

// NewTextReader starts reading records laid out as lay from r, at r's
// current position.
func NewTextReader(r *Reader, lay *TextLayout) *TextReader {
	lay.prepare()
	return &TextReader{r: r, lay: lay, line: r.Pos().Line, bpr: 12 * len(lay.Fields)}
}

// Line returns the line number of the next unread byte.
func (t *TextReader) Line() int { return t.line }

// Fill parses up to n records into dst from index at and returns how many
// it parsed: n, or fewer at the end of the input (then err is nil; the
// caller decides whether a short body is an error).
func (t *TextReader) Fill(dst TextDst, at, n int) (int, error) {
	got := 0
	for got < n {
		if err := t.more(n - got); err != nil {
			return got, err
		}
		pending := t.buf[t.off:]
		end := len(pending)
		if !t.eof {
			end = bytes.LastIndexByte(pending, '\n') + 1
		}
		if end == 0 {
			if t.eof {
				return got, nil
			}
			continue
		}
		k, used, lines, err := parseBlock(t.lay, pending[:end], t.eof && end == len(pending), partsFor(end), dst, at+got, n-got, t.line)
		if k > 0 {
			t.bpr = max(used/k, 1)
		}
		got += k
		t.off += used
		t.line += lines
		if err != nil {
			return got, err
		}
		if k == 0 && t.eof && used == end {
			return got, nil
		}
	}
	return got, nil
}

// more reads until the pending bytes hold what about need records take
// (or a whole block, or the end of the input), and at least one line.
func (t *TextReader) more(need int) error {
	want := min(need*t.bpr+t.bpr, textBlock)
	for !t.eof {
		pending := t.buf[t.off:]
		if len(pending) >= want && bytes.IndexByte(pending, '\n') >= 0 {
			return nil
		}
		if len(pending) > MaxLine && bytes.IndexByte(pending, '\n') < 0 {
			return Errorf(t.lay.Codec, Pos{Line: t.line}, "line longer than %d bytes", MaxLine)
		}
		// Keep the pending bytes, drop the parsed ones, make room.
		size := max(want, len(pending)+64<<10)
		if cap(t.buf) < size {
			nb := make([]byte, len(pending), size)
			copy(nb, pending)
			t.buf = nb
		} else {
			t.buf = t.buf[:copy(t.buf, pending)]
		}
		t.off = 0
		for len(t.buf) < cap(t.buf) {
			k, err := t.r.Read(t.buf[len(t.buf):cap(t.buf)])
			t.buf = t.buf[:len(t.buf)+k]
			if err == io.EOF {
				t.eof = true
				break
			}
			if err != nil {
				return ReadErr(t.lay.Codec, Pos{Line: t.line}, err, "reading data")
			}
			if k == 0 {
				break
			}
		}
	}
	return nil
}

// Short returns the error of a decoder whose Fill of n records parsed got
// of them and returned err: nil when all were read; a *ShortError when the
// body ended first, or its last record was cut short (err wraps
// io.ErrUnexpectedEOF), at the end of the data, with present whole
// records (what names them, "points") of the promised; else err.
func (t *TextReader) Short(err error, got, n int, what string, present, promised int64) error {
	if err == nil && got == n || err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	// The body ended: every byte of the input was read.
	end := Pos{Offset: t.r.Offset().Offset, Line: t.line + bytes.Count(t.buf[t.off:], []byte{'\n'})}
	return &ShortError{Codec: t.lay.Codec, Pos: end, What: what, Promised: promised, Present: present}
}

// Close gives the bytes read ahead but not parsed back to the Reader, so
// that what follows the records (more PLY elements) reads from where they
// end.
func (t *TextReader) Close() {
	t.r.unread(t.buf[t.off:], t.line)
	t.buf, t.off = nil, 0
}

// CountRecords counts the records of the text body that r holds from its
// current position to its end, on every core, and seeks back to where it
// started: what a streaming decoder announces when the file has no count.
func CountRecords(r io.ReadSeeker, lay *TextLayout) (int64, error) {
	start, err := r.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	buf := make([]byte, textBlock)
	var n int64
	carry := 0
	for {
		k, err := io.ReadFull(r, buf[carry:])
		end := carry + k
		last := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !last {
			return 0, err
		}
		cut := end
		if !last {
			cut = bytes.LastIndexByte(buf[:end], '\n') + 1
			if cut == 0 {
				return 0, Errorf(lay.Codec, Pos{}, "line longer than %d bytes", len(buf))
			}
		}
		parts := splitLines(buf[:cut], partsFor(cut))
		par.Each(len(parts), func(i int) {
			p := &parts[i]
			_, p.records = countLines(buf[p.lo:p.hi], lay.Comment)
		})
		for _, p := range parts {
			n += int64(p.records)
		}
		if last {
			break
		}
		carry = copy(buf, buf[cut:end])
	}
	_, err = r.Seek(start, io.SeekStart)
	return n, err
}

// part is a piece of a block cut at a line start.
type part struct {
	lo, hi  int // bytes [lo, hi) of the block
	lines   int // newlines in it
	records int
	err     error
}

// parseBlock parses at most n records from block, which holds whole lines
// (the last may lack its newline at the end of input: last is true when
// the block ends the input), into dst from index at; line is the number of
// the block's first line. It cuts the block into k parts parsed in
// parallel. It returns the records parsed, the bytes and
// newlines they span, and the first error.
func parseBlock(lay *TextLayout, block []byte, last bool, k int, dst TextDst, at, n, line int) (int, int, int, error) {
	lay.prepare()
	parts := splitLines(block, k)
	par.Each(len(parts), func(i int) {
		p := &parts[i]
		p.lines, p.records = countLines(block[p.lo:p.hi], lay.Comment)
	})
	// Prefix sums; cut the block after its n-th record.
	starts := make([]int, len(parts))
	lines := make([]int, len(parts))
	total, nl := 0, 0
	for i := range parts {
		p := &parts[i]
		starts[i], lines[i] = at+total, line+nl
		if total+p.records >= n {
			p.hi = p.lo + cutAfter(block[p.lo:p.hi], n-total, lay.Comment)
			p.lines, p.records = countLines(block[p.lo:p.hi], lay.Comment)
			parts = parts[:i+1]
			total += p.records
			nl += p.lines
			break
		}
		total += p.records
		nl += p.lines
	}
	par.Each(len(parts), func(i int) {
		p := &parts[i]
		p.records, p.err = parseLines(lay, block[p.lo:p.hi], last && p.hi == len(block), dst, starts[i], lines[i])
	})
	for i := range parts {
		if parts[i].err != nil {
			return starts[i] - at + parts[i].records, parts[i].lo, lines[i] - line, parts[i].err
		}
	}
	return total, parts[len(parts)-1].hi, nl, nil
}

// minPart is the smallest piece of a block worth a goroutine.
const minPart = 256 << 10

// partsFor is how many parts a block of size bytes is cut into: one a
// core, each of at least minPart bytes (one for a smaller block).
func partsFor(size int) int { return max(1, min(runtime.GOMAXPROCS(0), size/minPart)) }

// splitLines cuts block into at most k parts of about equal size, each
// starting at a line start.
func splitLines(block []byte, k int) []part {
	out := make([]part, 0, k)
	lo := 0
	for i := 1; i <= k && lo < len(block); i++ {
		hi := len(block)
		if i < k {
			hi = max(len(block)*i/k, lo)
			if j := bytes.IndexByte(block[hi:], '\n'); j >= 0 {
				hi += j + 1
			} else {
				hi = len(block)
			}
		}
		out = append(out, part{lo: lo, hi: hi})
		lo = hi
	}
	return out
}

// isBlank reports the bytes that pad fields and lines.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// isRecord reports whether line (without its newline) holds a record: it
// is not blank and not a comment.
func isRecord(line []byte, comment byte) bool {
	for _, c := range line {
		if !isBlank(c) {
			return c != comment || comment == 0
		}
	}
	return false
}

// nextLine returns the line starting at b[i] without its newline, and
// where the next one starts.
func nextLine(b []byte, i int) ([]byte, int) {
	j := bytes.IndexByte(b[i:], '\n')
	if j < 0 {
		return b[i:], len(b)
	}
	return b[i : i+j], i + j + 1
}

// countLines counts the newlines and the records of b.
func countLines(b []byte, comment byte) (lines, records int) {
	for i := 0; i < len(b); {
		var l []byte
		l, i = nextLine(b, i)
		if isRecord(l, comment) {
			records++
		}
	}
	return bytes.Count(b, []byte{'\n'}), records
}

// cutAfter returns the length of the prefix of b that ends with its n-th
// record's line (with its newline); the skipped lines after it stay.
func cutAfter(b []byte, n int, comment byte) int {
	for i := 0; i < len(b); {
		var l []byte
		l, i = nextLine(b, i)
		if isRecord(l, comment) {
			if n--; n == 0 {
				return i
			}
		}
	}
	return len(b)
}

// parseLines parses the records of b, lines of which the first is number
// line, into dst from index at. When b ends the input (last), a last record
// cut short is an io.ErrUnexpectedEOF: the file was truncated. It returns
// the records parsed before the first error.
func parseLines(lay *TextLayout, b []byte, last bool, dst TextDst, at, line int) (int, error) {
	first := at
	for i := 0; i < len(b); line++ {
		var l []byte
		l, i = nextLine(b, i)
		if !isRecord(l, lay.Comment) {
			continue
		}
		if short, err := parseRecord(lay, l, dst, at, line); err != nil {
			if fe, ok := err.(*FormatError); ok && short && last && !hasRecord(b[i:], lay.Comment) {
				fe.Err = io.ErrUnexpectedEOF
			}
			return at - first, err
		}
		at++
	}
	return at - first, nil
}

// hasRecord reports whether b holds a record.
func hasRecord(b []byte, comment byte) bool {
	_, records := countLines(b, comment)
	return records > 0
}

// parseRecord parses one line into record j of dst. short reports a line
// with too few values.
func parseRecord(lay *TextLayout, l []byte, dst TextDst, j, line int) (short bool, err error) {
	i := 0
	for f := range lay.Fields {
		tok, next, ok := lay.field(l, i, f == 0)
		if !ok {
			return true, Errorf(lay.Codec, Pos{Line: line, Col: f + 1}, "%d values, want %d", f, len(lay.Fields))
		}
		i = next
		fd := &lay.Fields[f]
		var v uint64
		if fd.Parse != nil {
			v, err = fd.Parse(tok)
		} else {
			v, err = ParseText(tok, fd.Type)
		}
		if err != nil {
			why := "bad"
			if errors.Is(err, ErrRange) {
				why = "out of range"
			}
			return false, Errorf(lay.Codec, Pos{Line: line, Col: f + 1}, "%s: %s %v value %.40q", fd.Name, why, fd.Type, tok)
		}
		if set := dst[f]; set != nil {
			set(j, v)
		}
	}
	if _, _, ok := lay.field(l, i, false); ok {
		n := len(lay.Fields)
		for k := i; ; n++ {
			_, next, ok := lay.field(l, k, false)
			if !ok {
				break
			}
			k = next
		}
		return false, Errorf(lay.Codec, Pos{Line: line, Col: len(lay.Fields) + 1}, "%d values, want %d", n, len(lay.Fields))
	}
	return false, nil
}

// field returns the field of l starting at or after i, blanks trimmed,
// and where the next one starts; ok is false when l has no more fields.
// With a delimiter, the first field of a line needs no delimiter before
// it, the others start after one (so that an empty field is one).
func (lay *TextLayout) field(l []byte, i int, first bool) (tok []byte, next int, ok bool) {
	pad, end := &lay.classes.pad, &lay.classes.end
	for i < len(l) && pad[l[i]] {
		i++
	}
	if lay.Delim != 0 && !first {
		if i == len(l) || l[i] != lay.Delim {
			return nil, i, false
		}
		for i++; i < len(l) && pad[l[i]]; i++ {
		}
	}
	if lay.Delim == 0 && i == len(l) {
		return nil, i, false
	}
	j := i
	for j < len(l) && !end[l[j]] {
		j++
	}
	return l[i:j], j, true
}

// byteClasses are the bytes that pad a field and those that end one, as
// tables: a test per byte of the body.
type byteClasses struct {
	pad, end [256]bool
	ready    bool
}

// prepare fills lay.classes from Delim and Comma.
func (lay *TextLayout) prepare() {
	if lay.classes.ready {
		return
	}
	for c := range 256 {
		b := byte(c)
		lay.classes.pad[c] = isBlank(b) && b != lay.Delim || lay.Delim == 0 && lay.Comma && b == ','
		lay.classes.end[c] = lay.classes.pad[c] || lay.Delim != 0 && b == lay.Delim
	}
	lay.classes.ready = true
}

// WriteLines writes n records, one a line, formatted by appendRecord
// (which appends record j without its newline and must be safe to call
// concurrently), to w. Blocks of records are formatted on every core, and
// written in order: the bytes are those of formatting one after the other.
func WriteLines(w io.Writer, n int, appendRecord func(dst []byte, j int) []byte) error {
	const per = 1 << 14 // records of one block
	return writeBlocks(w, n, per, func(b []byte, lo, hi int) ([]byte, error) {
		for j := lo; j < hi; j++ {
			b = appendRecord(b, j)
			b = append(b, '\n')
		}
		return b, nil
	})
}
