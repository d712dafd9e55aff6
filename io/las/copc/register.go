package copc

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/pcio"
)

func init() {
	pcio.Register(&pcio.Format{
		Name:       "copc",
		Extensions: []string{".copc.laz"},
		// No magic: a COPC file is LAS ("LASF"), and a plain read of it
		// is a LAZ read; only writing and queries need this package.
		Decode: Decode,
		Encode: Encode,
	})
	pcio.RegisterIndexed(&pcio.Indexed{Name: "copc", Read: readIndexed})
}

// WithOptions returns f, when it is this package's format, writing with the
// LAS options o (WriteOptions.LAS); any other f as it is: how a command
// passes --scale, --offset, --point-format and --extra-dims to whichever
// format OUT turned out to be.
func WithOptions(f *pcio.Format, o *las.WriteOptions) *pcio.Format {
	if f == nil || f.Name != "copc" || o.IsZero() {
		return f
	}
	g := *f
	g.Encode = func(w io.Writer, c *core.Cloud, variant string) error {
		if variant != "" {
			return fmt.Errorf("copc: no variant %q (COPC has none)", variant)
		}
		return Write(w, c, &WriteOptions{LAS: o})
	}
	return &g
}

// Decode reads every point of a COPC file from r. An r that is also an
// io.ReaderAt and io.Seeker (a file) is read in place; any other is read
// into memory first. The octree is read strictly: opts (salvage) apply to
// a plain LAZ read of the file (format "las"), not to this one.
func Decode(r io.Reader, opts ...pcio.ReadOptions) (*core.Cloud, error) {
	type readerAtSeeker interface {
		io.ReaderAt
		io.Seeker
	}
	var ra io.ReaderAt
	var size int64
	if s, ok := r.(readerAtSeeker); ok {
		n, err := s.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, err
		}
		ra, size = s, n
	} else {
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		ra, size = bytes.NewReader(b), int64(len(b))
	}
	f, err := Open(ra, size)
	if err != nil {
		return nil, err
	}
	return f.Read(nil, 0)
}

// readIndexed is the pcio.Indexed reader: a query answered from the
// octree, or ok false for a file that is not COPC.
func readIndexed(r io.ReaderAt, size int64, q *pcio.Query) (*core.Cloud, bool, error) {
	f, err := Open(r, size)
	if errors.Is(err, ErrNotCOPC) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	c, err := f.Read(q, 0)
	return c, true, err
}
