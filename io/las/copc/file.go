package copc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/las/internal/laz"
)

// File is an open COPC file: its LAS header, its info VLR, and the
// hierarchy pages loaded so far. Pages load lazily, only when a query
// reaches them, and every read goes through the io.ReaderAt, so the file
// may as well be served by HTTP range requests. A File is safe for
// concurrent use.
type File struct {
	r    io.ReaderAt
	size int64
	// Header is the LAS header.
	Header *las.Header
	// Info is the COPC info VLR.
	Info Info

	mu     sync.Mutex
	pages  map[uint64]page // loaded pages by byte offset
	rr     *las.RecordReader
	lazVLR *laz.VLR
}

// Is reports whether head, the first bytes of a file (at least 395), is
// a COPC file's: "LASF", and the "copc" info VLR (record 1) at byte 375,
// as the spec's reader notes say to check.
func Is(head []byte) bool {
	return len(head) >= InfoOffset+20 && string(head[:4]) == "LASF" &&
		bytes.Equal(head[InfoOffset+2:InfoOffset+2+5], []byte("copc\x00")) &&
		le.Uint16(head[InfoOffset+18:]) == InfoRecordID
}

// ErrNotCOPC is returned by Open for a file that is not COPC.
var ErrNotCOPC = errors.New("copc: not a COPC file (no \"copc\" info VLR at byte offset 375)")

// Open reads the header and info VLR of the COPC file behind r (size
// bytes long): the first 589 bytes, nothing else.
func Open(r io.ReaderAt, size int64) (*File, error) {
	head := make([]byte, headSize)
	if n, err := r.ReadAt(head, 0); n < len(head) {
		if n >= InfoOffset+20 && !Is(head[:n]) || errors.Is(err, io.EOF) && n < InfoOffset+20 {
			return nil, ErrNotCOPC
		}
		return nil, fmt.Errorf("copc: reading the header: %w", err)
	}
	if !Is(head) {
		return nil, ErrNotCOPC
	}
	h, err := las.ParseHeader(head)
	if err != nil {
		return nil, err
	}
	if h.VersionMajor != 1 || h.VersionMinor != 4 || h.HeaderSize != InfoOffset {
		return nil, formatErr("header", 24, "LAS %s with a %d-byte header; COPC is LAS 1.4 with the 375-byte header", h.Version(), h.HeaderSize)
	}
	if pf := h.DataFormat(); pf < 6 || pf > 8 {
		return nil, formatErr("point data format", 104, "%d; COPC holds point formats 6, 7 and 8", pf)
	}
	if n := le.Uint16(head[InfoOffset+20:]); n != InfoSize {
		return nil, formatErr("info VLR", InfoOffset+20, "record length %d, want %d", n, InfoSize)
	}
	info, err := parseInfo(head[InfoOffset+54:], InfoOffset+54)
	if err != nil {
		return nil, err
	}
	return &File{r: r, size: size, Header: h, Info: info, pages: map[uint64]page{}}, nil
}

// Cube returns the root node's cube.
func (f *File) Cube() core.Bounds { return f.Info.Cube() }

// page returns the hierarchy page of n bytes at byte offset off, whose
// first node is root, loading it on first use.
func (f *File) page(off uint64, n int64, root Key) (page, error) {
	f.mu.Lock()
	p, ok := f.pages[off]
	f.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := loadPage(f.r, off, n, f.size, root)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.pages[off] = p
	f.mu.Unlock()
	return p, nil
}
