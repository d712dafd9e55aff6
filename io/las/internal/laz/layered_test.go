package laz

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pctk/pctk/io/las/internal/arith"
)

// testCodecs holds one layered codec per item list, passed from chunk to
// chunk as a ChunkCodec passes its own.
var testCodecs sync.Map // string of the items -> *layeredCodec

// testCodec returns the tests' codec of items.
func testCodec(items []Item) (*layeredCodec, error) {
	key := fmt.Sprint(items)
	if c, ok := testCodecs.Load(key); ok {
		return c.(*layeredCodec), nil
	}
	c, err := newLayeredCodec(items)
	if err != nil {
		return nil, err
	}
	testCodecs.Store(key, c)
	return c, nil
}

// decodeLayeredChunk decodes the n points of the layered chunk src into
// dst with the tests' codec of items (see layeredCodec.decodeChunk).
func decodeLayeredChunk(items []Item, src []byte, n int, dst []byte, sel Selection) error {
	c, err := testCodec(items)
	if err != nil {
		return err
	}
	return c.decodeChunk(items, src, n, dst, sel)
}

// encodeLayeredChunk encodes the n records recs (of the items' total size)
// as one layered chunk with the tests' codec of items.
func encodeLayeredChunk(items []Item, recs []byte, n int) ([]byte, error) {
	c, err := testCodec(items)
	if err != nil {
		return nil, err
	}
	return c.encodeChunk(recs, n, nil)
}

// layeredItems returns the items of point format f with extra extra bytes,
// at codec version v.
func layeredItems(t testing.TB, f uint8, extra int, v uint16) ([]Item, int) {
	t.Helper()
	base := map[uint8]int{6: 30, 7: 36, 8: 38, 9: 59, 10: 67}[f]
	items, err := ItemsFor(f, base+extra)
	if err != nil {
		t.Fatal(err)
	}
	for i := range items {
		items[i].Version = v
	}
	return items, base + extra
}

