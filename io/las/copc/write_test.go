package copc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/pcio"
)

// smallTree makes deep octrees with many hierarchy pages from few points:
// small leaves, and a grid of 16 cells across a node (spacing side/16), so
// that shallow levels thin a cloud of thousands of points as they thin
// millions with 128.
var smallTree = &WriteOptions{Workers: 2, params: &octreeParams{maxLeaf: 400, minChild: 20, minTotal: 100, cells: 16}, pageLevels: 2, pageMinNodes: 3}

// readLAS reads a shared LAS file, skipping when it is absent.
func readLAS(t testing.TB, rel string) *core.Cloud {
	t.Helper()
	path := filepath.Join("../../../../shared/data", rel)
	fh, err := os.Open(path)
	if err != nil {
		t.Skipf("%s not here (the shared test data): %v", path, err)
	}
	defer fh.Close()
	c, err := las.Decode(fh)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// randomCloud returns n points with GPS time, colour and two extra
// columns, from seed. The coordinates are those a LAS reader gives for
// scale 0.001 and offset (631000, 4833000, 0), so a writer can keep them
// exactly.
func randomCloud(n int, seed uint64) *core.Cloud {
	rng := rand.New(rand.NewPCG(seed, 11))
	c := core.New(n)
	gps, _ := c.AddAttr(core.DimGpsTime, core.Float64)
	red, _ := c.AddAttr(core.DimRed, core.Uint16)
	in, _ := c.AddAttr(core.DimIntensity, core.Uint16)
	cls, _ := c.AddAttr(core.DimClassification, core.Uint8)
	h, _ := c.AddAttr("HeightAboveGround", core.Float32)
	id, _ := c.AddAttr("TreeID", core.Int32)
	for i := range n {
		s := 300.0
		if i%4 == 0 {
			s = 5 // a dense cluster
		}
		c.X[i] = math.Round(rng.Float64()*s*1000)*0.001 + 631000
		c.Y[i] = math.Round(rng.Float64()*s*1000)*0.001 + 4833000
		c.Z[i] = math.Round((120+rng.Float64()*s/10)*1000) * 0.001
		gps.Data.([]float64)[i] = 3e8 + float64(i)*1e-4
		red.Data.([]uint16)[i] = uint16(rng.IntN(65536))
		in.Data.([]uint16)[i] = uint16(rng.IntN(4000))
		cls.Data.([]uint8)[i] = uint8(rng.IntN(20))
		h.Data.([]float32)[i] = rng.Float32() * 30
		id.Data.([]int32)[i] = int32(rng.IntN(1000)) - 500
	}
	return c
}

// pointKeys returns, for each point of c, its coordinates and the values
// of the named columns as one comparable string; absent columns count as
// zero, as a reader fills them.
func pointKeys(c *core.Cloud, names []string) []string {
	cols := make([]*core.Attribute, len(names))
	for k, n := range names {
		cols[k] = c.Attr(n)
	}
	out := make([]string, c.Len())
	var b []byte
	for i := range out {
		b = b[:0]
		for _, v := range [3]float64{c.X[i], c.Y[i], c.Z[i]} {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		for k, a := range cols {
			v := 0.0
			if a != nil {
				v = a.Float64(i)
			}
			if names[k] == core.DimScanAngleRank {
				// Formats 6-10 store the angle in steps of 0.006°, so a
				// whole-degree angle of formats 0-5 comes back as the
				// nearest step (-11° as -10.998°), in PDAL as here.
				v = math.Round(v / 0.006)
			}
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		out[i] = string(b)
	}
	return out
}

// sameMultiset fails unless got holds the points of want, in any order,
// with equal values in want's columns (and zero in got's others).
func sameMultiset(t *testing.T, what string, got, want *core.Cloud) {
	t.Helper()
	if got.Len() != want.Len() {
		t.Fatalf("%s: %d points, want %d", what, got.Len(), want.Len())
	}
	var names []string
	for _, a := range want.Attrs {
		names = append(names, a.Name)
	}
	for _, a := range got.Attrs {
		if !slices.Contains(names, a.Name) {
			names = append(names, a.Name)
		}
	}
	g, w := pointKeys(got, names), pointKeys(want, names)
	slices.Sort(g)
	slices.Sort(w)
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("%s: sorted point %d differs (columns X Y Z %v):\n got  %v\n want %v", what, i, names, decodeKey(g[i]), decodeKey(w[i]))
		}
	}
}

// decodeKey turns a key of pointKeys back into its values, for messages.
func decodeKey(k string) []float64 {
	out := make([]float64, len(k)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64([]byte(k[8*i:])))
	}
	return out
}

// writeCOPC writes c as COPC into a temporary file and opens it.
func writeCOPC(t *testing.T, c *core.Cloud, opt *WriteOptions) (string, *File) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, c, opt); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "out.copc.laz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return path, f
}

