package optix

// Go declarations of the OptiX 7.5 host ABI (ABI version 60), written for
// pctk from the public documentation of the ABI. Only what pctk calls is
// declared. Sizes and field offsets are asserted in abi_layout_test.go with
// the numbers a C compiler printed for NVIDIA's own headers on the GPU test
// machine, so a wrong layout fails the tests on every machine.

// ABIVersion is the OptiX ABI pctk asks the driver for: OptiX 7.5, the first
// release with built-in sphere primitives. Drivers from R515 on provide it.
const ABIVersion = 60

// Result is an OptixResult code.
type Result int32

// Result codes pctk names in errors; the library's optixGetErrorName gives
// the name of any other.
const (
	resSuccess                  Result = 0
	resErrUnsupportedABIVersion Result = 7801
	resErrFunctionTableSize     Result = 7802
)

// Device context properties (OptixDeviceProperty).
const (
	propMaxPrimitivesPerGAS uint32 = 0x2003
	propRTCoreVersion       uint32 = 0x2005
)

// Build input types (OptixBuildInputType).
const (
	buildInputCustomPrimitives uint32 = 0x2142
	buildInputSpheres          uint32 = 0x2146
)

// Primitive types and their flags (OptixPrimitiveType, OptixPrimitiveTypeFlags).
const (
	primitiveTypeSphere      uint32 = 0x2506
	primitiveTypeFlagsCustom uint32 = 1 << 0
	primitiveTypeFlagsSphere uint32 = 1 << 6
)

// Geometry flags (OptixGeometryFlags).
const (
	geometryFlagDisableAnyHit       uint32 = 1 << 0
	geometryFlagRequireSingleAnyHit uint32 = 1 << 1
)

// Acceleration-structure build flags and operation.
const (
	buildFlagAllowCompaction uint32 = 1 << 1
	buildFlagPreferFastTrace uint32 = 1 << 2
	buildFlagPreferFastBuild uint32 = 1 << 3
	buildOperationBuild      uint32 = 0x2161
	propertyCompactedSize    uint32 = 0x2181
)

// Compile options.
const (
	compileOptimizationDefault uint32 = 0
	compileDebugLevelNone      uint32 = 0x2350
	traversableGraphSingleGAS  uint32 = 1 << 0
	exceptionFlagNone          uint32 = 0
)

// Program group kinds (OptixProgramGroupKind).
const (
	groupKindRaygen   uint32 = 0x2421
	groupKindMiss     uint32 = 0x2422
	groupKindHitgroup uint32 = 0x2424
)

// Shader binding table record layout.
const (
	sbtRecordHeaderSize  = 32
	sbtRecordAlignment   = 16
	accelBufferAlignment = 128
)

// deviceContextOptions is OptixDeviceContextOptions.
type deviceContextOptions struct {
	LogCallbackFunction uintptr
	LogCallbackData     uintptr
	LogCallbackLevel    int32
	ValidationMode      uint32
}

// buildInput is OptixBuildInput: a type tag and a 1024-byte union. The union
// members pctk uses are buildInputCustomPrimitiveArray and
// buildInputSphereArray, copied into Body by setCustom and setSpheres.
type buildInput struct {
	Type uint32
	_    uint32
	Body [1024]byte
}

// buildInputCustomPrimitiveArray is OptixBuildInputCustomPrimitiveArray.
type buildInputCustomPrimitiveArray struct {
	AABBBuffers                 uintptr // const CUdeviceptr*: host array of device pointers, one per motion key
	NumPrimitives               uint32
	StrideInBytes               uint32
	Flags                       uintptr // const unsigned int*: host array, one per SBT record
	NumSbtRecords               uint32
	_                           uint32
	SbtIndexOffsetBuffer        uint64
	SbtIndexOffsetSizeInBytes   uint32
	SbtIndexOffsetStrideInBytes uint32
	PrimitiveIndexOffset        uint32
	_                           uint32
}

// buildInputSphereArray is OptixBuildInputSphereArray.
type buildInputSphereArray struct {
	VertexBuffers               uintptr // const CUdeviceptr*: centres, one buffer per motion key
	VertexStrideInBytes         uint32
	NumVertices                 uint32
	RadiusBuffers               uintptr // const CUdeviceptr*
	RadiusStrideInBytes         uint32
	SingleRadius                int32
	Flags                       uintptr // const unsigned int*
	NumSbtRecords               uint32
	_                           uint32
	SbtIndexOffsetBuffer        uint64
	SbtIndexOffsetSizeInBytes   uint32
	SbtIndexOffsetStrideInBytes uint32
	PrimitiveIndexOffset        uint32
	_                           uint32
}

