package stage

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/internal/par"
)

// noiseClass is the ASPRS LAS classification "low point (noise)" that
// --classify-noise gives noise points.
const noiseClass = 7

func init() {
	Register(dbscanFilter)
}

var dbscanFilter = &Stage{
	Name:    "dbscan",
	PDAL:    "filters.dbscan",
	Preview: "cluster",
	Usage:   "cluster points with DBSCAN (exact, scikit-learn's definition) on any backend",
	Description: `Labels every point with its cluster (attribute ClusterID, int64, -1 for noise)
and its neighbour count (NeighborCount, uint32, other points within --eps).
A point is core when it has at least --min-pts points within --eps, itself
included (scikit-learn's min_samples). Border points join the cluster of their
nearest core neighbour. Clusters are numbered 0, 1, ... in the order of their
first point in the file. --eps is a finite number > 0, --min-pts ≥ 1.

--min-pts 5,10,20 counts neighbours once and clusters once per value, writing
ClusterID_5, ClusterID_10, ClusterID_20. The counts are kept with a record of
--eps, --dims and a hash of the coordinates in the file's comments (PLY, PCD),
so a later run with the same --eps on the same points skips counting;
--reuse-counts trusts an existing NeighborCount without that record (for
formats that keep no comments), --recount never reuses.

A summary goes to stderr; --json prints it as JSON on stdout instead (not
when OUT is -), --summary FILE writes the JSON to FILE. --geojson FILE writes
each cluster's XY convex hull, size and bounding box in the cloud's own X/Y
units (lon/lat with --geographic).

--ignore-class 2 leaves points of those classes (here ground) out: they are
nobody's neighbours, get ClusterID -1 and count 0, and are neither noise
(--drop-noise keeps them, --classify-noise leaves them) nor in any hull.

--geographic reads X, Y as WGS84 longitude, latitude in degrees and clusters
in metres: orb's Mercator projection rescaled to true metres on the
ellipsoid at the cloud's centre; the summary states the largest scale error
(about 0.08% for a cloud 10 km tall at 45° latitude).`,
	Examples: []string{
		"pctk dbscan scan.las out.las --eps 2 --min-pts 5,10 --summary clusters.json",
		"pctk dbscan points.ply out.ply --eps 50 --dims xy --geographic --geojson hulls.geojson",
	},
	Options: []*Option{
		&Option{Kind: Float, Name: "eps", PDAL: "eps", Usage: "neighbourhood radius ε in coordinate units (metres with --geographic); required", DefaultText: "none"},
		&Option{Kind: String, Name: "min-pts", PDAL: "min_points", Usage: "minimum points within ε for a core point, itself included; a comma list clusters once per value", Value: "5"},
		&Option{Kind: Bool, Name: "geographic", Usage: "X, Y are WGS84 lon/lat degrees: cluster in metres (see description)"},
		&Option{Kind: Int, Name: "min-cluster-size", Usage: "relabel clusters of fewer points as noise"},
		&Option{Kind: Bool, Name: "classify-noise", Usage: "set Classification to 7 (low noise) on noise points, creating the attribute if missing"},
		&Option{Kind: Bool, Name: "drop-noise", Usage: "leave noise points out of OUT"},
		&Option{Kind: Bool, Name: "reuse-counts", Usage: "use the input's NeighborCount attribute as stage-1 counts even without a matching record"},
		&Option{Kind: Bool, Name: "recount", Usage: "count neighbours even when the input's NeighborCount matches"},
		&Option{Kind: String, Name: "geojson", Usage: "write cluster hulls as a GeoJSON FeatureCollection to `FILE`"},
	},
	Dims:        true,
	IgnoreClass: true,
	Tiled:       true,
	Params:      map[string]string{"eps": "eps", "min_pts": "min-pts", "min_cluster_size": "min-cluster-size", "workers": "workers"},
	Prepare:     prepareDBSCAN,
}

// dbscanArgs are the parsed and checked flags of pctk dbscan.
type dbscanArgs struct {
	opts        dbscan.Options
	geo         bool
	classify    bool
	drop        bool
	reuse       bool
	recount     bool
	geojsonPath string
	scaleErr    float64 // of the --geographic projection, once made
}

