package optix

import (
	"time"

	"github.com/pctk/pctk/rt/cuda"
	rt "github.com/pctk/pctk/rt/optix"
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

// buildGAS builds the index's acceleration structure over its device
// points: AABBs p ± radius (custom primitives, written by the AABB raygen
// program) or spheres of that radius, compacted by the runtime
// (DeviceContext.BuildGAS). It sets ix.gas.
func (ix *Index) buildGAS(t *cuda.Thread) error {
	e := ix.eng
	start := time.Now()
	in := rt.GASInput{N: ix.n, FastTrace: ix.n >= fastTraceThreshold}
	if e.spheres {
		radius, err := ix.allocs.Alloc(t, 4)
		if err != nil {
			return err
		}
		if err := cuda.Upload(t, radius, []float32{ix.radius}, e.stream); err != nil {
			return err
		}
		ix.radiusBuf = radius
		// the any-hit program does the work
		in.Primitives, in.Centres, in.Radius, in.AnyHit = rt.Spheres, ix.pts, radius, true
	} else {
		aabb, err := t.Alloc(uint64(ix.n) * 24)
		if err != nil {
			return err
		}
		defer t.Free(aabb)
		p := launchParams{Pts: uint64(ix.pts), AABB: uint64(aabb), Radius: ix.radius}
		if err := e.launch(t, raygenAABB, &p, ix.n); err != nil {
			return err
		}
		// the intersection program does the work and reports no hit
		in.Primitives, in.AABBs = rt.CustomPrimitives, aabb
	}
	ix.stats.FastTrace = in.FastTrace
	gas, err := e.dc.BuildGAS(t, in)
	if err != nil {
		return err
	}
	ix.gas = gas
	ix.stats.GASBytes, ix.stats.CompactBytes, ix.stats.TempBytes = gas.Bytes, gas.CompactBytes, gas.TempBytes
	ix.stats.GAS = time.Since(start)
	return nil
}
