//go:build !linux

package pcio

import "os"

// isTerminal reports whether f is a character device, which outside Linux
// stands in for a terminal check (it also holds for /dev/null).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
