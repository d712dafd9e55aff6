package stage

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pctk/pctk/algos/dbscan"
)

// DBSCANSummary is what pctk dbscan reports, as text or JSON.
type DBSCANSummary struct {
	Input        string          `json:"input"`
	Output       string          `json:"output"`
	Points       int             `json:"points"`
	Ignored      int             `json:"ignored,omitempty"` // left out by --ignore-class
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
	// Device is the part of build, stage1 and stage2 the device was busy
	// (Timings.Device).
	Device float64 `json:"device,omitempty"`
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

// doc is the summary as a run's document (Result.Doc): with the run's
// read, write and device times.
func (sum *DBSCANSummary) doc(t Timings) any {
	sum.Seconds.Read, sum.Seconds.Write, sum.Seconds.Device = t.Read, t.Write, t.Device
	return sum
}

// newDBSCANSummary describes run, of used points out of points, from in
// to out.
func newDBSCANSummary(a *dbscanArgs, in, out string, points, used int, dims string, run *dbscan.Run) *DBSCANSummary {
	s := &DBSCANSummary{
		Input: in, Output: out, Points: points, Ignored: points - used, Eps: a.opts.Eps, Dims: dims, Geographic: a.geo, ScaleError: a.scaleErr,
		Backend: run.Backend, CountsReused: run.CountsReused,
		Seconds: dbscanTimes{Build: run.Build.Seconds(), Stage1: run.Stage1.Seconds()},
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

// lines returns the summary as text, one line for the run and one per
// min_pts value; the runner adds the timing line.
func (s *DBSCANSummary) lines() []string {
	stage1 := "neighbours counted"
	if s.CountsReused {
		stage1 = "counts reused"
	}
	geo := ""
	if s.Geographic {
		geo = fmt.Sprintf(", lon/lat in metres (scale error ≤ %.2g%%)", 100*s.ScaleError)
	}
	ignored := ""
	if s.Ignored > 0 {
		ignored = fmt.Sprintf(", %s ignored by class", Count(s.Ignored, "point"))
	}
	out := []string{fmt.Sprintf("dbscan: eps %g, %s%s%s; %s", s.Eps, s.Dims, geo, ignored, stage1)}
	for _, r := range s.Results {
		dropped := ""
		if r.Dropped > 0 {
			dropped = fmt.Sprintf(" (%d smaller than --min-cluster-size relabelled noise)", r.Dropped)
		}
		largest := ""
		if len(r.Largest) > 0 {
			l := make([]string, len(r.Largest))
			for i, n := range r.Largest {
				l[i] = strconv.Itoa(n)
			}
			largest = ", largest " + strings.Join(l, ", ")
		}
		out = append(out, fmt.Sprintf("  min_pts %d: %s%s%s; %d core, %s -> %s",
			r.MinPts, Count(r.Clusters, "cluster"), dropped, largest, r.Core, Count(r.Noise, "noise point"), r.Attribute))
	}
	return out
}
