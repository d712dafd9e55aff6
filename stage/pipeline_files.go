package stage

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Pipeline is a JSON pipeline parsed (ParsePipelineJSON): its readers'
// files, merged in order; its filters' words; its last writer's file; and
// the pipeline options that the readers' and that writer's PDAL options
// set; the writers before the last, if any, in Writes.
type Pipeline struct {
	Ins   []string
	Steps [][]string
	Out   string
	// Options are pipeline options (PipelineOptions) by flag name, as
	// text: "bounds" from readers.copc's bounds, "format" from
	// writers.las' compression, "las-scale" from its scale_x/y/z, ...
	Options map[string]string
	// Raster, when the last writer is a writers.gdal, holds its options
	// by RasterOptions name: Out is a GeoTIFF of the cloud, not a cloud.
	Raster map[string]string
	// Writes are the writers that pass the points on to further stages
	// (PDAL's writers do): each writes the cloud as the first After steps
	// leave it.
	Writes []PipelineWrite
}

// PipelineWrite is a writer in the middle of a pipeline.
type PipelineWrite struct {
	After   int
	File    string
	Options map[string]string // its own, as Pipeline.Options
	Raster  map[string]string // as Pipeline.Raster
}

// PipelineOptions are the options of pctk pipeline itself (besides --file).
func PipelineOptions() []*Option {
	opts := append([]*Option{FormatOption, BackendOption, SalvageOption, ForceOption, InPlaceOption, MaxMemoryOption, TmpdirOption}, QueryOptions...)
	return append(opts, LASOptions...)
}

// Values returns c with the pipeline's Options set over it.
func (p *Pipeline) Values(c Values) (Values, error) {
	s := NewSettings(PipelineOptions())
	for name, text := range p.Options {
		if err := s.Set(name, text); err != nil {
			return nil, err
		}
	}
	return layered{s, c}, nil
}

// layered is Values that takes an option from top where set there, else
// from base where set there, else top's default when top has the option
// (base may not: a pipeline step's stage options over pctk pipeline's).
type layered struct {
	top  *Settings
	base Values
}

func (l layered) pick(name string) Values {
	if l.top.IsSet(name) || !l.base.IsSet(name) && l.top.Option(name) != nil {
		return l.top
	}
	return l.base
}

func (l layered) Bool(name string) bool       { return l.pick(name).Bool(name) }
func (l layered) Int(name string) int         { return l.pick(name).Int(name) }
func (l layered) Uint64(name string) uint64   { return l.pick(name).Uint64(name) }
func (l layered) Float64(name string) float64 { return l.pick(name).Float64(name) }
func (l layered) String(name string) string   { return l.pick(name).String(name) }
func (l layered) IsSet(name string) bool      { return l.top.IsSet(name) || l.base.IsSet(name) }

// fileOptions are the PDAL options pctk maps for each reader and writer,
// besides filename (PDAL 2.9.2's io/LasWriter.cpp and io/CopcWriter.cpp
// for the writers).
var fileOptions = map[string][]string{
	"readers.las": {}, "readers.copc": {"bounds", "resolution"}, "readers.ply": {}, "readers.pcd": {}, "readers.text": {},
	"writers.las":  {"minor_version", "dataformat_id", "compression", "forward", "extra_dims", "scale_x", "scale_y", "scale_z", "offset_x", "offset_y", "offset_z"},
	"writers.copc": {"forward", "extra_dims", "scale_x", "scale_y", "scale_z", "offset_x", "offset_y", "offset_z"},
	"writers.ply":  {}, "writers.pcd": {}, "writers.text": {},
	"writers.gdal": nil, // gdalStage
}

// forwardFields are the names PDAL's writers.las forward option takes
// (LasWriter::fillForwardList).
var forwardFields = []string{"all", "header", "scale", "offset", "format", "vlr",
	"dataformat_id", "major_version", "minor_version", "filesource_id", "global_encoding", "project_id", "system_id", "software_id", "creation_doy", "creation_year",
	"scale_x", "scale_y", "scale_z", "offset_x", "offset_y", "offset_z"}

// pdalBoundsRE matches PDAL's bounds, ([xmin,xmax],[ymin,ymax]) with an
// optional [zmin,zmax].
var pdalBoundsRE = regexp.MustCompile(`^\s*\(\s*\[([^\]]*)\]\s*,\s*\[([^\]]*)\]\s*(?:,\s*\[([^\]]*)\]\s*)?\)\s*$`)

