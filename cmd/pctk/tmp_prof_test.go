package main

import (
	"os"
	"runtime/pprof"
	"strings"
	"testing"
)

func TestTmpProfile(t *testing.T) {
	args := strings.Fields(os.Getenv("TMP_ARGS"))
	if len(args) == 0 {
		t.Skip()
	}
	f, _ := os.Create("/tmp/cmd.prof")
	pprof.StartCPUProfile(f)
	for range 3 {
		if rc := run(append([]string{"pctk"}, args...)); rc != 0 {
			t.Fatal(rc)
		}
	}
	pprof.StopCPUProfile()
}
