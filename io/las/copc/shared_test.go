package copc

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las"
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

// TestConvertedIsNotCOPC writes a COPC file's points as LAS and LAZ: the
// outputs must not carry the info VLR and hierarchy EVLR, which would
// describe an octree they no longer have, and must hold every point.
func TestConvertedIsNotCOPC(t *testing.T) {
	for _, path := range sharedFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := las.Decode(bytes.NewReader(src))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, enc := range []func(io.Writer, *core.Cloud, string) error{las.Encode, las.EncodeLAZ} {
			var buf bytes.Buffer
			if err := enc(&buf, c, ""); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if _, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len())); !errors.Is(err, ErrNotCOPC) {
				t.Errorf("%s written again: Open says %v, want ErrNotCOPC", filepath.Base(path), err)
			}
			back, err := las.Decode(bytes.NewReader(buf.Bytes()))
			if err != nil || back.Len() != c.Len() {
				t.Errorf("%s written again: %v, %d points; want %d", filepath.Base(path), err, back.Len(), c.Len())
			}
		}
	}
}
