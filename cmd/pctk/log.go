package main

import (
	"fmt"
	"os"
)

type level int

const (
	levelQuiet level = iota
	levelNormal
	levelVerbose
)

var logLevel = levelNormal

// infof prints a summary line on stderr unless --quiet.
func infof(format string, args ...any) {
	if logLevel >= levelNormal {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}

// debugf prints a detail line on stderr with --verbose.
func debugf(format string, args ...any) {
	if logLevel >= levelVerbose {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}
