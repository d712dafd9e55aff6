package stage

import (
	"fmt"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/tile"
)

// The outcome step of every stage that finds outliers (denoise, lof, ...):
// --mode remove leaves them out (--invert keeps them alone), classify sets
// their Classification to --class, flag adds an Outlier attribute. A stage
// declares OutcomeOptions among its options, parses them with
// ParseOutcome, and hands the outliers it found to Outcome.Result (in
// memory) or Outcome.Stream (out of core); Local stages set Local.Outcome.

// NoiseClass is the ASPRS classification "low point (noise)", the
// default of --class.
const NoiseClass = 7

// OutcomeOptions returns opts followed by the outcome's own: --mode,
// --class, --invert.
func OutcomeOptions(flags ...*Option) []*Option {
	return append(flags,
		&Option{Kind: String, Name: "mode", Usage: "remove, classify or flag (default: classify for LAS input, else remove)"},
		&Option{Kind: Int, Name: "class", PDAL: "class", Usage: "Classification code --mode classify gives outliers", Value: NoiseClass},
		&Option{Kind: Bool, Name: "invert", Usage: "with --mode remove, keep only the outliers"},
	)
}

// streamOutliers is the out-of-core result of a denoise filter that found
// the outliers outlier (nOut of them): the mode applied chunk by chunk.
func (a *Outcome) streamOutliers(s *StreamRun, outlier []bool, nOut int, mode, stats string, fields map[string]any) *StreamResult {
	n, total := int(s.N), int(s.Total)
	written := total
	if mode == "remove" {
		written = total - nOut // points left out are written, unless --invert
		if a.invert {
			written = nOut
		}
	}
	line, doc := a.summary(total, n, nOut, written, mode, a.did(mode, written), stats, fields)
	// Points left out by --ignore-class are no outliers.
	outliers := func(rows []int64) []bool {
		out := make([]bool, len(rows))
		for i, id := range rows {
			out[i] = id >= 0 && outlier[id]
		}
		return out
	}
	res := &StreamResult{
		Columns: func([]int64, []tile.Key) ([]*core.Attribute, error) { return nil, nil },
		Lines:   []string{line}, JSON: doc,
	}
	if mode != "remove" {
		res.Edit = func(rows []int64, c *core.Cloud) (*core.Cloud, error) {
			return applyOutcome(c, outliers(rows), mode, a)
		}
	} else {
		res.Keep = func(rows []int64) ([]bool, error) { return a.kept(outliers(rows)), nil }
		res.Count = func(first, n, others int64) int64 {
			kept := int64(0)
			for _, o := range outlier[first : first+n] {
				if o == a.invert {
					kept++
				}
			}
			if !a.invert {
				kept += others
			}
			return kept
		}
	}
	return res
}

// Outcome is the checked outcome options of a stage run.
type Outcome struct {
	name string // "denoise statistical", "denoise radius"
	// out and in name the points found and the others in the summary
	// ("outliers", "inliers"; a Local.Drop: "dropped", "kept").
	out, in string
	mode    string // "" until the input format decides
	class   int
	invert  bool
}

// dropOutcome is the outcome of a stage that drops points (Local.Drop):
// always removed.
func dropOutcome(name string) *Outcome {
	return &Outcome{name: name, out: "dropped", in: "kept", mode: "remove"}
}

// ParseOutcome checks the outcome options in c of the stage name.
func ParseOutcome(c Values, name string) (*Outcome, error) {
	a := &Outcome{name: name, out: "outliers", in: "inliers", class: c.Int("class"), invert: c.Bool("invert")}
	switch a.mode = strings.ToLower(c.String("mode")); a.mode {
	case "", "remove", "classify", "flag":
	default:
		return nil, Usagef("--mode: want remove, classify or flag, got %q", c.String("mode"))
	}
	if a.class < 0 || a.class > 255 {
		return nil, Usagef("--class: want a code from 0 to 255, got %d", a.class)
	}
	if a.invert && (a.mode == "classify" || a.mode == "flag") {
		return nil, Usagef("--invert applies to --mode remove (keep only the outliers), not to --mode %s", a.mode)
	}
	return a, nil
}

