package copc

import (
	"fmt"
	"io"

	"github.com/pctk/pctk/io/las/internal/laz"
)

// EntrySize is the size of one hierarchy entry.
const EntrySize = 32

// Entry is one hierarchy entry: a node's key and where its points are
// (PointCount > 0), or where the hierarchy page rooted at Key is
// (PointCount == -1); a node with PointCount 0 holds no points but may
// have children.
type Entry struct {
	Key Key
	// Offset is the byte offset of the node's LAZ chunk or of the child page.
	Offset uint64
	// ByteSize is the size of the chunk or of the page.
	ByteSize int32
	// PointCount is the node's number of points, or -1 for a child page.
	PointCount int32
}

// IsPage reports whether e points to a child hierarchy page.
func (e *Entry) IsPage() bool { return e.PointCount == -1 }

// parsePage decodes the entries of the hierarchy page b, which starts at
// byte offset off of a file of size bytes. Keys must be valid, counts at
// least -1, and chunks and pages must lie inside the file.
func parsePage(b []byte, off, size int64) ([]Entry, error) {
	if len(b)%EntrySize != 0 {
		return nil, formatErr("hierarchy page", off, "size %d is not a multiple of the %d-byte entry", len(b), EntrySize)
	}
	es := make([]Entry, len(b)/EntrySize)
	for i := range es {
		p := b[i*EntrySize:]
		e := Entry{
			Key:        Key{int32(le.Uint32(p)), int32(le.Uint32(p[4:])), int32(le.Uint32(p[8:])), int32(le.Uint32(p[12:]))},
			Offset:     le.Uint64(p[16:]),
			ByteSize:   int32(le.Uint32(p[24:])),
			PointCount: int32(le.Uint32(p[28:])),
		}
		at := off + int64(i*EntrySize)
		switch {
		case !e.Key.Valid():
			return nil, formatErr("hierarchy entry", at, "invalid key %s", e.Key)
		case e.PointCount < -1:
			return nil, formatErr("hierarchy entry", at+28, "node %s: point count %d", e.Key, e.PointCount)
		case e.PointCount != 0 && (e.ByteSize < 0 || e.Offset > uint64(size) || uint64(e.ByteSize) > uint64(size)-e.Offset):
			return nil, formatErr("hierarchy entry", at+16, "node %s: %d bytes at offset %d run past the end of the file (%d bytes)", e.Key, e.ByteSize, e.Offset, size)
		case e.PointCount == -1 && (e.ByteSize == 0 || e.ByteSize%EntrySize != 0):
			return nil, formatErr("hierarchy entry", at+24, "node %s: child page of %d bytes", e.Key, e.ByteSize)
		case e.PointCount > 0 && int64(e.PointCount) > laz.MaxPointsPerByte*int64(e.ByteSize):
			return nil, formatErr("hierarchy entry", at+28, "node %s: %d points cannot fit in a chunk of %d bytes", e.Key, e.PointCount, e.ByteSize)
		}
		es[i] = e
	}
	return es, nil
}

// appendEntry appends the encoding of e to b.
func appendEntry(b []byte, e Entry) []byte {
	for _, v := range [4]int32{e.Key.Level, e.Key.X, e.Key.Y, e.Key.Z} {
		b = le.AppendUint32(b, uint32(v))
	}
	b = le.AppendUint64(b, e.Offset)
	b = le.AppendUint32(b, uint32(e.ByteSize))
	return le.AppendUint32(b, uint32(e.PointCount))
}

// page is one loaded hierarchy page, its entries by key.
type page map[Key]Entry

// loadPage reads and parses the page of n bytes at byte offset off of r,
// and checks that it holds an entry for its own root key, as every page
// must (the spec: a page's first node is the one its parent points to).
func loadPage(r io.ReaderAt, off uint64, n int64, size int64, root Key) (page, error) {
	if off > uint64(size) || n < 0 || uint64(n) > uint64(size)-off {
		return nil, formatErr("hierarchy page", int64(min(off, 1<<62)), "%d bytes run past the end of the file (%d bytes)", n, size)
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, int64(off)); err != nil {
		return nil, fmt.Errorf("copc: reading the hierarchy page of node %s at byte offset %d: %w", root, off, err)
	}
	es, err := parsePage(b, int64(off), size)
	if err != nil {
		return nil, err
	}
	p := make(page, len(es))
	for _, e := range es {
		if _, dup := p[e.Key]; dup {
			return nil, formatErr("hierarchy page", int64(off), "node %s listed twice", e.Key)
		}
		p[e.Key] = e
	}
	if e, ok := p[root]; !ok || e.IsPage() {
		return nil, formatErr("hierarchy page", int64(off), "page of node %s lacks that node's entry", root)
	}
	return p, nil
}

// Paging of the hierarchy a writer emits, as untwine's
// CopcSupport::emitRoot: a page holds its root node and the nodes below
// it down to pageLevels levels deeper; a subtree starting there gets a
// page of its own when it has more than pageMinNodes nodes, else it joins
// the page.
const (
	pageLevels   = 4
	pageMinNodes = 50
)

// hnode is a node of the hierarchy a writer emits.
type hnode struct {
	entry    Entry // Offset, ByteSize and PointCount of the node's chunk
	children []*hnode
	size     int // nodes in the subtree, itself included
}

// count sets the subtree sizes.
func (h *hnode) count() int {
	h.size = 1
	for _, c := range h.children {
		h.size += c.count()
	}
	return h.size
}

// appendPages appends the hierarchy pages of root's tree to b, which
// will start at byte offset base of the file, child pages before their
// parents, and returns b and the root page's offset and size. levels and
// minNodes set the paging (pageLevels and pageMinNodes).
func appendPages(b []byte, base uint64, root *hnode, levels int32, minNodes int) ([]byte, uint64, int) {
	root.count()
	var emit func(b []byte, top *hnode) ([]byte, uint64, int)
	emit = func(b []byte, top *hnode) ([]byte, uint64, int) {
		stop := top.entry.Key.Level + levels
		entries := []Entry{top.entry}
		var children func(h *hnode)
		children = func(h *hnode) {
			for _, c := range h.children {
				if c.entry.Key.Level != stop || c.size <= minNodes {
					entries = append(entries, c.entry)
					children(c)
					continue
				}
				var off uint64
				var n int
				b, off, n = emit(b, c)
				entries = append(entries, Entry{Key: c.entry.Key, Offset: off, ByteSize: int32(n), PointCount: -1})
			}
		}
		children(top)
		off := base + uint64(len(b))
		for _, e := range entries {
			b = appendEntry(b, e)
		}
		return b, off, len(entries) * EntrySize
	}
	return emit(b, root)
}
