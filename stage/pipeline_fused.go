package stage

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/io/pcio"
)

// A stage command over a tile collection runs out of core, and a pipeline
// runs its steps one after another, each out of core over the whole
// collection (runPipelineStreamed): every step reads the files three
// times, bins them on disk and writes them again. When the collection fits
// the memory budget, runPipelineFused runs the same steps in memory
// instead: the files are read once into one cloud
// (the collection's points in order, as a step's out-of-core run sees
// them), the steps run on it as pctk pipeline runs them on one file, and
// each file's points are written to its OUT. The outputs are the
// step-by-step ones byte for byte: a collection's run of a stage is its
// in-memory run on the files' concatenation, point for point (the registry
// test, TestEveryStageEverywhere), and the files between steps hold the
// same values as the cloud in memory as long as no step moves a point
// (checked, see below) and their format keeps every value of the
// input's (fusedFormats).

// fuseCollections is false where the registry test runs collections out
// of core, the runs the fused ones must equal.
var fuseCollections = true

// rowAttr is the column that numbers the points of a fused pipeline's
// cloud, so that each output file gets its own points after steps that
// drop some. No stage reads it, and it is never written.
const rowAttr = "pctk.row"

// fusedFormats lists, for the format of the files between steps
// (intermediateFormat), the input formats whose every value it holds
// exactly: LAS for LAS and LAZ (the same records, the same scale), PLY
// for PLY (every type stored as it is).
var fusedFormats = map[string][]string{"las": {"las", "laz"}, "ply": {"ply"}}

// fusedPlan is what a fused run knows before it reads: the memory
// budget, the inputs' headers and formats, and their points in all.
type fusedPlan struct {
	budget int64
	heads  []*pcio.Header
	froms  []*pcio.Format
	n      int64
	// writers is how many files are read, and written, at once: as many
	// as the budget leaves room for beside the run (a file's points are
	// held apart while it is read or written), at most one a core.
	writers int
}

// planFused returns the plan of a pipeline's fused run over the tile
// collection ins → outs, or nil when its steps run step by step: when
// fusing would not give the step-by-step outputs (fusable, fusedFormats,
// files of other dimensions) or does not fit the memory budget
// (--max-memory, by default a quarter of the machine's memory; fusedBytes).
func planFused(c Values, ins, outs []string, steps []pipelineStep) (*fusedPlan, error) {
	if ins == nil || !fuseCollections || !fusable(c, steps) {
		return nil, nil
	}
	p := &fusedPlan{}
	var err error
	if p.budget, err = memoryBudget(c); err != nil {
		return nil, err
	}
	if p.heads, p.froms, err = inputHeaders(c, ins); err != nil {
		return nil, err
	}
	inter, err := intermediateFormat(c, outs[0], ins[0])
	if err != nil {
		return nil, err
	}
	var most int64
	for i, h := range p.heads {
		if !slices.Equal(schemaOf(h), schemaOf(p.heads[0])) {
			msg.Debugf("collection: %s has other dimensions than %s: out of core", ins[i], ins[0])
			return nil, nil
		}
		if len(steps) > 1 && !slices.Contains(fusedFormats[inter.Name], p.froms[i].Name) {
			msg.Debugf("collection: %s between steps may not hold every value of %s: out of core, step by step", inter.Name, p.froms[i].Name)
			return nil, nil
		}
		if h.Count < 0 {
			return nil, nil
		}
		// A file's own counts record (dbscan, neighbors): a collection's
		// run of those stages drops it from that file, where in memory the
		// whole cloud's record would take its place, and the others keep it.
		if slices.ContainsFunc(h.Meta.Comments, func(s string) bool { return strings.HasPrefix(s, dbscan.CountsRecordPrefix) }) {
			msg.Debugf("collection: %s carries a counts record: out of core", ins[i])
			return nil, nil
		}
		p.n, most = p.n+h.Count, max(most, h.Count)
	}
	need, part := fusedBytes(p.heads[0], steps, p.n, most)
	if p.n == 0 || p.n >= math.MaxUint32 || need > p.budget {
		msg.Debugf("collection: %d points need about %dMiB in memory, over --max-memory %dMiB: out of core", p.n, need>>20, p.budget>>20)
		return nil, nil
	}
	p.writers = int(min(int64(runtime.GOMAXPROCS(0)), int64(len(ins)), 1+(p.budget-need)/max(part, 1)))
	msg.Debugf("collection: %d points in memory, about %dMiB of --max-memory %dMiB; %d files read and written at once", p.n, need>>20, p.budget>>20, p.writers)
	return p, nil
}

