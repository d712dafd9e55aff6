package peers

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPDALPipeline runs the shared PDAL build on a pipeline that writes a
// text file and reads the header line back.
func TestPDALPipeline(t *testing.T) {
	if err := Available(PDAL); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PDAL must run in CI: %v", err)
		}
		t.Skipf("PDAL not available: %v", err)
	}
	if v := Version(PDAL); v != "2.9.2" {
		t.Errorf("PDAL version %q, want 2.9.2", v)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	if _, err := PDALPipeline(dir,
		map[string]any{"type": "readers.faux", "count": 10, "mode": "constant", "bounds": "([1,1],[2,2],[3,3])"},
		map[string]any{"type": "writers.text", "filename": out}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data[:len(`"X","Y","Z"`)]), `"X","Y","Z"`; got != want {
		t.Errorf("PDAL's text header %q, want %q", got, want)
	}
}
