// Package codectest holds the checks pctk's codec tests share: comparing
// clouds bit for bit, round trips through every variant, bad-input tables
// and codec benchmarks.
package codectest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

// Codec is the pair of functions a codec package exports.
type Codec struct {
	Decode func(io.Reader, ...pcio.ReadOptions) (*core.Cloud, error)
	Encode func(io.Writer, *core.Cloud, string) error
	// Format, when set, is the registered format; Fuzz then also copies
	// every input through its streaming decoder and encoder.
	Format *pcio.Format
	// DiffMeta compares the codec's own metadata; "" when equal. With
	// nanBits false, NaN values compare equal whatever their payload.
	DiffMeta func(a, b *core.Cloud, nanBits bool) string
}

// AttrNames lists the columns of c as name:type.
func AttrNames(c *core.Cloud) []string {
	var s []string
	for _, a := range c.Attrs {
		s = append(s, a.Name+":"+a.Type.String())
	}
	return s
}

// Diff describes the first difference between the points, attributes and
// comments of a and b, or returns "". Values compare by their bits; with
// nanBits false any NaN equals any NaN (text carries no NaN payload).
func Diff(a, b *core.Cloud, nanBits bool) string {
	if a.Len() != b.Len() {
		return fmt.Sprintf("got %d points, want %d", b.Len(), a.Len())
	}
	same := func(x, y uint64, t core.Type) bool { return SameBits(x, y, t, nanBits) }
	for k, pair := range [3][2][]float64{{a.X, b.X}, {a.Y, b.Y}, {a.Z, b.Z}} {
		for i := range pair[0] {
			if !same(math.Float64bits(pair[0][i]), math.Float64bits(pair[1][i]), core.Float64) {
				return fmt.Sprintf("point %d coordinate %c: got %v, want %v", i, 'X'+k, pair[1][i], pair[0][i])
			}
		}
	}
	if fmt.Sprint(AttrNames(a)) != fmt.Sprint(AttrNames(b)) {
		return fmt.Sprintf("got attributes %v, want %v", AttrNames(b), AttrNames(a))
	}
	for k, x := range a.Attrs {
		y := b.Attrs[k]
		for i := range x.Len() {
			if !same(x.Uint64(i), y.Uint64(i), x.Type) {
				return fmt.Sprintf("attribute %s point %d: got %v, want %v", x.Name, i, y.Float64(i), x.Float64(i))
			}
		}
	}
	if fmt.Sprintf("%q", a.Meta.Comments) != fmt.Sprintf("%q", b.Meta.Comments) {
		return fmt.Sprintf("got comments %q, want %q", b.Meta.Comments, a.Meta.Comments)
	}
	return ""
}

// SameBits reports whether values x and y of type t (raw bits, as
// core.Attribute.Uint64 gives them) are the same; with nanBits false, two
// NaNs are the same whatever their payloads.
func SameBits(x, y uint64, t core.Type, nanBits bool) bool {
	if x == y {
		return true
	}
	nan := func(v uint64) bool {
		if t == core.Float32 {
			return math.IsNaN(float64(math.Float32frombits(uint32(v))))
		}
		return t == core.Float64 && math.IsNaN(math.Float64frombits(v))
	}
	return !nanBits && nan(x) && nan(y)
}

// RoundTrip writes c in variant, reads it back and returns "" when the copy
// equals c (points, attributes, comments and the codec's metadata),
// else what differs.
func (k Codec) RoundTrip(c *core.Cloud, variant string, nanBits bool) string {
	var buf bytes.Buffer
	if err := k.Encode(&buf, c, variant); err != nil {
		return fmt.Sprintf("encode %q: %v", variant, err)
	}
	d, err := k.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		return fmt.Sprintf("decode of %q output: %v\n%q", variant, err, buf.Bytes()[:min(buf.Len(), 2000)])
	}
	if msg := k.Diff(c, d, nanBits); msg != "" {
		return fmt.Sprintf("variant %q: %s", variant, msg)
	}
	return ""
}

