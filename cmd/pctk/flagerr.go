package main

import (
	"regexp"
	"strings"

	"github.com/pctk/pctk/stage"
)

// flagName matches a flag as the flag package names it in its errors,
// with one dash ("-bogus"), when its name is longer than a letter.
var flagName = regexp.MustCompile(`(^|\s)-([A-Za-z][A-Za-z0-9-]+)\b`)

// flagUsage is the usage error of a flag the parser refused: the flag
// package's message, with long flags named as pctk's help names them
// (--eps, not -eps), and "flag provided but not defined" said plainly.
func flagUsage(err error) error {
	msg := flagName.ReplaceAllString(err.Error(), "$1--$2")
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		msg = "unknown flag " + name + " (see pctk help COMMAND)"
	}
	return stage.UsageError{Msg: msg}
}
