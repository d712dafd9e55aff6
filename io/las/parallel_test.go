package las

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/internal/codectest"
)

// parallelSizes are point counts around the encoder's blocks: none, one,
// fewer than a block, and a block and one. Formats 3 and 10 (the widest
// legacy and 1.4 records) also get batchesSize.
var parallelSizes = []int{0, 1, 4097, codec.RecordBlock + 1}

// batchesSize is more blocks than one batch of two cores holds, the last
// block partial.
const batchesSize = 3*codec.RecordBlock + 5

// TestParallelRecords encodes every point format, with Extra Bytes, on
// two cores and on one and compares the bytes; then decodes the file whole
// on both, and in chunks on two, and compares every column.
func TestParallelRecords(t *testing.T) {
	for pf := range 11 {
		sizes := parallelSizes
		if pf == 3 || pf == 10 {
			sizes = append(slices.Clone(sizes), batchesSize)
		}
		big, variant := formatCloud(t, pf, sizes[len(sizes)-1])
		big.Attrs = big.Attrs[:len(big.Attrs)-1] // formatCloud's ClusterID
		extra := randomCloud(t, uint64(100+pf), big.Len(), true, extraColumns)
		big.Attrs = append(big.Attrs, extra.Attrs...)
		for _, n := range sizes {
			t.Run(fmt.Sprintf("format%d/%d", pf, n), func(t *testing.T) {
				c := slice(big, 0, n)
				encodeOn := func(procs int) []byte {
					var buf bytes.Buffer
					codectest.WithProcs(procs, func() {
						if err := Encode(&buf, c, variant); err != nil {
							t.Fatalf("%d cores: %v", procs, err)
						}
					})
					return buf.Bytes()
				}
				one, two := encodeOn(1), encodeOn(2)
				if !bytes.Equal(one, two) {
					t.Fatalf("2 cores wrote %d bytes, 1 core %d; they differ at byte %d", len(two), len(one), firstDiff(one, two))
				}
				if got := int(one[104]); got != pf {
					t.Fatalf("wrote point format %d, want %d", got, pf)
				}
				var want *core.Cloud
				codectest.WithProcs(1, func() { want = decodeChunks(t, one, 0) })
				sameCloud(t, "decoded on 1 core", want, c)
				for _, limit := range []int{0, 1000, 70000} {
					var got *core.Cloud
					codectest.WithProcs(2, func() { got = decodeChunks(t, one, limit) })
					if got.Len() != n {
						t.Fatalf("2 cores, chunks of %d: %d points, want %d", limit, got.Len(), n)
					}
					if msg := codectest.Diff(want, got, true); msg != "" {
						t.Fatalf("2 cores, chunks of %d: %s", limit, msg)
					}
				}
			})
		}
	}
}

// decodeChunks decodes file b whole (limit 0) or limit points a Read.
func decodeChunks(t *testing.T, b []byte, limit int) *core.Cloud {
	t.Helper()
	if limit == 0 {
		c, err := Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	d, err := NewDecoder(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c, err := codectest.ReadAll(d, limit)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestParallelFirstError puts values no point format 0 holds in two
// blocks: on any number of cores the error names the first.
func TestParallelFirstError(t *testing.T) {
	c, variant := formatCloud(t, 0, batchesSize)
	rn := c.Attr(core.DimReturnNumber)
	rn.SetFloat64(2*codec.RecordBlock+2, 9)
	rn.SetFloat64(codec.RecordBlock+7, 8)
	for _, procs := range []int{1, 2} {
		var err error
		codectest.WithProcs(procs, func() { err = Encode(io.Discard, c, variant) })
		want := fmt.Sprintf("point %d: ReturnNumber = 8 ", codec.RecordBlock+7)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d cores: got %v, want an error with %q", procs, err, want)
		}
	}
}
