// grid.cu: device code of pctk's "cuda" findneighbor backend, a uniform grid.
//
// Build: a bounding box; a cell key per point (the linear cell index of a
// dense grid, x fastest, or a hash of the cell coordinates when the dense
// grid would be too large); a stable LSD radix sort of (key, index); the
// points gathered into sorted order as float4 (x, y, z, index bits); cell
// start offsets from a histogram and an exclusive scan.
// Queries: one thread per query, queries in cell-sorted order, scanning the
// cells within reach (3x3x3 cells of side >= eps, or 5x5x5 of side >= eps/2
// in dense clouds, which scans about half the volume), each row of cells
// one contiguous range in dense mode.
//
// The distance test is dx*dx + dy*dy + dz*dz <= eps*eps in float32, with
// every operation rounded separately (__fsub_rn, __fmul_rn, __fadd_rn) and
// in the CPU backend's order, so FMA contraction cannot change a result;
// the build script also passes --fmad=false.
//
// nvcc-flags: --fmad=false
// nvcc-fatbin: sm_75 sm_80 sm_86 sm_89 sm_90

typedef unsigned int u32;
typedef unsigned long long u64;

#define BLOCK 256
#define WARPS (BLOCK / 32)

// Grid is passed by value; its layout matches the Go struct gridParams.
struct Grid {
    double minx, miny, minz; // origin of cell (0, 0, 0)
    double inv;              // 1 / cell size
    int nx, ny, nz;          // cells per axis
    int hashed;              // 0: key = linear cell index; 1: key = hash & mask
    u32 mask;                // hashed: buckets - 1
    u32 buckets;             // number of keys
    float eps2;              // eps*eps rounded to float32
    int reach;               // cells searched each side: 1 (cells >= eps) or 2 (>= eps/2)
};

// cellCoord returns floor((x - mn) * inv) clamped to [-2, n + 1], so that a
// query far outside the grid lands just outside it and finds nothing.
__device__ __forceinline__ int cellCoord(float x, double mn, double inv, int n) {
    double c = floor(((double)x - mn) * inv);
    c = fmin(fmax(c, -2.0), (double)n + 1.0);
    return (int)c;
}

__device__ __forceinline__ u64 cellId(int x, int y, int z) {
    return ((u64)(u32)x << 42) | ((u64)(u32)y << 21) | (u64)(u32)z;
}

// mix is the splitmix64 finaliser.
__device__ __forceinline__ u64 mix(u64 h) {
    h ^= h >> 30; h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27; h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

__device__ __forceinline__ u32 keyOf(const Grid& g, int x, int y, int z) {
    if (!g.hashed) return ((u32)z * (u32)g.ny + (u32)y) * (u32)g.nx + (u32)x;
    return (u32)mix(cellId(x, y, z)) & g.mask;
}

// cellKey is the key of the cell of point p, clamped into the grid.
__device__ __forceinline__ u32 cellKey(const Grid& g, float4 p) {
    int x = min(max(cellCoord(p.x, g.minx, g.inv, g.nx), 0), g.nx - 1);
    int y = min(max(cellCoord(p.y, g.miny, g.inv, g.ny), 0), g.ny - 1);
    int z = min(max(cellCoord(p.z, g.minz, g.inv, g.nz), 0), g.nz - 1);
    return keyOf(g, x, y, z);
}

__device__ __forceinline__ float dist2(float4 p, float qx, float qy, float qz) {
    float dx = __fsub_rn(qx, p.x), dy = __fsub_rn(qy, p.y), dz = __fsub_rn(qz, p.z);
    return __fadd_rn(__fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy)), __fmul_rn(dz, dz));
}

// Reach is the part of the grid a query scans: the cells within reach of
// its cell (clamped to [-2, n + 1]), inside the grid.
struct Reach {
    int cx, cy, cz;
    int x0, x1, y0, y1, z0, z1;
};

__device__ __forceinline__ Reach reachOf(const Grid& g, float qx, float qy, float qz) {
    Reach r;
    r.cx = cellCoord(qx, g.minx, g.inv, g.nx);
    r.cy = cellCoord(qy, g.miny, g.inv, g.ny);
    r.cz = cellCoord(qz, g.minz, g.inv, g.nz);
    r.x0 = max(r.cx - g.reach, 0), r.x1 = min(r.cx + g.reach, g.nx - 1);
    r.y0 = max(r.cy - g.reach, 0), r.y1 = min(r.cy + g.reach, g.ny - 1);
    r.z0 = max(r.cz - g.reach, 0), r.z1 = min(r.cz + g.reach, g.nz - 1);
    return r;
}

