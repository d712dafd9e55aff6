package laz

import (
	"errors"
	"fmt"
	"io"

	"github.com/pctk/pctk/io/las/internal/arith"
)

// Layout places a LAZ file's compressed points: what the LAS header and
// the LASzip VLR say.
type Layout struct {
	VLR    *VLR
	RecLen int
	Count  uint64 // points the header promises
	// Start is the offset to point data; End is where the point data
	// must end (the first EVLR, or the file's size), and Size the file's
	// size.
	Start, End, Size int64
}

// Chunk is one chunk of points: where its bytes start, how many there are
// and how many points they hold.
type Chunk struct {
	Offset int64
	Bytes  int64
	Points int
}

// ChunkTable returns the chunks of the file, read from its chunk table.
// A file whose table is missing or damaged gets nil chunks and a warning
// when its chunks have a fixed size (they are then found by decoding them
// one after the other, as LASzip does); with variable chunks that is an
// error. Pointwise files (compressor 1) have one chunk of all points.
func ChunkTable(r io.ReaderAt, l *Layout) ([]Chunk, string, error) {
	v := l.VLR
	if l.Count == 0 {
		return nil, "", nil
	}
	if l.End > l.Size || l.End-l.Start < 8 {
		return nil, "", &FormatError{What: "point data", Offset: l.Start, Msg: fmt.Sprintf("%d points in the %d bytes up to byte %d", l.Count, max(l.End-l.Start, 0), l.End)}
	}
	if v.Compressor == CompressorPointwise {
		if l.Count > uint64(maxInt) {
			return nil, "", &FormatError{What: "point count", Offset: l.Start, Msg: fmt.Sprintf("%d points in one pointwise stream", l.Count)}
		}
		return []Chunk{{Offset: l.Start, Bytes: l.End - l.Start, Points: int(l.Count)}}, "", nil
	}
	var b [8]byte
	if _, err := r.ReadAt(b[:], l.Start); err != nil {
		if ioErr(err) {
			return nil, "", err
		}
		return nil, "", &FormatError{What: "chunk table offset", Offset: l.Start, Msg: "file ends before it", Err: io.ErrUnexpectedEOF}
	}
	first := l.Start + 8
	at := int64(le.Uint64(b[:]))
	if at == -1 {
		// A writer that could not seek put the offset at the file's end.
		if _, err := r.ReadAt(b[:], l.Size-8); ioErr(err) {
			return nil, "", err
		} else if err != nil || l.Size-8 < first {
			return l.noTable("the chunk table offset is -1 and the file ends without one")
		}
		at = int64(le.Uint64(b[:]))
	}
	if at == l.Start || at == 0 {
		return l.noTable("the compressor was interrupted before it wrote the chunk table")
	}
	switch {
	case at < first:
		return l.noTable(fmt.Sprintf("chunk table offset %d lies before the first chunk at byte %d", at, first))
	case at >= l.Size:
		return l.noTable(fmt.Sprintf("chunk table offset %d lies past the end of the file's %d bytes", at, l.Size))
	}
	chunks, err := readTable(r, l, at, first)
	if err != nil {
		// A failure to read (not a damaged table) is no reason to decode
		// without the table.
		var fe *FormatError
		if v.ChunkSize == VariableChunkSize || !errors.As(err, &fe) {
			return nil, "", err
		}
		return l.noTable(err.Error())
	}
	return chunks, "", nil
}

const maxInt = int(^uint(0) >> 1)

// ioErr reports whether err is a failure to read (a network error, a file
// that changed), not the file ending early, which is the data's defect.
func ioErr(err error) bool {
	return err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF)
}

// noTable returns the warning for a file read without its chunk table, or
// the error when its chunks cannot be found without one: chunks of
// variable size are found only when they are layered, as each says how
// many points it holds (COPC's).
func (l *Layout) noTable(why string) ([]Chunk, string, error) {
	if l.VLR.ChunkSize == VariableChunkSize && l.VLR.Compressor != CompressorLayeredChunk {
		return nil, "", &FormatError{What: "chunk table", Offset: l.Start, Msg: why + "; pointwise chunks of variable size cannot be found without it"}
	}
	return nil, why + "; chunks are found by decoding them in turn", nil
}

