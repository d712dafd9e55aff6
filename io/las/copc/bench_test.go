package copc

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codectest"
	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/pcio"
)

// terrain returns n points of a rolling surface over a 1 km square, as an
// airborne LiDAR tile is (about n/10⁶ points per m²), with intensity,
// GPS time and colour, on a 1 cm grid.
func terrain(n int, seed uint64) *core.Cloud {
	rng := rand.New(rand.NewPCG(seed, 3))
	c := core.New(n)
	in, _ := c.AddAttr(core.DimIntensity, core.Uint16)
	gps, _ := c.AddAttr(core.DimGpsTime, core.Float64)
	red, _ := c.AddAttr(core.DimRed, core.Uint16)
	for i := range n {
		// Scan lines: points follow each other along x, as a scanner emits them.
		x := float64(i%4000)/4 + rng.Float64()*0.25
		y := float64(i/4000) * 1000 / float64(n/4000+1)
		z := 100 + 20*math.Sin(x/90)*math.Cos(y/70) + rng.Float64()*0.3
		c.X[i] = math.Round(x*100)*0.01 + 500000
		c.Y[i] = math.Round(y*100)*0.01 + 4000000
		c.Z[i] = math.Round(z*100) * 0.01
		in.Data.([]uint16)[i] = uint16(200 + rng.IntN(100))
		gps.Data.([]float64)[i] = 3e8 + float64(i)*1e-5
		red.Data.([]uint16)[i] = uint16(z * 500)
	}
	return c
}

// benchPoints is the size of the benchmark cloud.
const benchPoints = 1_000_000

// BenchmarkWrite measures writing COPC on 2 workers (octree, records,
// compression) next to writing the same cloud as plain LAZ (io/las, 2
// cores), in one run; points/s is the figure docs/benchmarks.md reports.
func BenchmarkWrite(b *testing.B) {
	c := terrain(benchPoints, 1)
	lazFormat, _, err := pcio.Lookup("laz")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		write func(w *bytes.Buffer) error
	}{
		{"copc", func(w *bytes.Buffer) error { return Write(w, c, &WriteOptions{Workers: 2}) }},
		{"laz", func(w *bytes.Buffer) error { return lazFormat.Encode(w, c, "") }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := tc.write(&buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.Len())*float64(b.N)/b.Elapsed().Seconds(), "points/s")
			b.ReportMetric(float64(buf.Len())/float64(c.Len()), "bytes/point")
		})
	}
}

// BenchmarkQuery reads a written COPC file whole and through a box of
// 0.1% of its area (about 32 m square of the 1 km tile) and down to level
// 1, on 2 workers, and reports the points returned and the bytes read.
func BenchmarkQuery(b *testing.B) {
	c := terrain(benchPoints, 1)
	var buf bytes.Buffer
	if err := Write(&buf, c, &WriteOptions{Workers: 2}); err != nil {
		b.Fatal(err)
	}
	bc, _ := c.Bounds()
	w := bc.Max[0] - bc.Min[0]
	box := pcio.UnboundedZ(bc.Min[0]+0.4*w, bc.Min[1]+0.4*w, bc.Min[0]+0.4316*w, bc.Min[1]+0.4316*w)
	for _, tc := range []struct {
		name string
		q    *pcio.Query
	}{
		{"full", nil},
		{"box0.1%", &pcio.Query{Bounds: &box}},
		{"level1", &pcio.Query{Levels: 2}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var n int
			var read int64
			for b.Loop() {
				cr := &countingReader{r: bytes.NewReader(buf.Bytes())}
				f, err := Open(cr, int64(buf.Len()))
				if err != nil {
					b.Fatal(err)
				}
				got, err := f.Read(tc.q, 2)
				if err != nil {
					b.Fatal(err)
				}
				n, read = got.Len(), cr.bytes.Load()
			}
			b.ReportMetric(float64(n), "points")
			b.ReportMetric(float64(read), "bytes-read")
			b.ReportMetric(float64(buf.Len()), "file-bytes")
		})
	}
	// The same file read as plain LAZ by io/las, as commands read it
	// without a query.
	b.Run("full-as-laz", func(b *testing.B) {
		var n int
		for b.Loop() {
			got, err := las.Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				b.Fatal(err)
			}
			n = got.Len()
		}
		b.ReportMetric(float64(n), "points")
	})
	// The peer: copc.js 0.0.8 (laz-perf 0.0.7, WASM) decoding every node of
	// the same file from memory, timed inside node (start-up excluded).
	b.Run("copcjs-full", func(b *testing.B) {
		node := codectest.NodePeer(b, conformanceDir, ".ci/deps/npm-copc.sh", "copc")
		path := filepath.Join(b.TempDir(), "bench.copc.laz")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		var res struct {
			Points int     `json:"points"`
			MS     float64 `json:"ms"`
		}
		for b.Loop() {
			cmd := exec.Command(node, "bench.mjs", path, "3")
			cmd.Dir = conformanceDir
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("bench.mjs: %v", err)
			}
			if err := json.Unmarshal(out, &res); err != nil {
				b.Fatalf("bench.mjs: %v: %s", err, out)
			}
		}
		b.ReportMetric(float64(res.Points), "points")
		b.ReportMetric(res.MS*1e6, "peer-ns/op")
	})
}
