package optix

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/pctk/pctk/rt/cuda"
)

// Primitives are the geometric primitives of a pipeline and of its GAS.
type Primitives int

const (
	// CustomPrimitives are axis-aligned boxes (OptixAabb) whose
	// intersection program is the module's own.
	CustomPrimitives Primitives = iota
	// Spheres are OptiX's built-in spheres (OptiX 7.5 on), intersected by
	// OptiX's built-in program.
	Spheres
)

// PipelineDesc describes a pipeline of one PTX module for a single GAS and
// rays traced from raygen programs only (trace depth 1): its raygen
// programs, no miss program, and one hit group.
type PipelineDesc struct {
	// PTX is the module's code.
	PTX []byte
	// Params names the module's launch-parameter variable and ParamsSize
	// is its size in bytes, which Launch copies.
	Params     string
	ParamsSize uintptr
	// Payload and Attributes are the numbers of payload and attribute
	// registers the programs use.
	Payload, Attributes int
	// Primitives is the kind of primitive the GAS will hold.
	Primitives Primitives
	// Raygen names the raygen entry points, numbered for Launch in this
	// order.
	Raygen []string
	// Intersection names the intersection program of custom primitives
	// (spheres use OptiX's built-in one and ignore it); AnyHit names the
	// any-hit program, or "" for none.
	Intersection, AnyHit string
}

// Pipeline is a linked OptiX pipeline with its shader binding table
// records and its launch-parameter buffer in device memory. It lives as
// long as its device context.
type Pipeline struct {
	dc         *DeviceContext
	handle     uintptr
	raygens    int
	paramsSize uintptr
	// SBT records in device memory: one per raygen program, then the miss
	// record and the hit group's; sbtRecordHeaderSize bytes each.
	records cuda.DevicePtr
	params  cuda.DevicePtr
}

// compileOptions are the compile options shared by the module, the
// built-in intersection module and the pipeline.
func (d *PipelineDesc) compileOptions(name uintptr) pipelineCompileOptions {
	flags := primitiveTypeFlagsCustom
	if d.Primitives == Spheres {
		flags = primitiveTypeFlagsSphere
	}
	return pipelineCompileOptions{
		TraversableGraphFlags:            traversableGraphSingleGAS,
		NumPayloadValues:                 int32(d.Payload),
		NumAttributeValues:               int32(d.Attributes),
		ExceptionFlags:                   exceptionFlagNone,
		PipelineLaunchParamsVariableName: name,
		UsesPrimitiveTypeFlags:           flags,
	}
}

