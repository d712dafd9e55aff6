package cuda

import (
	_ "embed"
	"fmt"
	"os"

	rt "github.com/pctk/pctk/rt/cuda"
)

// gridPTX is kernels/grid.cu compiled by scripts/build-ptx.sh to PTX, which
// the driver compiles for the GPU at load (about 0.6 s on the H200 when its
// JIT cache is cold), and gridFatbin the same source compiled to machine
// code for sm_75 to sm_90, which loads in a millisecond or two. The fatbin
// is loaded first; the PTX serves GPUs it has no code for (newer ones).
var (
	//go:embed kernels/grid.ptx
	gridPTX []byte
	//go:embed kernels/grid.fatbin
	gridFatbin []byte
)

// EnvPTX names a PTX file (or fatbin) to load instead of the embedded
// ones: a hook for trying freshly built kernels on a GPU machine before
// committing them.
const EnvPTX = "PCTK_CUDA_PTX"

// loadModule loads the $PCTK_CUDA_PTX file when set, else the fatbin, else
// (a GPU the fatbin has no code for) the PTX, and says which (image, for
// StartTimes.Image).
func loadModule(t *rt.Thread) (m rt.Module, image string, err error) {
	if p := os.Getenv(EnvPTX); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, p, fmt.Errorf("cuda backend: %s: %w", EnvPTX, err)
		}
		m, err := t.LoadModule(b)
		if err != nil {
			return 0, p, fmt.Errorf("cuda backend: loading %s: %w", p, err)
		}
		return m, p, nil
	}
	if m, err := t.LoadModule(gridFatbin); err == nil {
		return m, "fatbin (machine code)", nil
	}
	image = "PTX (compiled by the driver)"
	if m, err = t.LoadModule(gridPTX); err != nil {
		return 0, image, fmt.Errorf("cuda backend: loading grid kernels: %w", err)
	}
	return m, image, nil
}

// kernels holds the functions of the loaded module.
type kernels struct {
	bounds, keys, gather, rsHist, rsScatter rt.Function
	scanReduceU32, scanApplyU32             rt.Function
	scanReduceU32U64, scanApplyU32U64       rt.Function
	scanReduceU64, scanApplyU64             rt.Function
	counts, fill, moments                   rt.Function
	knn8, knn16, knn64, knn128              rt.Function
	ccInit, ccLink, ccUnion, ccFlatten      rt.Function
	ccLabel                                 rt.Function
}

// loadKernels loads the module into the thread's context (image: which,
// as loadModule says); each device's start-up calls it once.
func loadKernels(t *rt.Thread) (*kernels, string, error) {
	m, image, err := loadModule(t)
	if err != nil {
		return nil, image, err
	}
	k := &kernels{}
	for _, f := range []struct {
		dst  *rt.Function
		name string
	}{
		{&k.bounds, "fn_bounds"}, {&k.keys, "fn_keys"}, {&k.gather, "fn_gather"},
		{&k.rsHist, "rs_hist"}, {&k.rsScatter, "rs_scatter"},
		{&k.scanReduceU32, "scan_reduce_u32"}, {&k.scanApplyU32, "scan_apply_u32"},
		{&k.scanReduceU32U64, "scan_reduce_u32_u64"}, {&k.scanApplyU32U64, "scan_apply_u32_u64"},
		{&k.scanReduceU64, "scan_reduce_u64"}, {&k.scanApplyU64, "scan_apply_u64"},
		{&k.counts, "fn_counts"}, {&k.fill, "fn_fill"}, {&k.moments, "fn_moments"},
		{&k.knn8, "fn_knn8"}, {&k.knn16, "fn_knn16"}, {&k.knn64, "fn_knn64"}, {&k.knn128, "fn_knn128"},
		{&k.ccInit, "fn_cc_init"}, {&k.ccLink, "fn_cc_link"}, {&k.ccUnion, "fn_cc_union"}, {&k.ccFlatten, "fn_cc_flatten"}, {&k.ccLabel, "fn_cc_label"},
	} {
		if *f.dst, err = t.Function(m, f.name); err != nil {
			t.UnloadModule(m)
			return nil, image, err
		}
	}
	return k, image, nil
}
