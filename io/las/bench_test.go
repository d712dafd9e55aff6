package las

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pctk/pctk/core"
)

// benchPoints is the size of the benchmark file: a few million points, as
// one airborne LiDAR tile holds.
const benchPoints = 2_000_000

var (
	benchOnce  sync.Once
	benchCloud *core.Cloud
	benchFile  []byte
	benchSink  *core.Cloud
)

// benchData returns a LAS 1.2 point format 3 file of benchPoints points
// (seed 42) and the cloud it holds.
func benchData(b *testing.B) ([]byte, *core.Cloud) {
	benchOnce.Do(func() {
		c := randomCloud(b, 42, benchPoints, true, formatColumns(3))
		var buf bytes.Buffer
		if err := Encode(&buf, c, "1.2"); err != nil {
			b.Fatal(err)
		}
		benchFile = buf.Bytes()
		benchCloud, _ = Decode(bytes.NewReader(benchFile))
	})
	return benchFile, benchCloud
}

func reportPoints(b *testing.B, n int) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// BenchmarkDecode reads the whole file into one cloud.
func BenchmarkDecode(b *testing.B) {
	file, _ := benchData(b)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c, err := Decode(bytes.NewReader(file))
		if err != nil {
			b.Fatal(err)
		}
		benchSink = c
	}
	reportPoints(b, benchPoints)
}

// BenchmarkDecodeStream reads the file in chunks of 65,536 points, as a
// conversion of a file larger than memory does.
func BenchmarkDecodeStream(b *testing.B) {
	file, _ := benchData(b)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		d, err := NewDecoder(bytes.NewReader(file))
		if err != nil {
			b.Fatal(err)
		}
		for {
			c, err := d.Read(1 << 16)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			benchSink = c
		}
	}
	reportPoints(b, benchPoints)
}

// BenchmarkEncode writes the cloud read from the file (same scale and
// offset, so no scale search) to memory.
func BenchmarkEncode(b *testing.B) {
	file, c := benchData(b)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	var buf bytes.Buffer
	buf.Grow(len(file))
	b.ResetTimer()
	for range b.N {
		buf.Reset()
		if err := Encode(&buf, c, ""); err != nil {
			b.Fatal(err)
		}
	}
	reportPoints(b, benchPoints)
}

// BenchmarkPeerLoadersGL times @loaders.gl/las 4.4.5 (Node) parsing the
// same file, for a side-by-side ratio with BenchmarkDecode. Each iteration
// runs node once and reports the peer's own timing (warm, without Node's
// start-up) as peer-points/s; ns/op includes the start-up.
func BenchmarkPeerLoadersGL(b *testing.B) {
	file, _ := benchData(b)
	path := filepath.Join(b.TempDir(), "bench.las")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		b.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("node not found")
	}
	if _, err := os.Stat(filepath.Join(conformanceDir, "node_modules", "@loaders.gl", "las")); err != nil {
		b.Skip("@loaders.gl/las not installed; run .ci/deps/npm-las.sh")
	}
	b.SetBytes(int64(len(file)))
	var secs float64
	for range b.N {
		cmd := exec.Command(node, "bench.mjs", path, "3")
		cmd.Dir = conformanceDir
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("node bench.mjs: %v", err)
		}
		var r struct {
			Seconds float64 `json:"seconds"`
			Points  int     `json:"points"`
		}
		if err := json.Unmarshal(out, &r); err != nil || r.Points != benchPoints {
			b.Fatalf("node bench.mjs: %s (%v), want %d points", out, err, benchPoints)
		}
		secs += r.Seconds
	}
	b.ReportMetric(float64(benchPoints)*float64(b.N)/secs, "peer-points/s")
	b.ReportMetric(float64(len(file))*float64(b.N)/secs/1e6, "peer-MB/s")
}
