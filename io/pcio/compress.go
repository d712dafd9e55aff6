package pcio

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
)

// A compression is a whole-stream compression that inputs are read
// through transparently: gzip (RFC 1952) and bzip2, as point clouds are
// often shipped (x.ply.gz, x.las.bz2).
type compression struct {
	name string
	// ext is the file extension it adds (".gz").
	ext string
	// magic are the first bytes of a compressed stream.
	magic []byte
	// open returns a reader of the decompressed bytes of r.
	open func(r io.Reader) (io.Reader, error)
}

var compressions = []compression{
	{"gzip", ".gz", []byte{0x1f, 0x8b}, func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
	{"bzip2", ".bz2", []byte("BZh"), func(r io.Reader) (io.Reader, error) { return bzip2.NewReader(r), nil }},
}

// compressionOf returns the compression whose magic bytes start head, or
// nil.
func compressionOf(head []byte) *compression {
	for i := range compressions {
		if bytes.HasPrefix(head, compressions[i].magic) {
			return &compressions[i]
		}
	}
	return nil
}

// decompress returns a reader of the decompressed bytes of r, compressed
// with z, and their first SniffLen bytes (all when fewer). Errors name
// the compression.
func decompress(z *compression, r io.Reader) (io.Reader, []byte, error) {
	dr, err := z.open(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s-compressed input: %w", z.name, err)
	}
	br := bufio.NewReaderSize(dr, 64<<10)
	head, err := br.Peek(SniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, nil, fmt.Errorf("%s-compressed input: %w", z.name, err)
	}
	return br, head, nil
}

// trimCompression returns path without the extension of a compression
// ("x.ply" for "x.ply.gz").
func trimCompression(path string) string {
	lower := strings.ToLower(path)
	for _, z := range compressions {
		if strings.HasSuffix(lower, z.ext) {
			return path[:len(path)-len(z.ext)]
		}
	}
	return path
}
