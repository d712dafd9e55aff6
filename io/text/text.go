// Package text reads and writes point clouds as delimited text, one point
// a line: the .xyz, .txt, .asc, .pts and .csv files that CloudCompare,
// scanner software, PDAL's writers.text, numpy.savetxt and spreadsheets
// produce.
//
// Reading follows PDAL's readers.text and CloudCompare's ASCII filter: the
// separator is detected (';', else ',', else runs of blanks: spaces and
// tabs); an optional header line names the columns (X Y Z, Intensity, R G B
// or Red Green Blue, Nx Ny Nz, Classification, any other name kept as it
// is; CloudCompare's "//X,Y,Z" and PDAL's quoted "X","Y","Z" forms too); a
// line holding a single integer is a point count, as in Leica's .pts and
// CloudCompare's -ADD_PTS_COUNT; lines starting with '#' are comments, and
// numpy.savetxt's "# x y z" header comment names the columns when no other
// header does. Without a header, Options.Columns names the columns;
// failing that, 3 columns are X Y Z, 4 add Intensity, 7 are .pts's X Y Z
// Intensity Red Green Blue, and other counts name the columns after Z
// Column4, Column5 and so on. Every value is read as a float64, as PDAL
// does, unless Options.Columns gives a type ("red:uint8"): exact, since a
// float64 holds every decimal integer of a point cloud and a written float
// reads back to the same bits.
//
// Writing puts '#' comment lines (the cloud's comments and its CRS), a
// header line naming every column with PDAL's dimension names, the count
// line when the source had one, then one point a line: integers as
// integers, floats in the shortest form that reads back to the same
// float64 (a float32 attribute is written as the float64 of its value, so
// nothing is lost) or with Options.Precision decimals.
//
// Bodies are parsed and formatted on every core (see io/internal/codec).
// The package registers two formats with io/pcio: "text" (.xyz, .txt, .asc,
// .pts; written with spaces), recognised from its content when the input
// has no extension and no other format's magic bytes, and "csv" (.csv;
// written with commas).
package text