// motionOptions is OptixMotionOptions.
type motionOptions struct {
	NumKeys   uint16
	Flags     uint16
	TimeBegin float32
	TimeEnd   float32
}

// accelBuildOptions is OptixAccelBuildOptions.
type accelBuildOptions struct {
	BuildFlags    uint32
	Operation     uint32
	MotionOptions motionOptions
}

// accelBufferSizes is OptixAccelBufferSizes.
type accelBufferSizes struct {
	OutputSizeInBytes     uint64
	TempSizeInBytes       uint64
	TempUpdateSizeInBytes uint64
}

// accelEmitDesc is OptixAccelEmitDesc.
type accelEmitDesc struct {
	Result uint64 // CUdeviceptr
	Type   uint32
	_      uint32
}

// moduleCompileOptions is OptixModuleCompileOptions.
type moduleCompileOptions struct {
	MaxRegisterCount int32
	OptLevel         uint32
	DebugLevel       uint32
	_                uint32
	BoundValues      uintptr
	NumBoundValues   uint32
	NumPayloadTypes  uint32
	PayloadTypes     uintptr
}

// pipelineCompileOptions is OptixPipelineCompileOptions.
type pipelineCompileOptions struct {
	UsesMotionBlur                   int32
	TraversableGraphFlags            uint32
	NumPayloadValues                 int32
	NumAttributeValues               int32
	ExceptionFlags                   uint32
	_                                uint32
	PipelineLaunchParamsVariableName uintptr // const char*
	UsesPrimitiveTypeFlags           uint32
	_                                uint32
}

// pipelineLinkOptions is OptixPipelineLinkOptions.
type pipelineLinkOptions struct {
	MaxTraceDepth uint32
	DebugLevel    uint32
}

// programGroupDesc is OptixProgramGroupDesc with its union seen as the
// largest member, the hit group (module and entry name for CH, AH and IS).
// Raygen and miss descriptions use the first two words (module, entry name).
type programGroupDesc struct {
	Kind     uint32
	Flags    uint32
	Hitgroup programGroupHitgroup
}

// programGroupHitgroup is OptixProgramGroupHitgroup.
type programGroupHitgroup struct {
	ModuleCH            uintptr
	EntryFunctionNameCH uintptr
	ModuleAH            uintptr
	EntryFunctionNameAH uintptr
	ModuleIS            uintptr
	EntryFunctionNameIS uintptr
}

// programGroupOptions is OptixProgramGroupOptions.
type programGroupOptions struct {
	PayloadType uintptr
}

// shaderBindingTable is OptixShaderBindingTable.
type shaderBindingTable struct {
	RaygenRecord                 uint64
	ExceptionRecord              uint64
	MissRecordBase               uint64
	MissRecordStrideInBytes      uint32
	MissRecordCount              uint32
	HitgroupRecordBase           uint64
	HitgroupRecordStrideInBytes  uint32
	HitgroupRecordCount          uint32
	CallablesRecordBase          uint64
	CallablesRecordStrideInBytes uint32
	CallablesRecordCount         uint32
}

// builtinISOptions is OptixBuiltinISOptions.
type builtinISOptions struct {
	BuiltinISModuleType uint32
	UsesMotionBlur      int32
	BuildFlags          uint32
	CurveEndcapFlags    uint32
}

// functionTable is OptixFunctionTable of ABI 60: one C function pointer per
// entry point, in the ABI's order. Entries pctk does not call keep their slot
// under a blank name so the offsets stay right.
type functionTable struct {
	GetErrorName             uintptr
	GetErrorString           uintptr
	DeviceContextCreate      uintptr
	DeviceContextDestroy     uintptr
	DeviceContextGetProperty uintptr
	_                        [7]uintptr // log callback and disk-cache controls
	ModuleCreateFromPTX      uintptr
	_                        [2]uintptr // ModuleCreateFromPTXWithTasks, ModuleGetCompilationState
	ModuleDestroy            uintptr
	BuiltinISModuleGet       uintptr
	_                        uintptr // TaskExecute
	ProgramGroupCreate       uintptr
	ProgramGroupDestroy      uintptr
	ProgramGroupGetStackSize uintptr
	PipelineCreate           uintptr
	PipelineDestroy          uintptr
	PipelineSetStackSize     uintptr
	AccelComputeMemoryUsage  uintptr
	AccelBuild               uintptr
	_                        [3]uintptr // relocation
	AccelCompact             uintptr
	_                        [3]uintptr // ConvertPointerToTraversableHandle, two reserved
	SbtRecordPackHeader      uintptr
	Launch                   uintptr
	_                        [8]uintptr // denoiser
}
