package codec

import (
	"fmt"
	"math"
	"reflect"

	"github.com/pctk/pctk/core"
)

// Chunk is how many records a decoder allocates at a time when the size of
// its input is unknown, so that a count in a header never sizes an
// allocation: memory grows only as data actually arrives.
const Chunk = 1 << 16

// CheckCount validates a count n of records of at least minBytes bytes each
// read from a header, against the bytes that remain in the input (-1 when
// unknown). It rejects negative counts and counts that overflow int with a
// FormatError, and counts the input cannot hold with a *ShortError whose
// Present is the most records the input can hold. A decoder that gets the
// latter reads on without trusting the count, to report exactly where the
// data ends (or, salvaging, to keep what is there).
func CheckCount(codec string, p Pos, what string, n, minBytes, remaining int64) error {
	if n < 0 {
		return Errorf(codec, p, "negative %s count %d", what, n)
	}
	if uint64(n) > math.MaxInt {
		return Errorf(codec, p, "%s count %d too large", what, n)
	}
	if remaining >= 0 && minBytes > 0 && n > remaining/minBytes {
		return &ShortError{Codec: codec, Pos: Pos{Offset: p.Offset + remaining}, What: what, Promised: n, Present: remaining / minBytes,
			Count: fmt.Sprintf("of at least %d bytes each; only %d bytes follow the header", minBytes, remaining)}
	}
	return nil
}

// ChunkSize returns how many points a Read(max) call decodes: at most max
// and the left points, at least 1, and at most Chunk when the input size is
// unknown (so that a count in a header never sizes an allocation).
func ChunkSize(max int, left int64, known bool) int {
	n := min(int64(max), left)
	if !known {
		n = min(n, Chunk)
	}
	return int(max64(n, 1))
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// Truncate cuts c to its first n points, as when a file cut short is
// salvaged.
func Truncate(c *core.Cloud, n int) {
	c.X, c.Y, c.Z = c.X[:n], c.Y[:n], c.Z[:n]
	for _, a := range c.Attrs {
		a.Data = reflect.ValueOf(a.Data).Slice(0, n).Interface()
	}
}
