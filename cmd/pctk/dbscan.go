package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/io/pcio"
	"github.com/urfave/cli/v2"
)

// noiseClass is the ASPRS LAS classification "low point (noise)" that
// --classify-noise gives noise points.
const noiseClass = 7

// countsRecordPrefix starts the metadata comment that records how the
// NeighborCount attribute was computed, so a later run can reuse it.
const countsRecordPrefix = "pctk dbscan NeighborCount:"

func init() {
	commands = append(commands, &cli.Command{
		Name:      "dbscan",
		Usage:     "cluster points with DBSCAN (exact, scikit-learn's definition) on any backend",
		ArgsUsage: "IN OUT",
		Description: `Labels every point with its cluster (attribute ClusterID, int64, -1 for noise)
and its neighbour count (NeighborCount, uint32, other points within --eps).
A point is core when it has at least --min-pts points within --eps, itself
included (scikit-learn's min_samples). Border points join the cluster of their
nearest core neighbour. Clusters are numbered 0, 1, ... in the order of their
first point in the file.

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

--geographic reads X, Y as WGS84 longitude, latitude in degrees and clusters
in metres: orb's Mercator projection rescaled to true metres on the
ellipsoid at the cloud's centre; the summary states the largest scale error
(about 0.08% for a cloud 10 km tall at 45° latitude).`,
		Flags: backendFlags(
			&cli.Float64Flag{Name: "eps", Usage: "neighbourhood radius ε in coordinate units (metres with --geographic); required", DefaultText: "none"},
			&cli.StringFlag{Name: "min-pts", Usage: "minimum points within ε for a core point, itself included; a comma list clusters once per value", Value: "5"},
			dimsFlag,
			&cli.BoolFlag{Name: "geographic", Usage: "X, Y are WGS84 lon/lat degrees: cluster in metres (see description)"},
			&cli.IntFlag{Name: "min-cluster-size", Usage: "relabel clusters of fewer points as noise"},
			&cli.BoolFlag{Name: "classify-noise", Usage: "set Classification to 7 (low noise) on noise points, creating the attribute if missing"},
			&cli.BoolFlag{Name: "drop-noise", Usage: "leave noise points out of OUT"},
			&cli.BoolFlag{Name: "reuse-counts", Usage: "use the input's NeighborCount attribute as stage-1 counts even without a matching record"},
			&cli.BoolFlag{Name: "recount", Usage: "count neighbours even when the input's NeighborCount matches"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON on stdout"},
			&cli.StringFlag{Name: "summary", Usage: "write the summary as JSON to `FILE`"},
			&cli.StringFlag{Name: "geojson", Usage: "write cluster hulls as a GeoJSON FeatureCollection to `FILE`"},
		),
		Action: runDBSCAN,
	})
}

// dbscanArgs are the parsed and checked flags of pctk dbscan.
type dbscanArgs struct {
	in, out      string
	opts         dbscan.Options
	flat, geo    bool
	dims         string
	classify     bool
	drop         bool
	reuse        bool
	recount      bool
	jsonOut      bool
	summaryPath  string
	geojsonPath  string
	attributeFor func(minPts int) string
}

func parseDBSCANArgs(c *cli.Context) (*dbscanArgs, error) {
	in, out, err := inOut(c)
	if err != nil {
		return nil, err
	}
	a := &dbscanArgs{
		in: in, out: out,
		geo: c.Bool("geographic"), classify: c.Bool("classify-noise"), drop: c.Bool("drop-noise"),
		reuse: c.Bool("reuse-counts"), recount: c.Bool("recount"),
		jsonOut: c.Bool("json"), summaryPath: c.String("summary"), geojsonPath: c.String("geojson"),
	}
	if !c.IsSet("eps") {
		return nil, usagef("--eps is required: the neighbourhood radius in coordinate units")
	}
	a.opts.Eps = c.Float64("eps")
	a.opts.MinClusterSize = c.Int("min-cluster-size")
	a.opts.Workers = c.Int("workers")
	for _, s := range strings.Split(c.String("min-pts"), ",") {
		m, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, usagef("--min-pts: %q is not an integer (want e.g. 5 or 5,10,20)", s)
		}
		a.opts.MinPts = append(a.opts.MinPts, m)
	}
	if a.dims, a.flat, err = parseDims(c); err != nil {
		return nil, err
	}
	if err := a.opts.Validate(0); err != nil {
		return nil, usagef("%v", strings.TrimPrefix(err.Error(), "dbscan: "))
	}
	if (a.classify || a.drop) && len(a.opts.MinPts) > 1 {
		return nil, usagef("--classify-noise and --drop-noise need a single --min-pts value, got %d", len(a.opts.MinPts))
	}
	if a.classify && a.drop {
		return nil, usagef("--classify-noise and --drop-noise exclude each other: dropped noise cannot be classified")
	}
	if a.reuse && a.recount {
		return nil, usagef("--reuse-counts and --recount exclude each other")
	}
	if a.jsonOut && out == "-" {
		return nil, usagef("--json prints on stdout, where OUT - writes the cloud; use --summary FILE")
	}
	a.attributeFor = func(int) string { return core.DimClusterID }
	if len(a.opts.MinPts) > 1 {
		a.attributeFor = func(m int) string { return fmt.Sprintf("%s_%d", core.DimClusterID, m) }
	}
	return a, nil
}

