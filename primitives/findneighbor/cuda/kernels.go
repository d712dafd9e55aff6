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
// (a GPU the fatbin has no code for) the PTX, and says which it loaded
// (StartTimes.Image).
func loadModule(t *rt.Thread) (rt.Module, string, error) {
	if p := os.Getenv(EnvPTX); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, "", fmt.Errorf("cuda backend: %s: %w", EnvPTX, err)
		}
		m, err := t.LoadModule(b)
		if err != nil {
			return 0, "", fmt.Errorf("cuda backend: loading %s: %w", p, err)
		}
		return m, p, nil
	}
	if m, err := t.LoadModule(gridFatbin); err == nil {
		return m, "fatbin (machine code)", nil
	}
	m, err := t.LoadModule(gridPTX)
	if err != nil {
		return 0, "", fmt.Errorf("cuda backend: loading grid kernels: %w", err)
	}
	return m, "PTX (compiled by the driver)", nil
}

// kernels holds the functions of the loaded module.
type kernels struct {
	bounds, keys, gather, rsHist, rsScatter rt.Function
	scanReduceU32, scanApplyU32             rt.Function
	scanReduceU32U64, scanApplyU32U64       rt.Function
	scanReduceU64, scanApplyU64             rt.Function
	counts, fill, moments                   rt.Function
	knn16, knn64, knn128                    rt.Function
	ccInit, ccUnion, ccFlatten, ccLabel     rt.Function
}

// loadKernels loads the module into the thread's context and says which
// image it loaded (loadModule); startDevice calls it once per start-up.
func loadKernels(t *rt.Thread) (*kernels, string, error) {
	m, image, err := loadModule(t)
	if err != nil {
		return nil, "", err
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
		{&k.knn16, "fn_knn16"}, {&k.knn64, "fn_knn64"}, {&k.knn128, "fn_knn128"},
		{&k.ccInit, "fn_cc_init"}, {&k.ccUnion, "fn_cc_union"}, {&k.ccFlatten, "fn_cc_flatten"}, {&k.ccLabel, "fn_cc_label"},
	} {
		if *f.dst, err = t.Function(m, f.name); err != nil {
			t.UnloadModule(m)
			return nil, "", err
		}
	}
	return k, image, nil
}
