package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// FuzzRead reads a file through a fake server whose every answer is drawn
// from the fuzzer's seed: a good 206, a 5xx, a body cut short, a wrong
// Content-Range, another ETag, a 200 with the whole file, a 404. Whatever
// happens, a read returns the file's bytes or an error: never other bytes,
// never a panic.
func FuzzRead(f *testing.F) {
	for _, s := range []uint64{0, 1, 2, 3, 42, 1 << 40} {
		f.Add(s, uint16(1000), uint8(30))
		f.Add(s, uint16(1000), uint8(0))
	}
	f.Fuzz(func(t *testing.T, seed uint64, size uint16, faultPct uint8) {
		want := make([]byte, int(size)*37)
		rng := rand.New(rand.NewPCG(seed, 3))
		for i := range want {
			want[i] = byte(rng.Uint32())
		}
		var mu sync.Mutex
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			roll, kind := rng.IntN(100), rng.IntN(8)
			cut := rng.Float64()
			mu.Unlock()
			var start, end int64
			if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &start, &end); err != nil {
				http.Error(w, "bad range", http.StatusBadRequest)
				return
			}
			end = min(end, int64(len(want))-1)
			etag := `"v1"`
			if roll < int(faultPct) {
				switch kind {
				case 0:
					http.Error(w, "busy", http.StatusServiceUnavailable)
					return
				case 1:
					http.Error(w, "gone", http.StatusNotFound)
					return
				case 2: // body cut short
					w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end, len(want)))
					w.Header().Set("ETag", etag)
					w.Header().Set("Content-Length", fmt.Sprint(end-start+1))
					w.WriteHeader(http.StatusPartialContent)
					w.Write(want[start : start+int64(cut*float64(end-start))])
					panic(http.ErrAbortHandler)
				case 3: // the wrong range
					start = max(start-1, 0)
				case 4:
					etag = `"v2"`
				case 5: // the whole file
					w.Header().Set("ETag", etag)
					w.WriteHeader(http.StatusOK)
					w.Write(want)
					return
				case 6:
					http.Error(w, "slow down", http.StatusTooManyRequests)
					return
				case 7: // a bigger file (not to Open, whose answer gives the size)
					if start == 0 {
						break
					}
					w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end, len(want)+1))
					w.Header().Set("ETag", etag)
					w.WriteHeader(http.StatusPartialContent)
					w.Write(want[start : end+1])
					return
				}
			}
			if start > end || start >= int64(len(want)) {
				w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", len(want)))
				w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
				return
			}
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end, len(want)))
			w.Header().Set("ETag", etag)
			w.WriteHeader(http.StatusPartialContent)
			w.Write(want[start : end+1])
		}))
		defer srv.Close()
		file, err := Open(context.Background(), srv.URL+"/f", Options{Backoff: time.Microsecond, Retries: 3, HeadAhead: 4096, Parallel: 2})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Open: %v is not an *Error", err)
			}
			return
		}
		defer file.Close()
		if file.Size() != int64(len(want)) {
			t.Fatalf("Size %d, want %d", file.Size(), len(want))
		}
		var wg sync.WaitGroup
		for g := range 3 {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(seed, uint64(g)))
				for range 5 {
					off := r.Int64N(int64(len(want)) + 1)
					p := make([]byte, r.IntN(40000)+1)
					n, err := file.ReadAt(p, off)
					if err != nil && !errors.Is(err, io.EOF) {
						continue
					}
					if !bytes.Equal(p[:n], want[off:off+int64(n)]) {
						t.Errorf("ReadAt(%d bytes, %d): other bytes than the file's", len(p), off)
					}
				}
			})
		}
		wg.Wait()
		got, err := io.ReadAll(file.Reader())
		if err == nil && !bytes.Equal(got, want) {
			t.Errorf("sequential read: %d bytes without error, not the file's %d", len(got), len(want))
		}
	})
}
