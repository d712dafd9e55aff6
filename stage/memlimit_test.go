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

// TestDefaultCollectionMemory checks the default --max-memory of a
// collection: MemTotal read from /proc/meminfo's lines, and a quarter of
// the machine's memory, 1GiB at least.
func TestDefaultCollectionMemory(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"MemTotal:       131072000 kB\nMemFree:        1000 kB\n", 131072000 << 10},
		{"MemFree:        1000 kB\nMemTotal: 2048 kB\n", 2 << 20},
		{"MemFree:        1000 kB\n", 0},
		{"MemTotal: lots kB\n", 0},
		{"", 0},
	} {
		if got := memTotal([]byte(c.in)); got != c.want {
			t.Errorf("memTotal(%q) = %d, want %d", c.in, got, c.want)
		}
	}
	phys := physicalMemory()
	if phys <= 0 {
		t.Fatalf("physicalMemory() = %d on Linux, want the machine's memory", phys)
	}
	if got, want := defaultCollectionMemory(), max(1<<30, phys/4); got != want {
		t.Errorf("defaultCollectionMemory() = %d, want %d (a quarter of %d, 1GiB at least)", got, want, phys)
	}
}
