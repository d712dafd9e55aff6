package ground

import (
	"testing"
)

// quality is the ISPRS filter test's error measures (Sithole and Vosselman
// 2003) of classes against a reference, over the points classified:
// type I (ground rejected), type II (objects accepted as ground), total,
// and Cohen's kappa.
type quality struct {
	n, typeI, typeII, total, kappa float64
}

func measure(got []uint8, ref []uint8, classified []bool) quality {
	var gg, gn, ng, nn float64 // reference ground/non-ground × got ground/non-ground
	for i, c := range got {
		if !classified[i] {
			continue
		}
		switch {
		case ref[i] == Ground && c == Ground:
			gg++
		case ref[i] == Ground:
			gn++
		case c == Ground:
			ng++
		default:
			nn++
		}
	}
	n := gg + gn + ng + nn
	po := (gg + nn) / n
	pe := ((gg+gn)*(gg+ng) + (ng+nn)*(gn+nn)) / (n * n)
	return quality{n: n, typeI: gn / (gg + gn), typeII: ng / (ng + nn), total: (gn + ng) / n, kappa: (po - pe) / (1 - pe)}
}

// TestQualityAutzen measures each filter, at PDAL's defaults and in PDAL's
// frame (PDAL's own classes, TestMatchesPDAL), against autzen_trim.las's
// classes as delivered (1 and 2: the provider's ground, not an ISPRS
// reference), over the points each classifies, and logs the table of
// docs/ground.md. The provider's class 1 holds much bare ground (type II
// errors run high for every filter, PDAL's alike), so only the type I
// error is held to a bound: each filter must keep the provider's ground.
func TestQualityAutzen(t *testing.T) {
	if testing.Short() {
		t.Skip("runs CSF on 110,000 points")
	}
	s := readSample(t, shared("pdal/las/autzen_trim.las"))
	ref := s.attrs.Classification
	a := s.attrs
	a.Classification = nil
	sel, err := Select(len(ref), a, nil, DefaultReturns)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func() (Result, error)
	}{
		{"smrf", func() (Result, error) { return SMRF(s.xyz, a, SMRFOptions{Pos: s.abs, PDALFrame: true}) }},
		{"pmf", func() (Result, error) { return PMF(s.xyz, a, PMFOptions{Pos: s.abs, PDALFrame: true}) }},
		{"csf", func() (Result, error) { return CSF(s.xyz, a, CSFOptions{Pos: s.abs}) }},
	} {
		got, err := tc.run()
		if err != nil {
			t.Fatal(err)
		}
		q := measure(got.Classification, ref, sel)
		t.Logf("| %s | %.0f | %.2f %% | %.2f %% | %.2f %% | %.3f |", tc.name, q.n, 100*q.typeI, 100*q.typeII, 100*q.total, q.kappa)
		if q.typeI > 0.15 {
			t.Errorf("%s: type I error %.3f, want below 0.15", tc.name, q.typeI)
		}
	}
}
