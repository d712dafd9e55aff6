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

// WriteRecords writes n fixed-size records of rec bytes to w, in order,
// encoding them in blocks on all cores: encode(buf, lo, hi) fills buf
// (len (hi-lo)*rec, zeroed) with records [lo, hi). Blocks are encoded a
// batch at a time (one per core) and written before the next batch, so
// memory stays at a few megabytes a core. The first error of encode, in
// record order, stops it; the batch holding it is not written.
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
// block a core, and written before the next batch. The first error of
// fill, in record order, stops it; the batch holding it is not written.
func writeBlocks(w io.Writer, n, per int, fill func(buf []byte, lo, hi int) ([]byte, error)) error {
	k := runtime.GOMAXPROCS(0)
	bufs := make([][]byte, k)
	errs := make([]error, k)
	for at := 0; at < n; at += k * per {
		parts := min(k, (n-at+per-1)/per)
		par.Each(parts, func(i int) {
			lo := at + i*per
			bufs[i], errs[i] = fill(bufs[i][:0], lo, min(lo+per, n))
		})
		for _, err := range errs[:parts] {
			if err != nil {
				return err
			}
		}
		for _, b := range bufs[:parts] {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	return nil
}
