package stage

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/pctk/pctk/algos/neighborclassifier"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// PDAL's filters.neighborclassifier: a k-nearest vote on a dimension, a
// local stage (a point's vote depends on its k nearest candidates alone).

func init() {
	Register(&Stage{
		Name: "neighborclassifier", PDAL: "filters.neighborclassifier", Preview: "classification", Tiled: true,
		Usage: "k-nearest vote on Classification or another dimension (PDAL filters.neighborclassifier)",
		Description: `Gives each point of the --domain (PDAL ranges such as Classification[14:14],
a point passing any of them; default every point) the value of --dimension
(Classification) that a strict majority of its --k nearest candidates hold,
the smallest value on a tie, as PDAL's filters.neighborclassifier does. The
candidates are the points themselves (a point is its own nearest) or the
points of --candidate FILE. Votes read the values as they were before the
filter (docs/neighborclassifier.md).`,
		Examples: []string{"pctk neighborclassifier scan.las out.las --k 5 --domain 'Classification[7:7],Classification[18:18]'", "pctk neighborclassifier thin.las out.las --k 1 --candidate classified.las"},
		Options: []*Option{
			{Kind: Int, Name: "k", PDAL: "k", DefaultText: "none (required)", Usage: "nearest candidates that vote (≥ 1)"},
			{Kind: String, Name: "domain", PDAL: "domain", DefaultText: "every point", Usage: "the points that may change: PDAL ranges, comma separated (Classification[14:14],Classification[11:11])"},
			{Kind: String, Name: "candidate", PDAL: "candidate", DefaultText: "the points themselves", Usage: "the voting points: a point cloud `FILE` holding --dimension (read whole, in the run's frame)"},
			{Kind: String, Name: "dimension", PDAL: "dimension", Value: core.DimClassification, Usage: "the dimension voted on, read as an integer (one pctk knows)"},
		},
		Params:  map[string]string{"k": "k"},
		Prepare: prepareNeighborClassifier,
	})
}

func prepareNeighborClassifier(c Values) (*Job, error) {
	o := neighborclassifier.Options{K: c.Int("k")}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	dim, ok := core.LookupDimensionFold(c.String("dimension"))
	if !ok {
		return nil, Usagef("--dimension %q: not a dimension pctk knows (Classification, UserData, PointSourceId, ...)", c.String("dimension"))
	}
	var domain []DimRange
	if c.String("domain") != "" {
		var err error
		if domain, err = ParseDimRanges(c.String("domain")); err != nil {
			return nil, err
		}
	}
	// The dimension's values, then each range's dimension's.
	reads := []string{dim.Name}
	for i := range domain {
		domain[i].Name = dimName(domain[i].Name)
		reads = append(reads, domain[i].Name)
	}
	cols := []core.Dimension{{Name: dim.Name, Type: dim.Type}}
	l := &Local{Columns: cols, Reads: reads, KNN: o.K + 4, Rel: true}
	var cand *candidates
	if path := c.String("candidate"); path != "" {
		// A point's vote depends on itself and the candidates, which
		// every tile gets whole: reach 0.
		cand = &candidates{path: path, dim: dim.Name}
		l.KNN = 0
	}
	l.Compute = func(in *LocalInput) ([]*core.Attribute, []float64, error) {
		o := o
		o.Pos, o.Build = in.Pos, in.Build
		if len(domain) > 0 {
			o.Domain = make([]bool, len(in.ID))
			for i := range o.Domain {
				// NeighborClassifierFilter::doOne: any range passes.
				o.Domain[i] = slices.ContainsFunc(domain, func(r DimRange) bool { return r.Passes(in.Values[1+slices.Index(reads[1:], r.Name)][i]) })
			}
		}
		values, err := int32Values(dim.Name, in.Values[0])
		if err != nil {
			return nil, nil, err
		}
		if cand != nil {
			if err := cand.load(in.Origin); err != nil {
				return nil, nil, err
			}
			o.Candidates, o.CandidatePos, o.CandidateValues = cand.xyz, cand.pos, cand.values
		}
		r, err := neighborclassifier.Classify(in.XYZ, values, in.Backend, o)
		if err != nil {
			return nil, nil, err
		}
		if cand != nil {
			clear(r.Reach)
		}
		col := core.NewAttribute(dim.Name, dim.Type, len(r.Values))
		for i, v := range r.Values {
			col.SetFloat64(i, float64(v))
		}
		return []*core.Attribute{col}, r.Reach, nil
	}
	return &Job{Local: l}, nil
}

// int32Values returns the values of dimension name as PDAL's
// getFieldAs<int> reads them: an error names a value out of int's range.
func int32Values(name string, vals []float64) ([]int32, error) {
	out := make([]int32, len(vals))
	for i, v := range vals {
		t := math.Trunc(v)
		if !(t >= math.MinInt32 && t <= math.MaxInt32) {
			return nil, fmt.Errorf("%s of point %d is %g, not an int", name, i, v)
		}
		out[i] = int32(t)
	}
	return out, nil
}

// candidates are neighborclassifier's --candidate points, read once, in
// the run's frame.
type candidates struct {
	path, dim string
	once      sync.Once
	err       error
	xyz       []float32
	pos       []float64
	values    []int32
}

// load reads the candidates (once) relative to origin.
func (c *candidates) load(origin [3]float64) error {
	c.once.Do(func() {
		cl, _, err := pcio.ReadFile(c.path)
		if err != nil {
			c.err = fmt.Errorf("--candidate %s: %w", c.path, err)
			return
		}
		a := cl.Attr(c.dim)
		if a == nil {
			c.err = fmt.Errorf("--candidate %s: no %s", c.path, c.dim)
			return
		}
		vals := make([]float64, cl.Len())
		for i := range vals {
			vals[i] = a.Float64(i)
		}
		if c.values, c.err = int32Values(c.dim, vals); c.err != nil {
			c.err = fmt.Errorf("--candidate %s: %w", c.path, c.err)
			return
		}
		c.pos, c.xyz = make([]float64, 3*cl.Len()), make([]float32, 3*cl.Len())
		for i := range cl.Len() {
			for a, v := range [3]float64{cl.X[i], cl.Y[i], cl.Z[i]} {
				c.pos[3*i+a] = v - origin[a]
				c.xyz[3*i+a] = float32(c.pos[3*i+a])
			}
		}
	})
	return c.err
}
