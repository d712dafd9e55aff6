package stage

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// TestPipelineFilesJSON checks readers (merged), translations and the
// reader and writer options pctk maps, and the errors that name an
// option or stage it does not.
func TestPipelineFilesJSON(t *testing.T) {
	for _, c := range []struct {
		json string
		want string // Ins Steps Out Options, or the error's text
	}{
		{`["a.las", "b.las", {"type": "filters.merge"}, "all.laz"]`, `[a.las b.las] [] all.laz map[]`},
		{`["a.las", "out.ply"]`, `[a.las] [] out.ply map[]`},
		{`[{"type": "readers.las", "filename": "a.las"}, "b.las", {"type": "filters.range", "limits": "Classification[2:2]"}, "g.las"]`,
			`[a.las b.las] [[range --limits Classification[2:2]]] g.las map[]`},
		{`[{"type": "readers.copc", "filename": "a.copc.laz", "bounds": "([1, 2],[3,4])", "resolution": 0.5}, "o.las"]`,
			`[a.copc.laz] [] o.las map[bounds:1,3,2,4 resolution:0.5]`},
		{`[{"type": "readers.copc", "filename": "a.copc.laz", "bounds": "([1,2],[3,4],[5,6])"}, "o.las"]`,
			`[a.copc.laz] [] o.las map[bounds:1,3,2,4,5,6]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "minor_version": 4, "compression": "laszip"}]`, `[a.las] [] o.las map[format:laz las-version:1.4]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "minor_version": "2"}]`, `[a.las] [] o.las map[las-version:1.2]`},
		// PDAL compresses a file named .laz whatever compression says.
		{`["a.las", {"type": "writers.las", "filename": "o.laz", "compression": false}]`, `[a.las] [] o.laz map[format:laz]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "compression": "none"}]`, `[a.las] [] o.las map[format:las]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "scale_x": 0.01}]`, `[a.las] [] o.las map[las-scale:0.01,,]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "scale_x": "auto", "scale_y": "auto", "scale_z": 0.001}]`, `[a.las] [] o.las map[las-scale:auto,auto,0.001]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "offset_x": 100, "offset_z": "auto"}]`, `[a.las] [] o.las map[las-offset:100,,auto]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "dataformat_id": 6, "minor_version": 4}]`, `[a.las] [] o.las map[las-version:1.4 point-format:6]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "minor_version": 0}]`, `[a.las] [] o.las map[las-version:1.0]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "extra_dims": "all"}]`, `[a.las] [] o.las map[extra-dims:all]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "extra_dims": ["ClusterID=int32", "Curvature=float"]}]`, `[a.las] [] o.las map[extra-dims:ClusterID=int32,Curvature=float]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "forward": "all"}]`, `[a.las] [] o.las map[]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "forward": "header,format"}]`, `[a.las] [] o.las map[]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "forward": "point_format_id"}]`, `stage 2 (writers.las): forward "point_format_id": not a field PDAL forwards`},
		{`["a.las", {"type": "writers.copc", "filename": "o.copc.laz", "scale_x": 0.001, "scale_y": 0.001, "scale_z": 0.001, "extra_dims": "all", "forward": "all"}]`, `[a.las] [] o.copc.laz map[extra-dims:all las-scale:0.001,0.001,0.001]`},
		{`["a.las", {"type": "writers.copc", "filename": "o.copc.laz", "minor_version": 4}]`, `stage 2 (writers.copc): option "minor_version" is not one pctk maps (filename, forward, extra_dims, scale_x`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "minor_version": 5}]`, `stage 2 (writers.las): minor_version 5: LAS 1.0 to 1.4`},
		{`[{"type": "readers.las", "filename": "a.las", "bounds": "([1,2],[3,4])"}, "o.las"]`, `stage 1 (readers.las): option "bounds" is not one pctk maps (filename)`},
		{`[{"type": "readers.copc", "filename": "a.las", "bounds": "(1,2,3,4)"}, "o.las"]`, `stage 1 (readers.copc): bounds "(1,2,3,4)": want ([xmin,xmax],[ymin,ymax]) or ([xmin,xmax],[ymin,ymax],[zmin,zmax])`},
		{`["a.las", {"type": "writers.gdal", "filename": "o.tif", "resolution": 2, "output_type": ["idw", "count"], "window_size": 3, "origin_x": 10.5, "origin_y": -2, "width": 7, "height": 3, "data_type": "float", "nodata": -1, "radius": 3, "power": 2, "dimension": "HeightAboveGround", "gdaldriver": "gtiff", "gdalopts": ["COMPRESS=DEFLATE", "TILED=YES"]}]`,
			`[a.las] [] o.tif map[] raster map[data-type:float deflate:true dimension:HeightAboveGround height:3 nodata:-1 origin-x:10.5 origin-y:-2 output-type:idw,count power:2 radius:3 resolution:2 width:7 window-size:3]`},
		{`["a.las", {"type": "writers.gdal", "filename": "o.tif", "resolution": 1}, {"type": "filters.head", "count": 5}, "o.las"]`, `[a.las] [[head --count 5]] o.las map[] [{0 o.tif map[] map[resolution:1]}]`},
		{`["a.las", {"type": "writers.gdal", "filename": "o.tif", "bounds": "([10, 20.5],[-3,4])", "resolution": 2}]`,
			`[a.las] [] o.tif map[] raster map[height:4 origin-x:10 origin-y:-3 resolution:2 width:6]`},
		{`["a.las", {"type": "writers.gdal", "filename": "o.tif", "bounds": "([10, 20.5],[-3,4])", "resolution": 2, "width": 3}]`, `stage 2 (writers.gdal): give bounds or origin_x, origin_y, width and height, not both`},
		{`["a.las", {"type": "writers.gdal", "filename": "o.tif", "bounds": "([10, 2],[-3,4])", "resolution": 2}]`, `stage 2 (writers.gdal): bounds "([10, 2],[-3,4])": want ([xmin,xmax],[ymin,ymax]) with min ≤ max`},
		{`["a.las", {"type": "writers.gdal", "filename": "o.tif", "resolution": 1, "binmode": true}]`, `stage 2 (writers.gdal): option "binmode" is not one pctk maps (filename, bounds, gdaldriver, gdalopts, data_type, dimension, height, nodata, origin_x, origin_y, output_type, power, radius, resolution, width, window_size)`},
		{`["a.las", {"type": "writers.gdal", "filename": "o.tif", "resolution": 1, "window-size": 2}]`, `stage 2 (writers.gdal): option "window-size" is not one pctk maps`},
		{`["a.las", {"type": "writers.gdal", "filename": "o.tif", "gdaldriver": "PNG"}]`, `stage 2 (writers.gdal): gdaldriver "PNG": pctk writes GTiff only`},
		{`["a.las", {"type": "writers.gdal", "filename": "o.tif", "gdalopts": "COMPRESS=LZW"}]`, `stage 2 (writers.gdal): gdalopts "COMPRESS=LZW": pctk maps COMPRESS=DEFLATE, COMPRESS=NONE and TILED=YES`},
		{`["a.las", {"type": "writers.nosuch", "filename": "o.tif"}]`, `stage 2 (writers.nosuch): not a reader or writer pctk has (readers.copc, readers.las, readers.pcd, readers.ply, readers.text, writers.copc, writers.gdal, writers.las`},
		{`["a.las", {"type": "filters.nosuch"}, "o.las"]`, `stage 2 (filters.nosuch): not a stage pctk has`},
		{`[{"type": "filters.head"}, "a.las", "o.las"]`, `stage 1 (filters.head): a filter or writer before any input`},
		{`["a.las", {"type": "filters.head"}, "b.las", {"type": "filters.head"}, "o.las"]`, `stage 4 (filters.head) merges the points of stage 2 (filters.head), stage 3: pctk merges readers only`},
		// tag and inputs: PDAL's graph, where it is one chain.
		{`[{"type": "readers.las", "filename": "a.las", "tag": "A"}, {"type": "readers.las", "filename": "b.las", "tag": "B"}, {"type": "filters.merge", "inputs": ["B", "A"]}, "o.las"]`, `[b.las a.las] [] o.las map[]`},
		{`[{"type": "readers.las", "filename": "a.las", "tag": "A"}, {"type": "filters.head", "count": 5, "inputs": "A", "tag": "h"}, {"type": "writers.las", "filename": "o.las", "inputs": ["h"]}]`, `[a.las] [[head --count 5]] o.las map[]`},
		{`["a.las", {"type": "writers.las", "filename": "w.las", "scale_x": 0.5}, {"type": "filters.head", "count": 5}, "o.laz"]`, `[a.las] [[head --count 5]] o.laz map[] [{0 w.las map[las-scale:0.5,,] map[]}]`},
		{`[{"type": "readers.las", "filename": "a.las", "tag": "r"}, {"type": "writers.las", "filename": "w1.las", "inputs": ["r"]}, {"type": "writers.las", "filename": "w2.las", "inputs": ["r"]}]`, `the stages stage 2 (writers.las), stage 3 (writers.las) each end a branch`},
		{`[{"type": "readers.las", "filename": "a.las", "tag": "r"}, {"type": "filters.head", "count": 5, "tag": "h"}, {"type": "filters.merge", "inputs": ["h", "r"]}, "o.las"]`, `stage 3 (filters.merge) merges the points of stage 2 (filters.head), stage 1 (readers.las): pctk merges readers only`},
		{`[{"type": "readers.las", "filename": "a.las", "tag": "r"}, {"type": "filters.head", "inputs": "nosuch"}, "o.las"]`, `stage 2 (filters.head): inputs: no stage before it has tag "nosuch"`},
		{`[{"type": "readers.las", "filename": "a.las", "tag": "r"}, {"type": "readers.las", "filename": "b.las", "tag": "r"}, "o.las"]`, `stage 2 (readers.las): tag "r" given twice`},
		{`[{"type": "readers.las", "filename": "a.las", "tag": "1r"}, "o.las"]`, `stage 1 (readers.las): tag "1r": want a name`},
		{`[{"type": "readers.las", "filename": "a.las", "tag": "r"}, {"type": "readers.las", "filename": "b.las", "inputs": "r"}, "o.las"]`, `stage 2 (readers.las): a reader takes no inputs`},
		{`["a.las"]`, `want inputs, filters if any, and one output`},
	} {
		p, err := ParsePipelineJSON([]byte(c.json))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprint(p.Ins, " ", p.Steps, " ", p.Out, " ", p.Options)
			if p.Raster != nil {
				got += fmt.Sprint(" raster ", p.Raster)
			}
			if p.Writes != nil {
				got += fmt.Sprint(" ", p.Writes)
			}
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.json, got, c.want)
		}
	}
}

// TestPipelineValues checks that a pipeline's options override the
// command's and leave the others to it.
func TestPipelineValues(t *testing.T) {
	base := NewSettings(PipelineOptions())
	if err := base.Set("format", "ply"); err != nil {
		t.Fatal(err)
	}
	if err := base.Set("level", "3"); err != nil {
		t.Fatal(err)
	}
	p := &Pipeline{Options: map[string]string{"format": "laz-1.4", "bounds": "1,2,3,4"}}
	v, err := p.Values(base)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{"format": v.String("format"), "bounds": v.String("bounds"), "level": fmt.Sprint(v.Int("level"))}
	if want := map[string]string{"format": "laz-1.4", "bounds": "1,2,3,4", "level": "3"}; !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if !v.IsSet("level") || v.IsSet("salvage") || v.Bool("salvage") {
		t.Errorf("IsSet(level) %v, IsSet(salvage) %v", v.IsSet("level"), v.IsSet("salvage"))
	}
}
