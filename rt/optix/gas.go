package optix

import (
	"runtime"
	"time"
	"unsafe"

	"github.com/pctk/pctk/rt/cuda"
)

// fastTraceThreshold is the cloud size from which the GAS is built with
// PREFER_FAST_TRACE rather than PREFER_FAST_BUILD: small clouds are queried
// briefly, so build time dominates; large ones are queried by millions of
// rays, which pay for a better BVH.
const fastTraceThreshold = 1 << 18

// BuildStats describes one index build.
type BuildStats struct {
	// Order is the host time spent ordering the points along a Morton curve.
	Order time.Duration
	// Upload is the time to copy the points (and their original indices)
	// to the device.
	Upload time.Duration
	// GAS is the device time of the acceleration-structure build, AABB
	// generation and compaction included.
	GAS time.Duration
	// GASBytes is the acceleration structure's size as built, CompactBytes
	// after compaction (equal when compaction did not shrink it).
	GASBytes, CompactBytes uint64
	// TempBytes is the scratch memory the build needed.
	TempBytes uint64
	// FastTrace reports whether PREFER_FAST_TRACE was used (else FAST_BUILD).
	FastTrace bool
}

// align rounds n up to a multiple of a.
func align(n, a uint64) uint64 { return (n + a - 1) / a * a }

// buildGAS builds the index's acceleration structure over its device points:
// AABBs (custom primitives, made by the AABB raygen program) or spheres, then
// compaction. It sets ix.handle and ix.gas.
func (ix *Index) buildGAS(t *cuda.Thread) error {
	e := ix.eng
	n := ix.n
	start := time.Now()
	var pn runtime.Pinner
	defer pn.Unpin()
	flags := new(uint32)
	*flags = geometryFlagRequireSingleAnyHit
	var in buildInput
	bufs := new(uint64)
	if e.spheres {
		radius, err := ix.allocs.Alloc(t, 4)
		if err != nil {
			return err
		}
		if err := cuda.Upload(t, radius, []float32{ix.radius}, e.stream); err != nil {
			return err
		}
		ix.radiusBuf = radius
		*bufs = uint64(ix.pts)
		rbufs := new(uint64)
		*rbufs = uint64(radius)
		sp := buildInputSphereArray{
			VertexBuffers:       pin(&pn, bufs),
			VertexStrideInBytes: 12,
			NumVertices:         uint32(n),
			RadiusBuffers:       pin(&pn, rbufs),
			SingleRadius:        1,
			Flags:               pin(&pn, flags),
			NumSbtRecords:       1,
		}
		in.Type = buildInputSpheres
		*(*buildInputSphereArray)(unsafe.Pointer(&in.Body[0])) = sp
	} else {
		*flags |= geometryFlagDisableAnyHit
		aabb, err := t.Alloc(uint64(n) * 24)
		if err != nil {
			return err
		}
		defer t.Free(aabb)
		p := launchParams{Pts: uint64(ix.pts), AABB: uint64(aabb), Radius: ix.radius}
		if err := e.launch(t, 1, &p, n); err != nil {
			return err
		}
		*bufs = uint64(aabb)
		cp := buildInputCustomPrimitiveArray{
			AABBBuffers:   pin(&pn, bufs),
			NumPrimitives: uint32(n),
			StrideInBytes: 24,
			Flags:         pin(&pn, flags),
			NumSbtRecords: 1,
		}
		in.Type = buildInputCustomPrimitives
		*(*buildInputCustomPrimitiveArray)(unsafe.Pointer(&in.Body[0])) = cp
	}
	opts := accelBuildOptions{BuildFlags: buildFlagAllowCompaction, Operation: buildOperationBuild}
	if n >= fastTraceThreshold {
		opts.BuildFlags |= buildFlagPreferFastTrace
		ix.stats.FastTrace = true
	} else {
		opts.BuildFlags |= buildFlagPreferFastBuild
	}
	var sizes accelBufferSizes
	if err := call("optixAccelComputeMemoryUsage", fns.AccelComputeMemoryUsage, e.optixCtx,
		uintptr(unsafe.Pointer(&opts)), uintptr(unsafe.Pointer(&in)), 1,
		uintptr(unsafe.Pointer(&sizes))); err != nil {
		return err
	}
	temp, err := t.Alloc(align(sizes.TempSizeInBytes, accelBufferAlignment) + 8)
	if err != nil {
		return err
	}
	defer t.Free(temp)
	out, err := t.Alloc(sizes.OutputSizeInBytes)
	if err != nil {
		return err
	}
	emit := accelEmitDesc{Result: uint64(temp) + align(sizes.TempSizeInBytes, accelBufferAlignment), Type: propertyCompactedSize}
	var handle uint64
	if err := call("optixAccelBuild", fns.AccelBuild, e.optixCtx, uintptr(e.stream),
		uintptr(unsafe.Pointer(&opts)), uintptr(unsafe.Pointer(&in)), 1,
		uintptr(temp), uintptr(sizes.TempSizeInBytes), uintptr(out), uintptr(sizes.OutputSizeInBytes),
		uintptr(unsafe.Pointer(&handle)), uintptr(unsafe.Pointer(&emit)), 1); err != nil {
		t.Free(out)
		return err
	}
	compact := make([]uint64, 1)
	if err := cuda.Download(t, compact, cuda.DevicePtr(emit.Result), e.stream); err != nil {
		t.Free(out)
		return err
	}
	ix.stats.GASBytes, ix.stats.CompactBytes, ix.stats.TempBytes = sizes.OutputSizeInBytes, sizes.OutputSizeInBytes, sizes.TempSizeInBytes
	if c := compact[0]; c > 0 && c < sizes.OutputSizeInBytes {
		small, err := t.Alloc(c)
		if err != nil {
			t.Free(out)
			return err
		}
		var h2 uint64
		if err := call("optixAccelCompact", fns.AccelCompact, e.optixCtx, uintptr(e.stream),
			uintptr(handle), uintptr(small), uintptr(c), uintptr(unsafe.Pointer(&h2))); err != nil {
			t.Free(out)
			t.Free(small)
			return err
		}
		if err := t.StreamSync(e.stream); err != nil {
			t.Free(out)
			t.Free(small)
			return err
		}
		t.Free(out)
		out, handle = small, h2
		ix.stats.CompactBytes = c
	}
	ix.gas, ix.handle = out, handle
	ix.stats.GAS = time.Since(start)
	return nil
}