// DecodeString decodes the file s, failing the test on an error.
func (k Codec) DecodeString(t testing.TB, s string) *core.Cloud {
	t.Helper()
	c, err := k.Decode(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Diff describes the first difference between a and b: points, attributes
// and comments (as the function Diff), then the codec's metadata
// (DiffMeta, when set); "" when they are the same.
func (k Codec) Diff(a, b *core.Cloud, nanBits bool) string {
	if msg := Diff(a, b, nanBits); msg != "" {
		return msg
	}
	if k.DiffMeta == nil {
		return ""
	}
	return k.DiffMeta(a, b, nanBits)
}

// Fuzz is the body of a FuzzDecode target: what decodes must encode in
// every variant and read back the same.
func (k Codec) Fuzz(t *testing.T, data []byte, variants []string) {
	c, err := k.Decode(bytes.NewReader(data))
	if err != nil {
		return
	}
	for _, v := range variants {
		if msg := k.RoundTrip(c, v, v != "ascii"); msg != "" {
			t.Fatal(msg)
		}
	}
	if k.Format == nil {
		return
	}
	// The streaming path, reading without knowing the size, in small chunks.
	out, _, err := Stream(k.Format, data, 3)
	if err != nil {
		t.Fatalf("streaming copy: %v", err)
	}
	d, err := k.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("decode of the streaming copy: %v", err)
	}
	if msg := Diff(c, d, false); msg != "" {
		t.Fatalf("streaming copy: %s", msg)
	}
	if msg := k.DiffMeta(c, d, false); msg != "" {
		t.Fatalf("streaming copy: %s", msg)
	}
}

// BadCase is one malformed input and the error it must give.
type BadCase struct {
	Name string
	In   string
	// Stream reads through a reader that cannot tell its size, so that the
	// decoder cannot check counts up front and must fail at the end of data.
	Stream bool
	// Want is a substring of the error.
	Want string
	// EOF: errors.Is(err, io.ErrUnexpectedEOF), as for a file cut short
	// (a *codec.ShortError).
	EOF bool
	// Unsupported: an UnsupportedError rather than a FormatError.
	Unsupported bool
}

// RunBad decodes every case and checks its error: prefix ("ply: "), the
// wanted text, the error type (FormatError, ShortError or UnsupportedError)
// and whether it wraps io.ErrUnexpectedEOF.
func (k Codec) RunBad(t *testing.T, prefix string, cases []BadCase) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(tc.In)
			if tc.Stream {
				r = iotest.HalfReader(r)
			}
			c, err := k.Decode(r)
			if err == nil {
				t.Fatalf("got %d points and no error, want %q", c.Len(), tc.Want)
			}
			if !strings.Contains(err.Error(), tc.Want) || !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("got error %q, want one starting %q containing %q", err, prefix, tc.Want)
			}
			if got := errors.Is(err, io.ErrUnexpectedEOF); got != tc.EOF {
				t.Errorf("errors.Is(%v, io.ErrUnexpectedEOF) = %v, want %v", err, got, tc.EOF)
			}
			var fe *codec.FormatError
			var ue *codec.UnsupportedError
			var se *codec.ShortError
			if tc.Unsupported && !errors.As(err, &ue) || !tc.Unsupported && !errors.As(err, &fe) && !errors.As(err, &se) {
				t.Errorf("got error of type %T, want unsupported=%v", err, tc.Unsupported)
			}
		})
	}
}

var sink *core.Cloud