// randomRecords returns n records of point format f (with extra bytes
// after the format's base length) whose fields change the way scans do
// and in every other way the codecs distinguish: runs and jumps of
// coordinates, all four scanner channels, returns 0-15, flags, classes
// above 31, interleaved GPS time sequences with jumps beyond 32 bits,
// unchanged and changing colours, NIR and wave packets.
func randomRecords(rng *rand.Rand, f uint8, recLen, n int) []byte {
	base := map[uint8]int{6: 30, 7: 36, 8: 38, 9: 59, 10: 67}[f]
	recs := make([]byte, n*recLen)
	var x, y, z int32 = 1000, -2000, 300
	seqs := []float64{1e5, 2.5e5, 4e8, 7}
	seq := 0
	channel := uint8(rng.IntN(4))
	var colour [4]uint16
	var wave [29]byte
	extraLast := make([]byte, recLen-base)
	for i := range n {
		r := recs[i*recLen : (i+1)*recLen]
		if rng.IntN(8) == 0 {
			channel = uint8(rng.IntN(4))
		}
		switch rng.IntN(20) {
		case 0:
			x += rng.Int32()
			y -= rng.Int32()
			z ^= rng.Int32()
		default:
			x += rng.Int32N(200) - 100
			y += rng.Int32N(60) - 30
			z += rng.Int32N(10) - 5
		}
		le.PutUint32(r[0:], uint32(x))
		le.PutUint32(r[4:], uint32(y))
		le.PutUint32(r[8:], uint32(z))
		le.PutUint16(r[12:], uint16(rng.IntN(1+rng.IntN(3)*30000)))
		nret := uint8(rng.IntN(16))
		if rng.IntN(3) > 0 {
			nret = uint8(1 + rng.IntN(3))
		}
		ret := uint8(rng.IntN(16))
		if rng.IntN(3) > 0 {
			ret = min(nret, uint8(1+rng.IntN(3)))
		}
		r[14] = ret | nret<<4
		flags := uint8(0)
		if rng.IntN(4) == 0 {
			flags = uint8(rng.IntN(16)) | uint8(rng.IntN(4))<<6
		}
		r[15] = flags | channel<<4
		r[16] = []uint8{2, 2, 2, 6, uint8(rng.IntN(256))}[rng.IntN(5)]
		r[17] = uint8(rng.IntN(4)) * 60
		le.PutUint16(r[18:], uint16(int16(rng.IntN(60001)-30000)/int16(1+rng.IntN(300))))
		le.PutUint16(r[20:], uint16(7+rng.IntN(2)*rng.IntN(65536)))
		switch rng.IntN(12) {
		case 0:
			seq = rng.IntN(len(seqs))
		case 1:
			seqs[seq] += float64(rng.Int64N(1 << 50))
		case 2:
			seqs[seq] = -seqs[seq]
		case 3, 4:
		default:
			seqs[seq] += float64(rng.IntN(3)+1) * 1e-5 * float64(1+rng.IntN(2)*rng.IntN(1000))
		}
		le.PutUint64(r[22:], math.Float64bits(seqs[seq]))
		o := 30
		if f == 7 || f == 8 || f == 10 {
			if rng.IntN(3) == 0 {
				for c := range 3 {
					colour[c] += uint16(rng.IntN(600) - 300)
				}
				if rng.IntN(3) == 0 {
					colour[1], colour[2] = colour[0], colour[0]
				}
			}
			if rng.IntN(4) == 0 {
				colour[3] = uint16(rng.IntN(65536))
			}
			for c := range 3 {
				le.PutUint16(r[o+2*c:], colour[c])
			}
			o += 6
			if f != 7 {
				le.PutUint16(r[o:], colour[3])
				o += 2
			}
		}
		if f >= 9 {
			if rng.IntN(3) == 0 {
				wave[0] = uint8(rng.IntN(4))
				off := le.Uint64(wave[1:])
				switch rng.IntN(4) {
				case 0:
					off += uint64(le.Uint32(wave[9:]))
				case 1:
					off += uint64(rng.IntN(100000))
				case 2:
					off = rng.Uint64()
				}
				le.PutUint64(wave[1:], off)
				le.PutUint32(wave[9:], uint32(rng.IntN(256)))
				for k := 13; k < 29; k += 4 {
					le.PutUint32(wave[k:], math.Float32bits(rng.Float32()*100))
				}
			}
			copy(r[o:], wave[:])
		}
		for k := range extraLast {
			if rng.IntN(k+2) == 0 {
				extraLast[k] = uint8(rng.IntN(256))
			}
		}
		copy(r[base:], extraLast)
	}
	return recs
}

func TestLayeredRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range []uint8{6, 7, 8, 9, 10} {
		for _, extra := range []int{0, 1, 3, 17} {
			for _, v := range []uint16{3, 4} {
				for _, n := range []int{1, 2, 7, 3000} {
					name := fmt.Sprintf("format%d/extra%d/v%d/n%d", f, extra, v, n)
					t.Run(name, func(t *testing.T) {
						items, rl := layeredItems(t, f, extra, v)
						recs := randomRecords(rng, f, rl, n)
						chunk, err := encodeLayeredChunk(items, recs, n)
						if err != nil {
							t.Fatal(err)
						}
						got := make([]byte, len(recs))
						if err := decodeLayeredChunk(items, chunk, n, got, 0); err != nil {
							t.Fatal(err)
						}
						if i := firstDiff(got, recs, rl); i >= 0 {
							t.Fatalf("record %d: got\n%x, want\n%x", i, got[i*rl:(i+1)*rl], recs[i*rl:(i+1)*rl])
						}
					})
				}
			}
		}
	}
}

// firstDiff returns the first record in which a and b differ, or -1.
func firstDiff(a, b []byte, rl int) int {
	for i := 0; i*rl < len(a); i++ {
		if !bytes.Equal(a[i*rl:(i+1)*rl], b[i*rl:(i+1)*rl]) {
			return i
		}
	}
	return -1
}

