package codec

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadRecords reads 3-byte records, each holding its index, whole, cut
// mid-record and broken by a reader error, on one core and on several:
// every whole record before the end is decoded once, in its own place,
// and the position and error say where the input stopped.
func TestReadRecords(t *testing.T) {
	const rec, n = 3, 3*decodeGrain + 5 // several ranges, the last partial
	data := make([]byte, n*rec)
	for i := range n {
		data[i*rec], data[i*rec+1], data[i*rec+2] = byte(i), byte(i>>8), byte(i>>16)
	}
	boom := errors.New("boom")
	for _, c := range []struct {
		name    string
		in      func() io.Reader
		want    int
		wantErr error
		errMsg  string
	}{
		{"whole", func() io.Reader { return bytes.NewReader(data) }, n, nil, ""},
		{"none", func() io.Reader { return bytes.NewReader(nil) }, 0, io.EOF, "pcd: file cut short at byte offset 100: header promises 12293 points, 0 present"},
		{"cut mid-record", func() io.Reader { return bytes.NewReader(data[:2*decodeGrain*rec+2]) }, 2 * decodeGrain, io.ErrUnexpectedEOF,
			"pcd: file cut short at byte offset 24676: header promises 12293 points, 8192 present"},
		{"reader error", func() io.Reader { return io.MultiReader(bytes.NewReader(data[:10*rec+1]), iotest.ErrReader(boom)) }, 10, boom,
			"pcd: offset 130: point 10 of 12293: boom"},
	} {
		for _, procs := range []int{1, 4} {
			func() {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				r := NewReader("pcd", c.in())
				r.SetStart(Pos{Offset: 100})
				seen := make([]int, n)
				var buf []byte
				got, pos, err := r.ReadRecords(&buf, n, rec, func(b []byte, lo, hi int) {
					for i := range hi - lo {
						idx := int(b[i*rec]) | int(b[i*rec+1])<<8 | int(b[i*rec+2])<<16
						if idx != lo+i {
							t.Errorf("%s: record %d holds %d", c.name, lo+i, idx)
						}
						seen[lo+i]++
					}
				})
				if got != c.want || err != c.wantErr || pos.Offset != 100+int64(c.want*rec) {
					t.Fatalf("%s, %d cores: got %d records at offset %d, %v; want %d at %d, %v", c.name, procs, got, pos.Offset, err, c.want, 100+c.want*rec, c.wantErr)
				}
				for i, k := range seen {
					if want := min(1, max(0, c.want-i)); k != want {
						t.Fatalf("%s, %d cores: record %d decoded %d times, want %d", c.name, procs, i, k, want)
					}
				}
				if err != nil {
					msg := RecordErr("pcd", pos, err, "points", "point", int64(got), n).Error()
					if !strings.Contains(msg, c.errMsg) {
						t.Errorf("%s: RecordErr says %q, want %q", c.name, msg, c.errMsg)
					}
				}
			}()
		}
	}
}
