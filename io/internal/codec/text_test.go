package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/pctk/pctk/core"
)

// textCase builds a body of n records "x y i" with the block-boundary
// hazards: CRLF endings, blank and blank-only lines, comments, trailing
// blanks, and (when noEOL) a last line without its newline.
func textCase(rng *rand.Rand, n int, noEOL bool) (string, []float64, []int32) {
	var b strings.Builder
	xs, is := make([]float64, n), make([]int32, n)
	for j := range n {
		switch rng.IntN(8) {
		case 0:
			b.WriteString("\n")
		case 1:
			b.WriteString("  \t \r\n")
		case 2:
			b.WriteString("# a comment 1 2 3\n")
		}
		xs[j] = math.Float64frombits(rng.Uint64())
		if math.IsNaN(xs[j]) || math.IsInf(xs[j], 0) {
			xs[j] = rng.NormFloat64()
		}
		is[j] = rng.Int32() - 1<<30
		fmt.Fprintf(&b, "%s\t%d   %d", strconv.FormatFloat(xs[j], 'g', -1, 64), j, is[j])
		switch {
		case j == n-1 && noEOL:
		case rng.IntN(2) == 0:
			b.WriteString("\r\n")
		case rng.IntN(2) == 0:
			b.WriteString("  \n")
		default:
			b.WriteString("\n")
		}
	}
	return b.String(), xs, is
}

var textLayout = &TextLayout{Codec: "t", Comment: '#', Fields: []TextField{
	{Name: "x", Type: core.Float64}, {Name: "y", Type: core.Uint32}, {Name: "i", Type: core.Int32}}}

func textDst(n int) (TextDst, []float64, *core.Attribute) {
	xs := make([]float64, n)
	is := core.NewAttribute("i", core.Int32, n)
	return TextDst{Column(xs, core.Float64), nil, Column(is, core.Int32)}, xs, is
}

// TestParseBlockParts checks that a block cut into any number of parts
// parses to what one part gives, at the line boundaries that cuts create.
func TestParseBlockParts(t *testing.T) {
	const seed = 3
	rng := rand.New(rand.NewPCG(seed, seed))
	for _, noEOL := range []bool{false, true} {
		body, xs, is := textCase(rng, 300, noEOL)
		for k := 1; k <= 40; k += 3 {
			for _, n := range []int{300, 299, 150, 1} {
				dst, gx, gi := textDst(n)
				got, used, _, err := parseBlock(textLayout, []byte(body), true, k, dst, 0, n, 1)
				if err != nil || got != n {
					t.Fatalf("seed %d, %d parts, %d records: got %d, %v", seed, k, n, got, err)
				}
				if rest := body[used:]; n == 300 && strings.TrimSpace(rest) != "" || n < 300 && !strings.Contains(rest, strconv.Itoa(n)) {
					t.Fatalf("seed %d, %d parts: %d records end at byte %d, leaving %.30q", seed, k, n, used, rest)
				}
				for j := range n {
					if math.Float64bits(gx[j]) != math.Float64bits(xs[j]) || gi.Int64(j) != int64(is[j]) {
						t.Fatalf("seed %d, %d parts: record %d = %v %d, want %v %d", seed, k, j, gx[j], gi.Int64(j), xs[j], is[j])
					}
				}
			}
		}
	}
}

// TestParseBlockFirstError checks that the error reported is the first
// bad line in file order whichever part finds it, with its line and column.
func TestParseBlockFirstError(t *testing.T) {
	var b strings.Builder
	for j := range 1000 {
		switch j {
		case 400:
			b.WriteString("1 2 zz\n")
		case 700:
			b.WriteString("1 x 3\n")
		default:
			b.WriteString("1 2 3\n")
		}
	}
	for k := 1; k <= 16; k++ {
		dst, _, _ := textDst(1000)
		_, _, _, err := parseBlock(textLayout, []byte(b.String()), true, k, dst, 0, 1000, 10)
		if want := `t: line 410, column 3: i: bad int32 value "zz"`; err == nil || err.Error() != want {
			t.Errorf("%d parts: error %v, want %s", k, err, want)
		}
	}
}

