//go:build !unix

package scratch

import "os"

// alive reports whether pid may be a live process: without a portable
// way to ask, always, so that a sweep removes nothing.
func alive(int) bool { return true }

// stopSignals are the signals HandleSignals handles.
var stopSignals = []os.Signal{os.Interrupt}

// status is the exit status of a process stopped by an interrupt, as a
// shell reports SIGINT.
func status(os.Signal) int { return 130 }
