package algotest

import (
	"testing"
	"time"
)

// Timed runs run in b.Loop, reports its CPU time per run as cpu-ms/op and
// returns its wall and CPU time per run, for the benchmarks that log pctk
// side by side with a peer.
func Timed(b *testing.B, run func()) [2]time.Duration {
	var wall, cpu time.Duration
	for b.Loop() {
		t, c := time.Now(), CPUTime()
		run()
		wall, cpu = wall+time.Since(t), cpu+CPUTime()-c
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	return [2]time.Duration{wall / time.Duration(b.N), cpu / time.Duration(b.N)}
}