// runPipelineFused runs steps over the tile collection ins → outs in
// memory when planFused allows it, and reports whether it did; when it
// did not, nothing was written and the caller runs them out of core. c
// holds the pipeline's options (a stage command's: its own), each step
// its own over them; the inputs and outputs are checked. A stage command
// on a collection is one step without words.
func runPipelineFused(c Values, ins, outs []string, out string, steps []pipelineStep) (bool, error) {
	// The devices start while the headers and the points are read (run
	// out of core instead, each step starts its own again: a no-op).
	pending, err := startSteps(c, steps)
	if err != nil {
		return true, err
	}
	plan, err := planFused(c, ins, outs, steps)
	if plan == nil || err != nil {
		return false, err
	}
	heads, froms := plan.heads, plan.froms
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(goMemoryLimit(plan.budget)))

	start := time.Now()
	cloud, counts, err := readFused(c, ins, plan.n, plan.writers)
	if err != nil {
		return true, err
	}
	// The first file's metadata, as a step's out-of-core run sees it: the
	// steps' changes to it (the whole cloud's counts record) are not
	// written, as out of core a collection's files carry none.
	cloud.Meta = heads[0].Meta
	cloud.Meta.Comments = slices.Clone(cloud.Meta.Comments)
	// The coordinates as read: a file between steps holds a point that a
	// step moved rounded to its format's precision, so a step before the
	// last may not move one (moved).
	var orig *core.Cloud
	if len(steps) > 1 {
		orig = &core.Cloud{X: par.Clone(cloud.X), Y: par.Clone(cloud.Y), Z: par.Clone(cloud.Z)}
	}
	read := time.Since(start)
	errMoved := errors.New("moved")
	cloud, runs, err := runSteps(cloud, froms[0], strings.Join(ins, " "), out, steps, pending, func(n int, cloud *core.Cloud) error {
		if n == len(steps) {
			return nil
		}
		rows := cloud.Attr(rowAttr).Data.([]uint32)
		moved := par.First(len(rows), func(lo, hi int) int {
			for k := lo; k < hi; k++ {
				if r := rows[k]; cloud.X[k] != orig.X[r] || cloud.Y[k] != orig.Y[r] || cloud.Z[k] != orig.Z[r] {
					return k
				}
			}
			return -1
		})
		if moved >= 0 {
			msg.Debugf("collection: step %d moved point %d: out of core, step by step", n, rows[moved])
			return errMoved
		}
		return nil
	})
	if err == errMoved {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	rows := cloud.Attr(rowAttr).Data.([]uint32)
	cloud.RemoveAttr(rowAttr)
	return true, reportSteps(steps, runs, read, func() error {
		// Each file's points, a run of the cloud's; plan.writers files at
		// a time (a small tile's LAZ has few chunks to code at once).
		starts := make([]int, len(heads)+1)
		var first uint32
		for i := range heads {
			first += uint32(counts[i])
			k, _ := slices.BinarySearch(rows[starts[i]:], first)
			starts[i+1] = starts[i] + k
		}
		errs := make([]error, len(heads))
		par.For(par.Ranges(len(heads), (len(heads)+plan.writers-1)/plan.writers), func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				// A view of the run, not a copy: no other file's points
				// share it, and nothing reads the cloud after.
				part := cloud.Slice(starts[i], starts[i+1])
				part.Meta = heads[i].Meta
				errs[i] = WriteCloud(c, outs[i], part, froms[i])
			}
		})
		return errors.Join(errs...)
	})
}

