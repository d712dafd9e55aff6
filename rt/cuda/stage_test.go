package cuda

import (
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// skipNoDriver skips the test when err says no driver is installed
// (failing it under PCTK_REQUIRE_GPU).
func skipNoDriver(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, ErrNoDriver) {
		if os.Getenv("PCTK_REQUIRE_GPU") != "" {
			t.Fatalf("PCTK_REQUIRE_GPU is set but there is no CUDA driver: %v", err)
		}
		t.Skipf("no CUDA driver here (%v): GPU test skipped", err)
	}
}

// gpuContext returns the default context, skipping the test where no
// driver is installed (failing under PCTK_REQUIRE_GPU).
func gpuContext(t *testing.T) *Context {
	t.Helper()
	_, err := Devices()
	skipNoDriver(t, err)
	ctx, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// TestCUDAStager round-trips slices through a Stager with small chunks, so
// that uploads and downloads run in many chunks with both pinned buffers
// in flight, at sizes that end inside a chunk, on a chunk edge and below
// the staging threshold; and checks the plain path for a nil Stager.
func TestCUDAStager(t *testing.T) {
	ctx := gpuContext(t)
	const chunk = 1 << 18
	err := ctx.Do(func(th *Thread) error {
		st, err := th.NewStager(chunk)
		if err != nil {
			return err
		}
		defer st.Free(th)
		s, err := th.NewStream()
		if err != nil {
			return err
		}
		defer th.DestroyStream(s)
		rng := rand.New(rand.NewPCG(7, 8))
		for _, n := range []int{1000, stageMin / 4, 5 * chunk / 4, 3 * chunk, 3*chunk + 12345} {
			for _, stager := range []*Stager{st, nil} {
				src := make([]uint32, n)
				for i := range src {
					src[i] = rng.Uint32()
				}
				var a Allocs
				d, err := a.Alloc(th, uint64(4*n))
				if err != nil {
					return err
				}
				if err := StageUpload(th, stager, d, src, s); err != nil {
					return err
				}
				want := slices.Clone(src)
				for i := range src {
					src[i] = 0 // the upload must have taken its copy already
				}
				got := make([]uint32, n)
				for i := range got {
					got[i] = 0xdeadbeef
				}
				if err := StageDownload(th, stager, got, d, s); err != nil {
					return err
				}
				if err := a.Free(th); err != nil {
					return err
				}
				if i := firstDiff(got, want); i >= 0 {
					t.Errorf("%d words (stager %v): word %d came back %#x, want %#x", n, stager != nil, i, got[i], want[i])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func firstDiff(a, b []uint32) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