// readTable decodes the chunk table at byte at: version 0, the number of
// chunks, then per chunk its point count (variable chunk sizes only) and
// byte count, each predicted from the last with an integer compressor.
func readTable(r io.ReaderAt, l *Layout, at, first int64) ([]Chunk, error) {
	var head [8]byte
	if _, err := r.ReadAt(head[:], at); err != nil {
		if ioErr(err) {
			return nil, err
		}
		return nil, &FormatError{What: "chunk table", Offset: at, Msg: "file ends inside its header", Err: io.ErrUnexpectedEOF}
	}
	if ver := le.Uint32(head[:]); ver != 0 {
		return nil, &FormatError{What: "chunk table", Offset: at, Msg: fmt.Sprintf("version %d, want 0", ver)}
	}
	n := uint64(le.Uint32(head[4:]))
	// Every chunk holds a point and a byte at least: bound the table by
	// what the header and the file can honestly hold.
	if n > l.Count || n > uint64(at-first) {
		return nil, &FormatError{What: "chunk table", Offset: at + 4, Msg: fmt.Sprintf("%d chunks for %d points in %d bytes", n, l.Count, at-first)}
	}
	if n == 0 {
		return nil, &FormatError{What: "chunk table", Offset: at + 4, Msg: fmt.Sprintf("no chunks for %d points", l.Count)}
	}
	size := min(l.Size-at-8, int64(n)*20+64)
	src := make([]byte, max(size, 0))
	k, err := r.ReadAt(src, at+8)
	if ioErr(err) {
		return nil, err
	}
	src = src[:k]
	var d arith.Decoder
	d.Init(src)
	ic := arith.NewIntCompressor(32, 2, 8, 0)
	variable := l.VLR.ChunkSize == VariableChunkSize
	chunks := make([]Chunk, n)
	var lastPoints, lastBytes int32
	for i := range chunks {
		if variable {
			lastPoints = ic.Decompress(&d, lastPoints, 0)
			chunks[i].Points = int(uint32(lastPoints))
		}
		lastBytes = ic.Decompress(&d, lastBytes, 1)
		chunks[i].Bytes = int64(uint32(lastBytes))
	}
	if err := d.Err(); err != nil {
		return nil, &FormatError{What: "chunk table", Offset: at + 8, Msg: err.Error(), Err: err}
	}
	off := first
	left := l.Count
	for i := range chunks {
		c := &chunks[i]
		c.Offset = off
		off += c.Bytes
		if c.Bytes == 0 || off > at {
			return nil, &FormatError{What: "chunk table", Offset: at + 8, Msg: fmt.Sprintf("chunk %d of %d bytes at byte %d runs past the table at %d", i, c.Bytes, c.Offset, at)}
		}
		if !variable {
			c.Points = int(min(uint64(l.VLR.ChunkSize), left))
		}
		if uint64(c.Points) > left {
			c.Points = int(left)
		}
		left -= uint64(c.Points)
	}
	if left > 0 {
		return nil, &FormatError{What: "chunk table", Offset: at, Msg: fmt.Sprintf("%d chunks hold %d points, the header promises %d", n, l.Count-left, l.Count)}
	}
	return chunks, nil
}

// AppendTable appends the chunk table of chunks (version 0, count, then
// the arithmetic-coded counts and sizes) to out.
func AppendTable(out []byte, chunks []Chunk, variable bool) []byte {
	out = le.AppendUint32(out, 0)
	out = le.AppendUint32(out, uint32(len(chunks)))
	if len(chunks) == 0 {
		return out
	}
	var e arith.Encoder
	ic := arith.NewIntCompressor(32, 2, 8, 0)
	var lastPoints, lastBytes int32
	for _, c := range chunks {
		if variable {
			ic.Compress(&e, lastPoints, int32(c.Points), 0)
			lastPoints = int32(c.Points)
		}
		ic.Compress(&e, lastBytes, int32(c.Bytes), 1)
		lastBytes = int32(c.Bytes)
	}
	return append(out, e.Finish()...)
}

// ChunkError reports a chunk that does not decode: its index and byte
// offset in the file.
type ChunkError struct {
	Index  int
	Offset int64
	Err    error
}

func (e *ChunkError) Error() string {
	return fmt.Sprintf("laz: chunk %d at byte %d: %v", e.Index, e.Offset, e.Err)
}

func (e *ChunkError) Unwrap() error { return e.Err }

// ErrCut is the cause of a chunk that needs more bytes than the file
// has: the file was cut short there.
var ErrCut = errors.New("the file ends inside the chunk")
