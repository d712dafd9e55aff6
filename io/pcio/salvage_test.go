package pcio_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"

	_ "github.com/pctk/pctk/io/las"
	_ "github.com/pctk/pctk/io/pcd"
	_ "github.com/pctk/pctk/io/ply"
)

// TestCutShort cuts a five-point file of every format and encoding inside
// its fourth point and reads it through a seeker and through a stream:
// strictly it is an error that wraps io.ErrUnexpectedEOF and says how many
// points were promised and are present; salvaged it is the three whole
// points before the cut, with one warning saying the same.
func TestCutShort(t *testing.T) {
	c := core.New(5)
	for i := range 5 {
		c.X[i], c.Y[i], c.Z[i] = float64(i)+0.5, float64(i)+10.25, float64(i)+20.75
	}
	for _, spec := range []string{"ply-ascii", "ply-binary", "ply-binary-be", "pcd-ascii", "pcd-binary", "las"} {
		f, variant, err := pcio.Lookup(spec)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := f.Encode(&buf, c, variant); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		cut := cutInFourth(t, spec, data)
		for _, stream := range []bool{false, true} {
			name := fmt.Sprintf("%s stream=%v", spec, stream)
			open := func() io.Reader {
				if stream {
					return iotest.HalfReader(bytes.NewReader(cut))
				}
				return bytes.NewReader(cut)
			}
			got, err := f.Decode(open())
			if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "file cut short at byte offset") ||
				!strings.Contains(err.Error(), "header promises 5 ") || !strings.Contains(err.Error(), ", 3 present") {
				t.Errorf("%s: got %v, %v; want a cut-short error with 5 promised and 3 present", name, got, err)
				continue
			}
			var warns []error
			got, err = f.Decode(open(), pcio.ReadOptions{Salvage: true, Warn: func(err error) { warns = append(warns, err) }})
			if err != nil {
				t.Errorf("%s: salvage: %v", name, err)
				continue
			}
			if len(warns) != 1 || !strings.Contains(warns[0].Error(), ", 3 present") {
				t.Errorf("%s: salvage warned %v, want one warning with 3 present", name, warns)
			}
			if got.Len() != 3 {
				t.Errorf("%s: salvaged %d points, want 3", name, got.Len())
				continue
			}
			for i := range 3 {
				if got.X[i] != c.X[i] || got.Y[i] != c.Y[i] || got.Z[i] != c.Z[i] {
					t.Errorf("%s: salvaged point %d is (%v %v %v), want (%v %v %v)", name, i, got.X[i], got.Y[i], got.Z[i], c.X[i], c.Y[i], c.Z[i])
				}
			}
			// What was salvaged writes as a valid file of its three points.
			var again bytes.Buffer
			if err := f.Encode(&again, got, variant); err != nil {
				t.Errorf("%s: writing the salvaged cloud: %v", name, err)
			} else if back, err := f.Decode(bytes.NewReader(again.Bytes())); err != nil || back.Len() != 3 {
				t.Errorf("%s: the salvaged cloud written reads back as %v, %v", name, back, err)
			}
		}
	}
}

// cutInFourth cuts a five-point file inside its fourth point: for text,
// after the first value of the fourth point's line (so that no value is
// cut in the middle, which text cannot tell); for binary, in the middle of
// its record.
func cutInFourth(t *testing.T, spec string, data []byte) []byte {
	if strings.HasSuffix(spec, "-ascii") {
		lines := bytes.SplitAfter(data, []byte("\n"))
		n := len(lines) - 1 // the last is empty after the final newline
		at := len(data)
		for _, l := range lines[n-2:] {
			at -= len(l)
		}
		return data[:at+bytes.IndexByte(lines[n-2], ' ')+1]
	}
	// Records of float32 coordinates (PLY, PCD: the values are exact in
	// float32), or of LAS point format 0.
	rec := map[string]int{"ply-binary": 12, "ply-binary-be": 12, "pcd-binary": 12, "las": 20}[spec]
	if rec == 0 {
		t.Fatalf("no record size for %s", spec)
	}
	return data[:len(data)-rec-rec/2]
}
