package algotest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/io/pcio"

	_ "github.com/pctk/pctk/io/las" // the scans' codecs
	_ "github.com/pctk/pctk/io/pcd"
)

// SharedData is ../shared/data, the real scans beside the repository, as
// seen from a package's folder algos/NAME, where its tests run.
const SharedData = "../../../shared/data"

// Scan reads the scan rel of SharedData ("pcd/bun0.pcd") and returns its
// coordinates as float32 relative to its centre (core.Cloud.Local), or
// skips t when the folder is absent (it is not part of a clone).
func Scan(t testing.TB, rel string) []float32 {
	t.Helper()
	path := filepath.Join(SharedData, rel)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s absent (the shared data folder is not part of a fresh clone): %v", path, err)
	}
	c, _, err := pcio.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return c.Local(false).XYZ
}
