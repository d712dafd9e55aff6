package fntest

import (
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
	_ "github.com/pctk/pctk/primitives/findneighbor/cpu" // among the backends Usable returns
)

// Usable returns every registered backend that can run here (brute, cpu
// and, on a GPU machine, the GPU ones), so a test can hold each of them to
// the same answers. It fails t when none can.
func Usable(t testing.TB) []findneighbor.Backend {
	t.Helper()
	var bs []findneighbor.Backend
	for _, b := range findneighbor.Backends() {
		if _, err := b.Probe(); err == nil {
			bs = append(bs, b)
		}
	}
	if len(bs) == 0 {
		t.Fatal("no usable findneighbor backend")
	}
	return bs
}