// TestTextReader reads bodies through readers that return one byte or
// half the asked bytes at a time, in several Fill calls, and checks that
// what follows the records is left to the Reader.
func TestTextReader(t *testing.T) {
	const seed = 4
	rng := rand.New(rand.NewPCG(seed, seed))
	body, xs, _ := textCase(rng, 5000, false)
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"whole": func(r io.Reader) io.Reader { return r }, "one byte": iotest.OneByteReader, "half": iotest.HalfReader,
	} {
		r := NewReader("t", wrap(strings.NewReader("head\n"+body+"tail 1\nmore")))
		if l, _ := r.ReadLine(); l != "head" {
			t.Fatal(l)
		}
		tr := NewTextReader(r, textLayout)
		dst, gx, _ := textDst(5000)
		at := 0
		for _, n := range []int{1, 999, 3000, 1000} {
			got, err := tr.Fill(dst, at, n)
			if err != nil || got != n {
				t.Fatalf("%s: Fill(%d) at %d = %d, %v", name, n, at, got, err)
			}
			at += got
		}
		tr.Close()
		for j := range xs {
			if math.Float64bits(gx[j]) != math.Float64bits(xs[j]) {
				t.Fatalf("%s: record %d = %v, want %v", name, j, gx[j], xs[j])
			}
		}
		line := r.Pos().Line
		if l, err := r.ReadLine(); l != "tail 1" || err != nil || line != 2+strings.Count(body, "\n") {
			t.Errorf("%s: after the records: %q, %v on line %d, want \"tail 1\" on line %d", name, l, err, line, 2+strings.Count(body, "\n"))
		}
	}
}

func TestTextReaderShort(t *testing.T) {
	for _, c := range []struct {
		in   string
		got  int
		want string
		eof  bool
	}{
		{"1 2 3\n4 5 6", 2, "", false},
		{"1 2 3\n4 5 6\n\n# end\n", 2, "", false},
		{"1 2 3\n4 5\n", 1, "t: line 2, column 3: 2 values, want 3: unexpected EOF", true},
		{"1 2 3\n4 5\n6 7 8\n", 1, "t: line 2, column 3: 2 values, want 3", false},
		{"1 2 3 4\n", 0, "t: line 1, column 4: 4 values, want 3", false},
		{"1e400 2 3\n", 0, `t: line 1, column 1: x: out of range float64 value "1e400"`, false},
		{"1 4294967296 3\n", 0, `t: line 1, column 2: y: out of range uint32 value "4294967296"`, false},
	} {
		tr := NewTextReader(NewReader("t", strings.NewReader(c.in)), textLayout)
		dst, _, _ := textDst(3)
		got, err := tr.Fill(dst, 0, 3)
		if got != c.got || c.want == "" && err != nil || c.want != "" && (err == nil || err.Error() != c.want) || errors.Is(err, io.ErrUnexpectedEOF) != c.eof {
			t.Errorf("Fill(%q) = %d, %v; want %d, %q (unexpected EOF %v)", c.in, got, err, c.got, c.want, c.eof)
		}
	}
}

// TestDelimited checks fields around a delimiter: blanks trimmed, empty
// fields refused, the comma mode of blank-separated PCD.
func TestDelimited(t *testing.T) {
	for _, c := range []struct {
		delim byte
		comma bool
		in    string
		ok    bool
	}{
		{',', false, " 1 , 2,3 \r", true},
		{';', false, "1;2;3", true},
		{',', false, "1,,3", false},
		{',', false, "1,2,3,", false},
		{0, true, "1,2 , 3", true},
		{0, false, "1,2,3", false},
		{'\t', false, "1\t2\t3", true},
	} {
		lay := *textLayout
		lay.Delim, lay.Comma, lay.classes = c.delim, c.comma, byteClasses{}
		lay.prepare()
		dst, gx, gi := textDst(1)
		_, err := parseRecord(&lay, []byte(c.in), dst, 0, 1)
		if (err == nil) != c.ok || c.ok && (gx[0] != 1 || gi.Int64(0) != 3) {
			t.Errorf("delim %q comma %v: %q gives %v %d, %v; want ok %v", c.delim, c.comma, c.in, gx[0], gi.Int64(0), err, c.ok)
		}
	}
}

