package stage

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/synth"
	"github.com/pctk/pctk/internal/cloudtest"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// startProbe is the cpu backend with a device to start (starter), usable
// only while armed, so that the other tests' lists of usable backends
// leave it out. Start closes the channel a test set in started.
type startProbe struct {
	findneighbor.Backend
	armed   atomic.Bool
	mu      sync.Mutex
	started chan struct{}
}

func (*startProbe) Name() string { return "startprobe" }

func (p *startProbe) Probe() (findneighbor.Info, error) {
	if !p.armed.Load() {
		return findneighbor.Info{}, errors.New("not armed")
	}
	return findneighbor.Info{Name: "startprobe", Device: "test", Priority: -1}, nil
}

func (p *startProbe) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started != nil {
		close(p.started)
		p.started = nil
	}
}

var (
	probeOnce sync.Once
	probe     *startProbe
)

// TestPipelineStartsBackendsBeforeReading checks that a pipeline starts its
// steps' devices before it reads its input, so that a GPU's start-up
// overlaps the read: the input is a named pipe that receives the file only
// once the step's backend has been started. (A collection's fused run
// starts them before it reads the files' headers, which a named pipe
// cannot serve twice.)
func TestPipelineStartsBackendsBeforeReading(t *testing.T) {
	defer func(l msg.Level) { msg.Current = l }(msg.Current)
	msg.Current = msg.Quiet
	probeOnce.Do(func() {
		probe = &startProbe{Backend: findneighbor.CPU()}
		findneighbor.Register(probe)
	})
	probe.armed.Store(true)
	defer probe.armed.Store(false)
	dir := t.TempDir()
	cloud, err := synth.Street(synth.Options{Points: 3000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "src.las")
	cloudtest.Write(t, src, cloud)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	words := [][]string{strings.Fields("nndistance --k 4 --backend startprobe")}
	started := make(chan struct{})
	probe.mu.Lock()
	probe.started = started
	probe.mu.Unlock()
	fifo := filepath.Join(dir, "in.las")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	out := filepath.Join(dir, "out.las")
	done := make(chan error, 1)
	go func() { done <- RunPipeline(pipelineSettings(t, "cpu"), fifo, words, out) }()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the pipeline ended before starting its step's backend: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the step's backend was not started while the input was being read")
	}
	// The read waits on the pipe: feed it.
	if err := os.WriteFile(fifo, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, _, err := pcio.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != cloud.Len() || got.Attr("NNDistance") == nil {
		t.Fatalf("the pipeline wrote %d points (want %d), NNDistance %v", got.Len(), cloud.Len(), got.Attr("NNDistance") != nil)
	}
}