// TestLayeredConstantLayers checks chunks in which fields never change:
// their layers are empty and decode to the first point's values.
func TestLayeredConstantLayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	items, rl := layeredItems(t, 8, 2, 3)
	const n = 500
	recs := randomRecords(rng, 8, rl, n)
	for i := 1; i < n; i++ {
		r := recs[i*rl:]
		copy(r[12:14], recs[12:14]) // intensity
		copy(r[16:30], recs[16:30]) // class, user data, angle, source, GPS
		r[15] = r[15]&0x30 | recs[15]&^0x30
		copy(r[30:rl], recs[30:rl]) // colour, NIR, extra bytes
	}
	chunk, err := encodeLayeredChunk(items, recs, n)
	if err != nil {
		t.Fatal(err)
	}
	sizes := chunk[rl+4:]
	// POINT14: 9 layers; RGBNIR14: 2; BYTE14: 2
	for l := range 13 {
		size := le.Uint32(sizes[4*l:])
		if wantEmpty := l >= p14Class; (size == 0) != wantEmpty {
			t.Errorf("layer %d has %d bytes, want empty %v", l, size, wantEmpty)
		}
	}
	got := make([]byte, len(recs))
	if err := decodeLayeredChunk(items, chunk, n, got, 0); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, recs, rl); i >= 0 {
		t.Fatalf("record %d differs", i)
	}
}

// fieldBytes lists the byte ranges of each Selection group in the records
// of point format 10 with extra bytes from byte 67.
var fieldBytes = []struct {
	sel    Selection
	ranges [][2]int
}{
	{SelectXYZ, [][2]int{{8, 12}}}, // X and Y sit in the always-decoded layer
	{SelectIntensity, [][2]int{{12, 14}}},
	{SelectClassification, [][2]int{{16, 17}}},
	{SelectScanAngle, [][2]int{{18, 20}}},
	{SelectUserData, [][2]int{{17, 18}}},
	{SelectPointSourceID, [][2]int{{20, 22}}},
	{SelectGPSTime, [][2]int{{22, 30}}},
	{SelectRGB, [][2]int{{30, 36}}},
	{SelectNIR, [][2]int{{36, 38}}},
	{SelectWavePacket, [][2]int{{38, 67}}},
	{SelectExtraBytes, [][2]int{{67, 72}}},
}

// TestLayeredSelective decodes with every single group selected: the
// selected fields equal the full decode's, whatever was skipped, and the
// skipped ones hold the chunk's first point's values.
func TestLayeredSelective(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, v := range []uint16{3, 4} {
		items, rl := layeredItems(t, 10, 5, v)
		const n = 2000
		recs := randomRecords(rng, 10, rl, n)
		chunk, err := encodeLayeredChunk(items, recs, n)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range fieldBytes {
			got := make([]byte, len(recs))
			if err := decodeLayeredChunk(items, chunk, n, got, want.sel); err != nil {
				t.Fatal(err)
			}
			for _, g := range fieldBytes {
				for _, r := range g.ranges {
					for i := range n {
						a, b := got[i*rl+r[0]:i*rl+r[1]], recs[i*rl+r[0]:i*rl+r[1]]
						if g.sel != want.sel {
							b = recs[r[0]:r[1]]
						}
						if !bytes.Equal(a, b) {
							t.Fatalf("v%d, selecting %b: bytes %v of record %d: got %x, want %x", v, want.sel, r, i, a, b)
						}
					}
				}
			}
			// X, Y, returns and scanner channel are always exact.
			for i := range n {
				if a, b := got[i*rl:i*rl+8], recs[i*rl:i*rl+8]; !bytes.Equal(a, b) {
					t.Fatalf("selecting %b: XY of record %d: got %x, want %x", want.sel, i, a, b)
				}
				if got[i*rl+14] != recs[i*rl+14] || got[i*rl+15]&0x30 != recs[i*rl+15]&0x30 {
					t.Fatalf("selecting %b: returns or channel of record %d differ", want.sel, i)
				}
			}
		}
	}
}

