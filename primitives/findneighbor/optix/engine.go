package optix

import (
	_ "embed"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/pctk/pctk/rt/cuda"
	rt "github.com/pctk/pctk/rt/optix"
)

// findneighborPTX holds the device programs of kernels/findneighbor.cu,
// compiled beside it by scripts/build-ptx.sh.
//
//go:embed kernels/findneighbor.ptx
var findneighborPTX []byte

// EnvPTX names a PTX file to load instead of the embedded programs: a hook
// for trying freshly built programs on a GPU machine before committing
// them (as the cuda backend's PCTK_CUDA_PTX).
const EnvPTX = "PCTK_OPTIX_PTX"

// Program entry points in findneighbor.cu.
const (
	entryRaygen       = "__raygen__neighbor"
	entryRaygenAABB   = "__raygen__aabb"
	entryIntersection = "__intersection__neighbor"
	entryAnyHit       = "__anyhit__neighbor"
)

// The raygen programs, numbered for rt.Pipeline.Launch: the neighbour search
// and the AABB writer.
const (
	raygenNeighbor = 0
	raygenAABB     = 1
)

// numPayload is the payload registers the programs use (pctkTrace3), and
// numAttributes the attribute registers of their hits.
const (
	numPayload    = 3
	numAttributes = 2
)

// engine is one findneighbor pipeline (custom primitives or built-in
// spheres) on the process-wide CUDA context, built once and kept for the
// process's life. getEngine makes the device context and reads its
// properties (what ProbeDevice reports); the pipeline, whose module
// compilation OptiX caches on disk, is built at the first use (ready).
type engine struct {
	pipelineOnce sync.Once
	pipelineErr  error

	dc       *rt.DeviceContext
	ctx      *cuda.Context
	stream   cuda.Stream
	spheres  bool
	pipeline *rt.Pipeline
}

var (
	engineOnce [2]sync.Once
	engines    [2]*engine
	engineErr  [2]error
)

// getEngine returns the engine of the variant, making it on first use
// (without its pipeline: see ready).
func getEngine(spheres bool) (*engine, error) {
	v := 0
	if spheres {
		v = 1
	}
	engineOnce[v].Do(func() { engines[v], engineErr[v] = newEngine(spheres) })
	return engines[v], engineErr[v]
}

func newEngine(spheres bool) (*engine, error) {
	if err := rt.Load(); err != nil {
		return nil, err
	}
	ctx, err := cuda.Default()
	if err != nil {
		return nil, err
	}
	dc, err := rt.NewDeviceContext(ctx)
	if err != nil {
		return nil, err
	}
	return &engine{dc: dc, ctx: ctx, stream: dc.Stream(), spheres: spheres}, nil
}

// ready builds the pipeline on first use and returns its outcome.
func (e *engine) ready() error {
	e.pipelineOnce.Do(func() { e.pipelineErr = e.ctx.Do(e.buildPipeline) })
	return e.pipelineErr
}

// buildPipeline makes the pipeline of the programs in findneighborPTX (or
// $PCTK_OPTIX_PTX): the two raygen programs, and the work in the
// intersection program of custom primitives or in the any-hit program of
// built-in spheres.
func (e *engine) buildPipeline(t *cuda.Thread) error {
	ptx := findneighborPTX
	if p := os.Getenv(EnvPTX); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("optix: %s: %w", EnvPTX, err)
		}
		ptx = b
	}
	d := rt.PipelineDesc{
		PTX:        ptx,
		Params:     "params",
		ParamsSize: unsafe.Sizeof(launchParams{}),
		Payload:    numPayload,
		Attributes: numAttributes,
		Raygen:     []string{raygenNeighbor: entryRaygen, raygenAABB: entryRaygenAABB},
	}
	if e.spheres {
		d.Primitives, d.AnyHit = rt.Spheres, entryAnyHit
	} else {
		d.Primitives, d.Intersection = rt.CustomPrimitives, entryIntersection
	}
	var err error
	e.pipeline, err = e.dc.NewPipeline(t, d)
	return err
}

// launch runs the raygen program raygen over width launch indices with the
// parameters p and waits for it. Launches of one engine are serialised by
// the CUDA context's thread, so the pipeline's one parameter buffer
// suffices.
func (e *engine) launch(t *cuda.Thread, raygen int, p *launchParams, width int) error {
	p.NQ = uint32(width)
	return e.pipeline.Launch(t, raygen, unsafe.Pointer(p), width)
}
