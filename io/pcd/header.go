package pcd

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
)

// The DATA encodings of a PCD file.
const (
	ASCII      = "ascii"
	Binary     = "binary"
	Compressed = "binary_compressed"
)

// Header is what a PCD header says besides the points. A decoded cloud
// carries it in Meta.Extra["pcd"]; the encoder uses it to write the same
// fields, sizes, types, counts, organisation and viewpoint back. Header
// comments ("#" lines) live in Meta.Comments.
type Header struct {
	// Version is the VERSION line as read ("0.7", ".7", "0.6", ...); the
	// encoder always writes 0.7.
	Version string
	// Fields are the fields in file order.
	Fields []Field
	// Width and Height organise the points: Height > 1 for an organised
	// (image-like) cloud, Width*Height points in row-major order.
	Width, Height int64
	// Viewpoint is the acquisition viewpoint: translation tx ty tz and
	// quaternion qw qx qy qz.
	Viewpoint [7]float64
	// Data is ASCII, Binary or Compressed.
	Data string
}

// Field is one entry of FIELDS with its SIZE, TYPE and COUNT.
type Field struct {
	Name  string
	Size  int
	Type  byte // 'I', 'U' or 'F'
	Count int
	// Attrs are the cloud columns of the field's components: "X", "Y", "Z"
	// for coordinates, Name_0 ... Name_{Count-1} when Count > 1, and
	// Red, Green, Blue (and Alpha for rgba) for a packed colour field.
	Attrs []string
	// Pad is the high byte of a packed rgb, which PCL leaves unused (its
	// rgb has no alpha; rgba has): no column holds it, so that it does not
	// become an alpha in other formats. Reading sets it to the first
	// point's; writing a packed rgb without an Alpha column puts it in
	// every point, so a round trip is exact when the points agree (PCL
	// writes 0 or 255 in all of them), and otherwise keeps the first's.
	Pad uint8
}

// packed reports whether f is a packed colour (rgb or rgba, 4 bytes).
func (f Field) packed() bool {
	return len(f.Attrs) >= 3 && f.Count == 1
}

// storage returns the storage type of one component of f.
func (f Field) storage() core.Type {
	if f.packed() {
		return core.Uint32
	}
	return storageType(f.Type, f.Size)
}

// storageType maps TYPE and SIZE to a storage type (Invalid if none).
func storageType(t byte, size int) core.Type {
	switch {
	case t == 'I' && size == 1:
		return core.Int8
	case t == 'I' && size == 2:
		return core.Int16
	case t == 'I' && size == 4:
		return core.Int32
	case t == 'I' && size == 8:
		return core.Int64
	case t == 'U' && size == 1:
		return core.Uint8
	case t == 'U' && size == 2:
		return core.Uint16
	case t == 'U' && size == 4:
		return core.Uint32
	case t == 'U' && size == 8:
		return core.Uint64
	case t == 'F' && size == 4:
		return core.Float32
	case t == 'F' && size == 8:
		return core.Float64
	}
	return core.Invalid
}

// pcdType returns TYPE and SIZE for a storage type.
func pcdType(t core.Type) (byte, int) {
	switch {
	case t.IsFloat():
		return 'F', t.Size()
	case t.IsSigned():
		return 'I', t.Size()
	}
	return 'U', t.Size()
}

// toPDAL maps PCL's field names to PDAL's dimension names.
var toPDAL = map[string]string{
	"intensity": core.DimIntensity, "curvature": core.DimCurvature,
	"normal_x": core.DimNormalX, "normal_y": core.DimNormalY, "normal_z": core.DimNormalZ,
}

var fromPDAL = func() map[string]string {
	m := make(map[string]string, len(toPDAL))
	for k, v := range toPDAL {
		m[v] = k
	}
	return m
}()

var colour = []string{core.DimRed, core.DimGreen, core.DimBlue, core.DimAlpha}

// rowSize is the size of one point in bytes.
func (h *Header) rowSize() int64 {
	var n int64
	for _, f := range h.Fields {
		n += int64(f.Size) * int64(f.Count)
	}
	return n
}

// values is the number of values of one point.
func (h *Header) values() int64 {
	var n int64
	for _, f := range h.Fields {
		n += int64(f.Count)
	}
	return n
}

// maxFields bounds FIELDS and COUNT so that a header cannot make the
// reader allocate per-field state sized by an untrusted number.
const maxValues = 1 << 16

