package algotest

import (
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/io/pcio"

	_ "github.com/pctk/pctk/io/las" // the scans' codecs
	_ "github.com/pctk/pctk/io/pcd"
)

// SharedData is ../shared/data, the real scans beside the repository, as
// seen from a package's folder algos/NAME, where its tests run.
const SharedData = "../../../shared/data"

// Scan reads the scan rel of the shared data ("pcd/bun0.pcd") and returns
// its coordinates as float32 relative to its centre (core.Cloud.Local), or
// skips t when the folder is absent (it is not part of a clone).
func Scan(t testing.TB, rel string) []float32 {
	t.Helper()
	_, l, _ := SharedCloud(t, rel)
	return l.XYZ
}

// SharedCloud reads the cloud rel of ../shared/data, found upwards from
// the test's folder (peers.SharedData), or skips t when it is absent. It
// returns the cloud, its float32 view around its centre and its float64
// coordinates relative to the same origin (the Pos of the algorithms that
// compute in float64 as PDAL does).
func SharedCloud(t testing.TB, rel string) (*core.Cloud, core.Local, []float64) {
	t.Helper()
	path, err := peers.SharedData(rel)
	if err != nil {
		t.Skipf("%v (the shared data folder is not part of a fresh clone)", err)
	}
	c, _, err := pcio.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l := c.Local(false)
	return c, l, c.Relative(l.Origin)
}
