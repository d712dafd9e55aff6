package main

import "testing"

// TestBackendName checks that "auto" (or no name) takes the cpu backend
// for the work it does best only, and that a named backend is kept.
func TestBackendName(t *testing.T) {
	tests := []struct {
		name    string
		cpuWork bool
		want    string
	}{
		{"auto", true, "cpu"},
		{"", true, "cpu"},
		{"AUTO", true, "cpu"},
		{"auto", false, "auto"},
		{"", false, ""},
		{"cuda", true, "cuda"},
		{"optix", true, "optix"},
		{"brute", false, "brute"},
	}
	for _, tc := range tests {
		if got := backendName(tc.name, tc.cpuWork); got != tc.want {
			t.Errorf("backendName(%q, cpuWork %v) = %q, want %q", tc.name, tc.cpuWork, got, tc.want)
		}
	}
}
