package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/stage"
)

// TestBackendName checks that "auto" (or no name) takes the cpu backend
// for the work it does best only, and that a named backend is kept.
func TestBackendName(t *testing.T) {
	tests := []struct {
		name    string
		cpuWork bool
		want    string
	}{
		{"auto", true, "cpu"},
		{"", true, "cpu"},
		{"AUTO", true, "cpu"},
		{"auto", false, "auto"},
		{"", false, ""},
		{"cuda", true, "cuda"},
		{"optix", true, "optix"},
		{"brute", false, "brute"},
	}
	for _, tc := range tests {
		if got := stage.BackendName(tc.name, tc.cpuWork); got != tc.want {
			t.Errorf("stage.BackendName(%q, cpuWork %v) = %q, want %q", tc.name, tc.cpuWork, got, tc.want)
		}
	}
}

// stopSpy is a backend with a device to release: it records when Stop is
// called, relative to the work it was given.
type stopSpy struct {
	findneighbor.Backend
	mu     sync.Mutex
	builds int
	stops  []int // builds done at each Stop
}

func (s *stopSpy) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	s.mu.Lock()
	s.builds++
	s.mu.Unlock()
	return s.Backend.Build(xyz, eps, opts)
}

func (s *stopSpy) Stop() {
	s.mu.Lock()
	s.stops = append(s.stops, s.builds)
	s.mu.Unlock()
}

// TestFilterReleasesDevice checks that a filter command releases its
// backend's device once, after its device work and before it returns,
// with OUT written as without the release; and that releaseBackend waits
// for Stop and does nothing for a backend without one.
func TestFilterReleasesDevice(t *testing.T) {
	dir := t.TempDir()
	in := dbscanFixture(t, dir)
	want := filepath.Join(dir, "want.ply")
	if code := run([]string{"pctk", "-q", "dbscan", "--backend", "cpu", "--eps", "1.5", "--min-pts", "3", in, want}); code != 0 {
		t.Fatalf("dbscan exited %d", code)
	}
	spy := &stopSpy{Backend: findneighbor.CPU()}
	stage.ObserveBackend = func(b findneighbor.Backend, _ time.Duration) findneighbor.Backend { return spy }
	defer func() { stage.ObserveBackend = nil }()
	out := filepath.Join(dir, "out.ply")
	if code := run([]string{"pctk", "-q", "dbscan", "--backend", "cpu", "--eps", "1.5", "--min-pts", "3", in, out}); code != 0 {
		t.Fatalf("dbscan with a device to release exited %d", code)
	}
	if !slices.Equal(spy.stops, []int{1}) {
		t.Errorf("Stop calls (builds done at each) = %v, want [1]: one Stop after the index's work", spy.stops)
	}
	a, errA := os.ReadFile(want)
	b, errB := os.ReadFile(out)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("OUT differs with the device released while writing (%v, %v)", errA, errB)
	}

	// pctk pipeline: one Stop per step, after the last step's work.
	spy.builds, spy.stops = 0, nil
	if code := run([]string{"pctk", "-q", "pipeline", "--backend", "cpu", in, "dbscan --eps 1.5 --min-pts 3", "dbscan --eps 2.5 --min-pts 2", out}); code != 0 {
		t.Fatalf("pipeline exited %d", code)
	}
	if !slices.Equal(spy.stops, []int{2, 2}) {
		t.Errorf("pipeline: Stop calls (builds done at each) = %v, want [2 2]: each step's backend released after the last step", spy.stops)
	}

	stage.ReleaseBackend(findneighbor.CPU())() // no Stop: returns at once
	gate := make(chan struct{})
	blocked := &gatedStop{gate: gate}
	wait := stage.ReleaseBackend(blocked)
	returned := make(chan struct{})
	go func() { wait(); close(returned) }()
	select {
	case <-returned:
		t.Fatal("the wait returned before Stop did")
	case <-time.After(20 * time.Millisecond):
	}
	close(gate)
	<-returned
}

// gatedStop is a backend whose Stop blocks until gate is closed.
type gatedStop struct {
	findneighbor.Backend
	gate chan struct{}
}

func (g *gatedStop) Stop() { <-g.gate }

// deviceSpy is a backend whose Probe leaves its device unstarted.
type deviceSpy struct{ findneighbor.Backend }

func (deviceSpy) Probe() (findneighbor.Info, error) {
	return findneighbor.Info{Details: map[string]string{"rt cores": "not checked"}}, nil
}

func (deviceSpy) ProbeDevice() (findneighbor.Info, error) {
	return findneighbor.Info{Details: map[string]string{"rt cores": "0"}}, nil
}

// TestProbeFull checks that pctk backends starts a device only with
// --full, and probes backends without a device as always.
func TestProbeFull(t *testing.T) {
	spy := deviceSpy{findneighbor.CPU()}
	for _, tc := range []struct {
		b    findneighbor.Backend
		full bool
		want string
	}{
		{spy, false, "not checked"},
		{spy, true, "0"},
		{findneighbor.CPU(), true, ""},
	} {
		info, err := probe(tc.b, tc.full)
		if err != nil || info.Details["rt cores"] != tc.want {
			t.Errorf("probe(%T, full %v): rt cores %q, %v; want %q", tc.b, tc.full, info.Details["rt cores"], err, tc.want)
		}
	}
	if code := run([]string{"pctk", "backends", "--full"}); code != 0 {
		t.Errorf("pctk backends --full exited %d", code)
	}
}
