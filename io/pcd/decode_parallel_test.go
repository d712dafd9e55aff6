package pcd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/internal/codectest"
	"github.com/pctk/pctk/io/pcio"
)

// parallelLayouts are the FIELDS, SIZE, TYPE and COUNT lines of files whose
// binary rows hold every TYPE and SIZE PCD has, as coordinates and as
// attributes, multi-count fields, PCL's "_" padding and packed colours.
// x says where the first point's x lies in a row and its type.
var parallelLayouts = []struct {
	name, fields, size, typ, count string
	xOff                           int
	xType                          core.Type
}{
	{"every type", "x y z i1 u1 i2 u2 i4 u4 i8 u8 f4 f8", "4 4 4 1 1 2 2 4 4 8 8 4 8", "F F F I I I U I U I U F F", "1 1 1 1 1 1 1 1 1 1 1 1 1", 0, core.Float32},
	{"float64 coordinates, rgb", "x y z rgb intensity", "8 8 8 4 2", "F F F F U", "1 1 1 1 1", 0, core.Float64},
	{"counts and padding", "normal x _ y z fpfh", "4 8 1 8 8 4", "F F U F F F", "3 1 3 1 1 33", 12, core.Float64},
	{"integer coordinates, rgba first, no z", "rgba y _ x label", "4 4 1 2 4", "U I U I U", "1 1 2 1 1", 10, core.Int16},
}

// parallelSizes are point counts around the decoder's ranges and chunks:
// none, one, fewer than two ranges, and more than a chunk.
var parallelSizes = []int{0, 1, 4097, codec.Chunk + 3}

// parallelFile returns a binary PCD file of layout l with n points of
// random bytes (every bit pattern: NaNs, denormals, negative integers).
func parallelFile(t *testing.T, l int, n int) []byte {
	t.Helper()
	lay := parallelLayouts[l]
	row := 0
	sizes, counts := strings.Fields(lay.size), strings.Fields(lay.count)
	for i := range sizes {
		var s, c int
		fmt.Sscan(sizes[i], &s)
		fmt.Sscan(counts[i], &c)
		row += s * c
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "VERSION 0.7\nFIELDS %s\nSIZE %s\nTYPE %s\nCOUNT %s\nWIDTH %d\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS %d\nDATA binary\n",
		lay.fields, lay.size, lay.typ, lay.count, n, n)
	rng := rand.New(rand.NewPCG(uint64(l), uint64(n)))
	data := make([]byte, n*row)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	return append(b.Bytes(), data...)
}

// decodeOn decodes file b on procs cores: whole (limit 0) from a reader
// whose size is known, whole from a stream (limit -1), or limit points a
// Read.
func decodeOn(t *testing.T, procs int, b []byte, limit int) (c *core.Cloud) {
	t.Helper()
	codectest.WithProcs(procs, func() {
		var err error
		switch {
		case limit == 0:
			c, err = Decode(bytes.NewReader(b))
		case limit < 0:
			c, err = Decode(struct{ io.Reader }{bytes.NewReader(b)})
		default:
			var d *Decoder
			if d, err = NewDecoder(bytes.NewReader(b)); err == nil {
				c, err = codectest.ReadAll(d, limit)
			}
		}
		if err != nil {
			t.Fatalf("%d cores, limit %d: %v", procs, limit, err)
		}
	})
	return c
}

// TestParallelDecode decodes binary files of every layout and size on one
// core and on several, whole and in chunks, and compares every value bit
// for bit; then the same points written binary_compressed, whose columns
// decode in ranges too.
func TestParallelDecode(t *testing.T) {
	for l, lay := range parallelLayouts {
		for _, n := range parallelSizes {
			t.Run(fmt.Sprintf("%s/%d", lay.name, n), func(t *testing.T) {
				file := parallelFile(t, l, n)
				want := decodeOn(t, 1, file, 0)
				if want.Len() != n {
					t.Fatalf("1 core: %d points, want %d", want.Len(), n)
				}
				if n > 0 {
					// The last point's x, read from its bytes.
					row := (len(file) - bytes.Index(file, []byte("DATA binary\n")) - len("DATA binary\n")) / n
					x := file[len(file)-row+lay.xOff:]
					if got := codec.ToFloat64(lay.xType, codec.LoadBits(x, lay.xType, binary.LittleEndian)); math.Float64bits(got) != math.Float64bits(want.X[n-1]) {
						t.Fatalf("1 core: last x = %v, its bytes say %v", want.X[n-1], got)
					}
				}
				for _, procs := range []int{2, 4} {
					for _, limit := range []int{0, -1, 1000, 70000} {
						got := decodeOn(t, procs, file, limit)
						if msg := codectest.Diff(want, got, true); msg != "" {
							t.Fatalf("%d cores, limit %d: %s", procs, limit, msg)
						}
					}
				}
				var comp bytes.Buffer
				if err := Encode(&comp, want, "compressed"); err != nil {
					t.Fatal(err)
				}
				one := decodeOn(t, 1, comp.Bytes(), 0)
				if msg := codectest.Diff(want, one, false); msg != "" {
					t.Fatalf("compressed, 1 core: %s", msg)
				}
				for _, limit := range []int{0, 1000} {
					if msg := codectest.Diff(one, decodeOn(t, 4, comp.Bytes(), limit), true); msg != "" {
						t.Fatalf("compressed, 4 cores, limit %d: %s", limit, msg)
					}
				}
			})
		}
	}
}

// TestParallelCut cuts a file of several ranges mid-record: on several
// cores, whole or streamed, the read fails naming the file and the byte
// offset where the last whole point ends, never a shorter cloud; salvaged,
// it keeps exactly the points before the cut.
func TestParallelCut(t *testing.T) {
	const n, keep = codec.Chunk + 3, 5000
	file := parallelFile(t, 0, n)
	row := (len(file) - bytes.Index(file, []byte("DATA binary\n")) - len("DATA binary\n")) / n
	data := len(file) - n*row
	cut := file[:data+keep*row+row/2]
	want := fmt.Sprintf("pcd: file cut short at byte offset %d: header promises %d points, %d present", data+keep*row, n, keep)
	whole := decodeOn(t, 1, file, 0)
	first := make([]int, keep)
	for i := range first {
		first[i] = i
	}
	path := filepath.Join(t.TempDir(), "cut.pcd")
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 4} {
		codectest.WithProcs(procs, func() {
			for name, r := range map[string]io.Reader{"size known": bytes.NewReader(cut), "stream": struct{ io.Reader }{bytes.NewReader(cut)}} {
				c, err := Decode(r)
				var short *codec.ShortError
				if c != nil || !errors.As(err, &short) || err.Error() != want {
					t.Errorf("%d cores, %s: got a cloud %v, %v; want none and %q", procs, name, c != nil, err, want)
				}
			}
			if _, _, err := pcio.ReadFile(path); err == nil || err.Error() != path+": "+want {
				t.Errorf("%d cores, ReadFile: got %v, want %q", procs, err, path+": "+want)
			}
			var warns []error
			c, err := Decode(bytes.NewReader(cut), pcio.ReadOptions{Salvage: true, Warn: func(err error) { warns = append(warns, err) }})
			if err != nil || len(warns) != 1 || warns[0].Error() != want {
				t.Fatalf("%d cores, salvaged: %v, warnings %v; want the warning %q", procs, err, warns, want)
			}
			if msg := codectest.Diff(whole.Select(first), c, true); msg != "" {
				t.Errorf("%d cores, salvaged: %s", procs, msg)
			}
		})
	}
}
