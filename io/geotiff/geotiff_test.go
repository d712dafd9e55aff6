package geotiff

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
)

// gdalRead prints, through GDAL's Python bindings, a GeoTIFF's size,
// geotransform, CRS (EPSG code and WKT), per band its nodata, description,
// overview sizes and values, and the COG validator's errors and warnings.
const gdalRead = `import sys, json
from osgeo import gdal, osr
from osgeo_utils.samples import validate_cloud_optimized_geotiff as cog
gdal.UseExceptions()
ds = gdal.Open(sys.argv[1])
srs = ds.GetSpatialRef()
out = {'size': [ds.RasterXSize, ds.RasterYSize], 'gt': list(ds.GetGeoTransform()),
       'epsg': int(srs.GetAuthorityCode(None) or 0) if srs else 0,
       'wkt': srs.ExportToWkt() if srs else '', 'bands': []}
for b in range(1, ds.RasterCount + 1):
    band = ds.GetRasterBand(b)
    ovr = [[band.GetOverview(i).XSize, band.GetOverview(i).YSize] for i in range(band.GetOverviewCount())]
    out['bands'].append({'nodata': band.GetNoDataValue(), 'name': band.GetDescription(),
        'overviews': ovr, 'values': [float(v) for row in band.ReadAsArray().tolist() for v in row]})
warnings, errors, _ = cog.validate(ds, full_check=True)
out['cog_errors'], out['cog_warnings'] = errors, warnings
print(json.dumps(out))
`

type gdalImage struct {
	Size  [2]int
	GT    [6]float64
	EPSG  int
	WKT   string
	Bands []struct {
		NoData    *float64
		Name      string
		Overviews [][2]int
		Values    []float64
	}
	CogErrors   []string `json:"cog_errors"`
	CogWarnings []string `json:"cog_warnings"`
}

func requireGDAL(t *testing.T) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "from osgeo import gdal; import numpy").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("GDAL's Python bindings (.ci/deps/debian-gdal.sh): %v", err)
		}
		t.Skipf("GDAL's Python bindings missing (.ci/deps/debian-gdal.sh): %v", err)
	}
}

func readBack(t *testing.T, path string) gdalImage {
	t.Helper()
	out, err := exec.Command("/usr/bin/python3", "-c", gdalRead, path).CombinedOutput()
	if err != nil {
		t.Fatalf("GDAL reading %s: %v: %s", path, err, out)
	}
	var g gdalImage
	if err := json.Unmarshal(out, &g); err != nil {
		t.Fatalf("GDAL's output: %v: %s", err, out)
	}
	return g
}

func ptr[T any](v T) *T { return &v }

func randomImage(seed uint64, w, h, nb int) *Image {
	r := rand.New(rand.NewPCG(seed, 3))
	img := &Image{Width: w, Height: h, GeoTransform: [6]float64{636000.5, 2.5, 0, 849500.25, 0, -2.5}}
	for range nb {
		d := make([]float64, w*h)
		for i := range d {
			d[i] = r.NormFloat64() * 100
			if r.IntN(10) == 0 {
				d[i] = -9999
			}
		}
		img.Bands = append(img.Bands, d)
	}
	return img
}

