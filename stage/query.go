package stage

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las/copc"
	"github.com/pctk/pctk/io/pcio"
)

// QueryOptions restrict what a command reads: --bounds on any file (a COPC
// file reads only the octree nodes the box touches, any other is read and
// filtered), --level and --resolution on COPC files.
var QueryOptions = []*Option{
	&Option{Kind: String, Name: "bounds", Usage: "read only the points inside the box `minx,miny,maxx,maxy[,minz,maxz]`, edges included (COPC: only the nodes it touches are read)"},
	&Option{Kind: Int, Name: "level", Value: -1, DefaultText: "every level", Usage: "COPC: read octree levels 0 to `L` only (a depth counted from 0 at the root)"},
	&Option{Kind: Float, Name: "resolution", DefaultText: "every level", Usage: "COPC: read the octree levels down to the shallowest whose point spacing is at most `R` coordinate units"},
}

// QueryOf turns the query flags into a read query; nil when none is set.
func QueryOf(c Values) (*pcio.Query, error) {
	q := &pcio.Query{}
	if s := c.String("bounds"); s != "" {
		b, err := parseBounds(s)
		if err != nil {
			return nil, Usagef("--bounds %q: %v", s, err)
		}
		q.Bounds = b
	}
	if c.IsSet("level") {
		l := c.Int("level")
		if l < 0 || l > copc.MaxLevel {
			return nil, Usagef("--level %d: want 0 to %d", l, copc.MaxLevel)
		}
		q.Levels = l + 1
	}
	if c.IsSet("resolution") {
		r := c.Float64("resolution")
		if !(r > 0) || math.IsInf(r, 0) {
			return nil, Usagef("--resolution %g: want a positive spacing", r)
		}
		q.Resolution = r
	}
	if q.IsZero() {
		return nil, nil
	}
	return q, nil
}

// parseBounds parses minx,miny,maxx,maxy[,minz,maxz]; without Z limits
// the box spans every Z.
func parseBounds(s string) (*core.Bounds, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 && len(parts) != 6 {
		return nil, fmt.Errorf("want 4 or 6 numbers separated by commas, got %d", len(parts))
	}
	v := make([]float64, len(parts))
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) {
			return nil, fmt.Errorf("value %d (%q) is not a number", i+1, p)
		}
		v[i] = f
	}
	b := pcio.UnboundedZ(v[0], v[1], v[2], v[3])
	if len(v) == 6 {
		b.Min[2], b.Max[2] = v[4], v[5]
	}
	for k := range 3 {
		if b.Min[k] > b.Max[k] {
			return nil, fmt.Errorf("min %c %g exceeds max %g", "XYZ"[k], b.Min[k], b.Max[k])
		}
	}
	return &b, nil
}

// CopcFacts describes the octree of a COPC file for "pctk info": its
// cube, spacing, depth, nodes and points per level, and with a query how
// many nodes, points and bytes the query reads. It returns nil for other
// files, and a warning fact when the index is damaged.
func CopcFacts(path string, q *pcio.Query) ([]pcio.Fact, error) {
	r, size, closer, ok, err := pcio.OpenAt(path)
	if err != nil || !ok {
		return nil, err
	}
	defer closer.Close()
	var fs []pcio.Fact
	add := func(k, format string, args ...any) {
		fs = append(fs, pcio.Fact{Key: k, Value: fmt.Sprintf(format, args...)})
	}
	f, err := copc.Open(r, size)
	if errors.Is(err, copc.ErrNotCOPC) {
		return nil, nil
	}
	var all *copc.Plan
	if err == nil {
		all, err = f.Plan(nil)
	}
	if err != nil {
		// The points were read (as LAZ); only the index is damaged.
		add("warning", "the COPC index is unusable: %v", err)
		return fs, nil
	}
	in := &f.Info
	cube := in.Cube()
	add("COPC cube", "X [%.10g, %.10g] Y [%.10g, %.10g] Z [%.10g, %.10g] (half size %g)", cube.Min[0], cube.Max[0], cube.Min[1], cube.Max[1], cube.Min[2], cube.Max[2], in.Halfsize)
	add("COPC spacing", "%g at the root, halving per level", in.Spacing)
	add("COPC GPS time", "%.10g to %.10g", in.GpsTimeMin, in.GpsTimeMax)
	type level struct{ nodes, points int64 }
	var levels []level
	for _, e := range all.Nodes {
		for int(e.Key.Level) >= len(levels) {
			levels = append(levels, level{})
		}
		levels[e.Key.Level].nodes++
		levels[e.Key.Level].points += int64(e.PointCount)
	}
	add("COPC octree", "depth %d, %d nodes with points, %d points, %d hierarchy pages", len(levels)-1, len(all.Nodes), all.Points(), all.Pages)
	for d, l := range levels {
		add(fmt.Sprintf("COPC level %d", d), "%d nodes, %d points, spacing %g", l.nodes, l.points, in.LevelSpacing(d))
	}
	if q != nil {
		p, err := f.Plan(q)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pcio.Name(path), err)
		}
		add("COPC query reads", "%d of %d nodes, %d of %d points before filtering, %d of %d compressed bytes (%.2f%%), %d hierarchy pages",
			len(p.Nodes), len(all.Nodes), p.Points(), all.Points(), p.Bytes(), all.Bytes(), 100*float64(p.Bytes())/float64(max(all.Bytes(), 1)), p.Pages)
	}
	return fs, nil
}
