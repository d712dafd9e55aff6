// Package pcio is pctk's registry of point-cloud file formats, in the manner
// of image.RegisterFormat: each codec package (io/ply, io/pcd, io/las, ...)
// registers a Format in its init function, and callers open files by
// extension or by sniffing magic bytes. It also holds the I/O helpers every
// command shares: stdin/stdout as "-", and atomic writes.
package pcio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/pctk/pctk/core"
)

// Format describes one file format and its codec.
type Format struct {
	// Name is the format's short name ("ply", "pcd", "las").
	Name string
	// Extensions are the lower-case file extensions with the dot (".ply").
	Extensions []string
	// Magic are byte prefixes that identify the format when sniffing.
	Magic [][]byte
	// Refine, when set, must also accept the first bytes (up to SniffLen) for
	// Magic to identify the format: two formats that share a magic tell
	// themselves apart by it (LAS and LAZ: the point format byte's
	// compression bits).
	Refine func(head []byte) bool
	// Sniff, when set, recognises the format from the first bytes of an
	// input (up to SniffLen) that no format's Magic matched: a fallback for
	// formats without magic bytes, such as text clouds.
	Sniff func(head []byte) bool
	// Variants are the encodings Encode accepts besides "" (the codec's
	// default, which keeps the source's encoding when the cloud came from
	// this format). "ply" offers "ascii", "binary" and "binary-be"; on the
	// command line they are spelled "ply-ascii" and so on.
	Variants []string
	// Decode reads a whole file; opts holds at most one ReadOptions, none
	// reading strictly. Required.
	Decode func(r io.Reader, opts ...ReadOptions) (*core.Cloud, error)
	// NewDecoder starts a streaming read, with options as Decode; nil when
	// the codec cannot stream.
	NewDecoder func(r io.Reader, opts ...ReadOptions) (Decoder, error)
	// Encode writes a whole cloud in the given variant. Nil for read-only formats.
	Encode func(w io.Writer, c *core.Cloud, variant string) error
	// NewEncoder starts a streaming write of a cloud whose schema, metadata and
	// point count are those of h; nil when the codec cannot stream.
	NewEncoder func(w io.Writer, h *Header, variant string) (Encoder, error)
	// Describe lists format-specific header facts of a cloud read in this
	// format (LAS version, point format, scale, ...) for "pctk info"; nil
	// when the format has none beyond the common ones.
	Describe func(m *core.Metadata) []Fact
}

// ReadOptions are the choices every decoder accepts. The zero value reads
// strictly: a file cut short in its point data, or damaged there, is an
// error that wraps io.ErrUnexpectedEOF (a cut file) and names the byte
// offset and how many points the header promised and how many are present.
type ReadOptions struct {
	// Salvage reads what a damaged file holds instead of failing: the
	// whole points before the cut of a file cut short, and, in codecs that
	// can find their feet again after a bad part (LAZ chunks), the data
	// after it. Each defect read past goes to Warn; defects of the header
	// are still errors.
	Salvage bool
	// Warn receives each defect Salvage read past; nil drops them.
	Warn func(error)
	// Dims, when not nil, names the only attributes the caller needs (X,
	// Y and Z are always read): a codec may leave the others out of the
	// cloud, and LAZ of point formats 6-10 then leaves their compressed
	// layers undecoded. Such a cloud is for computing on, not for writing
	// back as a lossless copy of the file.
	Dims []string
}

// Options returns the first of opts, or the zero ReadOptions when there is
// none: codecs take their options as a variadic last argument, so that
// Decode(r) reads strictly.
func Options(opts []ReadOptions) ReadOptions { return first(opts) }

// Warning passes err, a defect read past with Salvage, to o.Warn when set.
func (o ReadOptions) Warning(err error) {
	if o.Warn != nil {
		o.Warn(err)
	}
}

// Fact is one labelled header fact shown by "pctk info".
type Fact struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Header is what a streaming decoder knows before the points: the point
// count, the attribute schema and the metadata.
type Header struct {
	// Count is the number of points the file holds.
	Count int64
	// Schema lists the attribute columns (Data is nil) in file order.
	Schema []*core.Attribute
	// Meta is the source metadata.
	Meta core.Metadata
}

// Decoder reads a file in chunks.
type Decoder interface {
	// Header returns the file's header.
	Header() *Header
	// Read returns the next chunk of at most max points, or io.EOF after
	// the last one. Every chunk has the header's schema.
	Read(max int) (*core.Cloud, error)
}

// Encoder writes a file in chunks.
type Encoder interface {
	// Write appends the points of c, whose schema must match the header's.
	Write(c *core.Cloud) error
	// Close finishes the file; it fails when fewer or more points were
	// written than the header announced.
	Close() error
}

