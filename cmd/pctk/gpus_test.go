package main

import (
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
	"github.com/pctk/pctk/stage"
)

// envPool, set for a child pctk of the tests (pctkCmd), makes --gpus
// spread a tiled run's tiles over that many Jitters of its backend, as if
// that many GPUs were visible: the multi-GPU scheduler without a GPU, with
// tiles finishing out of order.
const envPool = "PCTK_TEST_POOL"

// poolForTests installs envPool's gpuBackends in a child pctk.
func poolForTests() {
	visible, err := strconv.Atoi(os.Getenv(envPool))
	if err != nil || visible <= 0 {
		return
	}
	stage.GPUBackends = func(b findneighbor.Backend, n int) ([]findneighbor.Backend, error) {
		if n == 0 {
			n = visible
		}
		if n > visible {
			return nil, stage.Usagef("--gpus %d: only %s usable here", n, stage.Count(visible, "GPU"))
		}
		if n == 1 {
			return []findneighbor.Backend{b}, nil
		}
		return fntest.Jitters(b, n, 1, 200*time.Microsecond), nil
	}
}

// TestPoolOutputs runs golden cases of dbscan, denoise (radius and
// statistical), neighbors and normals with their tiles spread over three
// backends (--gpus 3, envPool) that finish them out of order, in memory
// (--tile-size) and out of core (--max-memory), and holds what they write
// to the pinned bytes of the run in memory on one backend.
func TestPoolOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("spread golden outputs: not in -short")
	}
	t.Setenv(envPool, "3")
	names := []string{"db2", "db5", "db6", "d1", "d3", "d4", "nb1", "n4"}
	var cases []goldenCase
	for _, tc := range goldenCases {
		if slices.Contains(names, tc.name) {
			cases = append(cases, tc)
		}
	}
	for _, run := range []struct {
		name  string
		extra func(goldenCase) []string
	}{
		{"--tile-size", tileFor},
		{"--max-memory", func(tc goldenCase) []string {
			return append(tileFor(tc), "--max-memory", "64MiB", "--tmpdir", t.TempDir())
		}},
	} {
		got := runGolden(t, cases, func(tc goldenCase) []string { return append(run.extra(tc), "--gpus", "3") })
		if len(got) < len(cases) {
			t.Errorf("%s: %d outputs for %d cases", run.name, len(got), len(cases))
		}
		for name, s := range got {
			if s != goldenSums[name] {
				t.Errorf("%s --gpus 3: %s has sha256 %s, in memory %s", run.name, name, s, goldenSums[name])
			}
		}
	}
}

// TestGPUsFlag checks --gpus: a negative number and more GPUs than are
// visible are usage errors.
func TestGPUsFlag(t *testing.T) {
	t.Setenv(envPool, "2")
	out := t.TempDir() + "/o.las"
	for _, c := range []struct {
		gpus string
		want int
	}{{"-1", 2}, {"3", 2}, {"2", 0}} {
		cmd := pctkCmd(t, "-q", "dbscan", sample, out, "--eps", "2", "--tile-size", "25", "--backend", "cpu", "--gpus", c.gpus, "--force")
		err := cmd.Run()
		got := 0
		if err != nil {
			got = cmd.ProcessState.ExitCode()
		}
		if got != c.want {
			t.Errorf("--gpus %s: exit %d, want %d (%v)", c.gpus, got, c.want, err)
		}
	}
}