// fileStage reads a reader's or writer's JSON stage (typ "": a file alone,
// its kind from its place in the pipeline): its file name, and the
// pipeline options its PDAL options set (into opts). An option pctk does
// not map is an error naming it and those it maps, as PDAL refuses an
// option its stage lacks.
func fileStage(typ string, writer bool, kv object, opts map[string]string) (string, error) {
	known, ok := fileOptions[typ]
	if !ok && typ != "" {
		var names []string
		for n := range fileOptions {
			names = append(names, n)
		}
		slices.Sort(names)
		return "", fmt.Errorf("not a reader or writer pctk has (%s)", strings.Join(names, ", "))
	}
	name, ok := kv.get("filename")
	if !ok {
		return "", fmt.Errorf("no filename")
	}
	for _, e := range kv {
		if e.key == "type" || e.key == "filename" {
			continue
		}
		if !slices.Contains(known, e.key) {
			return "", fmt.Errorf("option %q is not one pctk maps (filename%s)", e.key, strings.Join(append([]string{""}, known...), ", "))
		}
		text, err := flagValue(e.key, e.value)
		if err != nil {
			return "", fmt.Errorf("option %q: %v", e.key, err)
		}
		switch e.key {
		case "bounds":
			m := pdalBoundsRE.FindStringSubmatch(text)
			if m == nil {
				return "", fmt.Errorf("bounds %q: want ([xmin,xmax],[ymin,ymax]) or ([xmin,xmax],[ymin,ymax],[zmin,zmax])", text)
			}
			x, y := strings.Split(m[1], ","), strings.Split(m[2], ",")
			if len(x) != 2 || len(y) != 2 {
				return "", fmt.Errorf("bounds %q: each [ ] holds a minimum and a maximum", text)
			}
			box := []string{x[0], y[0], x[1], y[1]}
			if m[3] != "" {
				z := strings.Split(m[3], ",")
				if len(z) != 2 {
					return "", fmt.Errorf("bounds %q: each [ ] holds a minimum and a maximum", text)
				}
				box = append(box, z...)
			}
			for i := range box {
				box[i] = strings.TrimSpace(box[i])
			}
			opts["bounds"] = strings.Join(box, ",")
		case "forward":
			// pctk forwards the input's header (scale and offset where the
			// points fit them, version, point format, identity fields,
			// VLRs) whether asked or not; an option given wins, as in PDAL.
			for _, f := range strings.Split(text, ",") {
				if !slices.Contains(forwardFields, strings.TrimSpace(f)) {
					return "", fmt.Errorf("forward %q: not a field PDAL forwards (%s)", f, strings.Join(forwardFields, ", "))
				}
			}
		case "resolution":
			opts["resolution"] = text
		case "minor_version":
			if !slices.Contains([]string{"0", "1", "2", "3", "4"}, text) {
				return "", fmt.Errorf("minor_version %s: LAS 1.0 to 1.4", text)
			}
			opts[LASVersionOption.Name] = "1." + text
		case "dataformat_id":
			opts[PointFormatOption.Name] = text
		case "extra_dims":
			opts[ExtraDimsOption.Name] = text
		case "scale_x", "scale_y", "scale_z", "offset_x", "offset_y", "offset_z":
			opts[e.key] = text
		case "compression":
			switch strings.ToLower(text) {
			case "laszip", "lazperf", "true":
				opts["compress"] = "laz"
			case "none", "false":
				opts["compress"] = "las"
			default:
				return "", fmt.Errorf("compression %q: want laszip, lazperf, true, none or false", text)
			}
		}
	}
	return name, nil
}

// writerOptions sets a writer's pipeline options from the PDAL options
// fileStage kept in opts: --format from compression (a file named .laz is
// compressed whatever compression says, as PDAL's writers.las does),
// --las-scale and --las-offset from scale_x/y/z and offset_x/y/z.
func writerOptions(opts map[string]string, file string) {
	f := opts["compress"]
	delete(opts, "compress")
	if lower := strings.ToLower(file); f != "" && strings.HasSuffix(lower, ".laz") && !strings.HasSuffix(lower, ".copc.laz") {
		f = "laz"
	}
	if f != "" {
		opts[FormatOption.Name] = f
	}
	for _, v := range []struct{ opt, pdal string }{{LASScaleOption.Name, "scale_"}, {LASOffsetOption.Name, "offset_"}} {
		var xyz [3]string
		set := false
		for k, axis := range []string{"x", "y", "z"} {
			t, ok := opts[v.pdal+axis]
			xyz[k], set = t, set || ok
			delete(opts, v.pdal+axis)
		}
		if set {
			opts[v.opt] = strings.Join(xyz[:], ",")
		}
	}
}
