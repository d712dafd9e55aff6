package laz

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// surveyRecords returns n records of point format f with extra bytes,
// shaped like survey data (walks, repeated fields, interleaved GPS time
// sequences, grey and coloured RGB) with every kth record fully random.
func surveyRecords(r *rand.Rand, f uint8, recLen, n, k int) []byte {
	le := binary.LittleEndian
	b := make([]byte, n*recLen)
	x, y, z := int32(r.Uint32()), int32(r.Uint32()), int32(r.IntN(1000))
	times := [3]float64{r.Float64() * 1e6, r.Float64() * 1e8, 3e8}
	var offset uint64
	for i := range n {
		rec := b[i*recLen : (i+1)*recLen]
		if k > 0 && i%k == k-1 {
			for j := range rec {
				rec[j] = byte(r.Uint32())
			}
			continue
		}
		x += int32(r.IntN(200) - 100)
		y += int32(r.IntN(200) - 90)
		z += int32(r.NormFloat64() * 50)
		le.PutUint32(rec[0:], uint32(x))
		le.PutUint32(rec[4:], uint32(y))
		le.PutUint32(rec[8:], uint32(z))
		le.PutUint16(rec[12:], uint16(r.IntN(300)))
		nr := byte(1 + r.IntN(4))
		rn := byte(1 + r.IntN(int(nr)))
		rec[14] = rn | nr<<3 | byte(r.IntN(4))<<6
		rec[15] = byte(r.IntN(3) * 2)
		rec[16] = byte(int8(r.IntN(60) - 30))
		rec[17] = byte(r.IntN(2))
		le.PutUint16(rec[18:], uint16(1+i/500))
		off := 20
		if f == 1 || f >= 3 {
			s := r.IntN(8) % 3
			switch r.IntN(50) {
			case 0:
				times[s] += 1e7 * r.Float64() // a jump beyond 32 bits of difference
			case 1:
				// unchanged
			default:
				times[s] += 1e-5 * float64(1+r.IntN(3))
			}
			le.PutUint64(rec[off:], math.Float64bits(times[s]))
			off += 8
		}
		if f == 2 || f == 3 || f == 5 {
			v := uint16(r.IntN(65536))
			if r.IntN(3) == 0 {
				le.PutUint16(rec[off:], v)
				le.PutUint16(rec[off+2:], v)
				le.PutUint16(rec[off+4:], v)
			} else {
				for c := range 3 {
					le.PutUint16(rec[off+2*c:], v+uint16(r.IntN(512)))
				}
			}
			off += 6
		}
		if f == 4 || f == 5 {
			rec[off] = byte(r.IntN(3))
			switch r.IntN(4) {
			case 0:
				offset += uint64(r.IntN(1 << 20))
			case 1:
				offset = r.Uint64()
			case 2:
				offset += 256
			}
			le.PutUint64(rec[off+1:], offset)
			le.PutUint32(rec[off+9:], 256)
			for c := range 4 {
				le.PutUint32(rec[off+13+4*c:], math.Float32bits(float32(r.NormFloat64())))
			}
			off += 29
		}
		for j := off; j < recLen; j++ {
			rec[j] = byte(i/7 + j)
		}
	}
	return b
}

// versions sets the codec version of every item (1 or 2; WAVEPACKET13
// stays 1).
func versions(items []Item, v uint16) []Item {
	out := append([]Item(nil), items...)
	for i := range out {
		if out[i].Type != ItemWavePacket13 {
			out[i].Version = v
		}
	}
	return out
}