import (
	"io"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

const codecName = "text"

// FormatError reports a malformed text cloud, with the line and column of
// the bad value.
type FormatError = codec.FormatError

// Options are the reading and writing choices the file cannot tell.
type Options struct {
	// Columns names the columns when the file has no header line (or
	// overrides its names), in order: "x", "y", "z", "intensity". A name
	// may end with a type, "red:uint8", for a column that is not float64.
	Columns []string
	// Precision, when positive, writes floating-point values with that
	// many decimals (fixed notation, as PDAL's writers.text precision and
	// CloudCompare's -PREC do); 0 writes the shortest form that reads back
	// to the same float64, bit for bit.
	Precision int
	// Delim is the separator written: ' ', '\t', ',' or ';'. 0 keeps the
	// source file's when the cloud was read from text, else the format's
	// (' ' for "text", ',' for "csv").
	Delim byte
}

// Header is what a text file's layout was, kept in Meta.Extra["text"] of a
// cloud read from text so that writing it again keeps its separator and
// its count line.
type Header struct {
	// Delim is the separator: 0 for runs of blanks, else ',' or ';'.
	Delim byte
	// Names are the column names as the file's header line (or the
	// defaults) gave them.
	Names []string
	// HeaderLine reports whether the file had a header line.
	HeaderLine bool
	// CountLine reports whether the file had a point count line.
	CountLine bool
}

// Format names: "text" writes blank-separated values, "csv" commas.
const (
	nameText = "text"
	nameCSV  = "csv"
)

func init() {
	pcio.Register(newFormat(nameText, Options{}))
	pcio.Register(newFormat(nameCSV, Options{}))
}

// newFormat returns the pcio.Format of the text codec called name, reading
// and writing with o.
func newFormat(name string, o Options) *pcio.Format {
	f := &pcio.Format{
		Name:       name,
		Extensions: []string{".xyz", ".txt", ".asc", ".pts"},
		Decode: func(r io.Reader, opts ...pcio.ReadOptions) (*core.Cloud, error) {
			return DecodeOptions(r, o, opts...)
		},
		NewDecoder: func(r io.Reader, opts ...pcio.ReadOptions) (pcio.Decoder, error) {
			return NewDecoder(r, o, opts...)
		},
		Describe: Describe,
	}
	def := byte(' ')
	if name == nameCSV {
		f.Extensions, def = []string{".csv"}, ','
	} else {
		f.Sniff = Sniff
	}
	f.Encode = func(w io.Writer, c *core.Cloud, variant string) error {
		return EncodeOptions(w, c, o, def)
	}
	f.NewEncoder = func(w io.Writer, h *pcio.Header, variant string) (pcio.Encoder, error) {
		return NewEncoder(w, h, o, def)
	}
	return f
}

// WithOptions returns f bound to o when f is one of this package's formats
// ("text", "csv"), else f itself: how a command passes --columns and
// --precision to whichever format a path turned out to be.
func WithOptions(f *pcio.Format, o Options) *pcio.Format {
	if !IsText(f) {
		return f
	}
	return newFormat(f.Name, o)
}

// IsText reports whether f is one of this package's formats.
func IsText(f *pcio.Format) bool { return f != nil && (f.Name == nameText || f.Name == nameCSV) }

// Describe lists the text layout facts of a cloud read from text.
func Describe(m *core.Metadata) []pcio.Fact {
	h, ok := m.Extra[codecName].(*Header)
	if !ok {
		return nil
	}
	delim := map[byte]string{0: "blanks", ',': "comma", ';': "semicolon"}[h.Delim]
	facts := []pcio.Fact{{Key: "separator", Value: delim}, {Key: "columns", Value: strings.Join(h.Names, " ")}}
	if !h.HeaderLine {
		facts = append(facts, pcio.Fact{Key: "header line", Value: "none (columns named by default or --columns)"})
	}
	if h.CountLine {
		facts = append(facts, pcio.Fact{Key: "count line", Value: "yes"})
	}
	return facts
}

// aliases maps lower-case column names of CloudCompare, PDAL, PLY and
// spreadsheet habits to PDAL's dimension names; "x", "y", "z" are the
// coordinates.
var aliases = func() map[string]string {
	m := map[string]string{
		"r": core.DimRed, "g": core.DimGreen, "b": core.DimBlue, "a": core.DimAlpha,
		"nx": core.DimNormalX, "ny": core.DimNormalY, "nz": core.DimNormalZ,
		"normal_x": core.DimNormalX, "normal_y": core.DimNormalY, "normal_z": core.DimNormalZ,
		"class": core.DimClassification, "gps_time": core.DimGpsTime, "time": core.DimGpsTime,
		"return_number": core.DimReturnNumber, "number_of_returns": core.DimNumberOfReturns,
		"point_source_id": core.DimPointSourceID, "user_data": core.DimUserData,
		"scan_angle": core.DimScanAngleRank, "nir": core.DimInfrared,
	}
	for _, d := range []string{core.DimX, core.DimY, core.DimZ, core.DimIntensity, core.DimReturnNumber,
		core.DimNumberOfReturns, core.DimScanDirectionFlag, core.DimEdgeOfFlightLine, core.DimClassification,
		core.DimSynthetic, core.DimKeyPoint, core.DimWithheld, core.DimOverlap, core.DimScanAngleRank,
		core.DimScanChannel, core.DimUserData, core.DimPointSourceID, core.DimGpsTime, core.DimRed,
		core.DimGreen, core.DimBlue, core.DimInfrared, core.DimAlpha, core.DimNormalX, core.DimNormalY,
		core.DimNormalZ, core.DimCurvature} {
		m[strings.ToLower(d)] = d
	}
	return m
}()

// dimName returns the PDAL name of a column named s in a file.
func dimName(s string) string {
	if d, ok := aliases[strings.ToLower(s)]; ok {
		return d
	}
	return s
}

// column is one column of a file: the attribute it fills (or the
// coordinate, 0-2) and its type.
type column struct {
	name  string // PDAL name
	t     core.Type
	coord int // 0, 1, 2 for X, Y, Z; -1 otherwise
}

// columns resolves names (each possibly "name:type") to columns; pos
// places errors.
func columns(names []string, pos codec.Pos) ([]column, error) {
	var out []column
	seen := map[string]bool{}
	for _, n := range names {
		name, ts, typed := strings.Cut(strings.TrimSpace(n), ":")
		c := column{name: dimName(name), t: core.Float64, coord: -1}
		if name == "" {
			return nil, errorf(pos, "empty column name in %q", strings.Join(names, ","))
		}
		if typed {
			t, err := core.ParseType(ts)
			if err != nil {
				return nil, errorf(pos, "column %s: unknown type %q (want int8 ... uint64, float32, float64)", name, ts)
			}
			c.t = t
		}
		switch c.name {
		case core.DimX, core.DimY, core.DimZ:
			c.coord = int(c.name[0] - 'X')
			if c.t != core.Float64 {
				return nil, errorf(pos, "column %s: coordinates are float64, not %v", name, c.t)
			}
		}
		if seen[c.name] {
			return nil, errorf(pos, "duplicate column %s", c.name)
		}
		seen[c.name] = true
		out = append(out, c)
	}
	for _, d := range []string{core.DimX, core.DimY, core.DimZ} {
		if !seen[d] {
			return nil, errorf(pos, "no %s column among %q", d, names)
		}
	}
	return out, nil
}

// defaultNames names n columns of a file with neither a header nor
// Options.Columns.
func defaultNames(n int) []string {
	switch n {
	case 4:
		return []string{"X", "Y", "Z", "Intensity"}
	case 7:
		return []string{"X", "Y", "Z", "Intensity", "Red", "Green", "Blue"}
	}
	names := []string{"X", "Y", "Z"}
	for i := 4; i <= n; i++ {
		names = append(names, "Column"+strconv.Itoa(i))
	}
	return names
}

// errorf is codec.Errorf for this codec.
func errorf(p codec.Pos, format string, args ...any) error {
	return codec.Errorf(codecName, p, format, args...)
}
