//go:build !unix

package algotest

import "time"

// CPUTime returns 0 where getrusage is not available.
func CPUTime() time.Duration { return 0 }
