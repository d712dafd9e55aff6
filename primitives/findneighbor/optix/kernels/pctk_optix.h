// pctk_optix.h: the few OptiX device intrinsics pctk's programs call, written
// for pctk. OptiX resolves the `_optix_*` calls below when it loads the PTX
// (optixModuleCreateFromPTX), so no OptiX SDK is needed to build pctk.
// The call forms follow the OptiX 7.x device ABI (the one of ABI version 60).
#pragma once

typedef unsigned long long pctkTraversable;

// Ray flags (OptixRayFlags).
#define PCTK_RAY_FLAG_DISABLE_ANYHIT (1u << 0)
#define PCTK_RAY_FLAG_DISABLE_CLOSESTHIT (1u << 3)

static __forceinline__ __device__ unsigned pctkLaunchIndexX()
{
    unsigned v;
    asm("call (%0), _optix_get_launch_index_x, ();" : "=r"(v) :);
    return v;
}

static __forceinline__ __device__ unsigned pctkPrimitiveIndex()
{
    unsigned v;
    asm("call (%0), _optix_read_primitive_idx, ();" : "=r"(v) :);
    return v;
}

static __forceinline__ __device__ unsigned pctkHitKind()
{
    unsigned v;
    asm("call (%0), _optix_get_hit_kind, ();" : "=r"(v) :);
    return v;
}

// pctkIsBackFace tells whether a hit of a built-in primitive is a back-face
// (exit) hit.
static __forceinline__ __device__ bool pctkIsBackFace(unsigned hitKind)
{
    unsigned v;
    asm("call (%0), _optix_get_backface_from_hit_kind, (%1);" : "=r"(v) : "r"(hitKind));
    return v == 1u;
}

static __forceinline__ __device__ void pctkIgnoreIntersection()
{
    asm volatile("call _optix_ignore_intersection, ();");
}

// Payload register access, one function per register we use (the register
// number must be an immediate for OptiX).
#define PCTK_PAYLOAD(n)                                                                        \
    static __forceinline__ __device__ unsigned pctkGetPayload##n()                             \
    {                                                                                          \
        unsigned v;                                                                            \
        asm volatile("call (%0), _optix_get_payload, (%1);" : "=r"(v) : "r"(n) :);            \
        return v;                                                                              \
    }                                                                                          \
    static __forceinline__ __device__ void pctkSetPayload##n(unsigned v)                       \
    {                                                                                          \
        asm volatile("call _optix_set_payload, (%0, %1);" : : "r"(n), "r"(v) :);              \
    }
PCTK_PAYLOAD(0)
PCTK_PAYLOAD(1)
PCTK_PAYLOAD(2)
#undef PCTK_PAYLOAD

// pctkTrace3 traces one ray with three payload registers. The trace
// intrinsic always takes 32 payload slots in and out; the count says how many
// are live.
static __forceinline__ __device__ void pctkTrace3(pctkTraversable handle, float ox, float oy, float oz,
                                                  float dx, float dy, float dz, float tmin, float tmax,
                                                  unsigned rayFlags, unsigned& p0, unsigned& p1, unsigned& p2)
{
    unsigned r[32];
    unsigned u = 0;
    const float time = 0.0f;
    const unsigned mask = 0xffu, sbtOffset = 0, sbtStride = 1, missIndex = 0, count = 3, type = 0;
    asm volatile(
        "call (%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,"
        "%26,%27,%28,%29,%30,%31),_optix_trace_typed_32,(%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,"
        "%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,"
        "%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80);"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
          "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]),
          "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]),
          "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]),
          "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
        : "r"(type), "l"(handle), "f"(ox), "f"(oy), "f"(oz), "f"(dx), "f"(dy), "f"(dz), "f"(tmin), "f"(tmax),
          "f"(time), "r"(mask), "r"(rayFlags), "r"(sbtOffset), "r"(sbtStride), "r"(missIndex), "r"(count),
          "r"(p0), "r"(p1), "r"(p2), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u),
          "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u),
          "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u), "r"(u)
        :);
    p0 = r[0];
    p1 = r[1];
    p2 = r[2];
}
