package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchPDAL runs bench --pdal on the haystack sample with two
// stages, one that writes a dimension and one that thins, and checks the
// table: PDAL's and pctk's outputs compared (ClusterID equal, the voxel
// filter's points equal as sets) and both timed.
func TestBenchPDAL(t *testing.T) {
	needPDAL(t)
	t.Setenv("PCTK_TEST_MAIN", "1") // the bench runs this binary as pctk
	md := filepath.Join(t.TempDir(), "pdal.md")
	pctkRun(t, 0, "bench", "--pdal", "--repeat", "1", "--ops", "cluster,voxelcentroidnearestneighbor", "--markdown", md, sample)
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	table := string(data)
	for _, want := range []string{
		"| cluster | haystack_rock.las | 21932 |",
		"equal: ClusterID |",
		"| voxelcentroidnearestneighbor | haystack_rock.las | 21932 |",
		"points kept, as sets; equal: X, Y, Z,",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "DIFFER") || strings.Contains(table, "failed") {
		t.Errorf("outputs differ or a tool failed:\n%s", table)
	}
	pctkRun(t, 2, "bench", "--pdal", "--ops", "nosuchstage", sample)
	pctkRun(t, 2, "bench", "--pdal")
}
