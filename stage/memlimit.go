package stage

import (
	"bytes"
	"os"
	"runtime/metrics"
	"strconv"
)

// goMemoryLimit returns the Go runtime's memory limit that keeps the
// process's resident memory within budget: the budget less what is
// resident beside the Go runtime's own memory (the program's code and
// data pages, C libraries, a GPU driver's), measured now from
// /proc/self/statm and runtime/metrics. Where that cannot be read
// (not Linux) it is the budget itself.
func goMemoryLimit(budget int64) int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return budget
	}
	f := bytes.Fields(data)
	if len(f) < 2 {
		return budget
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return budget
	}
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	goResident := int64(s[0].Value.Uint64() - s[1].Value.Uint64())
	other := pages*int64(os.Getpagesize()) - goResident
	if other <= 0 || other >= budget/2 {
		return budget
	}
	return budget - other
}

// GoMemoryLimit is goMemoryLimit for commands outside the driver that
// bound their memory (pctk raster --max-memory): the Go runtime's limit
// (debug.SetMemoryLimit) that keeps the process's resident memory within
// budget.
func GoMemoryLimit(budget int64) int64 { return goMemoryLimit(budget) }
