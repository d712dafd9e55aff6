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

// physicalMemory returns the machine's memory (MemTotal of /proc/meminfo)
// or the memory limit of the process's cgroup (v2 memory.max, v1
// memory.limit_in_bytes) when that is lower; 0 where neither can be read.
func physicalMemory() int64 {
	total := int64(0)
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		total = memTotal(data)
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if data, err := os.ReadFile(f); err == nil {
			if v, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64); err == nil && v > 0 && (total == 0 || v < total) {
				total = v
			}
		}
	}
	return total
}

// memTotal returns the MemTotal line of /proc/meminfo's contents, in
// bytes; 0 when it has none.
func memTotal(meminfo []byte) int64 {
	for line := range bytes.Lines(meminfo) {
		f := bytes.Fields(line)
		if len(f) >= 2 && string(f[0]) == "MemTotal:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil || kb < 0 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
