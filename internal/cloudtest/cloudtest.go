// Package cloudtest holds the test helpers that write and read point
// files, shared by the tests of the stage package, the command line and
// the Beam module.
package cloudtest

import (
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// Write writes c to path in the format its extension names, failing t on
// error.
func Write(t testing.TB, path string, c *core.Cloud) {
	t.Helper()
	f, variant, err := pcio.OutputFormat(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pcio.WriteFile(path, f, variant, c); err != nil {
		t.Fatal(err)
	}
}

// Read reads the cloud at path, failing t on error.
func Read(t testing.TB, path string) *core.Cloud {
	t.Helper()
	c, _, err := pcio.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
