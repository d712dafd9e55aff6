package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pctk/pctk/internal/scratch"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

// pipelineRow is one whole `pctk pipeline` run over a tile collection,
// split into its phases (s) as the steps' summaries (--summary) report
// them: reading the collection, each step's compute, writing it.
type pipelineRow struct {
	Backend string `json:"backend"`
	Run     int    `json:"run"` // 1: the process's first, a cold start
	// Read and Write are summed over the steps: a collection that runs in
	// memory is read by the first and written by the last, one out of core
	// by every step.
	Read  float64 `json:"read_s"`
	Write float64 `json:"write_s"`
	// Steps holds each step's compute and the backend it ran on.
	Steps []pipelineStepTime `json:"steps"`
	// Other is what the run spent besides: start-up, checks, the
	// device's start where the read did not hide it.
	Other float64 `json:"other_s"`
	Total float64 `json:"total_s"`
	// Convert is `pctk convert` of the same collection into a folder, run
	// right after in the same process (the I/O floor); Ratio = Total /
	// Convert.
	Convert float64 `json:"convert_s"`
	Ratio   float64 `json:"ratio_to_convert"`
}

// pipelineStepTime is a step's phases and its backend. Device is the
// part of Compute the backend's device was busy (backends that time their
// device: findneighbor.DeviceTimer), Idle the rest (host work while the
// device waited); both 0 on the host's backends.
type pipelineStepTime struct {
	Step    string  `json:"step"`
	Backend string  `json:"backend"`
	Read    float64 `json:"read_s"`
	Compute float64 `json:"compute_s"`
	Write   float64 `json:"write_s"`
	Device  float64 `json:"device_s,omitempty"`
	Idle    float64 `json:"device_idle_s,omitempty"`
}

// stepSummary is what runBenchPipeline reads of a step's --summary
// document: dbscan's seconds are read, build, stage1, stage2 and write,
// the other stages' read, compute and write.
type stepSummary struct {
	Backend string             `json:"backend"`
	Seconds map[string]float64 `json:"seconds"`
}

// runBenchPipeline times whole `pctk pipeline FILES STEPS... OUT/` runs
// over the tile collection FILES (bench --e2e --steps), in this process,
// once per backend and repeat, each followed by `pctk convert` of the
// collection, and prints where the time goes.
func runBenchPipeline(c *cli.Context) error {
	var steps [][]string
	for _, s := range strings.Split(c.String("steps"), ";") {
		w, err := stage.SplitWords(s)
		if err != nil {
			return stage.Usagef("--steps: %v", err)
		}
		if len(w) > 0 {
			steps = append(steps, w)
		}
	}
	if c.NArg() == 0 || len(steps) == 0 {
		return stage.Usagef("bench --e2e --steps needs the steps (\"denoise statistical --k 8; dbscan --eps 1\") and the collection's FILEs")
	}
	ins := c.Args().Slice()
	dir, err := scratch.MkdirTemp("", "e2e")
	if err != nil {
		return err
	}
	defer scratch.Remove(dir)
	var rows []pipelineRow
	for _, name := range strings.Split(c.String("backends"), ",") {
		for r := range max(1, c.Int("repeat")) {
			out := filepath.Join(dir, "out") + "/"
			args := append([]string{"pctk", "-q", "pipeline"}, ins...)
			var sums []string
			for i, w := range steps {
				sums = append(sums, filepath.Join(dir, fmt.Sprintf("step%d.json", i)))
				args = append(args, strings.Join(append(w, "--summary", sums[i]), " "))
			}
			args = append(args, out, "--backend", name)
			if c.IsSet("max-memory") {
				args = append(args, "--max-memory", c.String("max-memory"))
			}
			t0 := time.Now()
			if code := run(args); code != 0 {
				return fmt.Errorf("bench --e2e: pctk pipeline --backend %s exited %d", name, code)
			}
			row := pipelineRow{Backend: name, Run: r + 1, Total: time.Since(t0).Seconds()}
			row.Other = row.Total
			for i, path := range sums {
				var s stepSummary
				data, err := os.ReadFile(path)
				if err == nil {
					err = json.Unmarshal(data, &s)
				}
				if err != nil {
					return fmt.Errorf("bench --e2e: step %d's summary: %w", i+1, err)
				}
				st := pipelineStepTime{Step: strings.Join(steps[i], " "), Backend: s.Backend}
				for phase, v := range s.Seconds {
					switch phase {
					case "read":
						st.Read += v
					case "write":
						st.Write += v
					case "device":
						st.Device += v
					default:
						st.Compute += v
					}
				}
				if st.Device > 0 {
					st.Idle = max(0, st.Compute-st.Device)
				}
				row.Read, row.Write, row.Other = row.Read+st.Read, row.Write+st.Write, row.Other-st.Read-st.Compute-st.Write
				row.Steps = append(row.Steps, st)
			}
			if err := os.RemoveAll(out); err != nil {
				return err
			}
			conv := filepath.Join(dir, "convert") + "/"
			t := time.Now()
			if code := run(append(append([]string{"pctk", "-q", "convert"}, ins...), conv)); code != 0 {
				return fmt.Errorf("bench --e2e: pctk convert exited %d", code)
			}
			row.Convert = time.Since(t).Seconds()
			row.Ratio = row.Total / row.Convert
			if err := os.RemoveAll(conv); err != nil {
				return err
			}
			rows = append(rows, row)
		}
	}
	if c.Bool("json") {
		return stage.PrintJSON(struct {
			Files []string      `json:"files"`
			Rows  []pipelineRow `json:"rows"`
		}{ins, rows})
	}
	for i, w := range steps {
		fmt.Printf("step %d: %s\n", i+1, strings.Join(w, " "))
	}
	fmt.Printf("%-7s %3s %7s", "backend", "run", "read")
	for i := range steps {
		fmt.Printf(" %7s", fmt.Sprintf("step%d", i+1))
	}
	fmt.Printf(" %7s %7s %7s %8s %6s   (s; a step's compute on its backend)\n", "write", "other", "total", "convert", "ratio")
	for _, r := range rows {
		fmt.Printf("%-7s %3d %7.2f", r.Backend, r.Run, r.Read)
		for _, s := range r.Steps {
			fmt.Printf(" %7.2f", s.Compute)
		}
		fmt.Printf(" %7.2f %7.2f %7.2f %8.2f %5.2fx\n", r.Write, r.Other, r.Total, r.Convert, r.Ratio)
		if r.device() {
			fmt.Printf("%-7s %3s %7s", "", "", "device")
			for _, s := range r.Steps {
				fmt.Printf(" %7.2f", s.Device)
			}
			fmt.Printf("   (s the device was busy in each step's compute; the rest of it, host work, is the device's idle time)\n")
		}
	}
	return nil
}

// device reports whether a step of the run timed its device.
func (r pipelineRow) device() bool {
	for _, s := range r.Steps {
		if s.Device > 0 {
			return true
		}
	}
	return false
}
