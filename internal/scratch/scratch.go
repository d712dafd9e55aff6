// Package scratch names, tracks and cleans up the temporary files and
// folders pctk makes: the temporary file of an atomic write beside OUT
// (io/pcio.WriteAtomic) and the tile folders of an out-of-core run in the
// temporary folder (primitives/tile.Store).
//
// Every name carries the process id of its maker, "pctk-PID-RAND":
//
//	.OUT.pctk-PID-RAND.tmp       beside OUT, while it is written
//	.OUT.pctk-PID-RAND.check     beside OUT, while its folder is checked
//	pctk-tiles-PID-RAND.tmp/     in --tmpdir or the system's temporary folder
//
// A process that ends normally removes its own (Remove, Rename). One
// stopped by SIGINT, SIGTERM or SIGHUP removes them in HandleSignals's
// handler before it exits with 128 + the signal's number. One killed
// outright (SIGKILL, a power cut) cannot: the next pctk run that writes in
// the same folder removes them (Sweep), once their PID is not a live
// process. A PID that lives again in an unrelated process keeps its files
// until that process ends; folders shared by PID namespaces (containers
// with one /tmp) may hold a live run's files under a PID the sweeping
// process cannot see, which a sweep would then remove: give such runs
// their own --tmpdir.
package scratch

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
)

var (
	// mu guards live and swept; the signal handler takes it for good, so
	// that nothing is made, renamed or exits once it cleans up.
	mu    sync.Mutex
	live  = map[string]bool{} // paths made by this process, not yet removed
	swept = map[string]bool{} // folders swept by this process
)

// stale matches the names this package makes, and no name a user is
// likely to give; group 1 is the PID.
var stale = regexp.MustCompile(`^(?:\..+\.pctk|pctk-[a-z-]+)-([0-9]+)-[0-9]+\.(?:tmp|check)$`)

// CreateTemp creates a new file in dir named "." + base + ".pctk-PID-RAND"
// + suffix (".tmp" or ".check"), open for reading and writing, and tracks it until Remove or
// Rename. It first sweeps dir (Sweep).
func CreateTemp(dir, base, suffix string) (*os.File, error) {
	Sweep(dir)
	mu.Lock()
	defer mu.Unlock()
	f, err := os.CreateTemp(dir, "."+base+".pctk-"+strconv.Itoa(os.Getpid())+"-*"+suffix)
	if err != nil {
		return nil, err
	}
	live[f.Name()] = true
	return f, nil
}

// MkdirTemp creates a new folder in dir ("" for the system's temporary
// folder) named "pctk-" + kind + "-PID-RAND.tmp" and tracks it until
// Remove. It first sweeps dir (Sweep).
func MkdirTemp(dir, kind string) (string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	Sweep(dir)
	mu.Lock()
	defer mu.Unlock()
	d, err := os.MkdirTemp(dir, "pctk-"+kind+"-"+strconv.Itoa(os.Getpid())+"-*.tmp")
	if err != nil {
		return "", err
	}
	live[d] = true
	return d, nil
}

// Remove removes a file or folder made by CreateTemp or MkdirTemp, with
// all it holds, and stops tracking it.
func Remove(path string) error {
	mu.Lock()
	defer mu.Unlock()
	delete(live, path)
	return os.RemoveAll(path)
}

// Rename renames a file made by CreateTemp to target and stops tracking
// it. A signal leaves either the renamed file or the old target, never
// both nor neither.
func Rename(tmp, target string) error {
	mu.Lock()
	defer mu.Unlock()
	if err := os.Rename(tmp, target); err != nil {
		return err
	}
	delete(live, tmp)
	return nil
}

// HandleSignals makes the signals that ask a process to stop (SIGINT,
// Ctrl-C; SIGTERM; SIGHUP) remove this process's files and folders and end
// it with the shell's status for the signal, 128 + its number (130, 143,
// 129). From the signal on, the process's other goroutines wait at their
// next call of this package, Exit included. Call it once, from main.
func HandleSignals() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, stopSignals...)
	go func() {
		sig := <-ch
		mu.Lock() // for good: os.Exit ends the process holding it
		cleanup()
		os.Exit(status(sig))
	}()
}

// Exit ends the process with code, as os.Exit does, unless a signal is
// being handled: it then waits for the handler, which cleans up and exits
// with the signal's status. main calls it, so that an error the signal
// caused (a tile folder removed under a reader) does not end the process
// while the handler is still removing files.
func Exit(code int) {
	mu.Lock()
	os.Exit(code)
}

// cleanup removes every file and folder this process made and has not
// removed or renamed, and returns the first error. The caller holds mu.
func cleanup() error {
	var first error
	for p := range live {
		// A folder another goroutine is still writing into may gain an
		// entry while it is removed: try again.
		var err error
		for range 3 {
			if err = os.RemoveAll(p); err == nil {
				break
			}
		}
		if err != nil && first == nil {
			first = fmt.Errorf("scratch: %w", err)
		}
		delete(live, p)
	}
	return first
}

// Sweep removes, once per process and folder, the files and folders in
// dir that another pctk process made and left behind when it was killed:
// those whose name this package gives and whose PID is not a live process
// (alive). Errors are ignored: a sweep is a courtesy, not the work.
func Sweep(dir string) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	mu.Lock()
	done := swept[abs]
	swept[abs] = true
	mu.Unlock()
	if done {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		m := stale.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid == os.Getpid() || alive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}