// modeFor returns --mode, or its default for input format from.
func (a *Outcome) modeFor(from *pcio.Format) (string, error) {
	if a.mode != "" {
		return a.mode, nil
	}
	mode := "remove"
	if isLAS(from) {
		mode = "classify"
	}
	msg.Debugf("mode: %s (input format %s)", mode, from.Name)
	if a.invert && mode != "remove" {
		return "", Usagef("--invert applies to --mode remove; %s input defaults to --mode %s, so say --mode remove", from.Name, mode)
	}
	return mode, nil
}

// summary returns the summary line and JSON of a run that found nOut
// outliers among used points (of points), did what it did and wrote
// written points.
func (a *Outcome) summary(points, used, nOut, written int, mode, did, stats string, fields map[string]any) (string, map[string]any) {
	if fields == nil {
		fields = map[string]any{}
	}
	fields["outliers"], fields["mode"], fields["written"] = nOut, mode, written
	return fmt.Sprintf("%s: %d ignored by class, %d %s, %d %s; %s; %s",
		a.name, points-used, nOut, a.out, used-nOut, a.in, did, stats), fields
}

// result applies the mode to the outlier flags of the points that take
// part (sub) and describes the outcome.
func (a *Outcome) result(p *Points, sub []bool, stats string, fields map[string]any) (*Result, error) {
	mode, err := a.modeFor(p.From)
	if err != nil {
		return nil, err
	}
	n := p.Cloud.Len()
	outlier := p.ScatterFlags(sub, false)
	nOut := 0
	for _, o := range outlier {
		if o {
			nOut++
		}
	}
	res := &Result{}
	res.Edit = func(c *core.Cloud) (*core.Cloud, error) {
		out, err := applyOutcome(c, outlier, mode, a)
		if err != nil {
			return nil, err
		}
		line, doc := a.summary(n, p.Len(), nOut, out.Len(), mode, a.did(mode, out.Len()), stats, fields)
		res.Lines, res.JSON = []string{line}, doc
		return out, nil
	}
	return res, nil
}

// isLAS reports whether f is LAS or LAZ, whose users expect noise to be
// classified rather than deleted.
func isLAS(f *pcio.Format) bool { return f != nil && (f.Name == "las" || f.Name == "laz") }

// did says what mode did, written points being written.
func (a *Outcome) did(mode string, written int) string {
	switch mode {
	case "classify":
		return fmt.Sprintf("%s classified %d", a.out, a.class)
	case "flag":
		return a.out + " flagged in " + core.DimOutlier
	case "remove":
		if a.invert {
			return fmt.Sprintf("only %s kept, %s written", a.out, Count(written, "point"))
		}
		return fmt.Sprintf("%s removed, %s written", a.out, Count(written, "point"))
	}
	return ""
}

// applyOutcome returns the cloud to write: cloud with mode applied to
// the outliers.
func applyOutcome(cloud *core.Cloud, outlier []bool, mode string, a *Outcome) (*core.Cloud, error) {
	switch mode {
	case "classify":
		cls := cloud.Attr(core.DimClassification)
		if cls == nil {
			var err error
			if cls, err = cloud.AddAttr(core.DimClassification, core.Uint8); err != nil {
				return nil, err
			}
		}
		for i, o := range outlier {
			if o {
				cls.SetFloat64(i, float64(a.class))
			}
		}
		return cloud, nil
	case "flag":
		flag, err := cloud.AddAttr(core.DimOutlier, core.Uint8)
		if err != nil {
			return nil, err
		}
		for i, o := range outlier {
			v := 0.0
			if o {
				v = 1
			}
			flag.SetFloat64(i, v)
		}
		return cloud, nil
	}
	return selectMask(cloud, a.kept(outlier)), nil
}

// kept returns which points the remove mode keeps: those that are no
// outliers, or with --invert the outliers alone.
func (a *Outcome) kept(outlier []bool) []bool {
	keep := make([]bool, len(outlier))
	for i, o := range outlier {
		keep[i] = o == a.invert
	}
	return keep
}