func runDBSCAN(c *cli.Context) error {
	a, err := parseDBSCANArgs(c)
	if err != nil {
		return err
	}
	src, err := loadInput(c, a.in, false, nil)
	if err != nil {
		return err
	}
	cloud, readTime := src.cloud, time.Since(src.start)

	var local core.Local
	var scaleErr float64
	if a.geo {
		if local, scaleErr, err = geoLocal(cloud, a.flat); err != nil {
			return fmt.Errorf("%s: %w", a.in, err)
		}
		debugf("geographic: centre lon %.6f lat %.6f, largest scale error %.3g%%", local.Origin[0], local.Origin[1], 100*scaleErr)
		if scaleErr > 0.005 {
			infof("warning: the cloud spans so much latitude that distances are off by up to %.2g%%; reproject it to a local projected CRS (UTM) for exact ε", 100*scaleErr)
		}
	} else {
		local = cloud.Local(a.flat)
	}

	rec := countsRecord(cloud, a)
	if a.opts.Counts, err = reusableCounts(cloud, rec, a); err != nil {
		return fmt.Errorf("%s: %w", a.in, err)
	}
	report, finish := stageProgress()
	a.opts.Progress = report
	run, err := dbscan.Cluster(local.XYZ, src.backend, a.opts)
	finish()
	if err != nil {
		return err
	}
	local = core.Local{} // let the collector have the float32 copy

	counts := core.NewAttribute(core.DimNeighborCount, core.Uint32, cloud.Len())
	counts.Data = run.Counts
	if err := cloud.SetAttr(counts); err != nil {
		return err
	}
	cloud.Meta.Comments = slices.DeleteFunc(cloud.Meta.Comments, func(s string) bool {
		return strings.HasPrefix(s, countsRecordPrefix)
	})
	if !a.drop {
		// Counts of a cloud with points dropped describe the input, not the
		// output, so only an undropped cloud carries the record.
		cloud.Meta.Comments = append(cloud.Meta.Comments, rec)
	}
	for _, r := range run.Results {
		id := core.NewAttribute(a.attributeFor(r.MinPts), core.Int64, cloud.Len())
		ids := id.Data.([]int64)
		par.For(par.Ranges(len(ids), par.Grain), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				ids[i] = int64(r.Labels[i])
			}
		})
		if err := cloud.SetAttr(id); err != nil {
			return err
		}
	}
	if a.geojsonPath != "" {
		if err := writeHulls(a.geojsonPath, cloud, run); err != nil {
			return err
		}
	}
	first := run.Results[0]
	if a.classify {
		if err := classifyNoise(cloud, first.Labels); err != nil {
			return err
		}
	}
	out := cloud
	if a.drop {
		keep := make([]int, 0, cloud.Len()-first.NoiseCount)
		for i, l := range first.Labels {
			if l != dbscan.Noise {
				keep = append(keep, i)
			}
		}
		out = cloud.Select(keep)
	}
	t := time.Now()
	if err := writeCloud(c, a.out, out, src.from); err != nil {
		return err
	}
	sum := newDBSCANSummary(a, cloud.Len(), run, scaleErr, readTime, time.Since(t))
	return reportDBSCAN(a, sum, os.Stdout)
}

// countsRecord describes how NeighborCount is computed for this cloud and
// these flags: ε, dims, projection, point count and a digest of the exact
// float64 coordinates (core.Cloud.HashXYZ). A later run reuses counts only
// when its record matches this one character for character.
func countsRecord(c *core.Cloud, a *dbscanArgs) string {
	return fmt.Sprintf("%s eps=%s dims=%s geographic=%t points=%d xyz-hash=%016x",
		countsRecordPrefix, strconv.FormatFloat(a.opts.Eps, 'g', -1, 64), a.dims, a.geo, c.Len(), c.HashXYZ())
}

