package stage

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pctk/pctk/internal/scratch"
	"github.com/pctk/pctk/io/pcio"
)

// streamedPipeline reports whether a pipeline from ins into out runs step
// by step out of core (runPipelineStreamed): over a tile collection (OUT
// a folder, an existing one or a path ending in /, with several INs or a
// glob) or with --max-memory. It returns the collection's files (nil for
// one IN and OUT).
func streamedPipeline(c Values, ins []string, out string) (stream bool, cins, couts []string, err error) {
	if cins, couts, _, err = CollectionArgs(c, append(slices.Clone(ins), out)); cins != nil || err != nil {
		return err == nil, cins, couts, err
	}
	if !c.IsSet(MaxMemoryOption.Name) {
		return false, nil, nil, nil
	}
	if len(ins) != 1 || isGlob(ins[0]) {
		return false, nil, nil, Usagef("pipeline --max-memory merges no inputs yet: give one IN, or a folder OUT for a tile collection")
	}
	return true, nil, nil, nil
}

// runPipelineStreamed runs steps one after another, each as its stage's
// out-of-core run (a tile collection's, or one file's with --max-memory):
// step i reads what step i-1 wrote, in a scratch folder (--tmpdir), and
// the last writes OUT. The result is byte for byte the steps' commands run
// one after another on the same files, with one device context for the
// whole run. The files between steps are in OUT's format, LAS for LAZ and
// COPC (the same records, not compressed between steps). Every step must
// run out of core. ins and outs are a collection's files, nil for in and
// out alone.
func runPipelineStreamed(c Values, in string, ins, outs []string, out string, steps []pipelineStep) error {
	for i, ps := range steps {
		if ps.s.job.Stream == nil {
			return Usagef("pipeline step %d (%s) runs in memory only: a pipeline over a tile collection or with --max-memory needs every step's out-of-core run (docs/scale.md)", i+1, strings.Join(ps.words, " "))
		}
	}
	var side []string
	for _, ps := range steps {
		side = append(side, ps.s.outputs()...)
	}
	collection := ins != nil
	if !collection {
		ins, outs = []string{in}, []string{out}
	}
	if collection {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
	}
	if err := CheckInOut(c, ins, outs, side); err != nil {
		return err
	}
	if collection {
		// Each step with its options over the pipeline's, as step by step.
		fsteps := make([]pipelineStep, len(steps))
		for i, ps := range steps {
			s := *ps.s
			s.c = layered{s.c.(*Settings), c}
			fsteps[i] = pipelineStep{ps.words, &s}
		}
		if fused, err := runPipelineFused(c, ins, outs, out, fsteps); fused || err != nil {
			return err
		}
	}
	dir := ""
	if len(steps) > 1 {
		var err error
		if dir, err = scratch.MkdirTemp(c.String(TmpdirOption.Name), "pipeline"); err != nil {
			return err
		}
		defer scratch.Remove(dir)
	}
	cur := ins
	for i, ps := range steps {
		v := NewSettings([]*Option{FormatOption})
		next := outs
		if i < len(steps)-1 {
			f, err := intermediateFormat(c, outs[0], cur[0])
			if err != nil {
				return err
			}
			if err := v.Set(FormatOption.Name, f.Name); err != nil {
				return err
			}
			next = make([]string, len(outs))
			for j, o := range outs {
				name := strings.TrimSuffix(filepath.Base(o), filepath.Ext(o))
				next[j] = filepath.Join(dir, fmt.Sprintf("%d-%d-%s%s", i+1, j, name, f.Extensions[0]))
			}
		}
		s := ps.s
		s.c = layered{v, layered{s.c.(*Settings), c}}
		a := streamArgs{in: strings.Join(cur, " "), out: out, ins: cur, outs: next}
		if !collection {
			a = streamArgs{in: cur[0], out: next[0]}
		}
		if err := s.runStreamed(a); err != nil {
			return fmt.Errorf("pipeline step %d (%s): %w", i+1, strings.Join(ps.words, " "), err)
		}
		if i > 0 {
			for _, f := range cur {
				scratch.Remove(f)
			}
		}
		cur = next
	}
	return nil
}

// intermediateFormat is the format of the files between two steps of a
// streamed pipeline: OUT's (--format, else its extension, else IN's), LAS
// for LAZ and COPC.
func intermediateFormat(c Values, out, in string) (*pcio.Format, error) {
	from, _ := pcio.ByExtension(in)
	f, _, err := pcio.OutputFormat(out, c.String(FormatOption.Name), from)
	if err != nil {
		return nil, Usagef("%v", err)
	}
	if f.Name == "laz" || f.Name == "copc" {
		las, _, err := pcio.Lookup("las")
		return las, err
	}
	return f, nil
}