// writeCases are the clouds the writing tests write: real files (point
// formats 0 to 3, so 6 and 7 in COPC) and random clouds with extra columns.
func writeCases(t *testing.T) []struct {
	name  string
	cloud *core.Cloud
} {
	cases := []struct {
		name  string
		cloud *core.Cloud
	}{
		{"random", randomCloud(20000, 1)},
		{"random small", randomCloud(37, 2)},
	}
	for _, rel := range []string{"pdal/las/autzen_trim.las", "pdal/las/1.2-with-color.las", "las/haystack_rock.las", "pdal/las/extrabytes.las"} {
		if _, err := os.Stat(filepath.Join("../../../../shared/data", rel)); err == nil {
			cases = append(cases, struct {
				name  string
				cloud *core.Cloud
			}{rel, readLAS(t, rel)})
		}
	}
	return cases
}

func TestWriteReadBack(t *testing.T) {
	for _, tc := range writeCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			for _, opt := range []*WriteOptions{nil, smallTree} {
				_, f := writeCOPC(t, tc.cloud, opt)
				got, err := f.Read(nil, 2)
				if err != nil {
					t.Fatal(err)
				}
				sameMultiset(t, tc.name, got, tc.cloud)
				p, err := f.Plan(nil)
				if err != nil {
					t.Fatal(err)
				}
				if pf := f.Header.DataFormat(); pf < 6 || pf > 8 {
					t.Errorf("point format %d", pf)
				}
				if got, want := p.Points(), int64(tc.cloud.Len()); got != want || int64(f.Header.PointCount()) != want {
					t.Errorf("hierarchy holds %d points, header %d, want %d", got, f.Header.PointCount(), want)
				}
				depth := int32(0)
				for _, e := range p.Nodes {
					depth = max(depth, e.Key.Level)
				}
				t.Logf("%d points: %d nodes, %d pages, depth %d", tc.cloud.Len(), len(p.Nodes), p.Pages, depth)
			}
		})
	}
}

// TestWrittenFilesPassCopcJS writes real and random clouds and reads them
// with copc.js: every hierarchy page walked, every node decoded by
// laz-perf; each node's points must lie in its cube, and the records of
// all nodes together must be the source's points.
func TestWrittenFilesPassCopcJS(t *testing.T) {
	type written struct {
		name  string
		src   *core.Cloud
		f     *File
		pages int
	}
	var files []string
	var ws []written
	for _, tc := range writeCases(t) {
		for i, opt := range []*WriteOptions{nil, smallTree} {
			path, f := writeCOPC(t, tc.cloud, opt)
			p, err := f.Plan(nil)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, path)
			ws = append(ws, written{fmt.Sprintf("%s/%d", tc.name, i), tc.cloud, f, p.Pages})
		}
	}
	peer := runCopcJS(t, files...)
	for i, w := range ws {
		js := peer[files[i]]
		if js.Pages != w.pages {
			t.Errorf("%s: copc.js walked %d hierarchy pages, pctk wrote %d", w.name, js.Pages, w.pages)
		}
		rr, _, err := w.f.records()
		if err != nil {
			t.Fatal(err)
		}
		cube := core.Bounds{Min: [3]float64(js.Info.Cube[:3]), Max: [3]float64(js.Info.Cube[3:])}
		// laz-perf's records, decoded as plain LAS records.
		all := rr.NewCloud(0)
		for k, n := range js.Nodes {
			recs := js.records(t, k)
			c := rr.NewCloud(n.PointCount)
			if len(recs) != n.PointCount*rr.RecordLen() {
				t.Fatalf("%s: node %s: %d bytes for %d records", w.name, n.Key, len(recs), n.PointCount)
			}
			rr.Decode(c, 0, recs, n.PointCount)
			b := parseKey(t, n.Key).Bounds(cube)
			for p := range c.X {
				if q := [3]float64{c.X[p], c.Y[p], c.Z[p]}; !contains(b, q) {
					t.Fatalf("%s: node %s: point %v lies outside the node's cube %v", w.name, n.Key, q, b)
				}
			}
			if err := all.Append(c); err != nil {
				t.Fatal(err)
			}
		}
		sameMultiset(t, w.name, all, w.src)
		if got, want := js.Header.PointCount, int64(w.src.Len()); got != want {
			t.Errorf("%s: copc.js reads a point count of %d, want %d", w.name, got, want)
		}
	}
}

func TestWriteEmptyCloud(t *testing.T) {
	c := core.New(0)
	_, f := writeCOPC(t, c, nil)
	got, err := f.Read(nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != 0 {
		t.Errorf("%d points from an empty cloud", got.Len())
	}
	if _, err := f.Read(&pcio.Query{Levels: 1}, 1); err != nil {
		t.Error(err)
	}
}

func TestWriteRefusesWaveforms(t *testing.T) {
	c := randomCloud(10, 1)
	if _, err := c.AddAttr(las.DimWaveformDataOffset, core.Uint64); err != nil {
		t.Fatal(err)
	}
	err := Write(&bytes.Buffer{}, c, nil)
	if err == nil || !strings.Contains(err.Error(), "waveform") {
		t.Errorf("writing waveform fields: error %v, want one naming them", err)
	}
}