// forNeighbors calls f(j, p, d2) for every sorted point j < limit within
// eps of q. Sorted positions grow along each row and bucket, so the limit
// cuts rows short (and skips those that start past it) instead of testing
// every point. (Cutting each row to the cells the sphere around q spans
// scans fewer points but, in float32 or float64, took more time than it
// saved on the H200: docs/gpu.md.)
template <class F>
__device__ __forceinline__ void forNeighbors(const Grid& g, const float4* __restrict__ pos,
                                             const u32* __restrict__ start, const u64* __restrict__ ids,
                                             float qx, float qy, float qz, F f, u32 limit = 0xffffffffu) {
    Reach r = reachOf(g, qx, qy, qz);
    for (int z = r.z0; z <= r.z1; z++) {
        for (int y = r.y0; y <= r.y1; y++) {
            if (!g.hashed) {
                u32 row = ((u32)z * (u32)g.ny + (u32)y) * (u32)g.nx;
                u32 e = min(start[row + r.x1 + 1], limit);
                for (u32 j = start[row + r.x0]; j < e; j++) {
                    float4 p = pos[j];
                    float d2 = dist2(p, qx, qy, qz);
                    if (d2 <= g.eps2) f(j, p, d2);
                }
            } else {
                for (int x = r.x0; x <= r.x1; x++) {
                    u64 id = cellId(x, y, z);
                    u32 b = (u32)mix(id) & g.mask;
                    u32 e = min(start[b + 1], limit);
                    for (u32 j = start[b]; j < e; j++) {
                        if (ids[j] != id) continue; // another cell in this bucket
                        float4 p = pos[j];
                        float d2 = dist2(p, qx, qy, qz);
                        if (d2 <= g.eps2) f(j, p, d2);
                    }
                }
            }
        }
    }
}

__device__ __forceinline__ int origOf(float4 p) { return __float_as_int(p.w); }

// ---------------------------------------------------------------- build

// orderedBits maps a float to an int whose signed order is the float order.
__device__ __forceinline__ int orderedBits(float f) {
    int i = __float_as_int(f);
    return i >= 0 ? i : i ^ 0x7fffffff;
}

// fn_bounds accumulates the bounding box of the finite coordinates into
// box (ordered ints: min x, y, z, then max x, y, z; preset to INT_MAX and
// INT_MIN by the host) and counts non-finite coordinates in box[6].
extern "C" __global__ void fn_bounds(const float* __restrict__ xyz, int n, int* box) {
    float mn[3] = {3.4e38f, 3.4e38f, 3.4e38f}, mx[3] = {-3.4e38f, -3.4e38f, -3.4e38f};
    int bad = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        for (int a = 0; a < 3; a++) {
            float v = xyz[3 * (size_t)i + a];
            if (!isfinite(v)) {
                bad++;
                continue;
            }
            mn[a] = fminf(mn[a], v);
            mx[a] = fmaxf(mx[a], v);
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        for (int a = 0; a < 3; a++) {
            mn[a] = fminf(mn[a], __shfl_down_sync(0xffffffffu, mn[a], o));
            mx[a] = fmaxf(mx[a], __shfl_down_sync(0xffffffffu, mx[a], o));
        }
        bad += __shfl_down_sync(0xffffffffu, bad, o);
    }
    if ((threadIdx.x & 31) == 0) {
        for (int a = 0; a < 3; a++) {
            atomicMin(&box[a], orderedBits(mn[a]));
            atomicMax(&box[3 + a], orderedBits(mx[a]));
        }
        if (bad) atomicAdd(&box[6], bad);
    }
}

// fn_keys computes the sort key of each of n points (or queries, whose
// cells are clamped into the grid: for them the key only orders the
// launch) and counts points per key when count is not null.
extern "C" __global__ void fn_keys(const float* __restrict__ xyz, int n, Grid g, u32* keys, u32* vals, u32* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* p = xyz + 3 * (size_t)i;
    u32 k = cellKey(g, make_float4(p[0], p[1], p[2], 0));
    keys[i] = k;
    vals[i] = (u32)i;
    if (count) atomicAdd(&count[k], 1u);
}

