package optix

import (
	"runtime"
	"unsafe"

	"github.com/pctk/pctk/rt/cuda"
)

// GASInput is the geometry of a GAS of one build input and one SBT record:
// N custom primitives or N built-in spheres of one radius, in device
// memory the caller owns.
type GASInput struct {
	// Primitives is the kind of primitive, as in the pipeline's PipelineDesc.
	Primitives Primitives
	// N is the number of primitives.
	N int
	// AABBs holds N OptixAabb for custom primitives: min x, y, z, then
	// max x, y, z, float32 (24 bytes each).
	AABBs cuda.DevicePtr
	// Centres holds N sphere centres (x, y, z float32, 12 bytes each) and
	// Radius one float32, the radius of every sphere.
	Centres, Radius cuda.DevicePtr
	// AnyHit lets a hit on the primitives call the hit group's any-hit
	// program; without it none is called. Either way a primitive's any-hit
	// program runs at most once per ray (REQUIRE_SINGLE_ANYHIT_CALL).
	AnyHit bool
	// FastTrace builds with PREFER_FAST_TRACE (a GAS that many rays will
	// traverse), else with PREFER_FAST_BUILD.
	FastTrace bool
}

// GAS is a built geometry acceleration structure in device memory.
type GAS struct {
	// Handle is its traversable handle, for a launch's parameters.
	Handle uint64
	// Buffer is its device memory, which Free releases.
	Buffer cuda.DevicePtr
	// Bytes is its size as built, CompactBytes after compaction (equal
	// when compaction did not shrink it), TempBytes the scratch memory the
	// build needed.
	Bytes, CompactBytes, TempBytes uint64
}

// Free releases the GAS's device memory.
func (g GAS) Free(t *cuda.Thread) error { return t.Free(g.Buffer) }

// align rounds n up to a multiple of a.
func align(n, a uint64) uint64 { return (n + a - 1) / a * a }

// BuildGAS builds a GAS over in on the context's stream, with compaction
// allowed: the compacted size is emitted by the build, and when it is
// smaller the GAS is compacted into a buffer of that size. It waits for
// the build.
func (c *DeviceContext) BuildGAS(t *cuda.Thread, in GASInput) (GAS, error) {
	var pn runtime.Pinner
	defer pn.Unpin()
	flags := new(uint32)
	*flags = geometryFlagRequireSingleAnyHit
	if !in.AnyHit {
		*flags |= geometryFlagDisableAnyHit
	}
	var bi buildInput
	bufs := new(uint64)
	if in.Primitives == Spheres {
		*bufs = uint64(in.Centres)
		rbufs := new(uint64)
		*rbufs = uint64(in.Radius)
		sp := buildInputSphereArray{
			VertexBuffers:       pin(&pn, bufs),
			VertexStrideInBytes: 12,
			NumVertices:         uint32(in.N),
			RadiusBuffers:       pin(&pn, rbufs),
			SingleRadius:        1,
			Flags:               pin(&pn, flags),
			NumSbtRecords:       1,
		}
		bi.Type = buildInputSpheres
		*(*buildInputSphereArray)(unsafe.Pointer(&bi.Body[0])) = sp
	} else {
		*bufs = uint64(in.AABBs)
		cp := buildInputCustomPrimitiveArray{
			AABBBuffers:   pin(&pn, bufs),
			NumPrimitives: uint32(in.N),
			StrideInBytes: 24,
			Flags:         pin(&pn, flags),
			NumSbtRecords: 1,
		}
		bi.Type = buildInputCustomPrimitives
		*(*buildInputCustomPrimitiveArray)(unsafe.Pointer(&bi.Body[0])) = cp
	}
	opts := accelBuildOptions{BuildFlags: buildFlagAllowCompaction, Operation: buildOperationBuild}
	if in.FastTrace {
		opts.BuildFlags |= buildFlagPreferFastTrace
	} else {
		opts.BuildFlags |= buildFlagPreferFastBuild
	}
	var sizes accelBufferSizes
	if err := call("optixAccelComputeMemoryUsage", fns.AccelComputeMemoryUsage, c.handle,
		uintptr(unsafe.Pointer(&opts)), uintptr(unsafe.Pointer(&bi)), 1,
		uintptr(unsafe.Pointer(&sizes))); err != nil {
		return GAS{}, err
	}
	temp, err := t.Alloc(align(sizes.TempSizeInBytes, accelBufferAlignment) + 8)
	if err != nil {
		return GAS{}, err
	}
	defer t.Free(temp)
	out, err := t.Alloc(sizes.OutputSizeInBytes)
	if err != nil {
		return GAS{}, err
	}
	emit := accelEmitDesc{Result: uint64(temp) + align(sizes.TempSizeInBytes, accelBufferAlignment), Type: propertyCompactedSize}
	var handle uint64
	if err := call("optixAccelBuild", fns.AccelBuild, c.handle, uintptr(c.stream),
		uintptr(unsafe.Pointer(&opts)), uintptr(unsafe.Pointer(&bi)), 1,
		uintptr(temp), uintptr(sizes.TempSizeInBytes), uintptr(out), uintptr(sizes.OutputSizeInBytes),
		uintptr(unsafe.Pointer(&handle)), uintptr(unsafe.Pointer(&emit)), 1); err != nil {
		t.Free(out)
		return GAS{}, err
	}
	compact := make([]uint64, 1)
	if err := cuda.Download(t, compact, cuda.DevicePtr(emit.Result), c.stream); err != nil {
		t.Free(out)
		return GAS{}, err
	}
	g := GAS{Bytes: sizes.OutputSizeInBytes, CompactBytes: sizes.OutputSizeInBytes, TempBytes: sizes.TempSizeInBytes}
	if n := compact[0]; n > 0 && n < sizes.OutputSizeInBytes {
		small, err := t.Alloc(n)
		if err != nil {
			t.Free(out)
			return GAS{}, err
		}
		var h2 uint64
		if err := call("optixAccelCompact", fns.AccelCompact, c.handle, uintptr(c.stream),
			uintptr(handle), uintptr(small), uintptr(n), uintptr(unsafe.Pointer(&h2))); err != nil {
			t.Free(out)
			t.Free(small)
			return GAS{}, err
		}
		if err := t.StreamSync(c.stream); err != nil {
			t.Free(out)
			t.Free(small)
			return GAS{}, err
		}
		t.Free(out)
		out, handle = small, h2
		g.CompactBytes = n
	}
	g.Handle, g.Buffer = handle, out
	return g, nil
}
