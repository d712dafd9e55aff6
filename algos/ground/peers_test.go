package ground

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
	_ "github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/pcio"
)

// shared returns the path of rel in the first shared/data folder above
// the package's (../shared/data beside the repository, or the workspace's),
// or rel itself under ../../../shared/data when there is none (the tests
// then skip).
func shared(rel string) string {
	for up := "../../.."; len(up) < 40; up += "/.." {
		p := filepath.Join(up, "shared", "data", rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join("../../../shared/data", rel)
}

// sample is a LAS file read for a filter: its float32 local coordinates,
// their float64 twins relative to the same origin, and its attributes.
type sample struct {
	path  string
	cloud *core.Cloud
	xyz   []float32
	pos   []float64
	attrs Attrs
	// abs holds the absolute coordinates, interleaved.
	abs []float64
}

// readSample reads path, skipping t when it is absent.
func readSample(t testing.TB, path string) sample {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s absent (the shared data folder is not part of a fresh clone): %v", path, err)
	}
	c, _, err := pcio.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := cloudSample(c)
	s.path = path
	return s
}

// cloudSample prepares c for a filter as readSample does.
func cloudSample(c *core.Cloud) sample {
	l := c.Local(false)
	pos := make([]float64, 3*c.Len())
	for i := range c.Len() {
		pos[3*i] = c.X[i] - l.Origin[0]
		pos[3*i+1] = c.Y[i] - l.Origin[1]
		pos[3*i+2] = c.Z[i] - l.Origin[2]
	}
	abs := make([]float64, 3*c.Len())
	for i := range c.Len() {
		abs[3*i], abs[3*i+1], abs[3*i+2] = c.X[i], c.Y[i], c.Z[i]
	}
	return sample{cloud: c, xyz: l.XYZ, pos: pos, abs: abs, attrs: Attrs{
		Classification:  column(c, core.DimClassification),
		ReturnNumber:    column(c, core.DimReturnNumber),
		NumberOfReturns: column(c, core.DimNumberOfReturns),
	}}
}

// column returns the uint8 column name of c, nil when absent.
func column(c *core.Cloud, name string) []uint8 {
	a := c.Attr(name)
	if a == nil {
		return nil
	}
	out := make([]uint8, a.Len())
	for i := range out {
		out[i] = uint8(a.Uint64(i))
	}
	return out
}

// pdalClasses runs PDAL's stage on path and returns the Classification it
// writes, skipping t when PDAL cannot run here (failing it when CI=true).
func pdalClasses(t testing.TB, path string, stage map[string]any) []uint8 {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return pdalRead(t, map[string]any{"type": "readers.las", "filename": abs}, stage)
}

// pdalRead runs PDAL's stage on what reader reads and returns the
// Classification it writes, skipping t as pdalClasses does.
func pdalRead(t testing.TB, reader, stage map[string]any) []uint8 {
	t.Helper()
	if err := peers.Available(peers.PDAL); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PDAL 2.9.2 is required in CI: %v", err)
		}
		t.Skipf("PDAL 2.9.2 is not available here: %v", err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.las")
	if _, err := peers.PDALPipeline(dir,
		reader,
		stage,
		map[string]any{"type": "writers.las", "filename": out, "forward": "all"},
	); err != nil {
		t.Fatal(err)
	}
	c, _, err := pcio.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return column(c, core.DimClassification)
}
