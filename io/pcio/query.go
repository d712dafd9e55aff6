package pcio

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/pctk/pctk/core"
)

// Query restricts a read to part of a cloud. Its zero value reads
// everything. A format with a spatial index (COPC) answers it by reading
// only what it needs; every other format is read whole and filtered by
// Bounds, so a query works on any input.
type Query struct {
	// Bounds, when set, keeps the points inside the closed box: Min ≤ p ≤ Max
	// on every axis, the edges included, as PDAL's BOX3D::contains.
	// A box without Z limits has Min[2] = -Inf and Max[2] = +Inf.
	Bounds *core.Bounds
	// Levels, when positive, keeps the points of the octree levels 0 to
	// Levels-1 of an indexed file (pctk's --level L is Levels L+1).
	Levels int
	// Resolution, when positive, keeps the octree levels down to the
	// shallowest whose point spacing is at most Resolution.
	Resolution float64
}

// IsZero reports whether q reads everything.
func (q *Query) IsZero() bool {
	return q == nil || (q.Bounds == nil && q.Levels <= 0 && q.Resolution <= 0)
}

// NeedsIndex reports whether q asks for octree levels, which only a file
// with a spatial index has.
func (q *Query) NeedsIndex() bool { return q != nil && (q.Levels > 0 || q.Resolution > 0) }

// Contains reports whether p lies inside q's box (always true without one).
func (q *Query) Contains(x, y, z float64) bool {
	b := q.Bounds
	return b == nil || (b.Min[0] <= x && x <= b.Max[0] && b.Min[1] <= y && y <= b.Max[1] && b.Min[2] <= z && z <= b.Max[2])
}

// Filter returns the points of c inside q's box, c itself when every point is.
func (q *Query) Filter(c *core.Cloud) *core.Cloud {
	if q == nil || q.Bounds == nil {
		return c
	}
	var keep []int
	for i := range c.X {
		if q.Contains(c.X[i], c.Y[i], c.Z[i]) {
			keep = append(keep, i)
		}
	}
	if len(keep) == c.Len() {
		return c
	}
	return c.Select(keep)
}

// ErrNoIndex is returned when a query asks for octree levels of a file
// that has none.
var ErrNoIndex = errors.New("--level and --resolution need a file with an octree index (COPC)")

// An Indexed reader answers queries from a spatial index. Open inspects
// the file behind r (size bytes) and reports ok false when it is not of
// its kind; otherwise Read reads what q asks for.
type Indexed struct {
	// Name is the index's format name ("copc").
	Name string
	// Read returns the points q selects, or ok false when r is not of this
	// kind (nothing else read).
	Read func(r io.ReaderAt, size int64, q *Query) (c *core.Cloud, ok bool, err error)
}

var (
	imu     sync.RWMutex
	indexed []*Indexed
)

// RegisterIndexed adds a reader of indexed files.
func RegisterIndexed(ix *Indexed) {
	imu.Lock()
	defer imu.Unlock()
	indexed = append(indexed, ix)
}

// ReadFileQuery reads the points of path that q selects. An indexed file
// (a regular file that a registered Indexed reader recognises) is read
// through its index; any other is read whole and filtered by q's box.
// Octree levels on a file without an index are an error (ErrNoIndex).
// For files read whole, bind, when not nil, gives the format to decode
// with from the one identified (the same format bound to options the file
// cannot tell, see io/text.WithOptions), and opts are the decoder's (an
// index reads strictly, without salvage).
func ReadFileQuery(path string, q *Query, bind func(*Format) (*Format, error), opts ...ReadOptions) (*core.Cloud, *Format, error) {
	if q.IsZero() {
		return readFile(path, bind, opts...)
	}
	if path != Stdio {
		if c, f, ok, err := readIndexed(path, q); ok || err != nil {
			return c, f, err
		}
	}
	if q.NeedsIndex() {
		return nil, nil, fmt.Errorf("%s: %w", Name(path), ErrNoIndex)
	}
	c, f, err := readFile(path, bind, opts...)
	if err != nil {
		return nil, f, err
	}
	return q.Filter(c), f, nil
}

// readIndexed reads path through a registered index when one recognises it.
func readIndexed(path string, q *Query) (*core.Cloud, *Format, bool, error) {
	r, size, closer, ok, err := OpenAt(path)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	defer closer.Close()
	imu.RLock()
	ixs := append([]*Indexed(nil), indexed...)
	imu.RUnlock()
	for _, ix := range ixs {
		c, ok, err := ix.Read(r, size, q)
		if err != nil {
			return nil, nil, true, fmt.Errorf("%s: %w", Name(path), err)
		}
		if ok {
			// The file's format is what sniffing it gives (laz for
			// COPC), as for a read without a query; the cloud's metadata
			// is that of its container format, whose Describe applies.
			head := make([]byte, SniffLen)
			n, _ := r.ReadAt(head, 0)
			f, merr := match(head[:n])
			if merr != nil {
				var lerr error
				if f, _, lerr = Lookup(c.Meta.Format); lerr != nil {
					f, _, _ = Lookup(ix.Name)
				}
			}
			return c, f, true, nil
		}
	}
	return nil, nil, false, nil
}

// UnboundedZ returns a box from a 2D extent with no Z limits.
func UnboundedZ(minX, minY, maxX, maxY float64) core.Bounds {
	return core.Bounds{Min: [3]float64{minX, minY, math.Inf(-1)}, Max: [3]float64{maxX, maxY, math.Inf(1)}}
}
