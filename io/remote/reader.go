package remote

import (
	"errors"
	"fmt"
	"io"
)

// Reader reads a File from start to end, as io.ReadSeeker and
// io.ReaderAt: the Read calls of a streaming decoder are served from a
// read-ahead window that starts at 64 KiB and doubles, up to 4 MiB blocks
// with up to 3 of them fetched ahead, while the reads go on in order
// (a Seek elsewhere starts it again), so that at most about 16 MiB are held.
// A Reader is for one goroutine; its ReadAt, the File's, for any.
type Reader struct {
	f     *File
	pos   int64
	next  int64 // the offset the window's blocks reach
	size  int   // the next block's size
	ahead []*chunk
}

// chunk is a block of the window, being fetched or fetched.
type chunk struct {
	off  int64
	b    []byte
	err  error
	done chan struct{}
}

const (
	firstBlock = 64 << 10
	maxBlock   = 4 << 20
	maxAhead   = 3
)

// Reader returns a reader of f from its first byte.
func (f *File) Reader() *Reader { return &Reader{f: f} }

// Size returns the file's size in bytes.
func (r *Reader) Size() int64 { return r.f.size }

// ReadAt is the File's ReadAt.
func (r *Reader) ReadAt(p []byte, off int64) (int, error) { return r.f.ReadAt(p, off) }

// Seek sets the offset of the next Read, as io.Seeker.
func (r *Reader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += r.pos
	case io.SeekEnd:
		offset += r.f.size
	case io.SeekStart:
	default:
		return 0, errors.New("remote: Seek: invalid whence")
	}
	if offset < 0 {
		return 0, fmt.Errorf("remote: Seek to negative offset %d", offset)
	}
	r.pos = offset
	return offset, nil
}

// Read reads up to len(p) bytes at the current offset.
func (r *Reader) Read(p []byte) (int, error) {
	if r.pos >= r.f.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if len(r.ahead) == 0 || r.pos < r.ahead[0].off || r.pos >= r.next {
		// Not where the window is: start it here, small.
		r.ahead, r.next, r.size = nil, r.pos, firstBlock
	}
	for len(r.ahead) == 0 || r.pos >= r.ahead[0].off+int64(len(r.ahead[0].b)) {
		if len(r.ahead) > 0 {
			r.ahead = r.ahead[1:]
		}
		r.fill()
	}
	c := r.ahead[0]
	<-c.done
	if c.err != nil {
		r.ahead = nil
		return 0, c.err
	}
	n := copy(p, c.b[r.pos-c.off:])
	r.pos += int64(n)
	r.fill()
	return n, nil
}

// fill starts blocks until the window holds one beyond the one being read
// (more once blocks have grown), or reaches the end of the file.
func (r *Reader) fill() {
	want := 1 + min(maxAhead, r.size/(maxBlock/4))
	for len(r.ahead) < max(want, 1) && r.next < r.f.size {
		c := &chunk{off: r.next, b: make([]byte, min(int64(r.size), r.f.size-r.next)), done: make(chan struct{})}
		go func() {
			// The block lies inside the file: all of it, or an error.
			if n, err := r.f.ReadAt(c.b, c.off); n < len(c.b) {
				c.err = err
			}
			close(c.done)
		}()
		r.ahead = append(r.ahead, c)
		r.next += int64(len(c.b))
		r.size = min(2*r.size, maxBlock)
	}
}
