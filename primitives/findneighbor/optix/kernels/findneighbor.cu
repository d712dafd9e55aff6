// findneighbor.cu: pctk's OptiX programs for RT-FindNeighbor (Nagarajan et
// al., RT-DBSCAN, section III). One ray per query point; every indexed point
// is a sphere of radius eps (custom AABB primitive or built-in sphere). The
// program called per candidate (intersection for custom primitives, any-hit
// for spheres) checks the true float32 distance, drops the self hit, does the
// operation's work and never reports/accepts a hit, so traversal visits every
// candidate.
//
// Build: scripts/build-optix-ptx.sh (nvcc -ptx); the PTX is embedded in Go.
#include "pctk_optix.h"

// Operation modes (Go: mode* constants in launch.go).
#define MODE_COUNT 0    // counts[slot] = neighbours
#define MODE_FILL 1     // nbr[offsets[slot] + i] = neighbour, nbrD2 alike
#define MODE_KNN 2      // k nearest: knnIdx/knnD2[slot*k ...], sorted
// (3 was moments, now summed on the host from index-ordered lists)
#define MODE_DBSCAN 4   // union of core neighbours; nearest core of others
#define MODE_AABB 5     // aabb[i] = point i +- radius (raygen only)

// Params is the launch parameter block; Go's launchParams mirrors it field by
// field (launch.go), and both sides assert its size.
struct Params {
    pctkTraversable handle;
    const float* pts;          // indexed points, GAS order, xyz
    const int* orig;           // GAS order -> caller's index
    const float* q;            // query points, xyz, in query order
    const int* launchToQuery;  // launch index -> query index; null: identity
    const int* qOut;           // query index -> output slot; null: identity
    unsigned int* counts;      // MODE_COUNT, by slot
    const long long* offsets;  // MODE_FILL, by slot
    int* nbr;                  // MODE_FILL entries (caller's indices)
    float* nbrD2;              // MODE_FILL squared distances, or null
    int* knnIdx;               // MODE_KNN, slot*k
    float* knnD2;              // MODE_KNN, slot*k
    const unsigned char* isCore;  // MODE_DBSCAN, by caller's index
    int* parent;               // MODE_DBSCAN union-find, by caller's index
    int* border;               // MODE_DBSCAN: nearest core neighbour, by slot
    float* aabb;               // MODE_AABB output, 6 floats per point
    unsigned int nq;           // launch width
    int mode;
    int self;                  // queries are the indexed points: drop j == qi
    int k;                     // MODE_KNN list length
    float eps2;                // eps*eps, rounded to float32 on the host
    float radius;              // padded primitive radius
    int spheres;               // 1: built-in spheres (ray starts 3*radius behind)
    int pad_;
};
static_assert(sizeof(Params) == 160, "Params layout changed: update launchParams in launch.go");

extern "C" {
__constant__ Params params;
}

// dist2 is |a-b|^2 in float32, evaluated as ((dx*dx + dy*dy) + dz*dz) with
// every operation rounded separately (no FMA contraction), the order the CPU
// backends use, so every backend agrees bit for bit.
static __forceinline__ __device__ float dist2(const float* a, const float* b)
{
    float dx = __fsub_rn(a[0], b[0]);
    float dy = __fsub_rn(a[1], b[1]);
    float dz = __fsub_rn(a[2], b[2]);
    return __fadd_rn(__fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy)), __fmul_rn(dz, dz));
}

static __forceinline__ __device__ unsigned slotOf(unsigned qi)
{
    return params.qOut ? (unsigned)params.qOut[qi] : qi;
}

// findRoot follows parent links to the root, halving the path as it goes.
// Links only ever point to smaller indices, so a stale read is still an
// ancestor.
static __forceinline__ __device__ int findRoot(int x)
{
    volatile int* parent = params.parent;
    int p = parent[x];
    while (p != x) {
        int gp = parent[p];
        if (gp != p) parent[x] = gp;
        x = p;
        p = gp;
    }
    return x;
}

// unite links the roots of a and b, the larger under the smaller, so every
// component's root is its smallest index (FDBSCAN's lock-free union).
static __forceinline__ __device__ void unite(int a, int b)
{
    for (;;) {
        a = findRoot(a);
        b = findRoot(b);
        if (a == b) return;
        if (a < b) {
            int t = a;
            a = b;
            b = t;
        }
        if (atomicCAS(&params.parent[a], a, b) == a) return;
    }
}

// knnInsert puts (d2, id) into the sorted list of the k nearest of one query,
// ordered by distance, then index. n is the list's length so far.
static __forceinline__ __device__ unsigned knnInsert(unsigned slot, unsigned n, float d2, int id)
{
    const int k = params.k;
    int* idx = params.knnIdx + (size_t)slot * k;
    float* dd = params.knnD2 + (size_t)slot * k;
    int i = (int)n;
    if (i == k) {
        // full: the new entry must beat the last
        if (d2 > dd[k - 1] || (d2 == dd[k - 1] && id > idx[k - 1])) return n;
        i = k - 1;
    } else {
        n++;
    }
    while (i > 0 && (dd[i - 1] > d2 || (dd[i - 1] == d2 && idx[i - 1] > id))) {
        dd[i] = dd[i - 1];
        idx[i] = idx[i - 1];
        i--;
    }
    dd[i] = d2;
    idx[i] = id;
    return n;
}