// Bench runs decode and encode benchmarks of c in every variant, reporting
// MB/s of the encoded size.
func (k Codec) Bench(b *testing.B, c *core.Cloud, variants []string) {
	for _, v := range variants {
		var buf bytes.Buffer
		if err := k.Encode(&buf, c, v); err != nil {
			b.Fatal(err)
		}
		b.Run("decode-"+v, func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				d, err := k.Decode(bytes.NewReader(buf.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				sink = d
			}
		})
		b.Run("encode-"+v, func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if err := k.Encode(io.Discard, c, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// SharedFiles lists the files matching pattern in dirs (folders of the
// shared data, relative to the test's package) and skips the test, with a
// clear message, when there are none.
func SharedFiles(t testing.TB, dirs []string, pattern string) []string {
	var files []string
	for _, d := range dirs {
		m, _ := filepath.Glob(filepath.Join(d, pattern))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skipf("no %s files in %v (the shared data folder is absent); skipping real-file tests", pattern, dirs)
	}
	return files
}

// RoundTripFiles reads every file: those in broken (by base name) must fail
// with exactly that error; every other must decode and round-trip through
// every variant and "" (the source's own encoding).
func (k Codec) RoundTripFiles(t *testing.T, files []string, broken map[string]string, variants []string) {
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c, err := k.Decode(f)
			if want, bad := broken[filepath.Base(path)]; bad {
				if err == nil || err.Error() != want {
					t.Fatalf("got error %v, want %v", err, want)
				}
				t.Logf("rejected as expected: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d points, attributes %v", c.Len(), AttrNames(c))
			for _, v := range append(variants, "") {
				if msg := k.RoundTrip(c, v, v != "ascii"); msg != "" {
					t.Fatal(msg)
				}
			}
		})
	}
}

// WithProcs runs fn with GOMAXPROCS set to procs, then restores it: the
// number of blocks or ranges of records a codec encodes or decodes at once,
// for tests that compare one core with several.
func WithProcs(procs int, fn func()) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	fn()
}

// ReadAll reads the points of d, limit points a Read, into one cloud (as
// codec.DecodeAll does when the size of the input is unknown).
func ReadAll(d pcio.Decoder, limit int) (*core.Cloud, error) {
	return codec.DecodeAll(d.Header(), false, pcio.ReadOptions{}, nil, func(int) (*core.Cloud, error) { return d.Read(limit) })
}

// Stream copies a file through f's streaming decoder and encoder ("" variant)
// in chunks of at most max points, reading through a reader that cannot
// tell its size. It returns the output and the number of chunks.
func Stream(f *pcio.Format, data []byte, max int) ([]byte, int, error) {
	d, err := f.NewDecoder(iotest.HalfReader(bytes.NewReader(data)))
	if err != nil {
		return nil, 0, err
	}
	var out bytes.Buffer
	e, err := f.NewEncoder(&out, d.Header(), "")
	if err != nil {
		return nil, 0, err
	}
	chunks := 0
	for {
		c, err := d.Read(max)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, chunks, err
		}
		if c.Len() > max {
			return nil, chunks, fmt.Errorf("chunk of %d points, want at most %d", c.Len(), max)
		}
		if err := e.Write(c); err != nil {
			return nil, chunks, err
		}
		chunks++
	}
	err = e.Close() // before out.Bytes: Close flushes
	return out.Bytes(), chunks, err
}

// StreamVariants writes c with f.Encode in each variant, copies every file
// through f's streaming decoder and encoder in chunks of at most max points
// (Stream) and checks that the copy is the same file, made of wantChunks
// chunks.
func StreamVariants(t *testing.T, f *pcio.Format, c *core.Cloud, variants []string, max, wantChunks int) {
	t.Helper()
	for _, v := range variants {
		var want bytes.Buffer
		if err := f.Encode(&want, c, v); err != nil {
			t.Fatal(err)
		}
		got, chunks, err := Stream(f, want.Bytes(), max)
		if err != nil {
			t.Fatal(err)
		}
		if chunks != wantChunks {
			t.Errorf("%s: %d chunks, want %d", v, chunks, wantChunks)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: streamed copy differs from the file (%d bytes, want %d)", v, len(got), want.Len())
		}
	}
}

// Registered looks spec (such as "pcd-compressed") up in the pcio registry
// and checks that it names variant and a format with a streaming decoder
// and encoder and a Describe function.
func Registered(t testing.TB, spec, variant string) *pcio.Format {
	t.Helper()
	f, v, err := pcio.Lookup(spec)
	if err != nil || v != variant || f.NewDecoder == nil || f.NewEncoder == nil || f.Describe == nil {
		t.Fatalf("pcio.Lookup(%s) = %v, %q, %v", spec, f, v, err)
	}
	return f
}
