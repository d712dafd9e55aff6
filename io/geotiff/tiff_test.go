package geotiff

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
)

// tileSimple is tile as first written, one sample at a time: the
// reference of the layout.
func (l *level) tileSimple(t, ts, sz int, pad float64, raw []byte) {
	nb := len(l.bands)
	tx := (l.w + ts - 1) / ts
	y, x := t/tx, t%tx
	le := binary.LittleEndian
	for r := range ts {
		row := y*ts + r
		for c := range ts {
			col := x*ts + c
			at := (r*ts + c) * nb * sz
			for b := range nb {
				v := pad
				if row < l.h && col < l.w {
					v = l.bands[b][row*l.w+col]
				}
				if sz == 4 {
					le.PutUint32(raw[at+b*sz:], math.Float32bits(float32(v)))
				} else {
					le.PutUint64(raw[at+b*sz:], math.Float64bits(v))
				}
			}
		}
	}
}

// TestTileLayout checks every tile of images of odd sizes (tiles cut by
// the right and bottom edges, images smaller than a tile), of 1 to 6
// bands, float64 and float32, with padding, against tileSimple's bytes,
// on a buffer dirtied by the tile before.
func TestTileLayout(t *testing.T) {
	for _, c := range []struct{ w, h, nb, ts int }{
		{1, 1, 1, 16}, {5, 3, 2, 16}, {17, 33, 6, 16}, {47, 16, 3, 16}, {100, 37, 6, 32}, {33, 70, 1, 32}, {64, 64, 4, 32},
	} {
		img := randomImage(uint64(c.w*c.h), c.w, c.h, c.nb)
		img.Bands[0][0] = math.NaN()
		img.Bands[c.nb-1][c.w*c.h-1] = math.Inf(-1)
		l := &level{w: c.w, h: c.h, bands: img.Bands}
		for _, sz := range []int{4, 8} {
			for _, pad := range []float64{0, -9999, 1e300} {
				name := fmt.Sprintf("%dx%d, %d bands, tile %d, %d bytes, pad %g", c.w, c.h, c.nb, c.ts, sz, pad)
				got := bytes.Repeat([]byte{0xa5}, c.ts*c.ts*c.nb*sz)
				want := make([]byte, len(got))
				for k := range l.tileCount(c.ts) {
					l.tile(k, c.ts, sz, pad, got)
					l.tileSimple(k, c.ts, sz, pad, want)
					if !bytes.Equal(got, want) {
						i := 0
						for got[i] == want[i] {
							i++
						}
						t.Fatalf("%s: tile %d: byte %d (pixel %d) differs", name, k, i, i/(c.nb*sz))
					}
				}
			}
		}
	}
}

// TestWriteRaw checks writeRaw's bytes against tileSimple's tiles, the
// smallest overview first, for chunks of one tile row to more than the
// whole, and that a failing writer stops it with its error.
func TestWriteRaw(t *testing.T) {
	img := randomImage(5, 70, 45, 3)
	levels := []*level{{w: img.Width, h: img.Height, bands: img.Bands}}
	for levels[len(levels)-1].w > 16 {
		levels = append(levels, overview(levels[len(levels)-1]))
	}
	for _, sz := range []int{4, 8} {
		line := 16 * 3 * sz
		var want []byte
		raw := make([]byte, 16*line)
		for k := len(levels) - 1; k >= 0; k-- {
			for tl := range levels[k].tileCount(16) {
				levels[k].tileSimple(tl, 16, sz, -9999, raw)
				want = append(want, raw...)
			}
		}
		for _, chunk := range []int{1, line, 3*line + 5, 16 * line, len(want), 2 * len(want)} {
			var got bytes.Buffer
			if err := writeRaw(&got, levels, 16, sz, -9999, chunk); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%d bytes a sample, chunk %d: %d bytes differ from the tiles' %d", sz, chunk, got.Len(), len(want))
			}
			fail := &failing{left: len(want) / 2}
			if err := writeRaw(fail, levels, 16, sz, -9999, chunk); err != errFull {
				t.Errorf("%d bytes a sample, chunk %d: a full writer: error %v, want %v", sz, chunk, err, errFull)
			}
		}
	}
}

var errFull = errors.New("full")

// failing is a writer that takes left bytes, then fails.
type failing struct{ left int }

func (f *failing) Write(p []byte) (int, error) {
	if len(p) > f.left {
		n := f.left
		f.left = 0
		return n, errFull
	}
	f.left -= len(p)
	return len(p), nil
}

// TestOverviewBands checks overview, its bands resampled on all cores,
// against GDAL's nearest neighbour cell by cell, on odd sizes.
func TestOverviewBands(t *testing.T) {
	for _, sz := range [][2]int{{37, 23}, {2, 9}, {1, 1}, {300, 7}} {
		img := randomImage(2, sz[0], sz[1], 5)
		l := &level{w: sz[0], h: sz[1], bands: img.Bands}
		o := overview(l)
		if o.w != (l.w+1)/2 || o.h != (l.h+1)/2 || len(o.bands) != 5 {
			t.Fatalf("%v: overview %dx%d with %d bands", sz, o.w, o.h, len(o.bands))
		}
		for b, band := range o.bands {
			for r := range o.h {
				for c := range o.w {
					sr := min(l.h-1, int((float64(r)+0.5)*float64(l.h)/float64(o.h)))
					sc := min(l.w-1, int((float64(c)+0.5)*float64(l.w)/float64(o.w)))
					if got, want := band[r*o.w+c], l.bands[b][sr*l.w+sc]; got != want {
						t.Fatalf("%v: band %d cell (%d, %d): %v, want %v", sz, b, c, r, got, want)
					}
				}
			}
		}
	}
}
