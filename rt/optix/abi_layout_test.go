package optix

import (
	"testing"
	"unsafe"
)

// The numbers below were printed by a throwaway C program compiled against
// NVIDIA's OptiX 7.5 headers (ABI 60) on the GPU test machine (x86-64, gcc):
// sizeof and offsetof of every struct pctk declares. They are the ABI; if a
// declaration in abi.go drifts, this test fails on every machine.
func TestABILayout(t *testing.T) {
	var (
		ft  functionTable
		dco deviceContextOptions
		bi  buildInput
		cp  buildInputCustomPrimitiveArray
		sp  buildInputSphereArray
		abo accelBuildOptions
		abs accelBufferSizes
		aed accelEmitDesc
		mco moduleCompileOptions
		pco pipelineCompileOptions
		plo pipelineLinkOptions
		pgd programGroupDesc
		hg  programGroupHitgroup
		sbt shaderBindingTable
		bis builtinISOptions
	)
	cases := []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof OptixFunctionTable", unsafe.Sizeof(ft), 344},
		{"OptixFunctionTable.optixDeviceContextCreate", unsafe.Offsetof(ft.DeviceContextCreate), 16},
		{"OptixFunctionTable.optixDeviceContextGetProperty", unsafe.Offsetof(ft.DeviceContextGetProperty), 32},
		{"OptixFunctionTable.optixModuleCreateFromPTX", unsafe.Offsetof(ft.ModuleCreateFromPTX), 96},
		{"OptixFunctionTable.optixModuleDestroy", unsafe.Offsetof(ft.ModuleDestroy), 120},
		{"OptixFunctionTable.optixBuiltinISModuleGet", unsafe.Offsetof(ft.BuiltinISModuleGet), 128},
		{"OptixFunctionTable.optixProgramGroupCreate", unsafe.Offsetof(ft.ProgramGroupCreate), 144},
		{"OptixFunctionTable.optixProgramGroupDestroy", unsafe.Offsetof(ft.ProgramGroupDestroy), 152},
		{"OptixFunctionTable.optixPipelineCreate", unsafe.Offsetof(ft.PipelineCreate), 168},
		{"OptixFunctionTable.optixPipelineDestroy", unsafe.Offsetof(ft.PipelineDestroy), 176},
		{"OptixFunctionTable.optixPipelineSetStackSize", unsafe.Offsetof(ft.PipelineSetStackSize), 184},
		{"OptixFunctionTable.optixAccelComputeMemoryUsage", unsafe.Offsetof(ft.AccelComputeMemoryUsage), 192},
		{"OptixFunctionTable.optixAccelBuild", unsafe.Offsetof(ft.AccelBuild), 200},
		{"OptixFunctionTable.optixAccelCompact", unsafe.Offsetof(ft.AccelCompact), 232},
		{"OptixFunctionTable.optixSbtRecordPackHeader", unsafe.Offsetof(ft.SbtRecordPackHeader), 264},
		{"OptixFunctionTable.optixLaunch", unsafe.Offsetof(ft.Launch), 272},

		{"sizeof OptixDeviceContextOptions", unsafe.Sizeof(dco), 24},
		{"OptixDeviceContextOptions.logCallbackLevel", unsafe.Offsetof(dco.LogCallbackLevel), 16},
		{"OptixDeviceContextOptions.validationMode", unsafe.Offsetof(dco.ValidationMode), 20},

		{"sizeof OptixBuildInput", unsafe.Sizeof(bi), 1032},
		{"OptixBuildInput union", unsafe.Offsetof(bi.Body), 8},
		{"sizeof OptixBuildInputCustomPrimitiveArray", unsafe.Sizeof(cp), 56},
		{"custom.numPrimitives", unsafe.Offsetof(cp.NumPrimitives), 8},
		{"custom.strideInBytes", unsafe.Offsetof(cp.StrideInBytes), 12},
		{"custom.flags", unsafe.Offsetof(cp.Flags), 16},
		{"custom.numSbtRecords", unsafe.Offsetof(cp.NumSbtRecords), 24},
		{"custom.sbtIndexOffsetBuffer", unsafe.Offsetof(cp.SbtIndexOffsetBuffer), 32},
		{"custom.sbtIndexOffsetSizeInBytes", unsafe.Offsetof(cp.SbtIndexOffsetSizeInBytes), 40},
		{"custom.sbtIndexOffsetStrideInBytes", unsafe.Offsetof(cp.SbtIndexOffsetStrideInBytes), 44},
		{"custom.primitiveIndexOffset", unsafe.Offsetof(cp.PrimitiveIndexOffset), 48},
		{"sizeof OptixBuildInputSphereArray", unsafe.Sizeof(sp), 72},
		{"sphere.vertexStrideInBytes", unsafe.Offsetof(sp.VertexStrideInBytes), 8},
		{"sphere.numVertices", unsafe.Offsetof(sp.NumVertices), 12},
		{"sphere.radiusBuffers", unsafe.Offsetof(sp.RadiusBuffers), 16},
		{"sphere.radiusStrideInBytes", unsafe.Offsetof(sp.RadiusStrideInBytes), 24},
		{"sphere.singleRadius", unsafe.Offsetof(sp.SingleRadius), 28},
		{"sphere.flags", unsafe.Offsetof(sp.Flags), 32},
		{"sphere.numSbtRecords", unsafe.Offsetof(sp.NumSbtRecords), 40},
		{"sphere.sbtIndexOffsetBuffer", unsafe.Offsetof(sp.SbtIndexOffsetBuffer), 48},
		{"sphere.primitiveIndexOffset", unsafe.Offsetof(sp.PrimitiveIndexOffset), 64},

		{"sizeof OptixAccelBuildOptions", unsafe.Sizeof(abo), 20},
		{"OptixAccelBuildOptions.operation", unsafe.Offsetof(abo.Operation), 4},
		{"OptixAccelBuildOptions.motionOptions", unsafe.Offsetof(abo.MotionOptions), 8},
		{"sizeof OptixMotionOptions", unsafe.Sizeof(abo.MotionOptions), 12},
		{"sizeof OptixAccelBufferSizes", unsafe.Sizeof(abs), 24},
		{"OptixAccelBufferSizes.tempSizeInBytes", unsafe.Offsetof(abs.TempSizeInBytes), 8},
		{"OptixAccelBufferSizes.tempUpdateSizeInBytes", unsafe.Offsetof(abs.TempUpdateSizeInBytes), 16},
		{"sizeof OptixAccelEmitDesc", unsafe.Sizeof(aed), 16},
		{"OptixAccelEmitDesc.type", unsafe.Offsetof(aed.Type), 8},

		{"sizeof OptixModuleCompileOptions", unsafe.Sizeof(mco), 40},
		{"OptixModuleCompileOptions.optLevel", unsafe.Offsetof(mco.OptLevel), 4},
		{"OptixModuleCompileOptions.debugLevel", unsafe.Offsetof(mco.DebugLevel), 8},
		{"OptixModuleCompileOptions.boundValues", unsafe.Offsetof(mco.BoundValues), 16},
		{"OptixModuleCompileOptions.numBoundValues", unsafe.Offsetof(mco.NumBoundValues), 24},
		{"OptixModuleCompileOptions.numPayloadTypes", unsafe.Offsetof(mco.NumPayloadTypes), 28},
		{"OptixModuleCompileOptions.payloadTypes", unsafe.Offsetof(mco.PayloadTypes), 32},
		{"sizeof OptixPipelineCompileOptions", unsafe.Sizeof(pco), 40},
		{"OptixPipelineCompileOptions.traversableGraphFlags", unsafe.Offsetof(pco.TraversableGraphFlags), 4},
		{"OptixPipelineCompileOptions.numPayloadValues", unsafe.Offsetof(pco.NumPayloadValues), 8},
		{"OptixPipelineCompileOptions.numAttributeValues", unsafe.Offsetof(pco.NumAttributeValues), 12},
		{"OptixPipelineCompileOptions.exceptionFlags", unsafe.Offsetof(pco.ExceptionFlags), 16},
		{"OptixPipelineCompileOptions.pipelineLaunchParamsVariableName", unsafe.Offsetof(pco.PipelineLaunchParamsVariableName), 24},
		{"OptixPipelineCompileOptions.usesPrimitiveTypeFlags", unsafe.Offsetof(pco.UsesPrimitiveTypeFlags), 32},
		{"sizeof OptixPipelineLinkOptions", unsafe.Sizeof(plo), 8},
		{"OptixPipelineLinkOptions.debugLevel", unsafe.Offsetof(plo.DebugLevel), 4},

		{"sizeof OptixProgramGroupDesc", unsafe.Sizeof(pgd), 56},
		{"OptixProgramGroupDesc.flags", unsafe.Offsetof(pgd.Flags), 4},
		{"OptixProgramGroupDesc.hitgroup", unsafe.Offsetof(pgd.Hitgroup), 8},
		{"sizeof OptixProgramGroupHitgroup", unsafe.Sizeof(hg), 48},
		{"OptixProgramGroupHitgroup.entryFunctionNameCH", unsafe.Offsetof(hg.EntryFunctionNameCH), 8},
		{"OptixProgramGroupHitgroup.moduleAH", unsafe.Offsetof(hg.ModuleAH), 16},
		{"OptixProgramGroupHitgroup.moduleIS", unsafe.Offsetof(hg.ModuleIS), 32},
		{"OptixProgramGroupHitgroup.entryFunctionNameIS", unsafe.Offsetof(hg.EntryFunctionNameIS), 40},
		{"sizeof OptixProgramGroupOptions", unsafe.Sizeof(programGroupOptions{}), 8},

		{"sizeof OptixShaderBindingTable", unsafe.Sizeof(sbt), 64},
		{"OptixShaderBindingTable.exceptionRecord", unsafe.Offsetof(sbt.ExceptionRecord), 8},
		{"OptixShaderBindingTable.missRecordBase", unsafe.Offsetof(sbt.MissRecordBase), 16},
		{"OptixShaderBindingTable.missRecordStrideInBytes", unsafe.Offsetof(sbt.MissRecordStrideInBytes), 24},
		{"OptixShaderBindingTable.missRecordCount", unsafe.Offsetof(sbt.MissRecordCount), 28},
		{"OptixShaderBindingTable.hitgroupRecordBase", unsafe.Offsetof(sbt.HitgroupRecordBase), 32},
		{"OptixShaderBindingTable.hitgroupRecordStrideInBytes", unsafe.Offsetof(sbt.HitgroupRecordStrideInBytes), 40},
		{"OptixShaderBindingTable.hitgroupRecordCount", unsafe.Offsetof(sbt.HitgroupRecordCount), 44},
		{"OptixShaderBindingTable.callablesRecordBase", unsafe.Offsetof(sbt.CallablesRecordBase), 48},
		{"OptixShaderBindingTable.callablesRecordStrideInBytes", unsafe.Offsetof(sbt.CallablesRecordStrideInBytes), 56},
		{"OptixShaderBindingTable.callablesRecordCount", unsafe.Offsetof(sbt.CallablesRecordCount), 60},

		{"sizeof OptixBuiltinISOptions", unsafe.Sizeof(bis), 16},
		{"OptixBuiltinISOptions.usesMotionBlur", unsafe.Offsetof(bis.UsesMotionBlur), 4},
		{"OptixBuiltinISOptions.buildFlags", unsafe.Offsetof(bis.BuildFlags), 8},
		{"OptixBuiltinISOptions.curveEndcapFlags", unsafe.Offsetof(bis.CurveEndcapFlags), 12},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
}