// TestWriteLines checks that parallel formatting writes the bytes of
// formatting one record after the other.
func TestWriteLines(t *testing.T) {
	for _, n := range []int{0, 1, 1 << 14, 1<<15 + 7, 100003} {
		var got, want bytes.Buffer
		rec := func(b []byte, j int) []byte { return strconv.AppendInt(append(b, 'r'), int64(j), 10) }
		if err := WriteLines(&got, n, rec); err != nil {
			t.Fatal(err)
		}
		for j := range n {
			want.Write(append(rec(nil, j), '\n'))
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d records: parallel output differs from sequential", n)
		}
	}
}

// TestWriteRecords checks that blocks encoded on several cores are written
// as encoding one record after the other would, and that the first error,
// in record order, stops the write before its batch.
func TestWriteRecords(t *testing.T) {
	old := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(old)
	enc := func(bad int) func(buf []byte, lo, hi int) error {
		return func(buf []byte, lo, hi int) error {
			for j := lo; j < hi; j++ {
				if j == bad {
					return fmt.Errorf("record %d", j)
				}
				binary.LittleEndian.PutUint32(buf[4*(j-lo):], uint32(j))
			}
			return nil
		}
	}
	for _, n := range []int{0, 1, RecordBlock, 5*RecordBlock + 7} {
		var got, want bytes.Buffer
		if err := WriteRecords(&got, n, 4, enc(-1)); err != nil {
			t.Fatal(err)
		}
		for j := range n {
			want.Write(binary.LittleEndian.AppendUint32(nil, uint32(j)))
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d records: parallel output differs from sequential", n)
		}
	}
	var got bytes.Buffer
	err := WriteRecords(&got, 9*RecordBlock, 4, enc(5*RecordBlock+3))
	if err == nil || err.Error() != fmt.Sprintf("record %d", 5*RecordBlock+3) || got.Len() != 4*4*RecordBlock {
		t.Errorf("error in the second batch: %v after %d bytes, want record %d after %d", err, got.Len(), 5*RecordBlock+3, 4*4*RecordBlock)
	}
}

// failAfter is a writer whose writes fail once it holds limit bytes.
type failAfter struct {
	bytes.Buffer
	limit int
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.Len()+len(p) > f.limit {
		return 0, errors.New("disk full")
	}
	return f.Buffer.Write(p)
}

// TestWriteRecordsWriteError checks that a failed write stops
// WriteRecords with the write's error, ahead of a later batch's encode
// error, and that nothing is written after it.
func TestWriteRecordsWriteError(t *testing.T) {
	old := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(old)
	calls := 0
	var mu sync.Mutex
	enc := func(buf []byte, lo, hi int) error {
		mu.Lock()
		calls++
		mu.Unlock()
		if lo >= 4*RecordBlock {
			return fmt.Errorf("record %d", lo)
		}
		return nil
	}
	w := &failAfter{limit: 3 * 4 * RecordBlock} // the second batch's second block fails
	err := WriteRecords(w, 9*RecordBlock, 4, enc)
	if err == nil || err.Error() != "disk full" {
		t.Errorf("error %v, want the write's (disk full) ahead of the third batch's encode error", err)
	}
	if w.Len() != 3*4*RecordBlock {
		t.Errorf("%d bytes written, want %d (the blocks before the failed write)", w.Len(), 3*4*RecordBlock)
	}
	if calls > 6 {
		t.Errorf("%d blocks encoded, want at most 6 (three batches of two: the one being written, the next)", calls)
	}
}
