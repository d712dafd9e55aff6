//go:build unix

package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestKilled stops a long convert and an out-of-core dbscan with SIGTERM
// and with SIGKILL at random moments (seeded), 20 times each, and checks
// that OUT is always the old file or the whole new one, that SIGTERM
// exits 143 leaving no file behind (beside OUT or in --tmpdir), and that
// after the SIGKILLs the next run leaves no file of any of them.
func TestKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("80 runs of pctk: not with -short")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.las")
	pctkRun(t, 0, "synth", "street", in, "--points", "40000")
	outDir, tmpDir := filepath.Join(dir, "out"), filepath.Join(dir, "tmp")
	for _, d := range []string{outDir, tmpDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(7, 31))
	for _, tc := range []struct {
		name  string
		out   string
		tiles bool // the run makes tiles in tmpDir
		args  []string
	}{
		{"convert", "o.txt", false, []string{"convert", in}},
		{"dbscan --max-memory", "o.las", true, []string{"dbscan", "--eps", "1", "--max-memory", "64MiB", "--tmpdir", tmpDir, in}},
	} {
		out := filepath.Join(outDir, tc.out)
		args := append(tc.args, out, "-q")
		start := time.Now()
		pctkRun(t, 0, args[:len(args)-1]...)
		took := time.Since(start)
		want, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		old := []byte("the old OUT of " + tc.name)
		finished := 0 // runs that wrote OUT before the signal
		dead := 0     // the PID of a killed run
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
			for i := range 20 {
				if err := os.WriteFile(out, old, 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := pctkCmd(t, args...)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				// The child's start-up (a test binary) comes on top of the
				// run measured in process.
				time.Sleep(time.Duration(rng.Float64() * 1.2 * float64(took+50*time.Millisecond)))
				cmd.Process.Signal(sig)
				cmd.Wait()
				dead = cmd.Process.Pid
				code, signalled := exitOf(cmd)
				got, err := os.ReadFile(out)
				if err != nil || !bytes.Equal(got, old) && !bytes.Equal(got, want) {
					t.Fatalf("%s, %v %d: OUT holds %d bytes (%v), want the old %d or the new %d", tc.name, sig, i, len(got), err, len(old), len(want))
				}
				if bytes.Equal(got, want) {
					finished++
				}
				if sig == syscall.SIGKILL {
					continue
				}
				// A SIGTERM before the handler is set kills at once, before
				// any file is made.
				if code != 143 && code != 0 && signalled != syscall.SIGTERM {
					t.Errorf("%s, SIGTERM %d: exit %d (signal %v), want 143", tc.name, i, code, signalled)
				}
				if left := append(leftovers(t, outDir, tc.out), leftovers(t, tmpDir)...); len(left) != 0 {
					t.Fatalf("%s, SIGTERM %d: left %v behind", tc.name, i, left)
				}
			}
		}
		// Whatever the timing of the kills, the sweep must find something:
		// what a SIGKILL at the right moment leaves.
		stale := []string{filepath.Join(outDir, "."+tc.out+".pctk-"+strconv.Itoa(dead)+"-1.tmp")}
		if tc.tiles {
			stale = append(stale, filepath.Join(tmpDir, "pctk-tiles-"+strconv.Itoa(dead)+"-1.tmp", "0.tile"))
		}
		for _, p := range stale {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, old, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s: one run %v; %d of 40 finished before the signal; %d files left by SIGKILLs", tc.name, took, finished,
			len(leftovers(t, outDir, tc.out))+len(leftovers(t, tmpDir))-len(stale))
		// The next run (a new process: a sweep runs once a process) removes
		// what the SIGKILLs left.
		if code, stderr := runChild(t, args...); code != 0 {
			t.Fatalf("%s after the kills: exit %d: %s", tc.name, code, stderr)
		}
		if left := append(leftovers(t, outDir, tc.out), leftovers(t, tmpDir)...); len(left) != 0 {
			t.Errorf("%s: the run after 20 SIGKILLs left %v", tc.name, left)
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
			t.Errorf("%s: the run after the kills wrote %d bytes, want %d", tc.name, len(got), len(want))
		}
		os.Remove(out)
	}
}

// exitOf returns the exit status of a command that ended, and the signal
// that killed it (0 when none).
func exitOf(cmd *exec.Cmd) (int, syscall.Signal) {
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal()
	}
	return cmd.ProcessState.ExitCode(), 0
}