// TestLayeredCorrupt checks that damaged chunks give errors, not panics or
// silently shorter output.
func TestLayeredCorrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	items, rl := layeredItems(t, 7, 0, 3)
	const n = 300
	recs := randomRecords(rng, 7, rl, n)
	chunk, err := encodeLayeredChunk(items, recs, n)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(recs))
	if err := decodeLayeredChunk(items, chunk, n+1, make([]byte, len(recs)+rl), 0); !errors.Is(err, ErrPointCount) {
		t.Errorf("wrong count: got %v, want ErrPointCount", err)
	}
	// a chunk holding more points than expected gives the first ones
	if err := decodeLayeredChunk(items, chunk, n-10, got[:(n-10)*rl], 0); err != nil || firstDiff(got[:(n-10)*rl], recs[:(n-10)*rl], rl) >= 0 {
		t.Errorf("fewer points than the chunk holds: %v", err)
	}
	for cut := 0; cut < len(chunk); cut += 1 + cut/3 {
		if err := decodeLayeredChunk(items, chunk[:cut], n, got, 0); err == nil {
			t.Errorf("chunk cut at %d of %d: no error", cut, len(chunk))
		}
	}
	bad := bytes.Clone(chunk)
	le.PutUint32(bad[rl+4+4*p14Z:], 1<<30)
	var fe *FormatError
	if err := decodeLayeredChunk(items, bad, n, got, 0); !errors.As(err, &fe) {
		t.Errorf("oversized layer: got %v, want a FormatError", err)
	}
}

func FuzzLayeredChunk(f *testing.F) {
	rng := rand.New(rand.NewPCG(9, 10))
	items, rl := layeredItems(f, 8, 3, 3)
	recs := randomRecords(rng, 8, rl, 50)
	chunk, err := encodeLayeredChunk(items, recs, 50)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(chunk, uint16(50))
	f.Fuzz(func(t *testing.T, chunk []byte, n uint16) {
		n = n%200 + 1
		dst := make([]byte, int(n)*rl)
		_ = decodeLayeredChunk(items, chunk, int(n), dst, 0)
	})
}

// TestGPSTimeSharedWithV2 checks that decodeTime and encodeTime with the
// version 2 symbols (unchanged true) write and read GPSTIME11 v2's exact
// streams, so that one GPS time codec serves both item families.
func TestGPSTimeSharedWithV2(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	recs := randomRecords(rng, 6, 30, 5000)
	times := make([][]byte, 5000)
	for i := range times {
		times[i] = recs[i*30+22 : i*30+30]
	}
	for i := 100; i < 5000; i += 97 { // runs of unchanged times
		copy(times[i], times[i-1])
	}
	var ref, own arith.Encoder
	a, b := newGPSTime11v2(), newGPSTime11v2()
	a.init(times[0])
	b.init(times[0])
	ref.Reset()
	own.Reset()
	for _, tm := range times[1:] {
		a.encode(&ref, tm)
		b.encodeTime(&own, int64(le.Uint64(tm)), true)
	}
	want := bytes.Clone(ref.Finish())
	if got := own.Finish(); !bytes.Equal(got, want) {
		t.Fatalf("encodeTime wrote %d bytes, GPSTIME11 v2 %d", len(got), len(want))
	}
	var d arith.Decoder
	if err := d.Init(want); err != nil {
		t.Fatal(err)
	}
	c := newGPSTime11v2()
	c.init(times[0])
	for i, tm := range times[1:] {
		if !c.decodeTime(&d, true) || c.lastTime[c.last] != int64(le.Uint64(tm)) {
			t.Fatalf("time %d: got %x, want %x", i+1, c.lastTime[c.last], tm)
		}
	}
}