// attributeFor names the ClusterID column of minPts: ClusterID, or
// ClusterID_5 when several values are clustered.
func (a *dbscanArgs) attributeFor(minPts int) string {
	if len(a.opts.MinPts) > 1 {
		return fmt.Sprintf("%s_%d", core.DimClusterID, minPts)
	}
	return core.DimClusterID
}

func prepareDBSCAN(c Values) (*Job, error) {
	a := &dbscanArgs{
		geo: c.Bool("geographic"), classify: c.Bool("classify-noise"), drop: c.Bool("drop-noise"),
		reuse: c.Bool("reuse-counts"), recount: c.Bool("recount"), geojsonPath: c.String("geojson"),
	}
	if !c.IsSet("eps") {
		return nil, Usagef("--eps is required: the neighbourhood radius in coordinate units")
	}
	a.opts.Eps = c.Float64("eps")
	a.opts.MinClusterSize = c.Int("min-cluster-size")
	a.opts.Workers = c.Int("workers")
	for _, s := range strings.Split(c.String("min-pts"), ",") {
		m, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, Usagef("--min-pts: %q is not an integer (want e.g. 5 or 5,10,20)", s)
		}
		a.opts.MinPts = append(a.opts.MinPts, m)
	}
	if err := a.opts.Validate(0); err != nil {
		return nil, err
	}
	if (a.classify || a.drop) && len(a.opts.MinPts) > 1 {
		return nil, Usagef("--classify-noise and --drop-noise need a single --min-pts value, got %d", len(a.opts.MinPts))
	}
	if a.classify && a.drop {
		return nil, Usagef("--classify-noise and --drop-noise exclude each other: dropped noise cannot be classified")
	}
	if a.reuse && a.recount {
		return nil, Usagef("--reuse-counts and --recount exclude each other")
	}
	job := &Job{Outputs: []string{a.geojsonPath}, Compute: a.compute}
	if !a.drop && !a.reuse && a.geojsonPath == "" {
		// Out of core (--max-memory): the other flags need the whole
		// cloud (hulls, a shorter OUT, the input's counts).
		// A core flag and a label a point per --min-pts value, and the
		// relabelling's scratch at the end (dbscan.Merge).
		m := int64(len(a.opts.MinPts))
		job.Stream = &Streamed{Halo: a.opts.Eps, PointBytes: 5 * m, PeakBytes: 5*m + 4, Record: true, Run: a.stream}
	}
	if a.geo {
		job.Project = func(cl *core.Cloud, flat bool) (core.Local, error) {
			l, scaleErr, err := cl.GeoLocal(flat)
			if err != nil {
				return l, fmt.Errorf("--geographic: %w", err)
			}
			a.scaleErr = scaleErr
			msg.Debugf("geographic: centre lon %.6f lat %.6f, largest scale error %.3g%%", l.Origin[0], l.Origin[1], 100*scaleErr)
			if scaleErr > 0.005 {
				msg.Infof("warning: the cloud spans so much latitude that distances are off by up to %.2g%%; reproject it to a local projected CRS (UTM) for exact ε", 100*scaleErr)
			}
			return l, nil
		}
	}
	return job, nil
}

