package optix

import (
	_ "embed"
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/pctk/pctk/rt/cuda"
)

// findneighborPTX holds the device programs of device/findneighbor.cu,
// compiled beside it by scripts/build-ptx.sh.
//
//go:embed device/findneighbor.ptx
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

// numPayload is the payload registers the programs use (pctkTrace3).
const numPayload = 3

// engine is one OptiX pipeline (custom primitives or built-in spheres) on the
// process-wide CUDA context, built once and kept for the process's life.
// getEngine makes the device context and reads its properties (what Probe
// reports); the pipeline, whose module compilation OptiX caches on disk,
// is built at the first use (ready).
type engine struct {
	pipelineOnce sync.Once
	pipelineErr  error

	ctx      *cuda.Context
	spheres  bool
	optixCtx uintptr
	stream   cuda.Stream
	rtcore   uint32
	maxPrims uint32
	pipeline uintptr
	// SBT records in device memory: raygen (neighbour), raygen (AABB),
	// miss, hit group; one sbtRecordHeaderSize record each.
	records cuda.DevicePtr
	params  cuda.DevicePtr
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
	if err := loadLibrary(); err != nil {
		return nil, err
	}
	ctx, err := cuda.Default()
	if err != nil {
		return nil, err
	}
	e := &engine{ctx: ctx, spheres: spheres}
	err = ctx.Do(func(t *cuda.Thread) error {
		var opts deviceContextOptions
		if err := call("optixDeviceContextCreate", fns.DeviceContextCreate, ctx.Handle(),
			uintptr(unsafe.Pointer(&opts)), uintptr(unsafe.Pointer(&e.optixCtx))); err != nil {
			return err
		}
		if err := e.property(propRTCoreVersion, &e.rtcore); err != nil {
			return err
		}
		if err := e.property(propMaxPrimitivesPerGAS, &e.maxPrims); err != nil {
			return err
		}
		e.stream, err = t.NewStream()
		return err
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// ready builds the pipeline on first use and returns its outcome.
func (e *engine) ready() error {
	e.pipelineOnce.Do(func() { e.pipelineErr = e.ctx.Do(e.buildPipeline) })
	return e.pipelineErr
}

func (e *engine) property(p uint32, v *uint32) error {
	return call("optixDeviceContextGetProperty", fns.DeviceContextGetProperty, e.optixCtx,
		uintptr(p), uintptr(unsafe.Pointer(v)), 4)
}

// pipelineOptions are the compile options shared by the module, the
// built-in intersection module and the pipeline.
func (e *engine) pipelineOptions(name uintptr) pipelineCompileOptions {
	flags := primitiveTypeFlagsCustom
	if e.spheres {
		flags = primitiveTypeFlagsSphere
	}
	return pipelineCompileOptions{
		TraversableGraphFlags:            traversableGraphSingleGAS,
		NumPayloadValues:                 numPayload,
		NumAttributeValues:               2,
		ExceptionFlags:                   exceptionFlagNone,
		PipelineLaunchParamsVariableName: name,
		UsesPrimitiveTypeFlags:           flags,
	}
}

// buildPipeline creates the module, the program groups, the pipeline and the
// shader binding table records.
func (e *engine) buildPipeline(t *cuda.Thread) error {
	paramsName := cstr("params")
	var pnName runtime.Pinner
	defer pnName.Unpin()
	pco := e.pipelineOptions(pin(&pnName, &paramsName[0]))
	mco := moduleCompileOptions{OptLevel: compileOptimizationDefault}
	ptx := findneighborPTX
	if p := os.Getenv(EnvPTX); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("optix: %s: %w", EnvPTX, err)
		}
		ptx = b
	}
	logBuf := make([]byte, 8192)
	logLen := uintptr(len(logBuf))
	var module uintptr
	if err := call("optixModuleCreateFromPTX", fns.ModuleCreateFromPTX, e.optixCtx,
		uintptr(unsafe.Pointer(&mco)), uintptr(unsafe.Pointer(&pco)),
		uintptr(unsafe.Pointer(&ptx[0])), uintptr(len(ptx)),
		uintptr(unsafe.Pointer(&logBuf[0])), uintptr(unsafe.Pointer(&logLen)),
		uintptr(unsafe.Pointer(&module))); err != nil {
		err.(*Error).Log = logText(logBuf)
		return err
	}
	var pn runtime.Pinner
	defer pn.Unpin()
	names := [][]byte{cstr(entryRaygen), cstr(entryRaygenAABB), cstr(entryIntersection), cstr(entryAnyHit)}
	ptr := func(b []byte) uintptr { return pin(&pn, &b[0]) }
	desc := make([]programGroupDesc, 4)
	desc[0] = programGroupDesc{Kind: groupKindRaygen, Hitgroup: programGroupHitgroup{ModuleCH: module, EntryFunctionNameCH: ptr(names[0])}}
	desc[1] = programGroupDesc{Kind: groupKindRaygen, Hitgroup: programGroupHitgroup{ModuleCH: module, EntryFunctionNameCH: ptr(names[1])}}
	desc[2] = programGroupDesc{Kind: groupKindMiss} // no miss program: a miss does nothing
	if e.spheres {
		bis := builtinISOptions{BuiltinISModuleType: primitiveTypeSphere}
		var isModule uintptr
		if err := call("optixBuiltinISModuleGet", fns.BuiltinISModuleGet, e.optixCtx,
			uintptr(unsafe.Pointer(&mco)), uintptr(unsafe.Pointer(&pco)),
			uintptr(unsafe.Pointer(&bis)), uintptr(unsafe.Pointer(&isModule))); err != nil {
			return err
		}
		desc[3] = programGroupDesc{Kind: groupKindHitgroup, Hitgroup: programGroupHitgroup{
			ModuleAH: module, EntryFunctionNameAH: ptr(names[3]), ModuleIS: isModule}}
	} else {
		desc[3] = programGroupDesc{Kind: groupKindHitgroup, Hitgroup: programGroupHitgroup{
			ModuleIS: module, EntryFunctionNameIS: ptr(names[2])}}
	}
	var pgo programGroupOptions
	groups := make([]uintptr, len(desc))
	logLen = uintptr(len(logBuf))
	if err := call("optixProgramGroupCreate", fns.ProgramGroupCreate, e.optixCtx,
		uintptr(unsafe.Pointer(&desc[0])), uintptr(len(desc)), uintptr(unsafe.Pointer(&pgo)),
		uintptr(unsafe.Pointer(&logBuf[0])), uintptr(unsafe.Pointer(&logLen)),
		uintptr(unsafe.Pointer(&groups[0]))); err != nil {
		err.(*Error).Log = logText(logBuf)
		return err
	}
	link := pipelineLinkOptions{MaxTraceDepth: 1}
	logLen = uintptr(len(logBuf))
	if err := call("optixPipelineCreate", fns.PipelineCreate, e.optixCtx,
		uintptr(unsafe.Pointer(&pco)), uintptr(unsafe.Pointer(&link)),
		uintptr(unsafe.Pointer(&groups[0])), uintptr(len(groups)),
		uintptr(unsafe.Pointer(&logBuf[0])), uintptr(unsafe.Pointer(&logLen)),
		uintptr(unsafe.Pointer(&e.pipeline))); err != nil {
		err.(*Error).Log = logText(logBuf)
		return err
	}
	// The records carry no data: one header each.
	rec := make([]byte, len(groups)*sbtRecordHeaderSize)
	for i, g := range groups {
		if err := call("optixSbtRecordPackHeader", fns.SbtRecordPackHeader, g,
			uintptr(unsafe.Pointer(&rec[i*sbtRecordHeaderSize]))); err != nil {
			return err
		}
	}
	var err error
	if e.records, err = t.Alloc(uint64(len(rec))); err != nil {
		return err
	}
	if err := cuda.Upload(t, e.records, rec, e.stream); err != nil {
		return err
	}
	if e.params, err = t.Alloc(uint64(unsafe.Sizeof(launchParams{}))); err != nil {
		return err
	}
	return t.StreamSync(e.stream)
}

// sbt returns the shader binding table for the raygen record i (0: the
// neighbour search, 1: the AABB program).
func (e *engine) sbt(raygen int) shaderBindingTable {
	r := uint64(e.records)
	return shaderBindingTable{
		RaygenRecord:                r + uint64(raygen*sbtRecordHeaderSize),
		MissRecordBase:              r + 2*sbtRecordHeaderSize,
		MissRecordStrideInBytes:     sbtRecordHeaderSize,
		MissRecordCount:             1,
		HitgroupRecordBase:          r + 3*sbtRecordHeaderSize,
		HitgroupRecordStrideInBytes: sbtRecordHeaderSize,
		HitgroupRecordCount:         1,
	}
}

// launch runs the raygen program raygen over width launch indices with the
// parameters p and waits for it. Launches of one engine are serialised by
// the CUDA context's thread, so the one parameter buffer suffices.
func (e *engine) launch(t *cuda.Thread, raygen int, p *launchParams, width int) error {
	if width == 0 {
		return nil
	}
	if width > 1<<30 {
		return fmt.Errorf("optix: %d launch indices exceed OptiX's limit of 2^30", width)
	}
	p.NQ = uint32(width)
	if err := t.CopyHtoD(e.params, unsafe.Pointer(p), uint64(unsafe.Sizeof(*p)), e.stream); err != nil {
		return err
	}
	sbt := e.sbt(raygen)
	if err := call("optixLaunch", fns.Launch, e.pipeline, uintptr(e.stream), uintptr(e.params),
		unsafe.Sizeof(*p), uintptr(unsafe.Pointer(&sbt)), uintptr(width), 1, 1); err != nil {
		return err
	}
	return t.StreamSync(e.stream)
}
