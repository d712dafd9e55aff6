package main

import "testing"

// TestBackendName checks that "auto" (or no name) takes the cpu backend
// for plain k-nearest work only, and that a named backend is kept.
func TestBackendName(t *testing.T) {
	tests := []struct {
		name     string
		plainKNN bool
		want     string
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
		if got := backendName(tc.name, tc.plainKNN); got != tc.want {
			t.Errorf("backendName(%q, plainKNN %v) = %q, want %q", tc.name, tc.plainKNN, got, tc.want)
		}
	}
}