// visit does the per-candidate work for primitive j of the current ray.
static __forceinline__ __device__ void visit(unsigned j)
{
    const unsigned qi = pctkGetPayload2();
    if (params.self && j == qi) return;  // the paper's self-intersection filter
    const float* p = params.pts + 3 * (size_t)j;
    const float* q = params.q + 3 * (size_t)qi;
    const float d2 = dist2(p, q);
    if (!(d2 <= params.eps2)) return;
    const int id = params.orig[j];
    switch (params.mode) {
    case MODE_COUNT:
        pctkSetPayload0(pctkGetPayload0() + 1);
        break;
    case MODE_FILL: {
        unsigned n = pctkGetPayload0();
        long long at = params.offsets[slotOf(qi)] + n;
        params.nbr[at] = id;
        if (params.nbrD2) params.nbrD2[at] = d2;
        pctkSetPayload0(n + 1);
        break;
    }
    case MODE_KNN:
        pctkSetPayload0(knnInsert(slotOf(qi), pctkGetPayload0(), d2, id));
        break;
    case MODE_DBSCAN: {
        if (!params.isCore[id]) return;
        const int self = (int)slotOf(qi);
        if (params.isCore[self]) {
            if (id < self) unite(self, id);  // each pair once; the other ray skips it
        } else {
            float best = __uint_as_float(pctkGetPayload0());
            int bestID = (int)pctkGetPayload1();
            if (d2 < best || (d2 == best && id < bestID)) {
                pctkSetPayload0(__float_as_uint(d2));
                pctkSetPayload1((unsigned)id);
            }
        }
        break;
    }
    }
}

extern "C" __global__ void __intersection__neighbor()
{
    visit(pctkPrimitiveIndex());
    // never report: traversal goes on to every candidate
}

extern "C" __global__ void __anyhit__neighbor()
{
    // A built-in sphere is entered once by a ray that starts outside it;
    // an exit hit (should one be reported) must not count twice.
    if (!pctkIsBackFace(pctkHitKind())) visit(pctkPrimitiveIndex());
    pctkIgnoreIntersection();
}

extern "C" __global__ void __raygen__neighbor()
{
    const unsigned li = pctkLaunchIndexX();
    if (li >= params.nq) return;
    const unsigned qi = params.launchToQuery ? (unsigned)params.launchToQuery[li] : li;
    const unsigned slot = slotOf(qi);
    const float* q = params.q + 3 * (size_t)qi;
    unsigned p0 = 0, p1 = 0, p2 = qi;
    if (params.mode == MODE_DBSCAN) {
        p0 = __float_as_uint(__int_as_float(0x7f800000));  // +Inf: no core neighbour yet
        p1 = 0xffffffffu;
    }
    float ox = q[0], tmin = 0.0f, tmax = 1e-16f;
    unsigned flags = PCTK_RAY_FLAG_DISABLE_CLOSESTHIT;
    if (params.spheres) {
        // start outside every sphere that contains q (3r behind it) and stop at q
        ox = __fsub_rn(q[0], 3.0f * params.radius);
        tmax = 3.0f * params.radius;
    } else {
        flags |= PCTK_RAY_FLAG_DISABLE_ANYHIT;
    }
    pctkTrace3(params.handle, ox, q[1], q[2], 1.0f, 0.0f, 0.0f, tmin, tmax, flags, p0, p1, p2);
    switch (params.mode) {
    case MODE_COUNT:
        params.counts[slot] = p0;
        break;
    case MODE_KNN:
        for (int i = (int)p0; i < params.k; i++) {
            params.knnIdx[(size_t)slot * params.k + i] = -1;
            params.knnD2[(size_t)slot * params.k + i] = __int_as_float(0x7f800000);
        }
        break;
    case MODE_DBSCAN:
        if (!params.isCore[slot]) params.border[slot] = (int)p1;
        break;
    }
}

extern "C" __global__ void __raygen__aabb()
{
    const unsigned i = pctkLaunchIndexX();
    if (i >= params.nq) return;
    const float* p = params.pts + 3 * (size_t)i;
    float* b = params.aabb + 6 * (size_t)i;
    const float r = params.radius;
    b[0] = __fsub_rd(p[0], r);
    b[1] = __fsub_rd(p[1], r);
    b[2] = __fsub_rd(p[2], r);
    b[3] = __fadd_ru(p[0], r);
    b[4] = __fadd_ru(p[1], r);
    b[5] = __fadd_ru(p[2], r);
}
