package stage

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkt"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/planar"
	"github.com/pctk/pctk/core"
)

// The everyday selections, pointwise local stages of reach 0 (docs/select.md):
// PDAL's filters.range (filters/RangeFilter.cpp), filters.crop
// (filters/CropFilter.cpp: bounds and polygons), filters.head
// (filters/HeadFilter.cpp), filters.decimation (filters/DecimationFilter.cpp)
// and filters.assign (filters/AssignFilter.cpp).

func init() {
	Register(&Stage{
		Name: "range", PDAL: "filters.range", Tiled: true,
		Usage: "keep the points whose dimensions lie within limits (PDAL filters.range)",
		Description: `Keeps the points that pass --limits, PDAL's syntax: Name[lower:upper] with ( )
for exclusive bounds, a bound left out for none, Name![...] to negate, several
separated by commas: OR between limits of one dimension, AND across dimensions
("Classification[2:2],Z[0:100]"; "Classification![7:7]" drops low noise). NaN
passes no limit (and every negated one). docs/select.md.`,
		Examples: []string{"pctk range scan.las ground.las --limits 'Classification[2:2],Classification[6:6],Z[0:100]'"},
		Options:  []*Option{{Kind: String, Name: "limits", PDAL: "limits", Usage: "ranges `LIMITS`, as PDAL's filters.range (required)"}},
		Prepare: func(c Values) (*Job, error) {
			rs, err := ParseDimRanges(c.String("limits"))
			if err != nil || !c.IsSet("limits") {
				return nil, orUsage(err, "range: --limits is required")
			}
			set := newRangeSet(rs)
			return selection(set.dims, func(in *LocalInput, i int) bool { return set.passes(in.Values, i) }), nil
		},
	})
	Register(&Stage{
		Name: "crop", PDAL: "filters.crop", Tiled: true,
		Usage: "keep the points inside (or outside) a box or polygon (PDAL filters.crop)",
		Description: `Keeps the points inside --box, PDAL's "([xmin,xmax],[ymin,ymax])" or with a
third [zmin,zmax], edges included, or inside --polygon, WKT or GeoJSON (Polygon or
MultiPolygon, in the points' coordinates; the boundary counts as inside);
--outside keeps the others instead. docs/select.md.`,
		Examples: []string{"pctk crop scan.las part.las --polygon 'POLYGON ((0 -20, 40 -20, 20 20, 0 -20))'"},
		Options: []*Option{
			{Kind: String, Name: "box", PDAL: "bounds", Usage: "box `([xmin,xmax],[ymin,ymax])`, optionally [zmin,zmax] third (PDAL bounds)"},
			{Kind: String, Name: "polygon", PDAL: "polygon", Usage: "polygon or multipolygon `SHAPE` as WKT or GeoJSON"},
			{Kind: Bool, Name: "outside", PDAL: "outside", Usage: "keep the points outside instead"}},
		Prepare: func(c Values) (*Job, error) {
			in, reads, err := parseCrop(c.String("box"), c.String("polygon"))
			if err != nil {
				return nil, err
			}
			out := c.Bool("outside")
			return selection(reads, func(li *LocalInput, i int) bool { return in(li.Values, i) != out }), nil
		},
	})
	Register(&Stage{
		Name: "head", PDAL: "filters.head", Tiled: true,
		Usage: "keep the first points (PDAL filters.head)",
		Description: `Keeps the first --count points in input order (with --invert, drops them).
docs/select.md.`,
		Examples: []string{"pctk head scan.las first.las --count 1000"},
		Options: []*Option{
			{Kind: Uint64, Name: "count", PDAL: "count", Value: 10, Usage: "points kept from the start"},
			{Kind: Bool, Name: "invert", PDAL: "invert", Usage: "drop the first --count points instead"}},
		Prepare: func(c Values) (*Job, error) {
			n, inv := c.Uint64("count"), c.Bool("invert")
			return selection(nil, func(in *LocalInput, i int) bool { return (uint64(in.ID[i]) < n) != inv }), nil
		},
	})
	Register(&Stage{
		Name: "decimation", PDAL: "filters.decimation", Tiled: true,
		Usage: "keep every step-th point (PDAL filters.decimation)",
		Description: `Keeps the points of index offset + round(k·step), k = 0, 1, ..., below
--limit: PDAL's filters.decimation as pdal pipeline runs it (streaming; its
standard mode may keep one point fewer at the end). docs/select.md.`,
		Examples: []string{"pctk decimation scan.las thin.las --step 2.5 --offset 1"},
		Options: []*Option{
			{Kind: Float, Name: "step", PDAL: "step", Value: 1.0, Usage: "keep one point in every `STEP` points (≥ 1, may be fractional)"},
			{Kind: Uint64, Name: "offset", PDAL: "offset", Usage: "number of points skipped before the first kept"},
			{Kind: Uint64, Name: "limit", PDAL: "limit", Value: uint64(math.MaxUint64), DefaultText: "none", Usage: "index past the last point considered"}},
		Prepare: func(c Values) (*Job, error) {
			step, off, limit := c.Float64("step"), c.Uint64("offset"), c.Uint64("limit")
			if !(step >= 1) || math.IsInf(step, 0) {
				return nil, Usagef("decimation: --step must be a finite number >= 1, got %g", step)
			}
			return selection(nil, func(in *LocalInput, i int) bool { return decimated(uint64(in.ID[i]), limit, off, step) }), nil
		},
	})
}

