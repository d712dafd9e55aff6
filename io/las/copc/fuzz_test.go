package copc

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// fuzzSeeds returns the shared COPC files and a small written one with a
// deep tree and a page per node.
func fuzzSeeds(t testing.TB) [][]byte {
	var out [][]byte
	fs, _ := filepath.Glob(filepath.Join(sharedDir, "*.copc.laz"))
	for _, p := range fs {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<16 {
			out = append(out, b)
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, randomCloud(300, 3), &WriteOptions{Workers: 1, params: &octreeParams{maxLeaf: 50, minChild: 5, minTotal: 20, cells: 4}, pageLevels: 1, pageMinNodes: 1}); err != nil {
		t.Fatal(err)
	}
	return append(out, buf.Bytes())
}

// readAny opens data as COPC and reads it whole and through a box; it
// fails t when more points come back than the hierarchy holds.
func readAny(t *testing.T, data []byte) {
	file, err := Open(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return
	}
	p, err := file.Plan(nil)
	if err != nil || p.Points() > 1<<16 {
		// A node may honestly claim up to laz.MaxPointsPerByte points per
		// compressed byte; decoding many garbage points only slows
		// the fuzzer.
		return
	}
	c, err := file.Read(nil, 1)
	if err == nil && int64(c.Len()) > p.Points() {
		t.Fatalf("%d points read, the hierarchy holds %d", c.Len(), p.Points())
	}
	box := core.Bounds{Min: file.Info.Center, Max: file.Cube().Max}
	_, _ = file.Read(&pcio.Query{Bounds: &box, Levels: 2}, 1)
}

// FuzzRead opens arbitrary bytes as COPC and reads them whole and through
// a box: no panic, and no more points than the hierarchy promises.
func FuzzRead(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(readAny)
}

// TestDamagedFiles reads the seeds with a few random bytes changed (seeded,
// reproducible): errors are fine, panics are not.
func TestDamagedFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 12))
	for _, seed := range fuzzSeeds(t) {
		for range 80 {
			data := bytes.Clone(seed)
			for range 1 + rng.IntN(4) {
				data[rng.IntN(len(data))] = byte(rng.IntN(256))
			}
			readAny(t, data)
		}
	}
}
