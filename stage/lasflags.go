package stage

import (
	"cmp"
	"slices"
	"strings"

	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/las/copc"
	"github.com/pctk/pctk/io/pcio"
)

// The options of LAS, LAZ and COPC output (io/las WriteOptions, PDAL's
// writers.las scale_x/y/z, offset_x/y/z, dataformat_id, minor_version and
// extra_dims), on every command that writes a cloud and in pipeline JSON's
// writers. Left out, the writer keeps the source's header (docs/las.md).
var (
	LASScaleOption = &Option{Kind: String,
		Name:  "las-scale",
		Usage: "for LAS/LAZ/COPC output: the scale of X, Y and Z: one `VALUE` for all, three (x,y,z; one left empty keeps pctk's choice), or auto (PDAL's: the farther end of the points' range over the int32 range)",
	}
	LASOffsetOption = &Option{Kind: String,
		Name:  "las-offset",
		Usage: "for LAS/LAZ/COPC output: the offset of X, Y and Z: one `VALUE` for all, three (x,y,z; one left empty keeps pctk's choice), or auto (PDAL's: the middle of the points' range)",
	}
	PointFormatOption = &Option{Kind: Int,
		Name:        "point-format",
		Usage:       "for LAS/LAZ/COPC output: the `CODE` of the point data record format, 0-10 (COPC 6-8); the cloud's LAS fields it lacks are dropped, with a warning, unless --extra-dims keeps them",
		DefaultText: "the source's, else the smallest that holds the fields",
	}
	LASVersionOption = &Option{Kind: String,
		Name:        "las-version",
		Usage:       "for LAS/LAZ output: the LAS `VERSION`, 1.0 to 1.4; it must hold the point format",
		DefaultText: "the source's, else 1.2 (1.4 for fields that need it)",
	}
	ExtraDimsOption = &Option{Kind: String,
		Name:        "extra-dims",
		Usage:       "for LAS/LAZ/COPC output: the columns to write as Extra Bytes, PDAL's extra_dims: all, or `Name=type,...` (types uint8 ... int64, float, double); others are dropped, with a warning",
		DefaultText: "every column the point format lacks, but LAS fields --point-format drops",
	}
)

// LASOptions are the LAS output options, in the order help lists them.
var LASOptions = []*Option{LASScaleOption, LASOffsetOption, PointFormatOption, LASVersionOption, ExtraDimsOption}

// lasVersions are the versions --las-version takes.
var lasVersions = []string{"1.0", "1.1", "1.2", "1.3", "1.4"}

// lasOptions returns the LAS write options the LAS output options ask for
// (nil for none), and the name of the first one given ("" for none). A
// malformed value is a usage error.
func lasOptions(c Values) (*las.WriteOptions, string, error) {
	var o las.WriteOptions
	first := ""
	for _, opt := range LASOptions {
		if first == "" && c.IsSet(opt.Name) {
			first = opt.Name
		}
	}
	if first == "" {
		return nil, "", nil
	}
	var err error
	if o.Scale, err = las.ParseAxes(c.String(LASScaleOption.Name), true); err != nil {
		return nil, "", Usagef("--%s %v", LASScaleOption.Name, err)
	}
	if o.Offset, err = las.ParseAxes(c.String(LASOffsetOption.Name), false); err != nil {
		return nil, "", Usagef("--%s %v", LASOffsetOption.Name, err)
	}
	if c.IsSet(PointFormatOption.Name) {
		pf := c.Int(PointFormatOption.Name)
		if pf < 0 || pf > 10 {
			return nil, "", Usagef("--%s %d: LAS defines point formats 0 to 10", PointFormatOption.Name, pf)
		}
		o.PointFormat = &pf
	}
	if v := c.String(LASVersionOption.Name); c.IsSet(LASVersionOption.Name) {
		if !slices.Contains(lasVersions, v) {
			return nil, "", Usagef("--%s %q: want one of %s", LASVersionOption.Name, v, strings.Join(lasVersions, ", "))
		}
		o.Version = v
	}
	if s := c.String(ExtraDimsOption.Name); c.IsSet(ExtraDimsOption.Name) {
		if o.ExtraDims, o.AllExtra, err = las.ParseExtraDims(strings.Split(s, ",")); err != nil {
			return nil, "", Usagef("--%s: %v", ExtraDimsOption.Name, err)
		}
	}
	return &o, first, nil
}

// lasNeedsBounds reports whether a LAS scale or offset is "auto", which
// needs every point before the first is written (no streaming writer).
func lasNeedsBounds(c Values) bool {
	o, _, _ := lasOptions(c)
	return o.NeedsBounds()
}

// withLAS binds the LAS output options to f (variant is --format's) when f
// is LAS, LAZ or COPC; one given with another format, a version that
// contradicts --format's or one COPC cannot hold is a usage error.
func withLAS(c Values, f *pcio.Format, variant string) (*pcio.Format, error) {
	o, first, err := lasOptions(c)
	if err != nil || o == nil {
		return f, err
	}
	switch f.Name {
	case "las", "laz":
		if o.Version != "" && variant != "" && o.Version != variant {
			return nil, Usagef("--%s %s contradicts --format %s-%s", LASVersionOption.Name, o.Version, f.Name, variant)
		}
		v := cmp.Or(o.Version, variant)
		if pf := o.PointFormat; pf != nil && v != "" && las.MinVersion(*pf) > v {
			return nil, Usagef("--%s %d needs LAS %s or later, not %s", PointFormatOption.Name, *pf, las.MinVersion(*pf), v)
		}
		return las.WithOptions(f, o), nil
	case "copc":
		if o.Version != "" && o.Version != "1.4" {
			return nil, Usagef("--%s %s: COPC is LAS 1.4", LASVersionOption.Name, o.Version)
		}
		if pf := o.PointFormat; pf != nil && (*pf < 6 || *pf > 8) {
			return nil, Usagef("--%s %d: COPC holds point formats 6, 7 and 8", PointFormatOption.Name, *pf)
		}
		return copc.WithOptions(f, o), nil
	}
	return nil, Usagef("--%s applies to LAS, LAZ and COPC output, not %s", first, f.Name)
}

// OutputFormat returns the format and variant to write path in (--format,
// else path's extension, else from, the input's: pcio.OutputFormat), bound
// to the output options given (--precision for text, the LAS options for
// LAS, LAZ and COPC). Every error is a usage error.
func OutputFormat(c Values, path string, from *pcio.Format) (*pcio.Format, string, error) {
	f, variant, err := pcio.OutputFormat(path, c.String(FormatOption.Name), from)
	if err != nil {
		return nil, "", Usagef("%v", err)
	}
	if f, err = WithText(c, f, false); err != nil {
		return nil, "", err
	}
	if f, err = withLAS(c, f, variant); err != nil {
		return nil, "", err
	}
	return f, variant, nil
}
