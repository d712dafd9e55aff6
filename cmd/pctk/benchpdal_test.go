package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/internal/peers"
)

// TestBenchPDAL runs bench --pdal on the haystack sample with a stage
// that writes a dimension and two that thin, and checks the table: PDAL's
// and pctk's outputs compared (ClusterID equal, the voxel filters' points
// equal as sets, writers.gdal's rasters read by GDAL equal cell for
// cell) and both timed. voxelcenternearestneighbor at cell 1
// puts points exactly on voxel faces (z − minz = 1.0): PDAL's 19,741
// points come only from the absolute coordinates (LocalInput.Abs).
func TestBenchPDAL(t *testing.T) {
	needPDAL(t)
	t.Setenv("PCTK_TEST_MAIN", "1") // the bench runs this binary as pctk
	md := filepath.Join(t.TempDir(), "pdal.md")
	pctkRun(t, 0, "bench", "--pdal", "--repeat", "1", "--ops", "cluster,voxelcenternearestneighbor,voxelcentroidnearestneighbor,writers.gdal", "--markdown", md, sample)
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	table := string(data)
	for _, want := range []string{
		"| cluster | haystack_rock.las | 21932 |",
		"equal: ClusterID |",
		"| voxelcenternearestneighbor | haystack_rock.las | 21932 |",
		"| voxelcentroidnearestneighbor | haystack_rock.las | 21932 |",
		"19741 points kept, as sets; equal: X, Y, Z,",
		"| writers.gdal | haystack_rock.las | 21932 |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if want := "cells; equal: min, max, mean, idw, count, stdev |"; peers.Available(peers.GDAL) == nil && !strings.Contains(table, want) {
		t.Errorf("table lacks %q (GDAL reads both rasters):\n%s", want, table)
	}
	if strings.Contains(table, "DIFFER") || strings.Contains(table, "failed") {
		t.Errorf("outputs differ or a tool failed:\n%s", table)
	}
	pctkRun(t, 2, "bench", "--pdal", "--ops", "nosuchstage", sample)
	pctkRun(t, 2, "bench", "--pdal")
}