// TestGDALReadsBack writes images of several sizes, types, band counts
// and CRSs and reads them with GDAL: size, geotransform, CRS, nodata,
// band names, every value (float32 ones rounded as float32) and the COG
// validator's verdict (no errors, no warnings).
func TestGDALReadsBack(t *testing.T) {
	requireGDAL(t)
	const wkt = `PROJCS["NAD83 / Oregon GIC Lambert (ft)",GEOGCS["NAD83",DATUM["North_American_Datum_1983",SPHEROID["GRS 1980",6378137,298.257222101]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic_2SP"],PARAMETER["latitude_of_origin",41.75],PARAMETER["central_meridian",-120.5],PARAMETER["standard_parallel_1",43],PARAMETER["standard_parallel_2",45.5],PARAMETER["false_easting",1312335.958],PARAMETER["false_northing",0],UNIT["foot",0.3048],AXIS["Easting",EAST],AXIS["Northing",NORTH]]`
	for _, tc := range []struct {
		name      string
		img       *Image
		opts      Options
		epsg      int
		wktHas    string
		overviews [][2]int
	}{
		{"one band float64 EPSG:2992", withCRS(randomImage(1, 300, 200, 1), core.CRS{EPSG: 2992}), Options{}, 2992, "Oregon", [][2]int{{150, 100}}},
		{"six bands float32 deflate", withCRS(randomImage(2, 530, 270, 6), core.CRS{EPSG: 4326}), Options{Type: Float32, Deflate: true}, 4326, "WGS 84", [][2]int{{265, 135}, {133, 68}}},
		{"WKT only, tiles of 64", withCRS(randomImage(3, 100, 90, 2), core.CRS{WKT: wkt}), Options{TileSize: 64}, 0, "Oregon GIC Lambert", [][2]int{{50, 45}}},
		{"LAS GeoKeys", withCRS(randomImage(4, 40, 30, 1), core.CRS{GeoKeys: []uint16{1, 1, 0, 4, 1024, 0, 1, 1, 1025, 0, 1, 2, 1026, 34737, 10, 0, 3072, 0, 1, 32615}}), Options{}, 32615, "UTM zone 15N", nil},
		{"no CRS, no overviews", randomImage(5, 600, 20, 1), Options{NoOverviews: true}, 0, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := tc.img
			img.NoData = ptr(-9999.0)
			for b := range img.Bands {
				img.Names = append(img.Names, []string{"min", "max", "mean", "idw", "count", "stdev"}[b])
			}
			path := filepath.Join(t.TempDir(), "out.tif")
			if err := WriteFile(path, img, tc.opts); err != nil {
				t.Fatal(err)
			}
			g := readBack(t, path)
			if g.Size != [2]int{img.Width, img.Height} || g.GT != img.GeoTransform {
				t.Errorf("GDAL reads %v, geotransform %v; wrote %dx%d, %v", g.Size, g.GT, img.Width, img.Height, img.GeoTransform)
			}
			if g.EPSG != tc.epsg || !strings.Contains(g.WKT, tc.wktHas) || (tc.wktHas == "") != (g.WKT == "") {
				t.Errorf("GDAL reads EPSG %d, WKT %.80q; want EPSG %d and a WKT with %q", g.EPSG, g.WKT, tc.epsg, tc.wktHas)
			}
			if len(g.CogErrors) > 0 || len(g.CogWarnings) > 0 && !tc.opts.NoOverviews {
				t.Errorf("COG validator: errors %q, warnings %q", g.CogErrors, g.CogWarnings)
			}
			if len(g.Bands) != len(img.Bands) {
				t.Fatalf("GDAL reads %d bands, wrote %d", len(g.Bands), len(img.Bands))
			}
			for b, band := range g.Bands {
				if band.NoData == nil || *band.NoData != -9999 || band.Name != img.Names[b] {
					t.Errorf("band %d: nodata %v, name %q; wrote -9999, %q", b+1, band.NoData, band.Name, img.Names[b])
				}
				if !equalOverviews(band.Overviews, tc.overviews) {
					t.Errorf("band %d: overviews %v, want %v", b+1, band.Overviews, tc.overviews)
				}
				bad := 0
				for k, got := range band.Values {
					want := img.Bands[b][k]
					if tc.opts.Type == Float32 {
						want = float64(float32(want))
					}
					if got != want {
						if bad++; bad <= 3 {
							t.Errorf("band %d cell %d: GDAL reads %v, wrote %v", b+1, k, got, want)
						}
					}
				}
			}
		})
	}
}

func equalOverviews(a, b [][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func withCRS(img *Image, c core.CRS) *Image {
	img.CRS = c
	return img
}

// TestOverviewNearest checks the overviews' resampling on a 5×3 image:
// GDAL's nearest takes source cell floor((c+0.5)·ratio).
func TestOverviewNearest(t *testing.T) {
	src := &level{w: 5, h: 3, bands: [][]float64{{0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24}}}
	o := overview(src)
	// ratio 5/3 across (cells 0, 2, 4), 3/2 down (rows 0, 2).
	want := []float64{0, 2, 4, 20, 22, 24}
	if o.w != 3 || o.h != 2 || !equal(o.bands[0], want) {
		t.Errorf("overview %dx%d %v, want 3x2 %v", o.w, o.h, o.bands[0], want)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestValidate(t *testing.T) {
	good := func() *Image { return randomImage(1, 4, 3, 2) }
	for name, edit := range map[string]func(*Image){
		"empty":           func(i *Image) { i.Width = 0 },
		"short band":      func(i *Image) { i.Bands[1] = i.Bands[1][:5] },
		"no bands":        func(i *Image) { i.Bands = nil },
		"names":           func(i *Image) { i.Names = []string{"a"} },
		"rotated":         func(i *Image) { i.GeoTransform[2] = 0.1 },
		"south up":        func(i *Image) { i.GeoTransform[5] = 1 },
		"nan origin":      func(i *Image) { i.GeoTransform[0] = math.NaN() },
		"infinite nodata": func(i *Image) { i.NoData = ptr(math.Inf(1)) },
	} {
		img := good()
		edit(img)
		if err := Write(&bytes.Buffer{}, img, Options{}); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	for _, o := range []Options{{TileSize: 20}, {TileSize: -16}, {Type: 7}} {
		if err := Write(&bytes.Buffer{}, good(), o); err == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
	if err := Write(&bytes.Buffer{}, good(), Options{}); err != nil {
		t.Error(err)
	}
}
