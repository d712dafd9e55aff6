package tile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/pctk/pctk/internal/scratch"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// recordSize is the size of one point in a tile file: its global index
// (int64) and float32 x, y, z, little-endian.
const recordSize = 20

// storeBuffer is the bytes a Store buffers per tile before it appends them
// to the tile's file (opened and closed at each flush, so that any number
// of tiles needs no more than one file descriptor); storeBuffered bounds
// the bytes it buffers in all, whatever the number of tiles: past it, every
// buffer is written out.
const storeBuffer = 32 << 10

var storeBuffered = 32 << 20 // a variable for the tests

// Store bins points into tiles on disk, for runs larger than memory: the
// first streaming pass over a cloud Adds every point, in increasing global
// index order, and each tile's file then lists its points (owned and halo)
// in that order, as Bin does in memory. Load reads one tile back.
type Store struct {
	g        Grid
	dir      string
	buf      map[Key][]byte
	buffered int // bytes in buf
	owned    map[Key]int64
	n        int64
	box      findneighbor.Box // of the points added
}

// NewStore returns an empty store of the tiles of g, in a new folder under
// dir ("" for the system's temporary folder), "pctk-tiles-PID-RAND.tmp"
// (internal/scratch: removed on SIGINT or SIGTERM, and by the next store
// in dir after a SIGKILL). Close removes it.
func NewStore(dir string, g Grid) (*Store, error) {
	d, err := scratch.MkdirTemp(dir, "tiles")
	if err != nil {
		return nil, fmt.Errorf("tile: %w", err)
	}
	return &Store{g: g, dir: d, buf: map[Key][]byte{}, owned: map[Key]int64{}}, nil
}

// Dir returns the store's folder, where callers may keep files of their
// own for the tiles (Close removes them too).
func (s *Store) Dir() string { return s.dir }

// Grid returns the store's tiling.
func (s *Store) Grid() Grid { return s.g }

// Box returns the bounding box of the points added, as
// findneighbor.BoxOf gives it for them in memory: the frame of a tiled
// run's indexes (findneighbor.Frame).
func (s *Store) Box() findneighbor.Box { return s.box }

// Len returns the number of points added.
func (s *Store) Len() int64 { return s.n }

// Add adds the point of global index id at (x, y, z), in the run's local
// frame, to every tile that holds it. Points must come in increasing id
// order.
func (s *Store) Add(id int64, x, y, z float32) error {
	var rec [recordSize]byte
	binary.LittleEndian.PutUint64(rec[0:], uint64(id))
	binary.LittleEndian.PutUint32(rec[8:], math.Float32bits(x))
	binary.LittleEndian.PutUint32(rec[12:], math.Float32bits(y))
	binary.LittleEndian.PutUint32(rec[16:], math.Float32bits(z))
	p := [3]float32{x, y, z}
	if s.n == 0 {
		s.box = findneighbor.Box{Min: p, Max: p}
	}
	for a, v := range p {
		s.box.Min[a], s.box.Max[a] = min(s.box.Min[a], v), max(s.box.Max[a], v)
	}
	s.owned[s.g.Owner(x, y)]++
	s.n++
	var err error
	s.g.Touch(x, y, func(k Key) {
		b := append(s.buf[k], rec[:]...)
		s.buffered += recordSize
		if len(b) >= storeBuffer && err == nil {
			err = s.flush(k, b)
			s.buffered -= len(b)
			b = b[:0]
		}
		s.buf[k] = b
	})
	if err == nil && s.buffered > storeBuffered {
		err = s.Flush()
	}
	return err
}

func (s *Store) path(k Key) string { return filepath.Join(s.dir, k.String()+".tile") }

// flush appends b to tile k's file.
func (s *Store) flush(k Key, b []byte) error {
	f, err := os.OpenFile(s.path(k), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("tile: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("tile: %w", err)
	}
	return f.Close()
}

// Flush writes what the store buffers to the tiles' files: call it once
// every point is added, before Load.
func (s *Store) Flush() error {
	for k, b := range s.buf {
		if len(b) > 0 {
			if err := s.flush(k, b); err != nil {
				return err
			}
		}
		delete(s.buf, k)
	}
	s.buffered = 0
	return nil
}

// Keys returns the tiles that own at least one point, in key order.
func (s *Store) Keys() []Key {
	keys := make([]Key, 0, len(s.owned))
	for k := range s.owned {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, Key.Compare)
	return keys
}

// Owned returns the number of points tile k owns.
func (s *Store) Owned(k Key) int64 { return s.owned[k] }

// Load reads tile k back.
func (s *Store) Load(k Key) (*Points, error) {
	f, err := os.Open(s.path(k))
	if err != nil {
		return nil, fmt.Errorf("tile: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("tile: %w", err)
	}
	n := int(st.Size() / recordSize)
	p := &Points{Key: k, XYZ: make([]float32, 0, 3*n), ID: make([]int64, 0, n), Owned: make([]bool, 0, n)}
	r := bufio.NewReaderSize(f, 1<<16)
	var rec [recordSize]byte
	for {
		if _, err := io.ReadFull(r, rec[:]); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, fmt.Errorf("tile: %s: %w", s.path(k), err)
		}
		x := math.Float32frombits(binary.LittleEndian.Uint32(rec[8:]))
		y := math.Float32frombits(binary.LittleEndian.Uint32(rec[12:]))
		z := math.Float32frombits(binary.LittleEndian.Uint32(rec[16:]))
		p.ID = append(p.ID, int64(binary.LittleEndian.Uint64(rec[0:])))
		p.XYZ = append(p.XYZ, x, y, z)
		p.Owned = append(p.Owned, s.g.Owner(x, y) == k)
	}
	return p, nil
}

// Source returns the store's tiles, in Keys' order, loaded one at a time.
func (s *Store) Source() Source { return storeSource{s, s.Keys()} }

type storeSource struct {
	s    *Store
	keys []Key
}

func (s storeSource) Len() int                    { return len(s.keys) }
func (s storeSource) Tile(k int) (*Points, error) { return s.s.Load(s.keys[k]) }

// Close removes the store's folder and files.
func (s *Store) Close() error { return scratch.Remove(s.dir) }
