package ply

import (
	"bufio"
	"encoding/binary"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
)

// A source yields the values of records one at a time, as raw bits (see
// codec.LoadBits), whatever the encoding underneath.
type source interface {
	next(t core.Type) (uint64, error)
	pos() codec.Pos
	// remaining is the number of bytes left, or -1 when unknown.
	remaining() int64
}

// A sink takes values one at a time; end closes a record.
type sink interface {
	put(t core.Type, v uint64)
	end()
}

// binarySource reads a binary PLY body.
type binarySource struct {
	r     *codec.Reader
	order binary.ByteOrder
	buf   [8]byte
}

func (s *binarySource) next(t core.Type) (uint64, error) {
	b := s.buf[:t.Size()]
	if err := s.r.ReadFull(b); err != nil {
		return 0, err
	}
	return codec.LoadBits(b, t, s.order), nil
}

func (s *binarySource) pos() codec.Pos { return s.r.Offset() }

func (s *binarySource) remaining() int64 { return s.r.Remaining() }

// asciiSource reads an ascii PLY body as a stream of blank-separated tokens.
type asciiSource struct {
	r *codec.Reader
}

func (s *asciiSource) next(t core.Type) (uint64, error) {
	tok, err := s.r.Token(false)
	if err != nil {
		return 0, err
	}
	v, err := codec.ParseText(tok, t)
	if err != nil {
		return 0, codec.Errorf(codecName, s.r.Pos(), "bad %v value %.40q", t, tok)
	}
	return v, nil
}

func (s *asciiSource) pos() codec.Pos { return s.r.Pos() }

func (s *asciiSource) remaining() int64 { return s.r.Remaining() }

// blobSource reads the canonical form of Element.Data.
type blobSource struct {
	b   []byte
	off int
}

func (s *blobSource) next(t core.Type) (uint64, error) {
	n := t.Size()
	if len(s.b)-s.off < n {
		return 0, codec.Errorf(codecName, codec.Pos{Offset: int64(s.off)}, "element data shorter than its properties")
	}
	v := codec.LoadBits(s.b[s.off:], t, binary.LittleEndian)
	s.off += n
	return v, nil
}

func (s *blobSource) pos() codec.Pos { return codec.Pos{Offset: int64(s.off)} }

func (s *blobSource) remaining() int64 { return int64(len(s.b) - s.off) }

// blobSink appends the canonical form.
type blobSink struct {
	b []byte
}

func (s *blobSink) put(t core.Type, v uint64) {
	var buf [8]byte
	codec.StoreBits(buf[:], t, binary.LittleEndian, v)
	s.b = append(s.b, buf[:t.Size()]...)
}

func (s *blobSink) end() {}

// binarySink writes a binary PLY body.
type binarySink struct {
	w     *bufio.Writer
	order binary.ByteOrder
	buf   [8]byte
}

func (s *binarySink) put(t core.Type, v uint64) {
	codec.StoreBits(s.buf[:], t, s.order, v)
	s.w.Write(s.buf[:t.Size()])
}

func (s *binarySink) end() {}

// asciiSink writes an ascii PLY body, one record a line.
type asciiSink struct {
	w     *bufio.Writer
	buf   []byte
	first bool
}

func (s *asciiSink) put(t core.Type, v uint64) {
	if !s.first {
		s.buf = append(s.buf, ' ')
	}
	s.first = false
	s.buf = codec.AppendText(s.buf, t, v)
}

func (s *asciiSink) end() {
	s.buf = append(s.buf, '\n')
	s.w.Write(s.buf)
	s.buf, s.first = s.buf[:0], true
}

// copyList copies one list value (its count, then its items) of property p
// from src to dst. The count is checked against the bytes left, when known.
func copyList(src source, dst sink, p Property) error {
	ct, it := types[p.CountType], types[p.Type]
	bits, err := src.next(ct)
	if err != nil {
		return err
	}
	n := int64(bits)
	if ct.IsSigned() && n < 0 {
		return codec.Errorf(codecName, src.pos(), "list %s: negative length %d", p.Name, n)
	}
	if rem := src.remaining(); rem >= 0 && n > rem {
		return codec.Errorf(codecName, src.pos(), "list %s: length %d exceeds the %d bytes left", p.Name, n, rem)
	}
	dst.put(ct, bits)
	for range n {
		v, err := src.next(it)
		if err != nil {
			return err
		}
		dst.put(it, v)
	}
	return nil
}

// copyRecord copies one record of element e from src to dst.
func copyRecord(src source, dst sink, e *Element) error {
	for _, p := range e.Props {
		if p.IsList() {
			if err := copyList(src, dst, p); err != nil {
				return err
			}
			continue
		}
		v, err := src.next(types[p.Type])
		if err != nil {
			return err
		}
		dst.put(types[p.Type], v)
	}
	dst.end()
	return nil
}