// fn_gather writes the points in sorted order as float4 (w = index bits),
// the sorted position of each index (rank, optional), and in hashed mode
// each sorted point's cell id.
extern "C" __global__ void fn_gather(const float* __restrict__ xyz, const u32* __restrict__ order, int n, Grid g,
                                     float4* pos, u32* rank, u64* ids) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n) return;
    u32 v = order[s];
    const float* p = xyz + 3 * (size_t)v;
    float x = p[0], y = p[1], z = p[2];
    pos[s] = make_float4(x, y, z, __int_as_float((int)v));
    if (rank) rank[v] = (u32)s;
    if (ids) {
        ids[s] = cellId(cellCoord(x, g.minx, g.inv, g.nx), cellCoord(y, g.miny, g.inv, g.ny),
                        cellCoord(z, g.minz, g.inv, g.nz));
    }
}

// ---------------------------------------------------------------- radix sort
// A stable LSD radix sort, 8 bits a pass: rs_hist counts the digits of each
// tile of RS_TILE keys, the host scans the counts (digit-major, so the scan
// gives every tile its output offset per digit), and rs_scatter writes each
// tile's keys in order, ranking equal digits within a warp with
// __match_any_sync and across warps through shared memory.

#define RS_ITEMS 8
#define RS_TILE (BLOCK * RS_ITEMS)

extern "C" __global__ void rs_hist(const u32* __restrict__ keys, int n, int shift, u32* hist) {
    __shared__ u32 h[256];
    h[threadIdx.x] = 0;
    __syncthreads();
    int base = blockIdx.x * RS_TILE;
    for (int r = 0; r < RS_ITEMS; r++) {
        int i = base + r * BLOCK + threadIdx.x;
        if (i < n) atomicAdd(&h[(keys[i] >> shift) & 255], 1u);
    }
    __syncthreads();
    hist[(size_t)threadIdx.x * gridDim.x + blockIdx.x] = h[threadIdx.x];
}

extern "C" __global__ void rs_scatter(const u32* __restrict__ kin, const u32* __restrict__ vin, u32* kout,
                                      u32* vout, int n, int shift, const u32* __restrict__ off) {
    __shared__ u32 base[256];
    __shared__ u32 wc[WARPS][256];
    int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    u32 below = (1u << lane) - 1;
    base[tid] = off[(size_t)tid * gridDim.x + blockIdx.x];
    int tile = blockIdx.x * RS_TILE;
    for (int r = 0; r < RS_ITEMS; r++) {
        for (int w = 0; w < WARPS; w++) wc[w][tid] = 0;
        __syncthreads();
        int i = tile + r * BLOCK + tid;
        bool ok = i < n;
        u32 k = ok ? kin[i] : 0, v = ok ? vin[i] : 0;
        u32 d = ok ? (k >> shift) & 255 : 256;
        u32 peers = __match_any_sync(0xffffffffu, d);
        u32 rank = __popc(peers & below);
        if (ok && lane == 31 - __clz(peers)) wc[warp][d] = __popc(peers);
        __syncthreads();
        u32 run = base[tid];
        for (int w = 0; w < WARPS; w++) {
            u32 c = wc[w][tid];
            wc[w][tid] = run;
            run += c;
        }
        base[tid] = run;
        __syncthreads();
        if (ok) {
            u32 p = wc[warp][d] + rank;
            kout[p] = k;
            vout[p] = v;
        }
        __syncthreads();
    }
}

// ---------------------------------------------------------------- scan
// Exclusive prefix sums in three kernels: per-tile totals, a scan of those
// (recursively, by the host), and the tile scan plus its offset. out has n+1
// entries: out[n] is the total.

#define SC_ITEMS 8
#define SC_TILE (BLOCK * SC_ITEMS)

template <typename T>
__device__ T blockExclusive(T v, T* total) {
    __shared__ T ws[WARPS];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T x = v;
    for (int o = 1; o < 32; o <<= 1) {
        T y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) ws[warp] = x;
    __syncthreads();
    if (warp == 0) {
        T s = lane < WARPS ? ws[lane] : 0;
        for (int o = 1; o < WARPS; o <<= 1) {
            T y = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= o) s += y;
        }
        if (lane < WARPS) ws[lane] = s; // inclusive warp totals
    }
    __syncthreads();
    T before = (warp > 0 ? ws[warp - 1] : 0) + x - v;
    *total = ws[WARPS - 1];
    __syncthreads();
    return before;
}