// readHeader reads the header through the DATA line; it returns the header,
// the comments and the point count.
func readHeader(r *codec.Reader) (*Header, []string, int64, error) {
	h := &Header{Width: -1, Height: -1, Viewpoint: [7]float64{3: 1}}
	var comments []string
	var sizes, counts []int
	var typ []byte
	points := int64(-1)
	seen := map[string]bool{}
	for {
		pos := r.Pos()
		line, err := r.ReadLine()
		if err != nil {
			return nil, nil, 0, codec.ReadErr(codecName, pos, err, "header ends before DATA")
		}
		if strings.HasPrefix(line, "#") {
			if pos.Line != 1 || !strings.HasPrefix(line, "# .PCD") {
				comments = append(comments, strings.TrimPrefix(strings.TrimPrefix(line, "#"), " "))
			}
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		key := strings.ToUpper(f[0])
		if seen[key] {
			return nil, nil, 0, codec.Errorf(codecName, pos, "%s given twice", key)
		}
		seen[key] = true
		args := f[1:]
		switch key {
		case "VERSION":
			if len(args) != 1 {
				return nil, nil, 0, codec.Errorf(codecName, pos, "bad VERSION line %.80q", line)
			}
			h.Version = args[0]
		case "FIELDS", "COLUMNS":
			if len(args) == 0 || len(args) > maxValues {
				return nil, nil, 0, codec.Errorf(codecName, pos, "FIELDS lists %d fields", len(args))
			}
			for i, a := range args {
				if slices.Contains(args[:i], a) {
					return nil, nil, 0, codec.Errorf(codecName, pos, "field %.40s given twice", a)
				}
				h.Fields = append(h.Fields, Field{Name: a, Size: 4, Type: 'F', Count: 1})
			}
		case "SIZE", "COUNT":
			v, err := ints(args, pos, key)
			if err != nil {
				return nil, nil, 0, err
			}
			if key == "SIZE" {
				sizes = v
			} else {
				counts = v
			}
		case "TYPE":
			for _, a := range args {
				if len(a) != 1 {
					return nil, nil, 0, codec.Errorf(codecName, pos, "bad TYPE %.20q", a)
				}
				typ = append(typ, a[0])
			}
		case "WIDTH", "HEIGHT", "POINTS":
			if len(args) != 1 {
				return nil, nil, 0, codec.Errorf(codecName, pos, "bad %s line %.80q", key, line)
			}
			n, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || n < 0 {
				return nil, nil, 0, codec.Errorf(codecName, pos, "bad %s %.40q", key, args[0])
			}
			switch key {
			case "WIDTH":
				h.Width = n
			case "HEIGHT":
				h.Height = n
			default:
				points = n
			}
		case "VIEWPOINT":
			if len(args) != 7 {
				return nil, nil, 0, codec.Errorf(codecName, pos, "VIEWPOINT has %d values, want 7", len(args))
			}
			for i, a := range args {
				v, err := strconv.ParseFloat(a, 64)
				if err != nil {
					return nil, nil, 0, codec.Errorf(codecName, pos, "bad VIEWPOINT value %.40q", a)
				}
				h.Viewpoint[i] = v
			}
		case "DATA":
			if len(args) != 1 {
				return nil, nil, 0, codec.Errorf(codecName, pos, "bad DATA line %.80q", line)
			}
			switch d := strings.ToLower(args[0]); d {
			case ASCII, Binary, Compressed:
				h.Data = d
			default:
				return nil, nil, 0, codec.Unsupportedf(codecName, pos, "DATA encoding %.40q", args[0])
			}
			n, err := h.finish(pos, sizes, typ, counts, points)
			return h, comments, n, err
		default:
			if pos.Line == 1 {
				return nil, nil, 0, codec.Errorf(codecName, pos, "not a PCD file: first line is %.40q", line)
			}
			return nil, nil, 0, codec.Errorf(codecName, pos, "unknown header line %.80q", line)
		}
	}
}

func ints(args []string, pos codec.Pos, key string) ([]int, error) {
	var v []int
	for _, a := range args {
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 || n > maxValues {
			return nil, codec.Errorf(codecName, pos, "bad %s value %.40q", key, a)
		}
		v = append(v, n)
	}
	return v, nil
}

// finish applies SIZE, TYPE and COUNT to the fields, checks the header's
// consistency and names the cloud columns. Missing SIZE, TYPE, COUNT,
// WIDTH, HEIGHT or POINTS default as in PCD 0.5/0.6 files.
func (h *Header) finish(pos codec.Pos, sizes []int, typ []byte, counts []int, points int64) (int64, error) {
	if len(h.Fields) == 0 {
		return 0, codec.Errorf(codecName, pos, "no FIELDS before DATA")
	}
	for _, l := range []struct {
		key string
		n   int
	}{{"SIZE", len(sizes)}, {"TYPE", len(typ)}, {"COUNT", len(counts)}} {
		if l.n != 0 && l.n != len(h.Fields) {
			return 0, codec.Errorf(codecName, pos, "%s has %d entries for %d fields", l.key, l.n, len(h.Fields))
		}
	}
	var total int64
	for i := range h.Fields {
		f := &h.Fields[i]
		if sizes != nil {
			f.Size = sizes[i]
		}
		if typ != nil {
			f.Type = typ[i]
		}
		if counts != nil {
			f.Count = counts[i]
		}
		if storageType(f.Type, f.Size) == core.Invalid {
			return 0, codec.Unsupportedf(codecName, pos, "field %s: TYPE %q with SIZE %d", f.Name, f.Type, f.Size)
		}
		if total += int64(f.Count); total > maxValues {
			return 0, codec.Errorf(codecName, pos, "more than %d values per point", maxValues)
		}
	}
	switch {
	case h.Width < 0 && points < 0:
		return 0, codec.Errorf(codecName, pos, "neither WIDTH nor POINTS given")
	case h.Width < 0:
		h.Width, h.Height = points, 1
	case h.Height < 0:
		h.Height = 1
	}
	if points < 0 {
		points = h.Width * h.Height
	}
	if h.Height != 0 && h.Width > (1<<62)/h.Height || h.Width*h.Height != points {
		return 0, codec.Errorf(codecName, pos, "WIDTH %d x HEIGHT %d is not POINTS %d", h.Width, h.Height, points)
	}
	if missing := h.nameAttrs(); points > 0 && missing != "" {
		return 0, codec.Errorf(codecName, pos, "no %s field: points need x and y (a missing z reads as 0)", missing)
	}
	return points, nil
}

// nameAttrs names the cloud column of every field component: x, y, z the
// coordinates, rgb/rgba four colour columns, PCL names PDAL's (a PDAL name
// another field already has is not used), and every name unique. It
// returns the plane coordinates no field gives ("y", "x, y"), or "": as in
// PLY (see missingCoords there), a point needs x and y, and reads z = 0
// without z.
func (h *Header) nameAttrs() string {
	fieldNames := map[string]bool{}
	for _, f := range h.Fields {
		fieldNames[f.Name] = true
	}
	used := map[string]bool{}
	unique := func(name string) string {
		base := name
		for k := 1; used[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		used[name] = true
		return name
	}
	coords := 0
	for i := range h.Fields {
		f := &h.Fields[i]
		var want []string
		lower := strings.ToLower(f.Name)
		switch {
		case f.Count == 1 && len(lower) == 1 && strings.Contains("xyz", lower) && coords&(1<<(lower[0]-'x')) == 0:
			coords |= 1 << (lower[0] - 'x')
			want = []string{strings.ToUpper(lower)}
		case f.Count == 1 && f.Size == 4 && f.Type != 'I' && f.Name == "rgba" && !anyIn(fieldNames, colour):
			want = colour
		case f.Count == 1 && f.Size == 4 && f.Type != 'I' && f.Name == "rgb" && !anyIn(fieldNames, colour):
			want = colour[:3]
		case f.Count == 1:
			name := f.Name
			if p, ok := toPDAL[name]; ok && !fieldNames[p] {
				name = p
			}
			want = []string{name}
		default:
			for k := range f.Count {
				want = append(want, f.Name+"_"+strconv.Itoa(k))
			}
		}
		f.Attrs = make([]string, len(want))
		for k, w := range want {
			f.Attrs[k] = unique(w)
		}
	}
	var missing []string
	for k, c := range []string{"x", "y"} {
		if coords&(1<<k) == 0 {
			missing = append(missing, c)
		}
	}
	return strings.Join(missing, ", ")
}

func anyIn(set map[string]bool, names []string) bool {
	for _, n := range names {
		if set[n] {
			return true
		}
	}
	return false
}
