package copc

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir is where the shared test data lives, relative to this package.
const sharedDir = "../../../../shared/data/pdal/copc"

// sharedFiles returns the COPC files of the shared data, skipping the
// test when the folder is absent (a fresh clone).
func sharedFiles(t testing.TB) []string {
	t.Helper()
	fs, _ := filepath.Glob(filepath.Join(sharedDir, "*.copc.laz"))
	if len(fs) == 0 {
		t.Skipf("no COPC files in %s (the shared test data is not here)", sharedDir)
	}
	return fs
}

// openShared opens a shared COPC file.
func openShared(t testing.TB, path string) (*File, *os.File) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fh.Close() })
	st, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(fh, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f, fh
}

func TestSharedHierarchyCountsEveryPoint(t *testing.T) {
	for _, path := range sharedFiles(t) {
		f, _ := openShared(t, path)
		p, err := f.Plan(nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		t.Logf("%s: info %+v, %d nodes, %d pages, %d points, count %d", filepath.Base(path), f.Info, len(p.Nodes), p.Pages, p.Points(), f.Header.PointCount())
		if got, want := p.Points(), int64(f.Header.PointCount()); got != want {
			t.Errorf("%s: hierarchy holds %d points, header says %d", path, got, want)
		}
	}
}
