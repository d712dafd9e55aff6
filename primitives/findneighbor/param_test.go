package findneighbor_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

func TestParamChecks(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		param string // "" for no error
		want  string // substring of the message
	}{
		{"radius ok", findneighbor.CheckRadius("op", "radius", 0.5, false), "", ""},
		{"radius zero optional", findneighbor.CheckRadius("op", "radius", 0, true), "", ""},
		{"radius zero", findneighbor.CheckRadius("op", "radius", 0, false), "radius", "op: radius 0: want a finite number > 0"},
		{"radius negative optional", findneighbor.CheckRadius("op", "r", -1, true), "r", "r -1: want a finite number > 0 (0: none)"},
		{"radius inf", findneighbor.CheckRadius("op", "eps", math.Inf(1), false), "eps", "eps +Inf: want a finite number > 0"},
		{"radius nan", findneighbor.CheckRadius("op", "eps", math.NaN(), false), "eps", "eps NaN"},
		{"radius beyond float32", findneighbor.CheckRadius("op", "eps", 1e300, false), "eps", "float32 range"},
		{"radius below float32", findneighbor.CheckRadius("op", "eps", 1e-300, false), "eps", "float32 range"},
		{"min ok", findneighbor.CheckMin("op", "k", 3, 1), "", ""},
		{"min low", findneighbor.CheckMin("op", "k", 0, 1), "k", "k 0: want ≥ 1"},
		{"float ok", findneighbor.CheckFloat("op", "ratio", -1), "", ""},
		{"float inf", findneighbor.CheckFloat("op", "ratio", math.Inf(-1)), "ratio", "ratio -Inf: want a finite number"},
	}
	for _, tc := range tests {
		var pe *findneighbor.ParamError
		switch {
		case tc.param == "" && tc.err != nil:
			t.Errorf("%s: got %v, want no error", tc.name, tc.err)
		case tc.param == "":
		case !errors.As(tc.err, &pe):
			t.Errorf("%s: got %v, want a *ParamError", tc.name, tc.err)
		case pe.Param != tc.param || !strings.Contains(pe.Error(), tc.want):
			t.Errorf("%s: got param %q, %q; want %q, containing %q", tc.name, pe.Param, pe.Error(), tc.param, tc.want)
		}
	}
	if n, err := findneighbor.CheckPoints("op", make([]float32, 9)); n != 3 || err != nil {
		t.Errorf("CheckPoints(9 values) = %d, %v; want 3, nil", n, err)
	}
	if _, err := findneighbor.CheckPoints("op", make([]float32, 7)); err == nil {
		t.Error("CheckPoints(7 values): want an error")
	}
}

func TestCounts(t *testing.T) {
	// Points on a line at 0, 1, 2, 10: within 1.5, the first three see
	// their one or two neighbours and the last none.
	xyz := []float32{0, 0, 0, 1, 0, 0, 2, 0, 0, 10, 0, 0}
	for _, b := range []findneighbor.Backend{findneighbor.Brute(), findneighbor.CPU()} {
		got, err := findneighbor.Counts(b, append([]float32(nil), xyz...), 1.5, findneighbor.BuildOptions{Reuse: true})
		if err != nil {
			t.Fatal(err)
		}
		if want := []uint32{1, 2, 1, 0}; !slices.Equal(got, want) {
			t.Errorf("%s: Counts = %v, want %v", b.Name(), got, want)
		}
	}
	if _, err := findneighbor.Counts(findneighbor.CPU(), xyz, math.Inf(1), findneighbor.BuildOptions{}); err == nil {
		t.Error("Counts with eps +Inf: want an error")
	}
}