// fusable reports whether the steps may run in memory over a collection:
// none writes side outputs, none projects its coordinates, and the
// pipeline's options leave the files between steps as they are (no LAS
// scale, offset, format or extra-dimension choice) and need no
// out-of-core refusal of their own (--salvage, a read query).
func fusable(c Values, steps []pipelineStep) bool {
	for _, o := range append([]*Option{SalvageOption}, append(QueryOptions, LASOptions...)...) {
		if c.IsSet(o.Name) {
			return false
		}
	}
	for _, ps := range steps {
		if slices.ContainsFunc(ps.s.job.Outputs, func(o string) bool { return o != "" }) || ps.s.previewPath != "" || ps.s.job.Project != nil {
			return false
		}
	}
	return true
}

// inputHeaders opens each input for its header and format.
func inputHeaders(c Values, ins []string) ([]*pcio.Header, []*pcio.Format, error) {
	heads, froms := make([]*pcio.Header, len(ins)), make([]*pcio.Format, len(ins))
	for i, in := range ins {
		dec, f, closer, err := openStream(c, in)
		if err != nil {
			return nil, nil, err
		}
		heads[i], froms[i] = dec.Header(), f
		closer.Close()
	}
	return heads, froms, nil
}

// schemaOf lists a header's dimensions as "name type".
func schemaOf(h *pcio.Header) []string {
	var s []string
	for _, a := range h.Schema {
		s = append(s, fmt.Sprintf("%s %v", a.Name, a.Type))
	}
	return s
}

// fusedBytes estimates the memory of a fused run of n points, the largest
// file most of them: the cloud (coordinates, the files' dimensions, the
// steps' new ones, the row numbers and, between steps, the coordinates as
// read), the largest file's while it is appended or written, and per
// point of the cloud what the largest step needs as one tile of an
// out-of-core run. part is the largest file's share of the cloud, which
// each more file written at once takes.
func fusedBytes(h *pcio.Header, steps []pipelineStep, n, most int64) (need, part int64) {
	point := int64(24 + 4)
	for _, a := range h.Schema {
		point += int64(a.Type.Size())
	}
	var work int64
	for _, ps := range steps {
		for _, d := range ps.s.f.Writes {
			point += int64(d.Type.Size())
		}
		if st := ps.s.job.Stream; st != nil {
			work = max(work, st.PointBytes, st.PeakBytes)
		}
	}
	if len(steps) > 1 {
		point += 24
	}
	return streamReserve + point*(n+most) + (tilePointBytes+work)*n, point * most
}

// readFused reads the files ins, n points in all, into one cloud with the
// row numbers rowAttr, and returns it with each file's point count. at
// files are read at once, each into a cloud of its own (ReadCloud), then
// appended in order.
func readFused(c Values, ins []string, n int64, at int) (*core.Cloud, []int64, error) {
	var cloud *core.Cloud
	counts := make([]int64, len(ins))
	files, errs := make([]*core.Cloud, len(ins)), make([]error, len(ins))
	for g0 := 0; g0 < len(ins); g0 += at {
		g1 := min(g0+at, len(ins))
		par.Each(g1-g0, func(j int) {
			files[g0+j], _, errs[g0+j] = ReadCloud(c, ins[g0+j])
		})
		var group []*core.Cloud
		for i := g0; i < g1; i++ {
			if errs[i] != nil {
				return nil, nil, errs[i]
			}
			f := files[i]
			files[i], counts[i] = nil, int64(f.Len())
			if f.Len() == 0 {
				continue
			}
			if cloud == nil {
				cloud = &core.Cloud{Attrs: make([]*core.Attribute, len(f.Attrs))}
				for j, a := range f.Attrs {
					cloud.Attrs[j] = core.NewAttribute(a.Name, a.Type, 0)
				}
				cloud.Grow(int(n))
			}
			group = append(group, f)
		}
		// The group's files into the cloud, their columns copied at once.
		if len(group) > 0 {
			if err := cloud.AppendAll(group); err != nil {
				return nil, nil, err
			}
		}
	}
	if cloud == nil {
		cloud = &core.Cloud{}
	}
	rows := make([]uint32, cloud.Len())
	par.For(par.Ranges(len(rows), par.Grain), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			rows[i] = uint32(i)
		}
	})
	return cloud, counts, cloud.SetAttr(core.NewColumn(rowAttr, rows))
}
