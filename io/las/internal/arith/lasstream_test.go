package arith

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// TestLASzipChunkTable decodes a stream LASzip wrote: the chunk table of
// PDAL's autzen_trim.laz (110,000 points in chunks of 50,000), whose byte
// counts must add up to the chunks' bytes, then encodes the same values
// and expects LASzip's bytes.
func TestLASzipChunkTable(t *testing.T) {
	path := filepath.Join("..", "..", "..", "..", "..", "shared", "data", "pdal", "laz", "autzen_trim.laz")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s absent (../shared/data is not in a fresh clone)", path)
	}
	le := binary.LittleEndian
	start := int64(le.Uint32(b[96:]))
	table := int64(le.Uint64(b[start:]))
	if v, n := le.Uint32(b[table:]), le.Uint32(b[table+4:]); v != 0 || n != 3 {
		t.Fatalf("chunk table version %d with %d chunks, want version 0 with 3", v, n)
	}
	stream := b[table+8:]
	var d Decoder
	if err := d.Init(stream); err != nil {
		t.Fatal(err)
	}
	ic := NewIntCompressor(32, 2, 8, 0)
	var sizes []int32
	var last int32
	for range 3 {
		last = ic.Decompress(&d, last, 1)
		sizes = append(sizes, last)
	}
	if err := d.Err(); err != nil {
		t.Fatal(err)
	}
	if sum := int64(sizes[0] + sizes[1] + sizes[2]); sum != table-start-8 {
		t.Errorf("chunk sizes %v add up to %d bytes, the chunks span %d", sizes, sum, table-start-8)
	}
	if d.Pos() != len(stream) {
		t.Errorf("decoder consumed %d of the table's %d bytes", d.Pos(), len(stream))
	}
	var e Encoder
	ic.Init()
	last = 0
	for _, s := range sizes {
		ic.Compress(&e, last, s, 1)
		last = s
	}
	if got := e.Finish(); !bytes.Equal(got, stream) {
		t.Errorf("encoded table % x, LASzip wrote % x", got, stream)
	}
}
