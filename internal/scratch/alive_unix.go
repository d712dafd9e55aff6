//go:build unix

package scratch

import (
	"errors"
	"os"
	"syscall"
)

// alive reports whether pid is a live process: signal 0 reaches it, or it
// exists but belongs to another user.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// stopSignals are the signals HandleSignals handles.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// status is the exit status of a process stopped by sig, as a shell
// reports it: 128 + the signal's number.
func status(sig os.Signal) int { return 128 + int(sig.(syscall.Signal)) }
