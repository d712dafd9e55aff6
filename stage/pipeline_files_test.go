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
		{`["a.las", {"type": "writers.las", "filename": "o.las", "minor_version": 4, "compression": "laszip"}]`, `[a.las] [] o.las map[format:laz-1.4]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "minor_version": "2"}]`, `[a.las] [] o.las map[format:las-1.2]`},
		{`["a.las", {"type": "writers.las", "filename": "o.laz", "compression": false}]`, `[a.las] [] o.laz map[format:las]`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "scale_x": 0.01}]`, `stage 2 (writers.las): option "scale_x" is not one pctk maps (filename, minor_version, compression, forward)`},
		{`["a.las", {"type": "writers.las", "filename": "o.las", "minor_version": 5}]`, `stage 2 (writers.las): minor_version 5: pctk writes LAS 1.2, 1.3 and 1.4`},
		{`[{"type": "readers.las", "filename": "a.las", "bounds": "([1,2],[3,4])"}, "o.las"]`, `stage 1 (readers.las): option "bounds" is not one pctk maps (filename)`},
		{`[{"type": "readers.copc", "filename": "a.las", "bounds": "(1,2,3,4)"}, "o.las"]`, `stage 1 (readers.copc): bounds "(1,2,3,4)": want ([xmin,xmax],[ymin,ymax]) or ([xmin,xmax],[ymin,ymax],[zmin,zmax])`},
		{`["a.las", {"type": "writers.gdal", "filename": "o.tif"}]`, `stage 2 (writers.gdal): not a reader or writer pctk has`},
		{`["a.las", {"type": "filters.nosuch"}, "o.las"]`, `stage 2 (filters.nosuch): not a stage pctk has`},
		{`[{"type": "filters.head"}, "a.las", "o.las"]`, `stage 1: a filter before any input`},
		{`["a.las", {"type": "filters.head"}, "b.las", {"type": "filters.head"}, "o.las"]`, `stage 4: filters stand between the inputs and the output`},
		{`["a.las"]`, `want inputs, filters if any, and one output`},
	} {
		p, err := ParsePipelineJSON([]byte(c.json))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprint(p.Ins, " ", p.Steps, " ", p.Out, " ", p.Options)
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