template <typename TI, typename TO>
__device__ void scanReduce(const TI* __restrict__ in, long long n, TO* sums) {
    long long b = (long long)blockIdx.x * SC_TILE + (long long)threadIdx.x * SC_ITEMS;
    TO s = 0;
    for (int r = 0; r < SC_ITEMS; r++)
        if (b + r < n) s += (TO)in[b + r];
    TO total;
    blockExclusive<TO>(s, &total);
    if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

template <typename TI, typename TO>
__device__ void scanApply(const TI* __restrict__ in, TO* out, long long n, const TO* __restrict__ offs) {
    long long b = (long long)blockIdx.x * SC_TILE + (long long)threadIdx.x * SC_ITEMS;
    TO v[SC_ITEMS];
    TO s = 0;
    for (int r = 0; r < SC_ITEMS; r++) {
        v[r] = b + r < n ? (TO)in[b + r] : 0;
        s += v[r];
    }
    TO total;
    TO run = blockExclusive<TO>(s, &total) + (offs ? offs[blockIdx.x] : 0);
    for (int r = 0; r < SC_ITEMS; r++) {
        if (b + r < n) out[b + r] = run;
        run += v[r];
        if (b + r == n - 1) out[n] = run;
    }
}

extern "C" __global__ void scan_reduce_u32(const u32* in, long long n, u32* sums) { scanReduce<u32, u32>(in, n, sums); }
extern "C" __global__ void scan_apply_u32(const u32* in, u32* out, long long n, const u32* offs) { scanApply<u32, u32>(in, out, n, offs); }
extern "C" __global__ void scan_reduce_u32_u64(const u32* in, long long n, u64* sums) { scanReduce<u32, u64>(in, n, sums); }
extern "C" __global__ void scan_apply_u32_u64(const u32* in, u64* out, long long n, const u64* offs) { scanApply<u32, u64>(in, out, n, offs); }
extern "C" __global__ void scan_reduce_u64(const u64* in, long long n, u64* sums) { scanReduce<u64, u64>(in, n, sums); }
extern "C" __global__ void scan_apply_u64(const u64* in, u64* out, long long n, const u64* offs) { scanApply<u64, u64>(in, out, n, offs); }

// ---------------------------------------------------------------- queries
// Every query kernel takes the queries in sorted order as float4 (w = the
// query's index bits), nq of them; self != 0 when they are the indexed
// points themselves (then qs == pos and thread t's own point is position t,
// which is skipped); and a window [lo, hi) of query indices: other queries
// are skipped and per-query outputs are stored at (index - lo), so the host
// can bound output memory by working in windows.

#define QUERY_ARGS                                                                                         \
    Grid g, const float4 *__restrict__ pos, const u32 *__restrict__ start, const u64 *__restrict__ ids,    \
        const float4 *__restrict__ qs, int nq, int self, int lo, int hi

#define QUERY_PROLOGUE                                                         \
    int t = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (t >= nq) return;                                                       \
    float4 q = qs[t];                                                          \
    int qi = origOf(q);                                                        \
    if (qi < lo || qi >= hi) return;                                           \
    u32 me = self ? (u32)t : 0xffffffffu;                                      \
    size_t slot = (size_t)(qi - lo);

extern "C" __global__ void fn_counts(QUERY_ARGS, u32* out) {
    QUERY_PROLOGUE
    u32 c = 0;
    forNeighbors(g, pos, start, ids, q.x, q.y, q.z, [&](u32 j, float4, float) { c += (j != me); });
    out[slot] = c;
}

// fn_fill writes each query's neighbours (indices, and squared distances
// when d2s is not null) from off[slot] - base on, in scan order; the host
// orders them (by index, or by squared distance as the CPU backend does).
extern "C" __global__ void fn_fill(QUERY_ARGS, const u64* __restrict__ off, u64 base, int* idx, float* d2s) {
    QUERY_PROLOGUE
    u64 o = off[slot] - base;
    forNeighbors(g, pos, start, ids, q.x, q.y, q.z, [&](u32 j, float4 p, float d2) {
        if (j == me) return;
        idx[o] = origOf(p);
        if (d2s) d2s[o] = d2;
        o++;
    });
}

// Moment sums, in the CPU backend's form: float64 offsets p - q from the
// float32 coordinates, float64 sums. out holds 88 bytes per query in the
// layout of Go's findneighbor.Moment, so that the host copies them
// straight into the caller's slice: N (a uint32, then 4 zero bytes of
// padding), Sum x y z, Outer xx xy xz yy yz zz, and Dist, the sum of the
// distances (k nearest only; 0 for a radius), as doubles.
struct Acc {
    double n, s[3], o[6], d;
    __device__ void zero() {
        n = 0;
        d = 0;
        for (int a = 0; a < 3; a++) s[a] = 0;
        for (int a = 0; a < 6; a++) o[a] = 0;
    }
    __device__ void add(float4 p, float4 q) {
        double dx = __dsub_rn((double)p.x, (double)q.x);
        double dy = __dsub_rn((double)p.y, (double)q.y);
        double dz = __dsub_rn((double)p.z, (double)q.z);
        n += 1;
        s[0] = __dadd_rn(s[0], dx); s[1] = __dadd_rn(s[1], dy); s[2] = __dadd_rn(s[2], dz);
        o[0] = __dadd_rn(o[0], __dmul_rn(dx, dx)); o[1] = __dadd_rn(o[1], __dmul_rn(dx, dy));
        o[2] = __dadd_rn(o[2], __dmul_rn(dx, dz)); o[3] = __dadd_rn(o[3], __dmul_rn(dy, dy));
        o[4] = __dadd_rn(o[4], __dmul_rn(dy, dz)); o[5] = __dadd_rn(o[5], __dmul_rn(dz, dz));
    }
    __device__ void store(double* out) {
        ((u64*)out)[0] = (u64)(u32)n; // little-endian: N, then the padding
        for (int a = 0; a < 3; a++) out[1 + a] = s[a];
        for (int a = 0; a < 6; a++) out[4 + a] = o[a];
        out[10] = d;
    }
};

extern "C" __global__ void fn_moments(QUERY_ARGS, double* out) {
    QUERY_PROLOGUE
    Acc m;
    m.zero();
    forNeighbors(g, pos, start, ids, q.x, q.y, q.z, [&](u32 j, float4 p, float) {
        if (j != me) m.add(p, q);
    });
    m.store(out + 11 * slot);
}

// knn keeps the K best (distance², index) pairs, closest first, ties by the
// smaller index; then stores the first k's indices and distances, or
// (moments != null) the moment sums over them. For K <= 16 the buffer
// lives in registers: it starts full of empty pairs (+Inf, INT_MAX), which
// sort after every real one, and a pair better than the last slot passes
// down the unrolled slots, every one addressed by a constant index (a
// dynamic index puts an array in local memory). It then keeps the K best,
// of which the first k are the answer. Larger buffers insert by a
// shifting loop over the first k slots, in local memory.
template <int K>
__device__ void knn(QUERY_ARGS, int k, const u32* __restrict__ rank, int* idx, float* dist, double* moments) {
    QUERY_PROLOGUE
    float bd[K];
    int bi[K];
    int cnt = 0;
    if constexpr (K <= 16) {
#pragma unroll
        for (int r = 0; r < K; r++) {
            bd[r] = __int_as_float(0x7f800000);
            bi[r] = 0x7fffffff;
        }
        forNeighbors(g, pos, start, ids, q.x, q.y, q.z, [&](u32 j, float4 p, float d2) {
            if (j == me) return;
            int oi = origOf(p);
            if (!(d2 < bd[K - 1] || (d2 == bd[K - 1] && oi < bi[K - 1]))) return;
            cnt++;
            float cd = d2;
            int ci = oi;
#pragma unroll
            for (int r = 0; r < K; r++) {
                bool in = cd < bd[r] || (cd == bd[r] && ci < bi[r]);
                float td = bd[r];
                int ti = bi[r];
                bd[r] = in ? cd : td;
                bi[r] = in ? ci : ti;
                cd = in ? td : cd;
                ci = in ? ti : ci;
            }
        });
        cnt = min(cnt, k);
    } else {
        forNeighbors(g, pos, start, ids, q.x, q.y, q.z, [&](u32 j, float4 p, float d2) {
            if (j == me) return;
            int oi = origOf(p);
            if (cnt == k && !(d2 < bd[k - 1] || (d2 == bd[k - 1] && oi < bi[k - 1]))) return;
            int at = cnt < k ? cnt++ : k - 1;
            while (at > 0 && (bd[at - 1] > d2 || (bd[at - 1] == d2 && bi[at - 1] > oi))) {
                bd[at] = bd[at - 1];
                bi[at] = bi[at - 1];
                at--;
            }
            bd[at] = d2;
            bi[at] = oi;
        });
    }
    if (moments) {
        Acc m;
        m.zero();
#pragma unroll
        for (int r = 0; r < K; r++) {
            if (r < cnt) {
                m.add(pos[rank[bi[r]]], q);
                m.d = __dadd_rn(m.d, (double)__fsqrt_rn(bd[r]));
            }
        }
        m.store(moments + 11 * slot);
        return;
    }
#pragma unroll
    for (int r = 0; r < K; r++) {
        if (r < k) {
            bool ok = r < cnt;
            idx[slot * k + r] = ok ? bi[r] : -1;
            if (dist) dist[slot * k + r] = ok ? __fsqrt_rn(bd[r]) : __int_as_float(0x7f800000);
        }
    }
}

extern "C" __global__ void fn_knn8(QUERY_ARGS, int k, const u32* rank, int* idx, float* dist, double* m) {
    knn<8>(g, pos, start, ids, qs, nq, self, lo, hi, k, rank, idx, dist, m);
}
extern "C" __global__ void fn_knn16(QUERY_ARGS, int k, const u32* rank, int* idx, float* dist, double* m) {
    knn<16>(g, pos, start, ids, qs, nq, self, lo, hi, k, rank, idx, dist, m);
}
extern "C" __global__ void fn_knn64(QUERY_ARGS, int k, const u32* rank, int* idx, float* dist, double* m) {
    knn<64>(g, pos, start, ids, qs, nq, self, lo, hi, k, rank, idx, dist, m);
}
extern "C" __global__ void fn_knn128(QUERY_ARGS, int k, const u32* rank, int* idx, float* dist, double* m) {
    knn<128>(g, pos, start, ids, qs, nq, self, lo, hi, k, rank, idx, dist, m);
}

// ---------------------------------------------------------------- DBSCAN
// Union-find over sorted positions (neighbours are near in memory): parent
// pointers only ever go to smaller positions, so roots are minimal and
// concurrent links (atomicCAS on a root) cannot make cycles. Afterwards
// each component's label is the smallest original index of its cores.

// fn_cc_init maps isCore (original order) to sorted order and starts every
// core as its own root; non-cores get parent -1; minIdx gets INT_MAX.
extern "C" __global__ void fn_cc_init(const float4* __restrict__ pos, int n, const unsigned char* __restrict__ isCore,
                                      unsigned char* core, int* parent, int* minIdx) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n) return;
    unsigned char c = isCore[origOf(pos[s])] != 0;
    core[s] = c;
    parent[s] = c ? s : -1;
    minIdx[s] = 0x7fffffff;
}

