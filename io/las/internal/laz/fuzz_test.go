package laz

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"
)

// fuzzBase is the record size of point formats 0-5.
var fuzzBase = [6]int{20, 28, 26, 34, 57, 63}

// fuzzLayout returns the VLR and layout the fuzz target reads data with:
// shape picks the point format (0-5), the items' version (1 or 2), the
// chunk size and the point count.
func fuzzLayout(shape uint16, data []byte) Layout {
	f := uint8(shape % 6)
	rl := fuzzBase[f] + int(shape>>12&3)
	v, _ := NewVLR(f, rl, uint32(1+shape>>4&63))
	v.Items = versions(v.Items, 1+shape/6%2)
	n := int64(len(data))
	return Layout{VLR: v, RecLen: rl, Count: uint64(1 + int(shape>>10&3)*40), Start: 0, End: n, Size: n}
}

// FuzzPointwise decodes arbitrary point data as the chunks of formats 0-5
// (versions 1 and 2, several chunk sizes), seeded with valid blocks: no
// panic, exactly the promised records or an error, and no allocation
// beyond what the data's size can honestly hold.
func FuzzPointwise(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, shape := range []uint16{0, 1, 2, 3, 4, 5, 6 + 1<<4 + 1<<10, 9 + 3<<4 + 2<<10 + 1<<12, 11 + 5<<4 + 3<<10} {
		l := fuzzLayout(shape, nil)
		recs := surveyRecords(r, uint8(shape%6), l.RecLen, int(l.Count), 13)
		f.Add(shape, encodeFile(f, l.VLR, recs, l.RecLen, 0, 1))
	}
	f.Fuzz(func(t *testing.T, shape uint16, data []byte) {
		l := fuzzLayout(shape, data)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := decodeAll(&lasFile{data: data, layout: l}, Options{Workers: 2})
		runtime.ReadMemStats(&after)
		if err == nil && len(got) != int(l.Count)*l.RecLen {
			t.Fatalf("%d bytes of records without an error, want %d", len(got), int(l.Count)*l.RecLen)
		}
		honest := uint64(1<<22 + 4*MaxPointsPerByte*len(data)*l.RecLen)
		if a := after.TotalAlloc - before.TotalAlloc; a > honest {
			t.Fatalf("allocated %d bytes for %d bytes of point data", a, len(data))
		}
		if err == nil && len(data) > 8 {
			// Whatever decodes re-encodes and decodes to the same records.
			again := encodeFile(t, l.VLR, got, l.RecLen, 0, 1)
			back, err := decodeAll(&lasFile{data: again, layout: fuzzLayout(shape, again)}, Options{})
			if err != nil || !bytes.Equal(back, got) {
				t.Fatalf("re-encoded records do not come back: %v", err)
			}
		}
	})
}
