package codec

import (
	"bufio"
	"bytes"
	"io"
)

// MaxLine bounds a header line, so that a file without newlines cannot make
// a header reader buffer it whole.
const MaxLine = 1 << 20

// Reader is a buffered reader that counts bytes and lines, for error
// positions, and knows how many bytes remain when the source can tell.
type Reader struct {
	codec string
	br    *bufio.Reader
	off   int64 // bytes read
	base  int64 // offset of the first byte read, for positions (SetStart)
	line  int   // lines fully consumed
	size  int64 // bytes in the source from where reading started; -1 if unknown
}

// NewReader wraps r. When r is an io.Seeker that can seek (a regular file, a
// bytes.Reader) the size of what remains is measured, so that counts in a
// header can be checked before anything is allocated from them.
func NewReader(codec string, r io.Reader) *Reader {
	size := int64(-1)
	if s, ok := r.(io.Seeker); ok {
		if cur, err := s.Seek(0, io.SeekCurrent); err == nil {
			if end, err := s.Seek(0, io.SeekEnd); err == nil {
				if _, err := s.Seek(cur, io.SeekStart); err == nil && end >= cur {
					size = end - cur
				}
			}
		}
	}
	return &Reader{codec: codec, br: bufio.NewReaderSize(r, 64<<10), size: size}
}

// Pos returns the position of the next byte (line is the line it is on).
func (r *Reader) Pos() Pos { return Pos{Offset: r.base + r.off, Line: r.line + 1} }

// SetStart numbers positions from p, for a reader started mid-file: the
// next byte is at offset p.Offset, on line p.Line.
func (r *Reader) SetStart(p Pos) { r.base, r.line = p.Offset-r.off, p.Line-1 }

// Peek returns the next n bytes without consuming them (fewer, with an
// error, when the input ends first or n is more than the buffer holds).
func (r *Reader) Peek(n int) ([]byte, error) { return r.br.Peek(n) }

// NothingPromised returns the error for a header that promises no points
// (count names where: "element vertex 0") while data follows it at the
// reader's position, bytes other than blanks; nil when none does.
func (r *Reader) NothingPromised(count string) error {
	b, _ := r.Peek(4096)
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	return Errorf(r.codec, r.Offset(), "the header promises no points (%s), but data follows it", count)
}

// Offset returns the position of the next byte without a line number, as
// binary data reports it.
func (r *Reader) Offset() Pos { return Pos{Offset: r.base + r.off} }

// Remaining returns the number of unread bytes, or -1 when unknown.
func (r *Reader) Remaining() int64 {
	if r.size < 0 {
		return -1
	}
	return r.size - r.off
}

// ReadLine reads one line without its "\n" or "\r\n". At the end of input
// it returns the last partial line with io.EOF when it is empty, else nil.
func (r *Reader) ReadLine() (string, error) {
	var buf []byte
	for {
		frag, err := r.br.ReadSlice('\n')
		r.off += int64(len(frag))
		buf = append(buf, frag...)
		if len(buf) > MaxLine {
			return "", Errorf(r.codec, r.Pos(), "header line longer than %d bytes", MaxLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) > 0 {
			err = nil
		}
		if err != nil {
			return "", err
		}
		break
	}
	if n := len(buf); n > 0 && buf[n-1] == '\n' {
		r.line++
		buf = buf[:n-1]
	}
	buf = bytes.TrimSuffix(buf, []byte{'\r'})
	return string(buf), nil
}

// ReadFull fills p; a short read is io.ErrUnexpectedEOF (io.EOF when
// nothing was read).
func (r *Reader) ReadFull(p []byte) error {
	n, err := io.ReadFull(r.br, p)
	r.off += int64(n)
	return err
}

// Token returns the next run of bytes that are not separators, skipping
// leading separators (whitespace, and commas when comma is true). The slice
// is valid until the next call. It returns io.EOF at the end of input.
func (r *Reader) Token(comma bool) ([]byte, error) {
	for {
		b, err := r.br.ReadByte()
		if err != nil {
			return nil, err
		}
		r.off++
		if b == '\n' {
			r.line++
		}
		if !isSep(b, comma) {
			r.br.UnreadByte()
			r.off--
			break
		}
	}
	var tok []byte
	for {
		buf, _ := r.br.Peek(r.br.Buffered())
		if len(buf) == 0 {
			if _, err := r.br.Peek(1); err != nil {
				return tok, nil
			}
			continue
		}
		i := 0
		for i < len(buf) && !isSep(buf[i], comma) {
			i++
		}
		if tok == nil && i < len(buf) {
			// The common case: the whole token is in the buffer.
			tok = buf[:i:i]
			r.br.Discard(i)
			r.off += int64(i)
			return tok, nil
		}
		tok = append(tok, buf[:i]...)
		r.br.Discard(i)
		r.off += int64(i)
		if len(tok) > MaxLine {
			return nil, Errorf(r.codec, r.Pos(), "token longer than %d bytes", MaxLine)
		}
		if i < len(buf) {
			return tok, nil
		}
	}
}

func isSep(b byte, comma bool) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f' || (comma && b == ',')
}

// unread puts b, bytes just read with Read, back in front of the input;
// line is the number of the line b starts on.
func (r *Reader) unread(b []byte, line int) {
	r.off -= int64(len(b))
	r.line = line - 1
	if len(b) > 0 {
		r.br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(bytes.Clone(b)), r.br), 64<<10)
	}
}

// Read reads up to len(p) bytes, for use as an io.Reader of the rest of the
// input.
func (r *Reader) Read(p []byte) (int, error) {
	n, err := r.br.Read(p)
	r.off += int64(n)
	return n, err
}