// reusableCounts returns the input's NeighborCount as stage-1 counts when
// they may be reused: the file records the same computation (rec), or
// --reuse-counts vouches for them. Otherwise it returns nil.
func reusableCounts(c *core.Cloud, rec string, a *dbscanArgs) ([]uint32, error) {
	attr := c.Attr(core.DimNeighborCount)
	if a.reuse && attr == nil {
		return nil, usagef("--reuse-counts: the input has no %s attribute", core.DimNeighborCount)
	}
	if attr == nil || a.recount {
		return nil, nil
	}
	if !a.reuse && !slices.Contains(c.Meta.Comments, rec) {
		debugf("not reusing %s: no record of the same eps, dims and coordinates (want %q)", core.DimNeighborCount, rec)
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
		infof("warning: reusing %s without a record of its eps and points (--reuse-counts); wrong counts give wrong clusters", core.DimNeighborCount)
	} else {
		infof("reusing %s counted with the same eps on the same points (stage 1 skipped)", core.DimNeighborCount)
	}
	return counts, nil
}

// classifyNoise sets Classification to noiseClass on noise points, adding a
// uint8 Classification (0, never classified, elsewhere) when missing.
func classifyNoise(c *core.Cloud, labels []int32) error {
	cls := c.Attr(core.DimClassification)
	if cls == nil {
		var err error
		if cls, err = c.AddAttr(core.DimClassification, core.Uint8); err != nil {
			return err
		}
	}
	for i, l := range labels {
		if l == dbscan.Noise {
			cls.SetFloat64(i, noiseClass)
		}
	}
	return nil
}

// hullGeometry returns a hull from dbscan.Hull as an orb geometry: a Point,
// a LineString (collinear points) or a Polygon whose ring is closed and
// counter-clockwise, as RFC 7946 asks of exterior rings.
func hullGeometry(hull [][2]float64) orb.Geometry {
	switch len(hull) {
	case 1:
		return orb.Point(hull[0])
	case 2:
		return orb.LineString{hull[0], hull[1]}
	}
	ring := make(orb.Ring, 0, len(hull)+1)
	for _, p := range hull {
		ring = append(ring, orb.Point(p))
	}
	return orb.Polygon{append(ring, ring[0])}
}

