package las

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
)

// sharedData is the project's shared data folder, seen from this package.
const sharedData = "../../../shared/data"

func sharedFiles(t *testing.T, pattern string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(sharedData, pattern))
	if len(files) == 0 {
		t.Skipf("no files match %s (the shared data folder is absent in a fresh clone)", filepath.Join(sharedData, pattern))
	}
	return files
}

// rawRecords returns the header fields a test needs, read with no help
// from the package, and the point record bytes.
func rawRecords(t *testing.T, b []byte) (pf, rl int, count uint64, scale, offset [3]float64, recs []byte) {
	t.Helper()
	off := binary.LittleEndian.Uint32(b[96:])
	pf = int(b[104])
	rl = int(binary.LittleEndian.Uint16(b[105:]))
	count = uint64(binary.LittleEndian.Uint32(b[107:]))
	if b[25] >= 4 && binary.LittleEndian.Uint64(b[247:]) != 0 {
		count = binary.LittleEndian.Uint64(b[247:])
	}
	for k := range 3 {
		scale[k] = math.Float64frombits(binary.LittleEndian.Uint64(b[131+8*k:]))
		offset[k] = math.Float64frombits(binary.LittleEndian.Uint64(b[155+8*k:]))
	}
	end := min(uint64(off)+count*uint64(rl), uint64(len(b)))
	end -= (end - uint64(off)) % uint64(rl) // whole records only
	return pf, rl, count, scale, offset, b[off:end]
}

// checkAgainstRaw compares every point of c with the raw records, field
// offsets taken from the LAS specification tables.
func checkAgainstRaw(t *testing.T, name string, c *core.Cloud, b []byte) {
	t.Helper()
	pf, rl, count, scale, offset, recs := rawRecords(t, b)
	if uint64(c.Len()) > count || len(recs) != c.Len()*rl {
		t.Fatalf("%s: got %d points, header says %d, file holds %d records", name, c.Len(), count, len(recs)/rl)
	}
	u16 := func(i, o int) float64 { return float64(binary.LittleEndian.Uint16(recs[i*rl+o:])) }
	intensity, cls, src := c.Attr(core.DimIntensity), c.Attr(core.DimClassification), c.Attr(core.DimPointSourceID)
	for i := 0; i < c.Len(); i++ {
		for k, xs := range [3][]float64{c.X, c.Y, c.Z} {
			want := float64(int32(binary.LittleEndian.Uint32(recs[i*rl+4*k:])))*scale[k] + offset[k]
			if xs[i] != want {
				t.Fatalf("%s: point %d %c: got %v, want %v", name, i, "XYZ"[k], xs[i], want)
			}
		}
		if got, want := intensity.Float64(i), u16(i, 12); got != want {
			t.Fatalf("%s: point %d Intensity: got %v, want %v", name, i, got, want)
		}
		wantCls := float64(recs[i*rl+15] & 31)
		if pf >= 6 {
			wantCls = float64(recs[i*rl+16])
		}
		if got := cls.Float64(i); got != wantCls {
			t.Fatalf("%s: point %d Classification: got %v, want %v", name, i, got, wantCls)
		}
		srcOff := 18
		if pf >= 6 {
			srcOff = 20
		}
		if got, want := src.Float64(i), u16(i, srcOff); got != want {
			t.Fatalf("%s: point %d PointSourceId: got %v, want %v", name, i, got, want)
		}
		if pf == 2 || pf == 3 {
			rgbOff := map[int]int{2: 20, 3: 28}[pf]
			for j, n := range []string{core.DimRed, core.DimGreen, core.DimBlue} {
				if got, want := c.Attr(n).Float64(i), u16(i, rgbOff+2*j); got != want {
					t.Fatalf("%s: point %d %s: got %v, want %v", name, i, n, got, want)
				}
			}
		}
	}
}

