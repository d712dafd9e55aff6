package las

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

// TestPDALCorpus reads PDAL's LAS test files: each either reads with the
// stated count, version, format and CRS (and, for the deliberately broken
// ones, the stated warning), and round-trips its point records byte for
// byte.
func TestPDALCorpus(t *testing.T) {
	tests := []struct {
		file    string
		count   int
		version string
		format  int
		epsg    int
		warn    string // substring of the one expected warning, "" for none
	}{
		{"1.2-empty-geotiff-vlrs.las", 43, "1.2", 1, 0, ""},
		{"1.2-with-color-clipped.las", 1064, "1.2", 3, 0, ""},
		{"1.2-with-color.las", 1065, "1.2", 3, 0, ""},
		{"100-points.las", 100, "1.2", 3, 0, ""},
		{"4_6_crop.las", 23875, "1.2", 3, 2903, ""},
		{"autzen_trim.las", 110000, "1.2", 3, 0, ""},
		{"bad-geotiff-keys.las", 10, "1.0", 1, 32617, ""},
		{"bad_vlr_count.las", 10, "1.2", 3, 32617, "header promises 3 VLRs (byte offset 100) but only 2 fit"},
		{"epsg_4326.las", 5380, "1.2", 0, 4326, ""},
		{"extrabytes.las", 1065, "1.4", 3, 0, ""},
		{"garbage_nVariableLength.las", 718, "1.2", 0, 0, "header promises 1069128089 VLRs (byte offset 100) but only 0 fit"},
		{"gps-time-nan.las", 1, "1.2", 1, 0, ""},
		{"hextest.las", 8, "1.2", 0, 0, ""},
		{"interesting.las", 1065, "1.2", 3, 0, ""},
		{"lots_of_vlr.las", 1, "1.1", 1, 0, ""},
		{"mvk-thin.las", 6280, "1.2", 1, 26995, ""},
		{"no-points.las", 0, "1.2", 3, 4269, ""},
		{"noise-clean.las", 1065, "1.2", 3, 0, ""},
		{"noise-dirty.las", 1065, "1.2", 3, 0, ""},
		{"prec3.las", 110, "1.2", 3, 0, ""},
		{"sample_c.las", 14408, "1.2", 3, 0, ""},
		{"sample_c_thin.las", 2732, "1.2", 3, 0, ""},
		{"sample_nc.las", 14408, "1.2", 3, 0, ""},
		{"simple.las", 1065, "1.2", 3, 0, ""},
		{"spec_3.las", 10, "1.2", 3, 32617, ""},
		{"spurious.las", 1065, "1.2", 3, 4326, ""},
		{"synthetic_test.las", 1, "1.2", 3, 0, ""},
		{"test1_4.las", 1000, "1.4", 6, 2903, ""},
		{"test_epsg_4047.las", 10, "1.2", 3, 4047, ""},
		{"test_epsg_4326.las", 10, "1.2", 3, 4326, ""},
		{"test_epsg_4326_axis.las", 10, "1.2", 3, 4326, ""},
		{"test_epsg_4326x3.las", 30, "1.2", 3, 4326, ""},
		{"test_utm16.las", 10, "1.2", 1, 26916, ""},
		{"test_utm17.las", 10, "1.2", 3, 32617, ""},
		{"utm15.las", 1, "1.2", 3, 26915, ""},
		{"utm17.las", 10, "1.2", 3, 32617, ""},
		{"warsaw_small.las", 3000, "1.2", 3, 0, ""},
		{"wontcompress3.las", 1000, "1.4", 6, 26919, ""},
		{"permutations/1.0_0.las", 1, "1.0", 0, 26915, ""},
		{"permutations/1.0_1.las", 1, "1.0", 1, 26915, ""},
		{"permutations/1.1_0.las", 1, "1.1", 0, 26915, ""},
		{"permutations/1.1_1.las", 1, "1.1", 1, 26915, ""},
		{"permutations/1.2-no-points.las", 0, "1.2", 3, 0, ""},
		{"permutations/1.2_0.las", 1, "1.2", 0, 26915, ""},
		{"permutations/1.2_1.las", 1, "1.2", 1, 26915, ""},
		{"permutations/1.2_2.las", 1, "1.2", 2, 26915, ""},
		{"permutations/1.2_3.las", 1, "1.2", 3, 26915, ""},
	}
	// The files cut short in their point data: an error, salvaged with
	// pcio.ReadOptions.Salvage (and then the count above) and this warning.
	short := map[string]string{
		"1.2-with-color-clipped.las":     "header promises 1065 points (number of point records, byte offset 107), 1064 present",
		"garbage_nVariableLength.las":    "header promises 719 points (number of point records, byte offset 107), 718 present",
		"permutations/1.2-no-points.las": "header promises 1065 points (number of point records, byte offset 107), 0 present",
	}
	dir := filepath.Join(sharedData, "pdal/las")
	files := sharedFiles(t, "pdal/las/*.las")
	more, _ := filepath.Glob(filepath.Join(dir, "permutations/*.las"))
	if got := len(files) + len(more); got != len(tests) {
		t.Errorf("got %d files in %s, the table covers %d: add the new ones", got, dir, len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			// Read through a plain reader, as from standard input, and
			// through a seeker; both must agree.
			var opt pcio.ReadOptions
			var salvaged []string
			if want, ok := short[tt.file]; ok {
				for _, r := range []io.Reader{bytes.NewBuffer(bytes.Clone(orig)), bytes.NewReader(orig)} {
					var se *codec.ShortError
					if _, err := Decode(r); !errors.As(err, &se) || !strings.Contains(err.Error(), want) {
						t.Fatalf("%T: got error %v, want a ShortError containing %q", r, err, want)
					}
				}
				opt = pcio.ReadOptions{Salvage: true, Warn: func(err error) { salvaged = append(salvaged, err.Error()) }}
			}
			c, err := Decode(bytes.NewBuffer(orig), opt)
			if err != nil {
				t.Fatalf("got error %v", err)
			}
			cs, err := Decode(bytes.NewReader(orig), opt)
			if err != nil {
				t.Fatalf("seeking reader: got error %v", err)
			}
			if want, ok := short[tt.file]; ok && (len(salvaged) != 2 || !strings.Contains(salvaged[0], want) || salvaged[1] != salvaged[0]) {
				t.Errorf("salvaged with warnings %q, want one per read containing %q", salvaged, want)
			}
			info := InfoOf(&c.Meta)
			if c.Len() != tt.count || cs.Len() != tt.count {
				t.Errorf("got %d points (%d with a seeker), want %d", c.Len(), cs.Len(), tt.count)
			}
			if v := info.Header.Version(); v != tt.version || info.Header.pointFormat() != tt.format {
				t.Errorf("got LAS %s format %d, want %s format %d", v, info.Header.pointFormat(), tt.version, tt.format)
			}
			if c.Meta.CRS.EPSG != tt.epsg {
				t.Errorf("got EPSG %d, want %d", c.Meta.CRS.EPSG, tt.epsg)
			}
			switch {
			case tt.warn == "" && len(info.Warnings) != 0:
				t.Errorf("got warnings %q, want none", info.Warnings)
			case tt.warn != "" && (len(info.Warnings) != 1 || !strings.Contains(info.Warnings[0], tt.warn)):
				t.Errorf("got warnings %q, want one containing %q", info.Warnings, tt.warn)
			}
			checkAgainstRaw(t, tt.file, c, orig)
			roundTrip(t, tt.file, c, orig)
		})
	}
}