// writeHulls writes each cluster's XY convex hull with its size and
// bounding box as a GeoJSON FeatureCollection (orb/geojson), atomically.
func writeHulls(path string, c *core.Cloud, run *dbscan.Run) error {
	fc := geojson.NewFeatureCollection()
	for _, r := range run.Results {
		offsets, order := dbscan.Members(r.Labels, len(r.Sizes))
		for k := range r.Sizes {
			idx := order[offsets[k]:offsets[k+1]]
			lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
			hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
			nCore := 0
			for _, i := range idx {
				p := [3]float64{c.X[i], c.Y[i], c.Z[i]}
				for d := range 3 {
					lo[d], hi[d] = min(lo[d], p[d]), max(hi[d], p[d])
				}
				if r.Core[i] {
					nCore++
				}
			}
			f := geojson.NewFeature(hullGeometry(dbscan.Hull(c.X, c.Y, idx)))
			f.BBox = geojson.NewBBox(orb.Bound{Min: orb.Point{lo[0], lo[1]}, Max: orb.Point{hi[0], hi[1]}})
			f.Properties = geojson.Properties{
				"cluster": k, "min_pts": r.MinPts, "size": r.Sizes[k], "core": nCore,
				"z_min": lo[2], "z_max": hi[2],
			}
			fc.Append(f)
		}
	}
	if crs := c.Meta.CRS; crs.EPSG != 0 {
		// RFC 7946 dropped named CRSs, but GDAL and QGIS still read this
		// GeoJSON 2008 member; without it projected coordinates would be
		// taken for lon/lat.
		fc.ExtraMembers = geojson.Properties{"crs": map[string]any{
			"type": "name", "properties": map[string]any{"name": fmt.Sprintf("urn:ogc:def:crs:EPSG::%d", crs.EPSG)},
		}}
	}
	data, err := fc.MarshalJSON()
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := pcio.WriteAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// dbscanSummary is what pctk dbscan reports, as text or JSON.
type dbscanSummary struct {
	Input        string          `json:"input"`
	Output       string          `json:"output"`
	Points       int             `json:"points"`
	Eps          float64         `json:"eps"`
	Dims         string          `json:"dims"`
	Geographic   bool            `json:"geographic"`
	ScaleError   float64         `json:"scale_error,omitempty"`
	Backend      string          `json:"backend"`
	CountsReused bool            `json:"counts_reused"`
	Seconds      dbscanTimes     `json:"seconds"`
	Results      []dbscanOutcome `json:"results"`
}

type dbscanTimes struct {
	Read   float64 `json:"read"`
	Build  float64 `json:"build"`
	Stage1 float64 `json:"stage1"`
	Stage2 float64 `json:"stage2"`
	Write  float64 `json:"write"`
}

type dbscanOutcome struct {
	MinPts    int     `json:"min_pts"`
	Attribute string  `json:"attribute"`
	Clusters  int     `json:"clusters"`
	Largest   []int   `json:"largest"`
	Core      int     `json:"core"`
	Noise     int     `json:"noise"`
	Dropped   int     `json:"dropped_small"`
	Stage2    float64 `json:"stage2_seconds"`
}

// summaryLargest is how many cluster sizes the summary lists.
const summaryLargest = 5

func newDBSCANSummary(a *dbscanArgs, n int, run *dbscan.Run, scaleErr float64, read, write time.Duration) *dbscanSummary {
	s := &dbscanSummary{
		Input: a.in, Output: a.out, Points: n, Eps: a.opts.Eps, Dims: a.dims, Geographic: a.geo, ScaleError: scaleErr,
		Backend: run.Backend, CountsReused: run.CountsReused,
		Seconds: dbscanTimes{Read: read.Seconds(), Build: run.Build.Seconds(), Stage1: run.Stage1.Seconds(), Write: write.Seconds()},
	}
	for _, r := range run.Results {
		sizes := slices.Clone(r.Sizes)
		slices.SortFunc(sizes, func(x, y int) int { return y - x })
		s.Results = append(s.Results, dbscanOutcome{
			MinPts: r.MinPts, Attribute: a.attributeFor(r.MinPts), Clusters: len(r.Sizes),
			Largest: sizes[:min(len(sizes), summaryLargest)], Core: r.CoreCount, Noise: r.NoiseCount,
			Dropped: r.Dropped, Stage2: r.Stage2.Seconds(),
		})
		s.Seconds.Stage2 += r.Stage2.Seconds()
	}
	return s
}

// reportDBSCAN prints the summary: JSON on stdout with --json, else text on
// stderr; and the JSON to --summary FILE.
func reportDBSCAN(a *dbscanArgs, s *dbscanSummary, stdout io.Writer) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if a.summaryPath != "" {
		if err := pcio.WriteAtomic(a.summaryPath, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return fmt.Errorf("write %s: %w", a.summaryPath, err)
		}
	}
	if a.jsonOut {
		_, err := stdout.Write(data)
		return err
	}
	if logLevel < levelNormal {
		return nil
	}
	stage1 := fmt.Sprintf("count %s", seconds(s.Seconds.Stage1))
	if s.CountsReused {
		stage1 = "counts reused"
	}
	geo := ""
	if s.Geographic {
		geo = fmt.Sprintf(", lon/lat in metres (scale error ≤ %.2g%%)", 100*s.ScaleError)
	}
	infof("dbscan: %d points, eps %g, %s%s; backend %s: read %s, index %s, %s", s.Points, s.Eps, s.Dims, geo,
		s.Backend, seconds(s.Seconds.Read), seconds(s.Seconds.Build), stage1)
	for _, r := range s.Results {
		largest := make([]string, len(r.Largest))
		for i, n := range r.Largest {
			largest[i] = strconv.Itoa(n)
		}
		dropped := ""
		if r.Dropped > 0 {
			dropped = fmt.Sprintf(" (%d smaller than --min-cluster-size relabelled noise)", r.Dropped)
		}
		infof("  min_pts %d: %d clusters%s, largest %s; %d core, %d noise points; cluster %s -> %s",
			r.MinPts, r.Clusters, dropped, strings.Join(largest, ", "), r.Core, r.Noise, seconds(r.Stage2), r.Attribute)
	}
	return nil
}

func seconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

// stageProgress adapts the shared progress line to dbscan's stages: each
// stage gets its own "dbscan: STAGE: NN%" line.
func stageProgress() (report func(stage string, done float64), finish func()) {
	var mu sync.Mutex
	cur := ""
	update, end := func(float64) {}, func() {}
	report = func(stage string, done float64) {
		mu.Lock()
		if stage != cur {
			end()
			update, end = progress("dbscan: " + stage)
			cur = stage
		}
		u := update
		mu.Unlock()
		u(done)
	}
	finish = func() {
		mu.Lock()
		defer mu.Unlock()
		end()
	}
	return report, finish
}