func TestRoundTripFormats(t *testing.T) {
	base := []int{20, 28, 26, 34, 57, 63}
	for f := range uint8(6) {
		for _, extra := range []int{0, 3} {
			for _, ver := range []uint16{1, 2} {
				seed := uint64(f)*100 + uint64(extra)*10 + uint64(ver)
				r := rand.New(rand.NewPCG(seed, 5))
				recLen := base[f] + extra
				n := 1 + r.IntN(3000)
				recs := surveyRecords(r, f, recLen, n, 97)
				v, err := NewVLR(f, recLen, uint32(1+r.IntN(900)))
				if err != nil {
					t.Fatal(err)
				}
				v.Items = versions(v.Items, ver)
				start := int64(300 + r.IntN(100))
				data := encodeFile(t, v, recs, recLen, start, 2)
				file := &lasFile{data: append(make([]byte, start), data...)}
				file.layout = Layout{VLR: v, RecLen: recLen, Count: uint64(n), Start: start, End: int64(len(file.data)), Size: int64(len(file.data))}
				got, err := decodeAll(file, Options{Workers: 3})
				if err != nil {
					t.Fatalf("format %d, extra %d, v%d, seed %d: %v", f, extra, ver, seed, err)
				}
				if !bytes.Equal(got, recs) {
					compareRecords(t, "round trip", got, recs, recLen)
					t.Fatalf("format %d, extra %d, v%d, seed %d: records differ", f, extra, ver, seed)
				}
				// Without the chunk table, the chunks are found by decoding.
				binary.LittleEndian.PutUint64(file.data[start:], uint64(start))
				got, err = decodeAll(file, Options{})
				if err != nil || !bytes.Equal(got, recs) {
					t.Fatalf("format %d, v%d, seed %d, no chunk table: %v, equal %v", f, ver, seed, err, bytes.Equal(got, recs))
				}
			}
		}
	}
}

// TestLayeredWithoutTable reads layered chunks (formats 6-8) whose chunk
// table is lost, found one after the other from their layer sizes.
func TestLayeredWithoutTable(t *testing.T) {
	base := map[uint8]int{6: 30, 7: 36, 8: 38}
	for f, rl := range base {
		r := rand.New(rand.NewPCG(uint64(f), 9))
		n := 2000 + r.IntN(1000)
		recs := randomRecords(r, f, rl, n)
		v, err := NewVLR(f, rl, 700)
		if err != nil {
			t.Fatal(err)
		}
		const start = 375
		file := &lasFile{data: append(make([]byte, start), encodeFile(t, v, recs, rl, start, 2)...)}
		file.layout = Layout{VLR: v, RecLen: rl, Count: uint64(n), Start: start, End: int64(len(file.data)), Size: int64(len(file.data))}
		binary.LittleEndian.PutUint64(file.data[start:], 0)
		var warned []string
		got, err := decodeAll(file, Options{Warn: func(s string) { warned = append(warned, s) }})
		if err != nil {
			t.Fatalf("format %d: %v", f, err)
		}
		if !bytes.Equal(got, recs) {
			compareRecords(t, "layered without table", got, recs, rl)
		}
		if len(warned) != 1 {
			t.Errorf("format %d: warnings %q, want one about the chunk table", f, warned)
		}
	}
}

// TestMaxPointsPerByteHonest compresses 50,000 identical records, the
// most compressible chunk a file holds, with the pointwise (format 0) and
// layered (format 6) codecs: they come to about 150 and 100 points per
// byte (347 and 498 bytes), well below the bound MaxPointsPerByte puts on
// an honest chunk.
func TestMaxPointsPerByteHonest(t *testing.T) {
	for _, tc := range []struct {
		format       uint8
		recLen, want int
	}{{0, 20, 347}, {6, 30, 498}} {
		v, err := NewVLR(tc.format, tc.recLen, DefaultChunkSize)
		if err != nil {
			t.Fatal(err)
		}
		out := 0
		w, err := NewWriter(v, tc.recLen, Options{}, func(b []byte) error { out += len(b); return nil })
		if err != nil {
			t.Fatal(err)
		}
		rec := make([]byte, tc.recLen)
		for i := range rec {
			rec[i] = byte(7 * i)
		}
		if err := w.Write(bytes.Repeat(rec, 50000)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if out != tc.want {
			t.Errorf("format %d: 50,000 identical records in %d bytes, want %d", tc.format, out, tc.want)
		}
		if 50000 > MaxPointsPerByte*out {
			t.Errorf("format %d: 50,000 identical records in %d bytes exceed MaxPointsPerByte (%d)", tc.format, out, MaxPointsPerByte)
		}
	}
}