// TestExtraBytesFile checks the typed columns of PDAL's extrabytes.las,
// whose extra fields repeat standard ones: Colors[3] is the RGB, Intensity
// (a uint32, renamed Intensity_ beside the standard one) the intensity,
// Time the whole seconds of GpsTime, Flags[2] the return numbers.
func TestExtraBytesFile(t *testing.T) {
	path := filepath.Join(sharedData, "pdal/las/extrabytes.las")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("%s absent: %v", path, err)
	}
	defer f.Close()
	c, err := Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	same := []struct {
		extra, std string
		typ        core.Type
	}{
		{"Colors[0]", core.DimRed, core.Uint16},
		{"Colors[1]", core.DimGreen, core.Uint16},
		{"Colors[2]", core.DimBlue, core.Uint16},
		{"Intensity_", core.DimIntensity, core.Uint32},
		{"Flags[0]", core.DimReturnNumber, core.Int8},
		{"Flags[1]", core.DimNumberOfReturns, core.Int8},
		{"Time", core.DimGpsTime, core.Uint64},
	}
	for _, s := range same {
		a, b := c.Attr(s.extra), c.Attr(s.std)
		if a == nil || a.Type != s.typ {
			t.Fatalf("column %s: got %+v, want type %v", s.extra, a, s.typ)
		}
		for i := range c.Len() {
			want := b.Float64(i)
			if s.std == core.DimGpsTime {
				want = float64(int64(want))
			}
			if a.Float64(i) != want {
				t.Fatalf("point %d: %s = %v, want %s = %v", i, s.extra, a.Float64(i), s.std, want)
			}
		}
	}
	for k := range 7 {
		if a := c.Attr("Reserved[" + string(rune('0'+k)) + "]"); a == nil || a.Type != core.Uint8 {
			t.Errorf("undocumented extra bytes: column Reserved[%d] is %+v, want uint8", k, a)
		}
	}
}