// findRoot follows parent pointers to a root, shortening the path as it
// goes (intermediate pointer jumping, as in ECL-CC, Jaiganesh and
// Burtscher, HPDC 2018). Plain loads may see stale pointers; any pointer
// ever seen is still an ancestor, since trees only merge, and links are
// made by atomicCAS, whose result is always current.
__device__ __forceinline__ int findRoot(int* parent, int x) {
    int curr = parent[x];
    if (curr != x) {
        int prev = x, next;
        while (curr > (next = parent[curr])) {
            parent[prev] = next;
            prev = curr;
            curr = next;
        }
    }
    return curr;
}

// unite hangs the larger of the roots vs and os under the smaller by
// atomicCAS; a failed CAS continues from the pointer it returns (and
// updates vs, the caller's own root, when it was the stale one).
__device__ __forceinline__ void unite(int* parent, int& vs, int os) {
    while (vs != os) {
        if (vs < os) {
            int ret = atomicCAS(&parent[os], os, vs);
            if (ret == os) break;
            os = ret;
        } else {
            int ret = atomicCAS(&parent[vs], vs, os);
            if (ret == vs) break;
            vs = ret;
        }
    }
}

// cellsLinked reports whether the grid's cells are so small that any two
// points of one cell pass the eps test: cells of eps/2 (reach 2), whose
// diagonal is eps*sqrt(3)/2 (times 1 + 2^-16), against eps. Then all the
// core points of a cell are in one cluster, which DBSCAN's union stage
// uses as DenseBox does (Prokopenko et al., "Fast tree-based algorithms for
// DBSCAN for low-dimensional data on GPUs", ICPP 2023).
__device__ __forceinline__ bool cellsLinked(const Grid& g) { return !g.hashed && g.reach == 2; }

