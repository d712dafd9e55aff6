package algotest

import (
	"testing"

	"github.com/pctk/pctk/io/pcio"

	_ "github.com/pctk/pctk/io/las" // the scans' codecs
	_ "github.com/pctk/pctk/io/pcd"
)

// SharedData is ../shared/data, the real scans beside the repository, as
// seen from a package's folder algos/NAME, where its tests run.
const SharedData = "../../../shared/data"

// Scan reads the scan rel of the shared data folder ("pcd/bun0.pcd",
// SharedFile) and returns its coordinates as float32 relative to its
// centre (core.Cloud.Local), or skips t when it is absent (it is not part
// of a clone).
func Scan(t testing.TB, rel string) []float32 {
	t.Helper()
	c, _, err := pcio.ReadFile(SharedFile(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return c.Local(false).XYZ
}
