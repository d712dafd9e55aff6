//go:build !unix

package scratch

import (
	"os"
	"os/signal"
)

// alive reports whether pid may be a live process: without a portable
// way to ask, always, so that a sweep removes nothing.
func alive(int) bool { return true }

// HandleSignals makes an interrupt remove this process's files and folders
// (Cleanup) and end it with status 130, as a shell reports SIGINT. Call it
// once, from main.
func HandleSignals() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	go func() {
		<-ch
		Cleanup()
		os.Exit(130)
	}()
}
