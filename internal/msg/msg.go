// Package msg prints pctk's messages on standard error: summary lines
// unless --quiet, detail lines with --verbose. The stage driver and the
// command line share it, so that one --quiet silences both.
package msg

import (
	"fmt"
	"os"
)

// Level is how much is printed.
type Level int

// The levels, from --quiet to --verbose.
const (
	Quiet Level = iota
	Normal
	Verbose
)

// Current is the level in force (set once from the command line).
var Current = Normal

// Infof prints a summary line on stderr unless Quiet.
func Infof(format string, args ...any) {
	if Current >= Normal {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}

// Debugf prints a detail line on stderr when Verbose.
func Debugf(format string, args ...any) {
	if Current >= Verbose {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}

// StderrIsTerminal reports whether standard error is a terminal; progress
// lines are drawn only then, so logs and pipes stay clean.
func StderrIsTerminal() bool {
	fi, err := os.Stderr.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