// checkBounds asserts that the cloud's bounds lie within the header's,
// give or take a scale step, and, when tight, that they touch them (the
// lion nodes' headers state their octree cells, wider than their points).
func checkBounds(t *testing.T, name string, c *core.Cloud, info *Info, tight bool) {
	t.Helper()
	if c.Len() == 0 {
		return
	}
	b, _ := c.Bounds()
	h := &info.Header
	for k := range 3 {
		tol := h.Scale[k]
		if b.Min[k] < h.Min[k]-tol || b.Max[k] > h.Max[k]+tol {
			t.Errorf("%s: %c range [%v, %v] outside header bounds [%v, %v]", name, "XYZ"[k], b.Min[k], b.Max[k], h.Min[k], h.Max[k])
		}
		if tight && (math.Abs(b.Min[k]-h.Min[k]) > tol || math.Abs(b.Max[k]-h.Max[k]) > tol) {
			t.Errorf("%s: %c range [%v, %v] does not reach header bounds [%v, %v]", name, "XYZ"[k], b.Min[k], b.Max[k], h.Min[k], h.Max[k])
		}
	}
}

// roundTrip encodes c with the default variant and asserts that the point
// records come back byte for byte and that the VLRs are kept in order.
func roundTrip(t *testing.T, name string, c *core.Cloud, orig []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, c, ""); err != nil {
		t.Fatalf("%s: encode: %v", name, err)
	}
	out := buf.Bytes()
	if out[24] != orig[24] || out[25] != orig[25] || out[104] != orig[104] {
		t.Fatalf("%s: wrote LAS %d.%d format %d, read %d.%d format %d", name, out[24], out[25], out[104], orig[24], orig[25], orig[104])
	}
	_, _, _, _, _, want := rawRecords(t, orig)
	_, _, _, _, _, got := rawRecords(t, out)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: point records differ after a round trip (%d vs %d bytes)", name, len(got), len(want))
	}
	back, err := Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("%s: decode what we wrote: %v", name, err)
	}
	in, again := InfoOf(&c.Meta), InfoOf(&back.Meta)
	if len(in.VLRs) != len(again.VLRs) || len(in.EVLRs) != len(again.EVLRs) {
		t.Fatalf("%s: %d VLRs %d EVLRs became %d and %d", name, len(in.VLRs), len(in.EVLRs), len(again.VLRs), len(again.EVLRs))
	}
	for i := range in.VLRs {
		if v, w := in.VLRs[i], again.VLRs[i]; v.String() != w.String() || !bytes.Equal(v.Data, w.Data) {
			t.Fatalf("%s: VLR %d: got %s, want %s", name, i, w.String(), v.String())
		}
	}
	if !sameCRS(back.Meta.CRS, c.Meta.CRS) {
		t.Fatalf("%s: CRS %+v became %+v", name, c.Meta.CRS, back.Meta.CRS)
	}
	return out
}

func TestSharedLAS(t *testing.T) {
	files := sharedFiles(t, "las/*.las")
	files = append(files, sharedFiles(t, "las/lion_takanawa/*.las")...)
	if len(files) != 201 {
		t.Errorf("got %d files in %s/las, want 201 (haystack_rock and 200 lion nodes)", len(files), sharedData)
	}
	total := 0
	for _, f := range files {
		orig, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		c, err := Decode(bytes.NewReader(orig))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		info := InfoOf(&c.Meta)
		if len(info.Warnings) > 0 {
			t.Errorf("%s: unexpected warnings %q", name, info.Warnings)
		}
		checkAgainstRaw(t, name, c, orig)
		checkBounds(t, name, c, info, name == "haystack_rock.las")
		roundTrip(t, name, c, orig)
		total += c.Len()
	}
	if total != 21932+341989 {
		t.Errorf("got %d points in all, want %d (haystack_rock 21,932 + lion 341,989)", total, 21932+341989)
	}
}

// readShared returns the bytes of the file rel of ../shared/data, skipping
// the test when it is absent.
func readShared(t *testing.T, rel string) []byte {
	t.Helper()
	path := filepath.Join(sharedData, rel)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s absent: %v", path, err)
	}
	return raw
}

// decodeShared decodes the file rel of ../shared/data, skipping the test
// when it is absent.
func decodeShared(t *testing.T, rel string) *core.Cloud {
	t.Helper()
	path := filepath.Join(sharedData, rel)
	raw := readShared(t, rel)
	c, err := Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}
