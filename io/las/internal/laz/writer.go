package laz

import "fmt"

// Writer compresses records into chunks of the VLR's chunk size, up to
// Workers chunks at once, and hands the compressed chunks in order to its
// emit function. Memory stays bounded by about twice Workers chunks.
type Writer struct {
	v      *VLR
	recLen int
	size   int // points per chunk
	emit   func([]byte) error
	codecs chan *ChunkCodec
	open   []byte // records of the chunk being filled
	queue  []*encJob
	chunks []Chunk
	off    int64 // offset of the next chunk from the first
	err    error
	// recsFree and outFree hold record and output buffers for reuse, so
	// that a steady write allocates nothing per chunk.
	recsFree, outFree chan []byte
}

type encJob struct {
	recs []byte
	n    int
	out  []byte
	err  error
	done chan struct{}
}

// NewWriter returns a Writer of chunks of the points v describes, with
// recLen bytes per record. v.ChunkSize must be fixed (not variable). emit
// gets each compressed chunk in order and must not keep it after it
// returns (its buffer is reused).
func NewWriter(v *VLR, recLen int, opt Options, emit func([]byte) error) (*Writer, error) {
	if err := v.Check(recLen); err != nil {
		return nil, err
	}
	if v.Compressor == CompressorPointwise || v.ChunkSize == VariableChunkSize {
		return nil, &UnsupportedError{Msg: fmt.Sprintf("writing compressor %d with chunk size %d", v.Compressor, v.ChunkSize)}
	}
	n := opt.workers()
	w := &Writer{v: v, recLen: recLen, size: int(min(v.ChunkSize, 1<<24)), emit: emit, codecs: make(chan *ChunkCodec, n),
		recsFree: make(chan []byte, 3*n), outFree: make(chan []byte, 3*n)}
	for range n {
		c, err := NewChunkCodec(v.Items)
		if err != nil {
			return nil, err
		}
		w.codecs <- c
	}
	return w, nil
}

// Write adds whole records.
func (w *Writer) Write(recs []byte) error {
	if w.err != nil {
		return w.err
	}
	if len(recs)%w.recLen != 0 {
		return fmt.Errorf("laz: %d bytes are not whole records of %d", len(recs), w.recLen)
	}
	full := w.size * w.recLen
	for len(recs) > 0 {
		if w.open == nil {
			w.open = get(w.recsFree, full)[:0]
		}
		k := min(full-len(w.open), len(recs))
		w.open = append(w.open, recs[:k]...)
		recs = recs[k:]
		if len(w.open) == full {
			if err := w.submit(); err != nil {
				return err
			}
		}
	}
	return nil
}

// submit starts compressing the open chunk, first emitting finished ones
// while too many are in flight.
func (w *Writer) submit() error {
	for len(w.queue) >= 2*cap(w.codecs) {
		if err := w.pop(); err != nil {
			return err
		}
	}
	j := &encJob{recs: w.open, n: len(w.open) / w.recLen, done: make(chan struct{})}
	w.open = nil
	w.queue = append(w.queue, j)
	go func() {
		defer close(j.done)
		c := <-w.codecs
		defer func() { w.codecs <- c }()
		j.out, j.err = c.Encode(j.recs, j.n, get(w.outFree, 0))
	}()
	return nil
}

// pop emits the oldest chunk once it is compressed.
func (w *Writer) pop() error {
	j := w.queue[0]
	<-j.done
	w.queue = w.queue[1:]
	if j.err == nil {
		j.err = w.emit(j.out)
	}
	if j.err != nil {
		w.err = j.err
		for _, k := range w.queue {
			<-k.done
		}
		w.queue = nil
		return j.err
	}
	w.chunks = append(w.chunks, Chunk{Offset: w.off, Bytes: int64(len(j.out)), Points: j.n})
	w.off += int64(len(j.out))
	put(w.recsFree, j.recs)
	put(w.outFree, j.out[:0])
	return nil
}

// Close compresses the last chunk, emits the rest and returns the chunks,
// their offsets counted from the first chunk's start.
func (w *Writer) Close() ([]Chunk, error) {
	if w.err != nil {
		return nil, w.err
	}
	if len(w.open) > 0 {
		if err := w.submit(); err != nil {
			return nil, err
		}
	}
	for len(w.queue) > 0 {
		if err := w.pop(); err != nil {
			return nil, err
		}
	}
	return w.chunks, nil
}