// compute clusters the points and describes the result.
func (a *dbscanArgs) compute(p *Points) (*Result, error) {
	cloud := p.Cloud
	rec := dbscan.CountsRecord(cloud.X, cloud.Y, cloud.Z, a.opts.Eps, p.Dims, a.geo)
	opts := a.opts
	var err error
	switch {
	case p.Index == nil:
		if opts.Counts, err = reusableCounts(cloud, rec, a); err != nil {
			return nil, err
		}
	case a.reuse:
		return nil, Usagef("--reuse-counts: the input's counts are of every point, not of those --ignore-class leaves")
	}
	opts.Progress, opts.TileSize = p.Progress, p.TileSize
	run, err := dbscan.Cluster(p.XYZ, p.Backend, opts)
	if err != nil {
		return nil, err
	}
	res := &Result{Columns: []*core.Attribute{core.NewColumn(core.DimNeighborCount, run.Counts)}}
	for _, r := range run.Results {
		// Points left out by --ignore-class are in no cluster: -1.
		ids := make([]int64, cloud.Len())
		par.For(par.Ranges(len(ids), par.Grain), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				ids[i] = int64(dbscan.Noise)
			}
		})
		par.For(par.Ranges(len(r.Labels), par.Grain), func(_, lo, hi int) {
			for k := lo; k < hi; k++ {
				ids[p.cloudIndex(k)] = int64(r.Labels[k])
			}
		})
		res.Columns = append(res.Columns, core.NewColumn(a.attributeFor(r.MinPts), ids))
	}
	// Noise of the first result, per cloud point; points left out are not.
	noise := make([]bool, len(run.Results[0].Labels))
	for k, l := range run.Results[0].Labels {
		noise[k] = l == dbscan.Noise
	}
	noise = p.ScatterFlags(noise, false)
	res.Edit = func(c *core.Cloud) (*core.Cloud, error) {
		record := rec
		if a.drop || p.Index != nil {
			// Counts of a cloud with points dropped or left out describe
			// other points than the output's, so they carry no record.
			record = ""
		}
		c.Meta.Comments = withCountsRecord(c.Meta.Comments, record)
		if a.classify {
			if err := classifyNoise(c, noise); err != nil {
				return nil, err
			}
		}
		if !a.drop {
			return c, nil
		}
		keep := make([]int, 0, c.Len())
		for i, n := range noise {
			if !n {
				keep = append(keep, i)
			}
		}
		return c.Select(keep), nil
	}
	if a.geojsonPath != "" {
		res.Side = []SideOutput{{Path: a.geojsonPath, Write: func(w io.Writer) error { return writeHulls(w, cloud, p.Index, run, a.geo) }}}
	}
	sum := newDBSCANSummary(a, p.In, p.Out, p.Cloud.Len(), p.Len(), p.Dims, run)
	res.Lines = sum.lines()
	res.Doc = sum.doc
	return res, nil
}

// reusableCounts returns the input's NeighborCount as stage-1 counts when
// they may be reused: the file records the same computation (rec), or
// --reuse-counts vouches for them. Otherwise it returns nil.
func reusableCounts(c *core.Cloud, rec string, a *dbscanArgs) ([]uint32, error) {
	attr := c.Attr(core.DimNeighborCount)
	if a.reuse && attr == nil {
		return nil, Usagef("--reuse-counts: the input has no %s attribute", core.DimNeighborCount)
	}
	if attr == nil || a.recount {
		return nil, nil
	}
	if !a.reuse && !slices.Contains(c.Meta.Comments, rec) {
		msg.Debugf("not reusing %s: no record of the same eps, dims and coordinates (want %q)", core.DimNeighborCount, rec)
		return nil, nil
	}
	if attr.Type.IsFloat() {
		return nil, fmt.Errorf("attribute %s is %v, not an integer count", attr.Name, attr.Type)
	}
	counts := make([]uint32, c.Len())
	for i := range counts {
		v := attr.Int64(i)
		if v < 0 || v > math.MaxUint32 || (!attr.Type.IsSigned() && attr.Uint64(i) > math.MaxUint32) {
			return nil, fmt.Errorf("attribute %s holds %d at point %d, not a neighbour count", attr.Name, attr.Uint64(i), i)
		}
		counts[i] = uint32(v)
	}
	if a.reuse && !slices.Contains(c.Meta.Comments, rec) {
		msg.Infof("warning: reusing %s without a record of its eps and points (--reuse-counts); wrong counts give wrong clusters", core.DimNeighborCount)
	} else {
		msg.Infof("reusing %s counted with the same eps on the same points (stage 1 skipped)", core.DimNeighborCount)
	}
	return counts, nil
}

// classifyNoise sets Classification to noiseClass on the noise points,
// adding a uint8 Classification (0, never classified, elsewhere) when
// missing.
func classifyNoise(c *core.Cloud, noise []bool) error {
	cls := c.Attr(core.DimClassification)
	if cls == nil {
		var err error
		if cls, err = c.AddAttr(core.DimClassification, core.Uint8); err != nil {
			return err
		}
	}
	for i, n := range noise {
		if n {
			cls.SetFloat64(i, noiseClass)
		}
	}
	return nil
}