// orUsage returns err, or a usage error of text when err is nil.
func orUsage(err error, text string) error {
	if err != nil {
		return err
	}
	return UsageError{text}
}

// selection returns the job of a pointwise selection: keep says, from
// the values of the dimensions reads names, which points stay.
func selection(reads []string, keep func(in *LocalInput, i int) bool) *Job {
	flag := []core.Dimension{{Name: "Keep", Type: core.Uint8}}
	return &Job{Local: &Local{Columns: flag, Reads: reads, Hidden: 1,
		Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
			n := len(in.XYZ) / 3
			k := make([]uint8, n)
			for i := range k {
				if keep(in, i) {
					k[i] = 1
				}
			}
			return []*core.Attribute{core.NewColumn(flag[0].Name, k)}, make([]float64, n), nil
		},
		Drop: func(cols []*core.Attribute, i int) bool { return cols[0].Uint64(i) == 0 }}}
}

// decimated says whether PDAL's DecimationFilter::processOne keeps point
// id: offset ≤ id < limit and id = offset + llround(k·step) for some k.
func decimated(id, limit, off uint64, step float64) bool {
	if id < off || id >= limit {
		return false
	}
	k := math.Round(float64(id-off) / step)
	for _, k := range []float64{k - 1, k, k + 1} {
		if k >= 0 && uint64(math.Round(k*step)) == id-off {
			return true
		}
	}
	return false
}

// boundsRE matches PDAL's bounds, 2D or 3D: ([a,b],[c,d]) or ([a,b],[c,d],[e,f]).
var boundsRE = regexp.MustCompile(`^\s*\(\s*\[([^\]]*)\]\s*,\s*\[([^\]]*)\]\s*(?:,\s*\[([^\]]*)\]\s*)?\)\s*$`)

// parseCrop returns the inside test of a crop's --box or --polygon
// (one of them) and the dimensions it reads.
func parseCrop(bounds, polygon string) (func(vals [][]float64, i int) bool, []string, error) {
	if (bounds == "") == (polygon == "") {
		return nil, nil, Usagef("crop: give one of --box and --polygon")
	}
	if bounds != "" {
		m := boundsRE.FindStringSubmatch(bounds)
		if m == nil {
			return nil, nil, Usagef("crop: --box %q: want ([xmin,xmax],[ymin,ymax]) or ([xmin,xmax],[ymin,ymax],[zmin,zmax])", bounds)
		}
		var lim [][2]float64
		for _, pair := range m[1:] {
			if pair == "" {
				continue
			}
			lo, hi, ok := strings.Cut(pair, ",")
			a, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
			b, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
			if !ok || err1 != nil || err2 != nil {
				return nil, nil, Usagef("crop: --box %q: [%s] is not two numbers", bounds, pair)
			}
			lim = append(lim, [2]float64{a, b})
		}
		return func(vals [][]float64, i int) bool {
			for d, l := range lim {
				if v := vals[d][i]; !(v >= l[0] && v <= l[1]) {
					return false
				}
			}
			return true
		}, []string{"X", "Y", "Z"}[:len(lim)], nil
	}
	var g orb.Geometry
	var err error
	if strings.HasPrefix(strings.TrimSpace(polygon), "{") {
		var gj *geojson.Geometry
		if gj, err = geojson.UnmarshalGeometry([]byte(polygon)); err == nil {
			g = gj.Geometry()
		}
	} else {
		g, err = wkt.Unmarshal(polygon)
	}
	var mp orb.MultiPolygon
	switch p := g.(type) {
	case orb.Polygon:
		mp = orb.MultiPolygon{p}
	case orb.MultiPolygon:
		mp = p
	}
	if err != nil || len(mp) == 0 || slices.ContainsFunc(mp, func(p orb.Polygon) bool { return len(p) == 0 }) {
		return nil, nil, Usagef("crop: --polygon: want a Polygon or MultiPolygon as WKT or GeoJSON, got %.60q", polygon)
	}
	return func(vals [][]float64, i int) bool {
		return planar.MultiPolygonContains(mp, orb.Point{vals[0][i], vals[1][i]})
	}, []string{"X", "Y"}, nil
}

