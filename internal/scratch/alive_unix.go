//go:build unix

package scratch

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// alive reports whether pid is a live process: signal 0 reaches it, or it
// exists but belongs to another user.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// HandleSignals makes SIGINT (Ctrl-C), SIGTERM and SIGHUP remove this
// process's files and folders (Cleanup) and end it with the shell's status
// for the signal, 128 + its number (130, 143, 129). Call it once, from
// main.
func HandleSignals() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-ch
		Cleanup()
		os.Exit(128 + int(sig.(syscall.Signal)))
	}()
}
