// Package codec holds what pctk's file codecs (io/ply, io/pcd) share: typed
// errors in the manner of image/png, a byte-counting reader that also tracks
// lines, typed value packing for binary and text encodings, and the rules
// that keep an untrusted header from sizing an allocation.
package codec

import (
	"fmt"
	"io"
)

// Pos is a position in an input: a byte offset, and for text a 1-based line
// number (0 when not known) and, for a value of a text record, its 1-based
// column: the field's place on the line.
type Pos struct {
	Offset int64
	Line   int
	Col    int
}

func (p Pos) String() string {
	if p.Line > 0 && p.Col > 0 {
		return fmt.Sprintf("line %d, column %d", p.Line, p.Col)
	}
	if p.Line > 0 {
		return fmt.Sprintf("line %d", p.Line)
	}
	return fmt.Sprintf("offset %d", p.Offset)
}

// FormatError reports malformed input. Codec names the format ("ply") and
// prefixes the message; Err, when set, is wrapped (io.ErrUnexpectedEOF for a
// file that ends mid-stream).
type FormatError struct {
	Codec string
	Pos   Pos
	Msg   string
	Err   error
}

func (e *FormatError) Error() string {
	s := fmt.Sprintf("%s: %v: %s", e.Codec, e.Pos, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the wrapped cause.
func (e *FormatError) Unwrap() error { return e.Err }

// UnsupportedError reports valid input that uses a feature the codec does
// not implement.
type UnsupportedError struct {
	Codec string
	Pos   Pos
	Msg   string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s: %v: unsupported %s", e.Codec, e.Pos, e.Msg)
}

// Errorf returns a FormatError at p.
func Errorf(codec string, p Pos, format string, args ...any) error {
	return &FormatError{Codec: codec, Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// Unsupportedf returns an UnsupportedError at p.
func Unsupportedf(codec string, p Pos, format string, args ...any) error {
	return &UnsupportedError{Codec: codec, Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// ReadErr turns an error of the underlying reader met while reading what is
// described by what into a FormatError at p; io.EOF becomes
// io.ErrUnexpectedEOF, since the header promised more.
func ReadErr(codec string, p Pos, err error, format string, args ...any) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return &FormatError{Codec: codec, Pos: p, Msg: fmt.Sprintf(format, args...), Err: err}
}

// ShortError reports a file cut short in its point data: the header
// promised Promised points (What names them: "points", "vertices") and the
// data ends at Pos after Present whole ones. Every codec returns it for a
// cut file, so that the message reads the same in every format; it wraps
// io.ErrUnexpectedEOF. Reading with pcio.ReadOptions.Salvage turns it into
// a warning and keeps the Present points.
type ShortError struct {
	Codec             string
	Pos               Pos
	What              string
	Promised, Present int64
	// Count, when set, qualifies the promise: where the header states the
	// count ("number of point records, byte offset 107"), or why Present is
	// what it is.
	Count string
}

func (e *ShortError) Error() string {
	at := fmt.Sprintf("byte offset %d", e.Pos.Offset)
	if e.Pos.Line > 0 {
		at += fmt.Sprintf(" (line %d)", e.Pos.Line)
	}
	count := ""
	if e.Count != "" {
		count = " (" + e.Count + ")"
	}
	return fmt.Sprintf("%s: file cut short at %s: header promises %d %s%s, %d present", e.Codec, at, e.Promised, e.What, count, e.Present)
}

// Unwrap returns io.ErrUnexpectedEOF.
func (e *ShortError) Unwrap() error { return io.ErrUnexpectedEOF }

// Short returns, when err (of the underlying reader, met at p after present
// of promised points) says the input ended (io.EOF, io.ErrUnexpectedEOF),
// the *ShortError to report; otherwise nil.
func Short(codec string, p Pos, err error, what string, present, promised int64) *ShortError {
	if err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil
	}
	return &ShortError{Codec: codec, Pos: p, What: what, Promised: promised, Present: present}
}

// RecordErr returns the error for fixed-size records whose reading failed
// with err at p, after present of promised records: Short's *ShortError
// when the input ended (what names the records: "points"), else a
// FormatError naming the record reached (one names a record: "point 12 of
// 40").
func RecordErr(codec string, p Pos, err error, what, one string, present, promised int64) error {
	if short := Short(codec, p, err, what, present, promised); short != nil {
		return short
	}
	return ReadErr(codec, p, err, "%s %d of %d", one, present, promised)
}
