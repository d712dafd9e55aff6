package codec

import (
	"io"
	"runtime"
	"slices"

	"github.com/pctk/pctk/internal/par"
)

// RecordBlock is the number of records one goroutine of WriteRecords
// encodes at a time.
const RecordBlock = 1 << 15

// decodeGrain is the least number of records one goroutine of
// DecodeRecords decodes: a chunk (Chunk records) decodes in up to 16
// ranges.
const decodeGrain = 1 << 12

// DecodeRecords calls decode(lo, hi) for consecutive ranges [lo, hi) that
// cover records [0, n), on all cores: for decoders of fixed-size records
// already in memory, whose conversions and first touch of the columns
// (page faults, for a cloud read whole) then share the cores (LAS decode
// 1.1-1.6x, PCD 1.15-1.57x on 2 cores: docs/benchmarks.md). Each range
// must write only its own records' values.
func DecodeRecords(n int, decode func(lo, hi int)) {
	par.For(par.Ranges(n, decodeGrain), func(_, lo, hi int) { decode(lo, hi) })
}

// ReadRecords reads n records of rec bytes each from r into *buf (grown
// when too small, kept for the next call) and decodes them on all cores
// (DecodeRecords): decode(b, lo, hi) gets records [lo, hi), b their bytes.
// When the input fails first, only the whole records before the failure
// are decoded; it returns their number, the position after the last of
// them and the reader's error (see RecordErr).
func (r *Reader) ReadRecords(buf *[]byte, n, rec int, decode func(b []byte, lo, hi int)) (int, Pos, error) {
	if need := n * rec; cap(*buf) < need {
		*buf = make([]byte, need)
	}
	b := (*buf)[:n*rec]
	start := r.Offset().Offset
	err := r.ReadFull(b)
	if err != nil {
		n = int((r.Offset().Offset - start) / int64(rec))
	}
	DecodeRecords(n, func(lo, hi int) { decode(b[lo*rec:hi*rec], lo, hi) })
	return n, Pos{Offset: start + int64(n)*int64(rec)}, err
}

// WriteRecords writes n fixed-size records of rec bytes to w, in order,
// encoding them in blocks on all cores: encode(buf, lo, hi) fills buf
// (len (hi-lo)*rec, zeroed) with records [lo, hi). Blocks are encoded a
// batch at a time (one per core), each batch written while the next is
// encoded, so memory stays at a few megabytes a core. The first error of
// encode, in record order, stops it; the batch holding it is not written.
func WriteRecords(w io.Writer, n, rec int, encode func(buf []byte, lo, hi int) error) error {
	return writeBlocks(w, n, RecordBlock, func(buf []byte, lo, hi int) ([]byte, error) {
		size := (hi - lo) * rec
		buf = slices.Grow(buf, size)[:size]
		clear(buf)
		return buf, encode(buf, lo, hi)
	})
}

// writeBlocks writes the bytes of n records to w, in order: fill(buf, lo,
// hi) appends records [lo, hi) to buf (empty, its memory reused) and
// returns it. Blocks of per records are filled a batch at a time, one
// block a core, and each batch is written while the next is filled (two
// sets of buffers in turn), so that writing, which copies into the page
// cache on one core, and encoding on the others overlap. The first error,
// in record order, stops it: a batch holding a fill error is not written,
// and neither is any batch after a failed write.
func writeBlocks(w io.Writer, n, per int, fill func(buf []byte, lo, hi int) ([]byte, error)) error {
	k := runtime.GOMAXPROCS(0)
	var bufs [2][][]byte
	for i := range bufs {
		bufs[i] = make([][]byte, k)
	}
	errs := make([]error, k)
	written := make(chan error, 1)
	written <- nil // no batch in flight
	for b, at := 0, 0; at < n; b, at = b+1, at+k*per {
		set := bufs[b%2]
		parts := min(k, (n-at+per-1)/per)
		par.Each(parts, func(i int) {
			lo := at + i*per
			set[i], errs[i] = fill(set[i][:0], lo, min(lo+per, n))
		})
		// The previous batch's write comes first in record order.
		if err := <-written; err != nil {
			return err
		}
		for _, err := range errs[:parts] {
			if err != nil {
				return err
			}
		}
		go func(batch [][]byte) {
			for _, p := range batch {
				if _, err := w.Write(p); err != nil {
					written <- err
					return
				}
			}
			written <- nil
		}(set[:parts])
	}
	return <-written
}
