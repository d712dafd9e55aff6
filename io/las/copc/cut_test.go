package copc

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/pcio"
)

// TestCutShort cuts a COPC file in its point data, losing its chunk table
// and hierarchy: a plain read is the LAS cut-short error naming the points
// promised and present, and salvaged it reads the whole chunks (nodes; a
// small tree, so that there are many)
// before the cut, found by the point counts layered chunks carry, exactly
// as the whole file gives them.
func TestCutShort(t *testing.T) {
	path, _ := writeCOPC(t, randomCloud(60000, 3), smallTree)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := las.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	cut := b[:len(b)*2/3]
	_, err = las.Decode(bytes.NewReader(cut))
	var se *codec.ShortError
	if !errors.As(err, &se) || se.Promised != 60000 || se.Present <= 0 || se.Present >= 60000 || !strings.Contains(err.Error(), "header promises 60000 points (number of point records, byte offset 247)") {
		t.Fatalf("got %v, want a cut-short error with 60000 promised and some present", err)
	}
	var warns []string
	c, err := las.Decode(bytes.NewReader(cut), pcio.ReadOptions{Salvage: true, Warn: func(err error) { warns = append(warns, err.Error()) }})
	if err != nil || int64(c.Len()) != se.Present || len(warns) != 1 || warns[0] != se.Error() {
		t.Fatalf("salvage gave %v, %v, warnings %q; want %d points and the error as warning", c, err, warns, se.Present)
	}
	for i := range c.Len() {
		if c.X[i] != whole.X[i] || c.Y[i] != whole.Y[i] || c.Z[i] != whole.Z[i] {
			t.Fatalf("salvaged point %d is (%v %v %v), want (%v %v %v)", i, c.X[i], c.Y[i], c.Z[i], whole.X[i], whole.Y[i], whole.Z[i])
		}
	}
}
