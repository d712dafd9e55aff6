package fntest

import (
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// mutant is brute with one deliberate defect.
type mutant struct {
	findneighbor.Backend
	defect string
}

func (m mutant) Name() string { return "mutant-" + m.defect }

func (m mutant) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	ix, err := m.Backend.Build(xyz, eps, opts)
	return mutIndex{ix, xyz, m.defect}, err
}

type mutIndex struct {
	findneighbor.Index
	xyz    []float32
	defect string
}

func (m mutIndex) Counts(q []float32, out []uint32) error {
	err := m.Index.Counts(q, out)
	if m.defect == "counts" && len(out) > 7 {
		out[7]++
	}
	return err
}

func (m mutIndex) KNearest(q []float32, k int, idx []int32, dist []float32) error {
	err := m.Index.KNearest(q, k, idx, dist)
	if m.defect == "knn-order" && k >= 2 {
		for i := 0; i+1 < len(idx); i += k {
			if idx[i+1] >= 0 && dist != nil && dist[i] < dist[i+1] {
				idx[i], idx[i+1] = idx[i+1], idx[i]
				dist[i], dist[i+1] = dist[i+1], dist[i]
				break
			}
		}
	}
	return err
}

func (m mutIndex) Neighbors(q []float32, opts findneighbor.NeighborOptions) (*findneighbor.CSR, error) {
	csr, err := m.Index.Neighbors(q, opts)
	if m.defect == "neighbors" && err == nil && len(csr.Indices) > 0 {
		csr.Indices[len(csr.Indices)/2] = int32(m.Len()-1) - csr.Indices[len(csr.Indices)/2]
	}
	if m.defect == "capped" && err == nil && len(csr.Capped) > 0 {
		csr.Capped[0] = !csr.Capped[0]
	}
	return csr, err
}

func (m mutIndex) Moments(q []float32, k int, out []findneighbor.Moment) error {
	err := findneighbor.Moments(m.Index, m.xyz, q, k, out)
	if m.defect == "moments" && len(out) > 3 && out[3].N > 0 {
		out[3].Outer[4] += 1e-3 * float64(m.Eps()*m.Eps())
	}
	return err
}

func (m mutIndex) ClusterCores(isCore []bool, label []int32) error {
	err := findneighbor.ClusterCores(m.Index, m.xyz, isCore, label)
	if m.defect == "clusters" {
		for i := len(label) - 1; i >= 0; i-- {
			if isCore[i] && label[i] != int32(i) {
				label[i] = int32(i)
				break
			}
		}
	}
	return err
}

// TestCheckCatches makes sure the kit fails a backend with any one defect
// and passes brute itself.
func TestCheckCatches(t *testing.T) {
	cfg := Config{Seeds: []uint64{11}, N: 120}
	for _, d := range []string{"", "counts", "knn-order", "neighbors", "capped", "moments", "clusters"} {
		r := &Recorder{TB: t}
		CheckBackendWith(r, mutant{findneighbor.Brute(), d}, cfg)
		switch {
		case d == "" && len(r.Errs) > 0:
			t.Errorf("brute: %d errors, first: %s", len(r.Errs), r.Errs[0])
		case d != "" && len(r.Errs) == 0:
			t.Errorf("defect %q not caught", d)
		}
	}
}