// NewPipeline creates the module, the program groups, the pipeline and the
// shader binding table records of d, and the launch-parameter buffer. A
// module, program group or pipeline that OptiX refuses gives an *Error
// whose Log is the compiler's or linker's message.
func (c *DeviceContext) NewPipeline(t *cuda.Thread, d PipelineDesc) (*Pipeline, error) {
	if len(d.PTX) == 0 || len(d.Raygen) == 0 {
		return nil, fmt.Errorf("optix: a pipeline needs PTX and at least one raygen program")
	}
	paramsName := cstr(d.Params)
	var pnName runtime.Pinner
	defer pnName.Unpin()
	pco := d.compileOptions(pin(&pnName, &paramsName[0]))
	mco := moduleCompileOptions{OptLevel: compileOptimizationDefault}
	logBuf := make([]byte, 8192)
	logLen := uintptr(len(logBuf))
	var module uintptr
	if err := call("optixModuleCreateFromPTX", fns.ModuleCreateFromPTX, c.handle,
		uintptr(unsafe.Pointer(&mco)), uintptr(unsafe.Pointer(&pco)),
		uintptr(unsafe.Pointer(&d.PTX[0])), uintptr(len(d.PTX)),
		uintptr(unsafe.Pointer(&logBuf[0])), uintptr(unsafe.Pointer(&logLen)),
		uintptr(unsafe.Pointer(&module))); err != nil {
		err.(*Error).Log = logText(logBuf)
		return nil, err
	}
	var pn runtime.Pinner
	defer pn.Unpin()
	entry := func(name string) uintptr {
		b := cstr(name)
		return pin(&pn, &b[0])
	}
	desc := make([]programGroupDesc, 0, len(d.Raygen)+2)
	for _, name := range d.Raygen {
		desc = append(desc, programGroupDesc{Kind: groupKindRaygen, Hitgroup: programGroupHitgroup{ModuleCH: module, EntryFunctionNameCH: entry(name)}})
	}
	desc = append(desc, programGroupDesc{Kind: groupKindMiss}) // no miss program: a miss does nothing
	var hit programGroupHitgroup
	if d.AnyHit != "" {
		hit.ModuleAH, hit.EntryFunctionNameAH = module, entry(d.AnyHit)
	}
	if d.Primitives == Spheres {
		bis := builtinISOptions{BuiltinISModuleType: primitiveTypeSphere}
		if err := call("optixBuiltinISModuleGet", fns.BuiltinISModuleGet, c.handle,
			uintptr(unsafe.Pointer(&mco)), uintptr(unsafe.Pointer(&pco)),
			uintptr(unsafe.Pointer(&bis)), uintptr(unsafe.Pointer(&hit.ModuleIS))); err != nil {
			return nil, err
		}
	} else {
		hit.ModuleIS, hit.EntryFunctionNameIS = module, entry(d.Intersection)
	}
	desc = append(desc, programGroupDesc{Kind: groupKindHitgroup, Hitgroup: hit})
	var pgo programGroupOptions
	groups := make([]uintptr, len(desc))
	logLen = uintptr(len(logBuf))
	if err := call("optixProgramGroupCreate", fns.ProgramGroupCreate, c.handle,
		uintptr(unsafe.Pointer(&desc[0])), uintptr(len(desc)), uintptr(unsafe.Pointer(&pgo)),
		uintptr(unsafe.Pointer(&logBuf[0])), uintptr(unsafe.Pointer(&logLen)),
		uintptr(unsafe.Pointer(&groups[0]))); err != nil {
		err.(*Error).Log = logText(logBuf)
		return nil, err
	}
	p := &Pipeline{dc: c, raygens: len(d.Raygen), paramsSize: d.ParamsSize}
	link := pipelineLinkOptions{MaxTraceDepth: 1}
	logLen = uintptr(len(logBuf))
	if err := call("optixPipelineCreate", fns.PipelineCreate, c.handle,
		uintptr(unsafe.Pointer(&pco)), uintptr(unsafe.Pointer(&link)),
		uintptr(unsafe.Pointer(&groups[0])), uintptr(len(groups)),
		uintptr(unsafe.Pointer(&logBuf[0])), uintptr(unsafe.Pointer(&logLen)),
		uintptr(unsafe.Pointer(&p.handle))); err != nil {
		err.(*Error).Log = logText(logBuf)
		return nil, err
	}
	// The records carry no data: one header each.
	rec := make([]byte, len(groups)*sbtRecordHeaderSize)
	for i, g := range groups {
		if err := call("optixSbtRecordPackHeader", fns.SbtRecordPackHeader, g,
			uintptr(unsafe.Pointer(&rec[i*sbtRecordHeaderSize]))); err != nil {
			return nil, err
		}
	}
	var err error
	if p.records, err = t.Alloc(uint64(len(rec))); err != nil {
		return nil, err
	}
	if err := cuda.Upload(t, p.records, rec, c.stream); err != nil {
		return nil, err
	}
	if p.params, err = t.Alloc(uint64(d.ParamsSize)); err != nil {
		return nil, err
	}
	return p, t.StreamSync(c.stream)
}

// sbt returns the shader binding table for the raygen record raygen.
func (p *Pipeline) sbt(raygen int) shaderBindingTable {
	r := uint64(p.records)
	miss := r + uint64(p.raygens*sbtRecordHeaderSize)
	return shaderBindingTable{
		RaygenRecord:                r + uint64(raygen*sbtRecordHeaderSize),
		MissRecordBase:              miss,
		MissRecordStrideInBytes:     sbtRecordHeaderSize,
		MissRecordCount:             1,
		HitgroupRecordBase:          miss + sbtRecordHeaderSize,
		HitgroupRecordStrideInBytes: sbtRecordHeaderSize,
		HitgroupRecordCount:         1,
	}
}

// Launch runs the raygen program raygen (its place in PipelineDesc.Raygen)
// over width launch indices with the launch parameters at params
// (PipelineDesc.ParamsSize bytes, copied to the device first) and waits
// for it. Launches of one pipeline must not overlap: they share the one
// parameter buffer, which running them all on the CUDA context's thread
// ensures.
func (p *Pipeline) Launch(t *cuda.Thread, raygen int, params unsafe.Pointer, width int) error {
	if width == 0 {
		return nil
	}
	if width > 1<<30 {
		return fmt.Errorf("optix: %d launch indices exceed OptiX's limit of 2^30", width)
	}
	if raygen < 0 || raygen >= p.raygens {
		return fmt.Errorf("optix: raygen program %d of a pipeline of %d", raygen, p.raygens)
	}
	s := p.dc.stream
	if err := t.CopyHtoD(p.params, params, uint64(p.paramsSize), s); err != nil {
		return err
	}
	sbt := p.sbt(raygen)
	if err := call("optixLaunch", fns.Launch, p.handle, uintptr(s), uintptr(p.params),
		p.paramsSize, uintptr(unsafe.Pointer(&sbt)), uintptr(width), 1, 1); err != nil {
		return err
	}
	return t.StreamSync(s)
}
