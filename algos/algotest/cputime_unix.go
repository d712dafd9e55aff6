//go:build unix

package algotest

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user and system) this process has used,
// for benchmarks that compare it with a peer's.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