// fn_cc_link (grids with cellsLinked only) hangs every core point under
// the first core point of its cell, a root that fn_cc_init made.
extern "C" __global__ void fn_cc_link(Grid g, const float4* __restrict__ pos, const u32* __restrict__ start, int n,
                                      const unsigned char* __restrict__ core, int* parent) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n || !core[s]) return;
    u32 c = cellKey(g, pos[s]);
    for (u32 j = start[c]; j < (u32)s; j++) {
        if (core[j]) {
            parent[s] = (int)j;
            return;
        }
    }
}

// fn_cc_union: every core point unites with its core neighbours at smaller
// sorted positions (each edge once). The thread's own root is found once
// and kept, even when stale. On grids with cellsLinked, where fn_cc_link
// has joined each cell's cores, it skips its own cell and, in each other
// cell, unites with the first core within eps, or skips the cell as soon
// as its first core turns out to share the thread's root: one root lookup
// a cell instead of one a neighbour.
extern "C" __global__ void fn_cc_union(Grid g, const float4* __restrict__ pos, const u32* __restrict__ start,
                                       const u64* __restrict__ ids, int n, const unsigned char* __restrict__ core,
                                       int* parent) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n || !core[s]) return;
    float4 q = pos[s];
    int vs = findRoot(parent, s);
    if (!cellsLinked(g)) {
        forNeighbors(g, pos, start, ids, q.x, q.y, q.z, [&](u32 j, float4, float) {
            if (core[j]) unite(parent, vs, findRoot(parent, (int)j));
        }, (u32)s);
        return;
    }
    Reach r = reachOf(g, q.x, q.y, q.z);
    for (int z = r.z0; z <= r.z1; z++) {
        for (int y = r.y0; y <= r.y1; y++) {
            u32 row = ((u32)z * (u32)g.ny + (u32)y) * (u32)g.nx;
            for (int x = r.x0; x <= r.x1; x++) {
                if (x == r.cx && y == r.cy && z == r.cz) continue;
                u32 e = min(start[row + x + 1], (u32)s);
                int os = -1;
                for (u32 j = start[row + x]; j < e; j++) {
                    if (!core[j]) continue;
                    if (os < 0 && (os = findRoot(parent, (int)j)) == vs) break;
                    if (dist2(pos[j], q.x, q.y, q.z) <= g.eps2) {
                        unite(parent, vs, os);
                        break;
                    }
                }
            }
        }
    }
}