var (
	mu      sync.RWMutex
	formats []*Format
)

// Register adds a format. It panics on a duplicate name, as a programming error.
func Register(f *Format) {
	mu.Lock()
	defer mu.Unlock()
	for _, g := range formats {
		if g.Name == f.Name {
			panic("pcio: format " + f.Name + " registered twice")
		}
	}
	formats = append(formats, f)
}

// Formats returns the registered formats in registration order.
func Formats() []*Format {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(formats)
}

// ErrUnknownFormat is returned when no registered format matches.
var ErrUnknownFormat = errors.New("unknown point-cloud format")

// Lookup finds a format by a name as given to --format: a format name
// ("ply") or a format name and variant joined by '-' ("ply-binary-be").
func Lookup(spec string) (*Format, string, error) {
	spec = strings.ToLower(spec)
	for _, f := range Formats() {
		if spec == f.Name {
			return f, "", nil
		}
		if v, ok := strings.CutPrefix(spec, f.Name+"-"); ok && slices.Contains(f.Variants, v) {
			return f, v, nil
		}
	}
	return nil, "", fmt.Errorf("%w %q (known: %s)", ErrUnknownFormat, spec, strings.Join(Names(), ", "))
}

// Names lists every accepted --format value.
func Names() []string {
	var out []string
	for _, f := range Formats() {
		out = append(out, f.Name)
		for _, v := range f.Variants {
			out = append(out, f.Name+"-"+v)
		}
	}
	return out
}

// ByExtension finds the format whose extension matches path's; the longest
// match wins, so "x.copc.laz" is COPC while "x.laz" is LAZ.
func ByExtension(path string) (*Format, error) {
	ext := strings.ToLower(filepath.Ext(path))
	lower := strings.ToLower(path)
	var best *Format
	bestLen := 0
	for _, f := range Formats() {
		for _, e := range f.Extensions {
			if strings.HasSuffix(lower, e) && len(e) > bestLen {
				best, bestLen = f, len(e)
			}
		}
	}
	if best != nil {
		return best, nil
	}
	return nil, fmt.Errorf("%s: %w (extension %q)", path, ErrUnknownFormat, ext)
}

// Sniff identifies the format of r from its first bytes and returns a reader
// that still yields those bytes. A gzip or bzip2 stream is decompressed
// and its content identified: the reader returned yields the content.
func Sniff(r io.Reader) (*Format, io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(SniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, br, err
	}
	f, dr, err := identify(br, head, "")
	if err != nil {
		return nil, br, err
	}
	return f, dr, nil
}

// identify finds the format of the input r, whose first bytes are head:
// by magic bytes, then by the extension of path (when not ""), then by a
// format's Sniff. A gzip or bzip2 stream is decompressed first (path's
// compression extension set aside). It returns the reader to decode from.
func identify(r io.Reader, head []byte, path string) (*Format, io.Reader, error) {
	if z := compressionOf(head); z != nil {
		dr, dhead, err := decompress(z, r)
		if err != nil {
			return nil, nil, err
		}
		f, err := identifyHead(dhead, trimCompression(path))
		if err != nil {
			return nil, nil, fmt.Errorf("%s-compressed input: %w", z.name, err)
		}
		return f, dr, nil
	}
	f, err := identifyHead(head, path)
	return f, r, err
}

// identifyHead is identify for a head that is not compressed.
func identifyHead(head []byte, path string) (*Format, error) {
	f, err := match(head)
	if err == nil {
		return f, nil
	}
	if path != "" {
		if g, gerr := ByExtension(path); gerr == nil {
			return g, nil
		}
	}
	if g := sniff(head); g != nil {
		return g, nil
	}
	return nil, err
}

// sniff finds a format without magic bytes whose Sniff recognises head,
// or returns nil.
func sniff(head []byte) *Format {
	for _, f := range Formats() {
		if f.Sniff != nil && f.Sniff(head) {
			return f
		}
	}
	return nil
}

// SniffLen is how many leading bytes format detection looks at: Magic,
// Refine and Sniff see at most this many (all of the input when shorter).
const SniffLen = 512

// match finds the format whose magic prefixes head.
func match(head []byte) (*Format, error) {
	for _, f := range Formats() {
		for _, m := range f.Magic {
			if bytes.HasPrefix(head, m) && (f.Refine == nil || f.Refine(head)) {
				return f, nil
			}
		}
	}
	if len(head) == 0 {
		return nil, fmt.Errorf("%w: empty input", ErrUnknownFormat)
	}
	return nil, fmt.Errorf("%w: the content is unknown (no known magic bytes at offset 0, and no format recognises it)", ErrUnknownFormat)
}