func init() {
	Register(&Stage{
		Name: "assign", PDAL: "filters.assign", Tiled: true,
		Usage: "set a dimension where a range holds (PDAL filters.assign)",
		Description: `Sets dimensions as PDAL's filters.assign "assignment": Name[lower:upper]=value
sets Name to value on the points whose Name lies in the range, several separated
by commas, applied in order (each sees the values the ones before set). With
--condition (a range on any dimension) only the points that pass it change. A
value is rounded half away from zero for integer dimensions and left unset
where it does not fit the dimension's type, as PDAL does. docs/select.md.`,
		Examples: []string{"pctk assign scan.las out.las --assignment 'Classification[:]=1' --condition 'Z[0:3]'"},
		Options: []*Option{
			{Kind: String, Name: "assignment", PDAL: "assignment", Usage: "`Name[lower:upper]=value` list (required)"},
			{Kind: String, Name: "condition", PDAL: "condition", Usage: "a range `RANGE` the points must pass to change (default: every point changes)"}},
		Prepare: func(c Values) (*Job, error) {
			as, err := parseAssignments(c.String("assignment"))
			if err != nil || !c.IsSet("assignment") {
				return nil, orUsage(err, "assign: --assignment is required")
			}
			return assignJob(as, c.String("condition"))
		},
	})
}

// assignment is one of filters.assign's "assignment": a range and the
// value set where it holds (AssignRange).
type assignment struct {
	DimRange
	value float64
}

// parseAssignments parses a comma list of Name[range]=value
// (AssignRange::parse).
func parseAssignments(text string) ([]assignment, error) {
	var out []assignment
	err := eachRange(text, func(r DimRange, rest string) (string, error) {
		rest, ok := strings.CutPrefix(rest, "=")
		if !ok {
			return "", rangeError(text, "missing '=' assignment separator")
		}
		v, rest, _ := scanNumber(rest, math.NaN())
		if math.IsNaN(v) {
			return "", rangeError(text, "missing value to assign following '='")
		}
		r.Name = dimName(r.Name)
		out = append(out, assignment{r, v})
		return rest, nil
	})
	return out, err
}

// assignJob returns the job of filters.assign: the columns of the
// assigned dimensions, in their well-known types.
func assignJob(as []assignment, condition string) (*Job, error) {
	var cols []core.Dimension
	var reads []string
	dim := make([]int, len(as)) // each assignment's column
	for i, a := range as {
		d, ok := core.LookupDimension(a.Name)
		if !ok || slices.Contains([]string{"X", "Y", "Z"}, a.Name) {
			return nil, Usagef("assign: cannot assign %s: pctk assigns its well-known dimensions but X, Y and Z (pctk help dimensions)", a.Name)
		}
		if dim[i] = slices.Index(reads, a.Name); dim[i] < 0 {
			dim[i] = len(reads)
			reads = append(reads, a.Name)
			cols = append(cols, core.Dimension{Name: d.Name, Type: d.Type})
		}
	}
	var cond *DimRange
	if condition != "" {
		rs, err := ParseDimRanges(condition)
		if err == nil && len(rs) != 1 {
			err = rangeError(condition, "want one range")
		}
		if err != nil {
			return nil, err
		}
		r := rs[0]
		r.Name = dimName(r.Name)
		cond = &r
		reads = append(reads, r.Name)
	}
	return &Job{Local: &Local{Columns: cols, Reads: reads, Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
		n := len(in.XYZ) / 3
		out := make([]*core.Attribute, len(cols))
		for c, d := range cols {
			out[c] = core.NewAttribute(d.Name, d.Type, n)
		}
		cur := make([]float64, len(cols))
		for i := range n {
			for c := range cols {
				cur[c] = in.Values[c][i]
			}
			if cond == nil || cond.Passes(in.Values[len(cols)][i]) {
				for k, a := range as {
					if a.Passes(cur[dim[k]]) {
						if v, ok := castValue(a.value, cols[dim[k]].Type); ok {
							cur[dim[k]] = v
						}
					}
				}
			}
			for c := range cols {
				out[c].SetFloat64(i, cur[c])
			}
		}
		return out, make([]float64, n), nil
	}}}, nil
}

// castValue returns v as a value of type t holds it, as PDAL's
// Utils::numericCast: rounded half away from zero for integer types, and
// false where it does not fit.
func castValue(v float64, t core.Type) (float64, bool) {
	if !t.IsFloat() {
		v = math.Round(v)
	}
	lo, hi := t.Limits()
	if t == core.Float64 || v >= lo && v <= hi || t == core.Float32 && math.IsNaN(v) {
		return v, true
	}
	return 0, false
}