// TestLayeredVersionsDiffer checks that version 3 and 4 chunks of points
// that switch scanner channels differ where LASzip's versions differ (the
// context of the items after POINT14), and that each decodes only as its
// own version.
func TestLayeredVersionsDiffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	items3, rl := layeredItems(t, 8, 2, 3)
	items4, _ := layeredItems(t, 8, 2, 4)
	const n = 1000
	recs := randomRecords(rng, 8, rl, n)
	c3, err := encodeLayeredChunk(items3, recs, n)
	if err != nil {
		t.Fatal(err)
	}
	c4, err := encodeLayeredChunk(items4, recs, n)
	if err != nil {
		t.Fatal(err)
	}
	// POINT14's layers are the same; the RGB, NIR and extra bytes' differ.
	sizes := func(c []byte) []uint32 {
		var s []uint32
		for l := range 13 {
			s = append(s, le.Uint32(c[rl+4+4*l:]))
		}
		return s
	}
	s3, s4 := sizes(c3), sizes(c4)
	p14 := func(c []byte, s []uint32) []byte {
		total := 0
		for _, v := range s[:p14Layers] {
			total += int(v)
		}
		at := rl + 4 + 4*13
		return c[at : at+total]
	}
	if !bytes.Equal(p14(c3, s3), p14(c4, s4)) {
		t.Error("POINT14 layers differ between versions 3 and 4")
	}
	if bytes.Equal(c3, c4) {
		t.Fatal("version 3 and 4 chunks are equal")
	}
	got := make([]byte, len(recs))
	if err := decodeLayeredChunk(items3, c4, n, got, 0); err == nil && firstDiff(got, recs, rl) < 0 {
		t.Error("a version 4 chunk decodes exactly as version 3")
	}
}

// TestLayeredGPSBits checks GPS times that compare equal as doubles but
// differ in bits (+0 and -0, NaN payloads): the encoder compares bits, so
// they come back exactly (LASzip compares doubles and would keep +0 for a
// following -0).
func TestLayeredGPSBits(t *testing.T) {
	items, rl := layeredItems(t, 6, 0, 3)
	times := []uint64{0, 1 << 63, 0, math.Float64bits(math.NaN()), 0x7FF8000000000001, 0x7FF8000000000001, 1 << 63, math.Float64bits(1e9)}
	recs := make([]byte, len(times)*rl)
	for i, tm := range times {
		le.PutUint64(recs[i*rl+22:], tm)
		recs[i*rl+14] = 0x11
	}
	chunk, err := encodeLayeredChunk(items, recs, len(times))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(recs))
	if err := decodeLayeredChunk(items, chunk, len(times), got, 0); err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, recs, rl); i >= 0 {
		t.Fatalf("record %d: GPS time bits %x, want %x", i, got[i*rl+22:i*rl+30], recs[i*rl+22:i*rl+30])
	}
}

// TestCOPCReencodeExact re-encodes the records of every chunk of PDAL's
// COPC files (POINT14 and RGB14 version 3, written by PDAL through
// laz-perf's LASzip-compatible encoder) and expects the file's chunk bytes
// exactly: the layered encoder makes the same choices, layer by layer.
func TestCOPCReencodeExact(t *testing.T) {
	for _, name := range []string{"1.2-with-color.copc.laz", "autzen_clip_native.copc.laz"} {
		f := readLAS(t, shared(t, filepath.Join("pdal", "copc", name)))
		chunks, _, err := ChunkTable(bytes.NewReader(f.data), &f.layout)
		if err != nil {
			t.Fatal(err)
		}
		items := f.layout.VLR.Items
		for i, ch := range chunks {
			src := f.data[ch.Offset : ch.Offset+ch.Bytes]
			recs := make([]byte, ch.Points*f.layout.RecLen)
			if err := decodeLayeredChunk(items, src, ch.Points, recs, 0); err != nil {
				t.Fatalf("%s chunk %d: %v", name, i, err)
			}
			got, err := encodeLayeredChunk(items, recs, ch.Points)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, src) {
				k := 0
				for k < min(len(got), len(src)) && got[k] == src[k] {
					k++
				}
				t.Errorf("%s chunk %d (%d points): encoded %d bytes, the file %d; first difference at byte %d", name, i, ch.Points, len(got), len(src), k)
			}
		}
	}
}
