package codec

import "math"

// Chunk is how many records a decoder allocates at a time when the size of
// its input is unknown, so that a count in a header never sizes an
// allocation: memory grows only as data actually arrives.
const Chunk = 1 << 16

// CheckCount validates a count n of records of at least minBytes bytes each
// read from a header, against the bytes that remain in the input (-1 when
// unknown). It rejects negative counts, counts that overflow int, and counts
// the input cannot hold.
func CheckCount(codec string, p Pos, what string, n, minBytes, remaining int64) error {
	if n < 0 {
		return Errorf(codec, p, "negative %s count %d", what, n)
	}
	if uint64(n) > math.MaxInt {
		return Errorf(codec, p, "%s count %d too large", what, n)
	}
	if remaining >= 0 && minBytes > 0 && n > remaining/minBytes {
		return Errorf(codec, p, "header promises %d %s of at least %d bytes each, but only %d bytes follow the header",
			n, what, minBytes, remaining)
	}
	return nil
}

// ChunkLen returns how many of n records to allocate at once: all of them
// when the input size is known (and was checked with CheckCount), else at
// most Chunk.
func ChunkLen(n int64, sizeKnown bool) int {
	if !sizeKnown && n > Chunk {
		return Chunk
	}
	return int(n)
}
