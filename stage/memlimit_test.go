//go:build linux

package stage

import "testing"

// TestGoMemoryLimit checks that the Go memory limit of a --max-memory run
// leaves room for what is resident beside the Go runtime (at least this
// test binary's code pages), and no more than half the budget.
func TestGoMemoryLimit(t *testing.T) {
	const budget = 1 << 30
	if got := goMemoryLimit(budget); got >= budget || got <= budget/2 {
		t.Errorf("goMemoryLimit(%d) = %d, want less, by the resident memory outside the Go heap", budget, got)
	}
	// A budget too small to leave that room is kept as it is (the run's
	// own checks refuse it).
	if got := goMemoryLimit(1 << 20); got != 1<<20 {
		t.Errorf("goMemoryLimit(1MiB) = %d, want 1MiB unchanged", got)
	}
}