// fn_cc_flatten records every core's root in root and the root's smallest
// original index in minIdx. Roots are final here, so the path compression
// of findRoot, whose writes are always ancestors, cannot mislead another
// thread; root is written only by each point's own thread. A plain read
// skips the atomicMin when it cannot lower minIdx: in one large cluster
// every thread would otherwise queue on the same address (on the H200 that
// made this kernel as slow as the union, 2.9 ms on 4M uniform points).
extern "C" __global__ void fn_cc_flatten(const float4* __restrict__ pos, int n, int* parent, int* root, int* minIdx) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n || parent[s] < 0) return;
    int r = findRoot(parent, s);
    root[s] = r;
    int o = origOf(pos[s]);
    if (o < *(volatile int*)&minIdx[r]) atomicMin(&minIdx[r], o);
}

// fn_cc_label: cores take their component's label; other points the label
// of their nearest core neighbour (ties: smaller index), or -1.
extern "C" __global__ void fn_cc_label(Grid g, const float4* __restrict__ pos, const u32* __restrict__ start,
                                       const u64* __restrict__ ids, int n, const unsigned char* __restrict__ core,
                                       const int* __restrict__ root, const int* __restrict__ minIdx, int* label) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n) return;
    float4 q = pos[s];
    int oi = origOf(q);
    if (core[s]) {
        label[oi] = minIdx[root[s]];
        return;
    }
    float best = __int_as_float(0x7f800000);
    int bestIdx = 0x7fffffff, bestPos = -1;
    forNeighbors(g, pos, start, ids, q.x, q.y, q.z, [&](u32 j, float4 p, float d2) {
        if (!core[j]) return;
        int o = origOf(p);
        if (d2 < best || (d2 == best && o < bestIdx)) {
            best = d2;
            bestIdx = o;
            bestPos = (int)j;
        }
    });
    label[oi] = bestPos < 0 ? -1 : minIdx[root[bestPos]];
}
