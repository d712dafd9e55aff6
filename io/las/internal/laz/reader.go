package laz

import (
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/pctk/pctk/io/las/internal/arith"
)

// Options tune a Reader or a Writer.
type Options struct {
	// Workers is the number of chunks coded at once; 0 means GOMAXPROCS.
	Workers int
	// Select names the fields the caller needs (zero: all).
	Select Selection
	// Salvage skips chunks that do not decode instead of failing; each
	// skipped chunk goes to Skip.
	Salvage bool
	// Skip receives, when salvaging, the error of each chunk skipped
	// (nil: dropped).
	Skip func(error)
	// Warn receives what was wrong but could be read past without
	// salvaging, such as a lost chunk table (nil: dropped).
	Warn func(string)
}

func (o *Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (o *Options) warn(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}

// job is one chunk being decoded by its own goroutine.
type job struct {
	index int
	chunk Chunk
	recs  []byte
	err   error
	done  chan struct{}
}

// Reader decodes the points of a LAZ file chunk by chunk, in order, with
// up to Workers chunks decoding at once and at most twice that many
// decoded chunks held.
type Reader struct {
	r      io.ReaderAt
	l      Layout
	opt    Options
	chunks []Chunk // nil: found one after the other
	codecs chan *ChunkCodec
	queue  []*job
	next   int    // next chunk to start
	left   uint64 // points not yet returned
	// sequential scan, without a chunk table
	seq    *ChunkCodec
	seqPos int64
	seqBuf []byte
	recs   []byte
	// recsFree and srcFree hold record and source buffers for reuse, so
	// that a steady read allocates nothing per chunk; last is the chunk
	// Next returned.
	recsFree, srcFree chan []byte
	last              []byte
}

// NewReader prepares the decoding of the points l describes from r.
func NewReader(r io.ReaderAt, l Layout, opt Options) (*Reader, error) {
	if err := l.VLR.Check(l.RecLen); err != nil {
		return nil, err
	}
	chunks, warn, err := ChunkTable(r, &l)
	if err != nil {
		return nil, err
	}
	if warn != "" {
		opt.warn("%s", warn)
	}
	rd := &Reader{r: r, l: l, opt: opt, chunks: chunks, left: l.Count}
	n := opt.workers()
	rd.codecs = make(chan *ChunkCodec, n)
	rd.recsFree = make(chan []byte, 3*n)
	rd.srcFree = make(chan []byte, 3*n)
	for range n {
		c, err := NewChunkCodec(l.VLR.Items)
		if err != nil {
			return nil, err
		}
		rd.codecs <- c
	}
	if chunks == nil && l.Count > 0 {
		rd.seq = <-rd.codecs
		rd.seqPos = l.Start + 8
	}
	return rd, nil
}

// Next returns the records of the next chunk (n*RecLen bytes, valid until
// the next call), or io.EOF after the last.
func (rd *Reader) Next() ([]byte, int, error) {
	if rd.left == 0 {
		return nil, 0, io.EOF
	}
	if rd.last != nil {
		put(rd.recsFree, rd.last)
		rd.last = nil
	}
	if rd.seq != nil {
		return rd.nextSeq()
	}
	for {
		for len(rd.queue) < 2*cap(rd.codecs) && rd.next < len(rd.chunks) {
			rd.start(rd.next)
			rd.next++
		}
		if len(rd.queue) == 0 {
			return nil, 0, &FormatError{What: "chunks", Offset: rd.l.Start, Msg: fmt.Sprintf("they hold %d points fewer than the header promises", rd.left)}
		}
		j := rd.queue[0]
		<-j.done
		rd.queue = rd.queue[1:]
		if j.err != nil {
			err := &ChunkError{Index: j.index, Offset: j.chunk.Offset, Err: j.err}
			if !rd.opt.Salvage {
				rd.left = 0
				rd.drain()
				return nil, 0, err
			}
			if rd.opt.Skip != nil {
				rd.opt.Skip(fmt.Errorf("%w; its %d points are skipped", err, j.chunk.Points))
			}
			rd.left -= uint64(j.chunk.Points)
			if rd.left == 0 {
				return nil, 0, io.EOF
			}
			continue
		}
		rd.left -= uint64(j.chunk.Points)
		rd.last = j.recs
		return j.recs, j.chunk.Points, nil
	}
}

// Close waits for the chunks still decoding.
func (rd *Reader) Close() error {
	rd.drain()
	return nil
}

func (rd *Reader) drain() {
	for _, j := range rd.queue {
		<-j.done
	}
	rd.queue = nil
	rd.next = len(rd.chunks)
}

// start decodes chunk i in its own goroutine.
func (rd *Reader) start(i int) {
	j := &job{index: i, chunk: rd.chunks[i], done: make(chan struct{})}
	rd.queue = append(rd.queue, j)
	go func() {
		defer close(j.done)
		c := <-rd.codecs
		defer func() { rd.codecs <- c }()
		j.recs, j.err = rd.decode(c, j.chunk)
	}()
}

// MaxPointsPerByte bounds the points a compressed byte can honestly hold.
// 50,000 identical records compress to about 150 (format 0) and 100
// (format 6) points per byte (TestMaxPointsPerByteHonest; the adaptive
// models' floor of about 0.008 bits per POINT10 record would allow some
// 1,000 in chunks of millions); a chunk claiming more is corrupt, and the
// bound keeps a crafted header from making the reader allocate what no file
// of its size holds. io/las/copc checks hierarchy entries with it before
// allocating a node's records.
const MaxPointsPerByte = 1024

// decode reads and decodes one chunk of the table.
func (rd *Reader) decode(c *ChunkCodec, ch Chunk) ([]byte, error) {
	if int64(ch.Points) > MaxPointsPerByte*ch.Bytes {
		return nil, fmt.Errorf("%d points cannot fit in %d bytes", ch.Points, ch.Bytes)
	}
	src := get(rd.srcFree, int(ch.Bytes))
	defer put(rd.srcFree, src)
	if k, err := rd.r.ReadAt(src, ch.Offset); k < len(src) {
		if err == nil || errors.Is(err, io.EOF) {
			err = ErrCut
		}
		return nil, err
	}
	dst := get(rd.recsFree, ch.Points*rd.l.RecLen)
	used, err := c.Decode(src, ch.Points, dst, rd.opt.Select)
	if err != nil {
		put(rd.recsFree, dst)
		return nil, err
	}
	if used > len(src) {
		return nil, fmt.Errorf("decoding took %d bytes, the table gives %d", used, len(src))
	}
	return dst, nil
}

// get returns a buffer of n bytes, reused from free when one is there.
func get(free chan []byte, n int) []byte {
	select {
	case b := <-free:
		if cap(b) >= n {
			return b[:n]
		}
	default:
	}
	return make([]byte, n)
}

// put offers b for reuse.
func put(free chan []byte, b []byte) {
	select {
	case free <- b:
	default:
	}
}

// nextSeq decodes the next chunk of a file without a chunk table: its
// size is known only once it is decoded, so the window read grows until
// the chunk fits.
func (rd *Reader) nextSeq() ([]byte, int, error) {
	l := &rd.l
	n := int(min(uint64(l.VLR.ChunkSize), rd.left))
	switch {
	case l.VLR.Compressor == CompressorPointwise:
		n = int(rd.left)
	case l.VLR.ChunkSize == VariableChunkSize:
		// A layered chunk gives its point count after its first point.
		var b [4]byte
		if k, _ := rd.r.ReadAt(b[:], rd.seqPos+int64(l.RecLen)); k < 4 || rd.seqPos+int64(l.RecLen)+4 > l.End {
			return nil, 0, &ChunkError{Index: rd.next, Offset: rd.seqPos, Err: ErrCut}
		}
		n = int(min(uint64(le.Uint32(b[:])), rd.left))
		if n == 0 {
			return nil, 0, &ChunkError{Index: rd.next, Offset: rd.seqPos, Err: errors.New("a chunk of no points")}
		}
	}
	if int64(n) > MaxPointsPerByte*(l.End-rd.seqPos) {
		return nil, 0, &ChunkError{Index: rd.next, Offset: rd.seqPos, Err: fmt.Errorf("%d points cannot fit in the %d bytes left: %w", n, l.End-rd.seqPos, ErrCut)}
	}
	if cap(rd.recs) < n*l.RecLen {
		rd.recs = make([]byte, n*l.RecLen)
	}
	dst := rd.recs[:n*l.RecLen]
	window := min(int64(n)*int64(l.RecLen)+1024, l.End-rd.seqPos)
	for {
		if window <= 0 {
			return nil, 0, &ChunkError{Index: rd.next, Offset: rd.seqPos, Err: ErrCut}
		}
		if int64(cap(rd.seqBuf)) < window {
			rd.seqBuf = make([]byte, window)
		}
		src := rd.seqBuf[:window]
		k, _ := rd.r.ReadAt(src, rd.seqPos)
		src = src[:k]
		used, err := rd.seq.Decode(src, n, dst, rd.opt.Select)
		if errors.Is(err, arith.ErrShortStream) && rd.seqPos+window < l.End {
			window = min(2*window, l.End-rd.seqPos)
			continue
		}
		if errors.Is(err, arith.ErrShortStream) {
			err = fmt.Errorf("%w (%w)", ErrCut, err)
		}
		if err != nil {
			return nil, 0, &ChunkError{Index: rd.next, Offset: rd.seqPos, Err: err}
		}
		rd.seqPos += int64(used)
		rd.next++
		rd.left -= uint64(n)
		return dst, n, nil
	}
}
