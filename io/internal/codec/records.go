package codec

import (
	"io"
	"runtime"
	"sync"
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
	workers := runtime.GOMAXPROCS(0)
	bufs := make([][]byte, workers)
	errs := make([]error, workers)
	for lo := 0; lo < n; lo += workers * RecordBlock {
		var wg sync.WaitGroup
		for k := range workers {
			a := lo + k*RecordBlock
			if a >= n {
				bufs[k] = bufs[k][:0]
				continue
			}
			b := min(a+RecordBlock, n)
			size := (b - a) * rec
			if cap(bufs[k]) < size {
				bufs[k] = make([]byte, size)
			}
			bufs[k] = bufs[k][:size]
			clear(bufs[k])
			wg.Go(func() { errs[k] = encode(bufs[k], a, b) })
		}
		wg.Wait()
		for k := range workers {
			if errs[k] != nil {
				return errs[k]
			}
		}
		for k := range workers {
			if len(bufs[k]) == 0 {
				break
			}
			if _, err := w.Write(bufs[k]); err != nil {
				return err
			}
		}
	}
	return nil
}
