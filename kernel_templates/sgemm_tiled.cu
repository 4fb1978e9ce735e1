// sgemm_tiled.cu — register-tiled FP32 GEMM, the kernel autogemm tunes.
//
// Computes, in autogemm's canonical form (row-major, 64-bit leading dims):
//     C[M x N] = alpha * op(A)[M x K] * op(B)[K x N] + beta * C
// op(A) = A (A is M x K, k contiguous)   when AG_TRANS_A == 0
//       = A^T (A is K x M, m contiguous) when AG_TRANS_A == 1
// op(B) = B (B is K x N, n contiguous)   when AG_TRANS_B == 0
//       = B^T (B is N x K, k contiguous) when AG_TRANS_B == 1
//
// Compiled by NVRTC at run time; every parameter arrives as a -D value that
// autogemm generates from a validated KernelConfig (never from file text).
//
// ---- Parameters ----------------------------------------------------------
// AG_BM, AG_BN   block tile of C computed by one thread block
// AG_BK          depth of the K slice staged in shared memory per step
// AG_TM, AG_TN   register tile of C computed by one thread
// AG_WC          threads of a warp laid along N (the warp is 32/AG_WC x AG_WC)
// AG_VEC         global access width in floats: 4 (16-byte, needs the aligned
//                problem class) or 1 (any pointer, any leading dimension)
// AG_SPLIT_K     number of K slices computed by different blocks (blockIdx.z);
//                > 1 reduces them deterministically through a workspace
//                (see the split-K block at the end of the kernel) (AG_BATCHED must be 0)
// AG_SPLIT_REDUCE  with split-K: 0 the last block of each tile reduces it
//                in-kernel (one launch); 1 agemm_splitk_reduce does it for
//                all tiles in a second launch, spread over the whole GPU
// AG_SWIZZLE     block raster: groups of AG_SWIZZLE tile-rows are walked
//                column by column so concurrently running blocks share
//                A and B tiles in L2
// AG_STAGES      global->shared pipeline: 0 register staging with two shared
//                buffers; 2..4 cp.async with that many shared buffers
// AG_MIN_BLOCKS  blocks per SM asked of the register allocator through
//                __launch_bounds__ (1: no cap; 2: caps registers so two
//                blocks fit, trading registers for latency hiding)
// AG_KUNROLL     k steps unrolled in the inner product: 0 all AG_BK of them;
//                fewer keeps the loop body (AG_TM*AG_TN FFMAs per step) small
//                enough for the instruction cache when tiles are large
// AG_BATCHED     1: blockIdx.z is the product of a strided batch (operands
//                moved by stride_a/b/c); 0: a single product (strides unused)
// AG_PROBE       0 (default). Not a family parameter: tools/kernel_probe
//                builds 1 (no FMAs), 2 (no split-K partial stores) or 3 (no
//                K loop at all) to time the stages apart; results are wrong
// AG_TRANS_A, AG_TRANS_B  operand layouts, see above
// ---------------------------------------------------------------------------

#ifndef AG_BM
#error "AG_BM must be defined"
#endif

#include "agemm_device.cuh"  // the shared device helpers (part of this template's hash)

#ifndef AG_STAGES
#define AG_STAGES 0
#endif
#ifndef AG_MIN_BLOCKS
#define AG_MIN_BLOCKS 1
#endif
#ifndef AG_KUNROLL
#define AG_KUNROLL 0
#endif
#ifndef AG_PROBE
#define AG_PROBE 0
#endif

#define AG_THREADS ((AG_BM / AG_TM) * (AG_BN / AG_TN))
// Shared buffers of each operand (KernelConfig::smem_bytes on the host).
#define AG_NBUF (AG_STAGES > 0 ? AG_STAGES : 2)

// Capacity of the split-K tile-counter area at the start of the workspace
// (KernelConfig::kSplitTiles on the host).
#define AG_SPLIT_TILES 65536

// Technique: shared-memory padding. Each shared row is padded by 4 floats:
// rows stay 16-byte aligned for vector accesses, and the transposing stores
// of a k-contiguous operand (consecutive threads writing consecutive m at two
// k rows) land in different banks.
#define AG_PAD 4
#define AG_LDS_A (AG_BM + AG_PAD)
#define AG_LDS_B (AG_BN + AG_PAD)

// Technique: fragments of 4 consecutive elements. A thread's TM rows are
// TM/4 groups of 4 rows strided by BM/(TM/4), so each fragment is one 16-byte
// shared load and the threads of a quarter-warp read either one address
// (broadcast) or 8 consecutive 16-byte words (conflict-free).
#define AG_QM (AG_TM < 4 ? AG_TM : 4)
#define AG_QN (AG_TN < 4 ? AG_TN : 4)
#define AG_SUB_M ((AG_BM / AG_TM) * AG_QM)
#define AG_SUB_N ((AG_BN / AG_TN) * AG_QN)


template <int V>
struct Vec;
template <>
struct Vec<1> {
  typedef float T;
};
template <>
struct Vec<2> {
  typedef float2 T;
};
template <>
struct Vec<4> {
  typedef float4 T;
};

// Moves one operand tile from global memory into registers, then into shared
// memory as [k][mn] (mn contiguous), the layout the inner product reads.
// The global tile is OUTER x INNER with INNER contiguous (stride ld between
// outer rows). TRANSPOSE says the inner global dimension is k, so the store
// transposes; otherwise the outer dimension is k and the store is a copy.
//
// Technique: register staging (double buffering through registers). The
// global loads of tile t+1 are issued before the FMAs of tile t and only
// stored to shared memory after them, so their latency hides behind math.
template <int OUTER, int INNER, int V, bool TRANSPOSE>
struct TileLoader {
  static const int VECS = OUTER * INNER / V;
  static const int LOADS = (VECS + AG_THREADS - 1) / AG_THREADS;
  float r[LOADS][V];

  __device__ __forceinline__ void load(const float* __restrict__ base, i64 ld, int outer_lim,
                                       int inner_lim, int tid) {
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
      const int v = tid + i * AG_THREADS;
      if (VECS % AG_THREADS == 0 || v < VECS) {
        const int o = v / (INNER / V);
        const int in = (v % (INNER / V)) * V;
        const float* p = base + (i64)o * ld + in;
        if (o < outer_lim && in + V <= inner_lim) {
          // Technique: 16-byte (or narrower) vector load, read-only path.
          typename Vec<V>::T x = __ldg(reinterpret_cast<const typename Vec<V>::T*>(p));
          const float* xs = reinterpret_cast<const float*>(&x);
#pragma unroll
          for (int j = 0; j < V; ++j) r[i][j] = xs[j];
        } else {
          // Edge tile: element-wise bounds, zero fill (adds nothing to C).
#pragma unroll
          for (int j = 0; j < V; ++j)
            r[i][j] = (o < outer_lim && in + j < inner_lim) ? __ldg(p + j) : 0.f;
        }
      }
    }
  }

  __device__ __forceinline__ void store(float* __restrict__ s, int lds, int tid) const {
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
      const int v = tid + i * AG_THREADS;
      if (VECS % AG_THREADS == 0 || v < VECS) {
        const int o = v / (INNER / V);
        const int in = (v % (INNER / V)) * V;
        if (TRANSPOSE) {
#pragma unroll
          for (int j = 0; j < V; ++j) s[(in + j) * lds + o] = r[i][j];
        } else {
          typename Vec<V>::T x;
          float* xs = reinterpret_cast<float*>(&x);
#pragma unroll
          for (int j = 0; j < V; ++j) xs[j] = r[i][j];
          *reinterpret_cast<typename Vec<V>::T*>(s + o * lds + in) = x;
        }
      }
    }
  }
};

// Technique: multi-stage cp.async pipeline (AG_STAGES >= 2). Copies go from
// global to shared memory without passing through registers, so no staging
// registers are held across the math and several K slices can be in flight.
// Same tile geometry and [k][mn] shared layout as TileLoader. Out-of-range
// elements are zero-filled by the copy itself (src-size 0; agemm_device.cuh).
template <int OUTER, int INNER, int V, bool TRANSPOSE>
struct AsyncTileLoader {
  // A transposing copy moves single floats (cp.async cannot scatter a
  // vector); consecutive threads take consecutive k of one row, which keeps
  // the global reads contiguous.
  enum { W = TRANSPOSE ? 1 : V };
  enum { VECS = OUTER * INNER / W };
  enum { LOADS = (VECS + AG_THREADS - 1) / AG_THREADS };

  __device__ __forceinline__ static void copy(float* __restrict__ s, int lds, const float* __restrict__ base,
                                              i64 ld, int outer_lim, int inner_lim, int tid) {
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
      const int v = tid + i * AG_THREADS;
      if (VECS % AG_THREADS == 0 || v < VECS) {
        const int o = v / (INNER / W);
        const int in = (v % (INNER / W)) * W;
        int valid = o < outer_lim ? inner_lim - in : 0;
        valid = valid < 0 ? 0 : (valid > W ? W : valid);
        // A fully out-of-range copy reads nothing; the base keeps the address legal.
        const float* src = valid > 0 ? base + (i64)o * ld + in : base;
        if (TRANSPOSE)
          cp_async4(s + in * lds + o, src, valid * 4);
        else if (W == 4)
          cp_async16(s + o * lds + in, src, valid * 4);
        else
          cp_async4(s + o * lds + in, src, valid * 4);
      }
    }
  }
};

// Technique: outer-product register tiling. Each k step loads TM + TN
// values from shared memory (quad fragments, see AG_QM) and does TM * TN
// FMAs with them.
__device__ __forceinline__ void multiply_tile(float (&acc)[AG_TM][AG_TN], const float* __restrict__ as,
                                              const float* __restrict__ bs, int tr, int tc) {
  // (#pragma unroll takes a constant expression, not a macro.)
  enum { kUnroll = AG_KUNROLL > 0 ? AG_KUNROLL : AG_BK };
#pragma unroll kUnroll
  for (int kk = 0; kk < AG_BK; ++kk) {
    float a[AG_TM], b[AG_TN];
#pragma unroll
    for (int i = 0; i < AG_TM / AG_QM; ++i) {
      typename Vec<AG_QM>::T x =
          *reinterpret_cast<const typename Vec<AG_QM>::T*>(as + kk * AG_LDS_A + i * AG_SUB_M + tr * AG_QM);
      const float* xs = reinterpret_cast<const float*>(&x);
#pragma unroll
      for (int q = 0; q < AG_QM; ++q) a[i * AG_QM + q] = xs[q];
    }
#pragma unroll
    for (int j = 0; j < AG_TN / AG_QN; ++j) {
      typename Vec<AG_QN>::T x =
          *reinterpret_cast<const typename Vec<AG_QN>::T*>(bs + kk * AG_LDS_B + j * AG_SUB_N + tc * AG_QN);
      const float* xs = reinterpret_cast<const float*>(&x);
#pragma unroll
      for (int q = 0; q < AG_QN; ++q) b[j * AG_QN + q] = xs[q];
    }
#pragma unroll
    for (int i = 0; i < AG_TM; ++i)
#pragma unroll
      for (int j = 0; j < AG_TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
}

extern "C" __global__ void __launch_bounds__(AG_THREADS, AG_MIN_BLOCKS)
    agemm_tiled(int M, int N, int K, float alpha, const float* __restrict__ A, i64 lda,
                const float* __restrict__ B, i64 ldb, float beta, float* __restrict__ C, i64 ldc,
                float* __restrict__ workspace, i64 stride_a, i64 stride_b, i64 stride_c) {
  extern __shared__ __align__(16) float smem[];
  float* As = smem;                               // [AG_NBUF][AG_BK][AG_LDS_A]
  float* Bs = smem + AG_NBUF * AG_BK * AG_LDS_A;  // [AG_NBUF][AG_BK][AG_LDS_B]

  begin_after_previous_kernel();
  const int tid = threadIdx.x;
  // Sizes up to 2^31 - 1: round up in 64 bits (M + AG_BM - 1 can wrap).
  const int tiles_m = (int)(((i64)M + AG_BM - 1) / AG_BM);
  const int tiles_n = (int)(((i64)N + AG_BN - 1) / AG_BN);
  int tile_m, tile_n;
  tile_of_block<AG_SWIZZLE>(blockIdx.x, tiles_m, tiles_n, &tile_m, &tile_n);
  const int m0 = tile_m * AG_BM;
  const int n0 = tile_n * AG_BN;

  // Technique: a strided batch rides on blockIdx.z (AG_BATCHED, never with
  // split-K): block z computes product z, its operands z strides further on,
  // and everything below is the plain product. A plain build has no trace of
  // it (the adds cost registers in the tightest tiles).
#if AG_BATCHED
  A += (i64)blockIdx.z * stride_a;
  B += (i64)blockIdx.z * stride_b;
  C += (i64)blockIdx.z * stride_c;
#endif
#if AG_SPLIT_K == 1
  const int k_slice = 0;
#else
  const int k_slice = blockIdx.z;
#endif

  // Technique: split-K. Block z owns a contiguous run of BK-deep slices.
  const int k_tiles_total = (int)(((i64)K + AG_BK - 1) / AG_BK);
  const int k_tiles_per = (k_tiles_total + AG_SPLIT_K - 1) / AG_SPLIT_K;
  const int k_begin = (int)min((i64)K, (i64)k_slice * k_tiles_per * AG_BK);
  const int k_end = (int)min((i64)K, (i64)k_begin + (i64)k_tiles_per * AG_BK);
  // alpha == 0 never reads A or B (reference-BLAS rule): no K steps at all.
  const int k_tiles =
      (AG_PROBE != 3 && alpha != 0.f && k_end > k_begin) ? (k_end - k_begin + AG_BK - 1) / AG_BK : 0;

  // Thread placement inside the block: a warp is a (32/WC) x WC patch of
  // threads, which keeps its shared-memory fragment reads broadcast-friendly.
  const int warp = tid / 32, lane = tid % 32;
  const int warps_n = (AG_BN / AG_TN) / AG_WC;
  const int tr = (warp / warps_n) * (32 / AG_WC) + lane / AG_WC;
  const int tc = (warp % warps_n) * AG_WC + lane % AG_WC;

  // Tile shapes of the two operands (outer x inner, inner contiguous in
  // global memory; transposing when the inner dimension is k).
#if AG_TRANS_A
#define AG_A_TILE AG_BK, AG_BM, (AG_VEC <= AG_BM ? AG_VEC : 1), false
  const float* a_base = A + (i64)k_begin * lda + m0;
  const i64 a_step = (i64)AG_BK * lda;
#else
#define AG_A_TILE AG_BM, AG_BK, (AG_VEC <= AG_BK ? AG_VEC : 1), true
  const float* a_base = A + (i64)m0 * lda + k_begin;
  const i64 a_step = AG_BK;
#endif
#if AG_TRANS_B
#define AG_B_TILE AG_BN, AG_BK, (AG_VEC <= AG_BK ? AG_VEC : 1), true
  const float* b_base = B + (i64)n0 * ldb + k_begin;
  const i64 b_step = AG_BK;
#else
#define AG_B_TILE AG_BK, AG_BN, (AG_VEC <= AG_BN ? AG_VEC : 1), false
  const float* b_base = B + (i64)k_begin * ldb + n0;
  const i64 b_step = (i64)AG_BK * ldb;
#endif
  // Bounds of the K slice kt as (outer, inner) limits of each operand.
#define AG_K_LIM(kt) (k_end - (k_begin + (kt) * AG_BK))
#if AG_TRANS_A
#define AG_A_LIMS(kt) AG_K_LIM(kt), m_lim
#else
#define AG_A_LIMS(kt) m_lim, AG_K_LIM(kt)
#endif
#if AG_TRANS_B
#define AG_B_LIMS(kt) n_lim, AG_K_LIM(kt)
#else
#define AG_B_LIMS(kt) AG_K_LIM(kt), n_lim
#endif

  const int m_lim = M - m0, n_lim = N - n0;
  float acc[AG_TM][AG_TN];
#pragma unroll
  for (int i = 0; i < AG_TM; ++i)
#pragma unroll
    for (int j = 0; j < AG_TN; ++j) acc[i][j] = 0.f;

#if AG_STAGES == 0
  TileLoader<AG_A_TILE> la;
  TileLoader<AG_B_TILE> lb;
  // Loads the K slice kt (counted from k_begin) into registers.
  auto load_tile = [&](int kt) {
    la.load(a_base + kt * a_step, lda, AG_A_LIMS(kt), tid);
    lb.load(b_base + kt * b_step, ldb, AG_B_LIMS(kt), tid);
  };

  if (k_tiles > 0) {
    load_tile(0);
    la.store(As, AG_LDS_A, tid);
    lb.store(Bs, AG_LDS_B, tid);
    __syncthreads();
  }

  for (int kt = 0; kt < k_tiles; ++kt) {
    const int cur = kt & 1;
    const bool has_next = kt + 1 < k_tiles;
    if (has_next) load_tile(kt + 1);

    if (AG_PROBE != 1) multiply_tile(acc, As + cur * AG_BK * AG_LDS_A, Bs + cur * AG_BK * AG_LDS_B, tr, tc);

    if (has_next) {
      // The other buffer was last read in iteration kt-1, and every thread
      // has passed that iteration's barrier, so it is free to overwrite.
      la.store(As + (cur ^ 1) * AG_BK * AG_LDS_A, AG_LDS_A, tid);
      lb.store(Bs + (cur ^ 1) * AG_BK * AG_LDS_B, AG_LDS_B, tid);
      __syncthreads();
    }
  }
#else
  // Issues the copies of K slice kt into shared buffer buf (one commit group).
  auto issue = [&](int kt, int buf) {
    if (kt < k_tiles) {
      AsyncTileLoader<AG_A_TILE>::copy(As + buf * AG_BK * AG_LDS_A, AG_LDS_A, a_base + kt * a_step, lda,
                                       AG_A_LIMS(kt), tid);
      AsyncTileLoader<AG_B_TILE>::copy(Bs + buf * AG_BK * AG_LDS_B, AG_LDS_B, b_base + kt * b_step, ldb,
                                       AG_B_LIMS(kt), tid);
    }
    cp_async_commit();  // empty groups too: the wait count below stays exact
  };
#pragma unroll
  for (int s = 0; s < AG_STAGES - 1; ++s) issue(s, s);
  int buf = 0;  // buffer holding slice kt
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<AG_STAGES - 2>();  // this thread's copies of slice kt landed
    // Everyone's copies landed, and everyone finished slice kt-1, whose
    // buffer is the one refilled next.
    __syncthreads();
    const int refill = buf == 0 ? AG_STAGES - 1 : buf - 1;
    issue(kt + AG_STAGES - 1, refill);
    if (AG_PROBE != 1) multiply_tile(acc, As + buf * AG_BK * AG_LDS_A, Bs + buf * AG_BK * AG_LDS_B, tr, tc);
    buf = buf + 1 == AG_STAGES ? 0 : buf + 1;
  }
  cp_async_wait<0>();
#endif

#if AG_SPLIT_K > 1
  // Technique: single-pass deterministic split-K ("the last block reduces").
  // Each K slice stores its partial tile in the workspace; the block that
  // finishes last for this tile (counted with an atomic) adds the partials
  // in slice order 0..AG_SPLIT_K-1, the same order whichever block arrives
  // last, so results are bitwise reproducible; it alone writes C, once.
  // Workspace: AG_SPLIT_TILES tile counters (zero-filled when allocated; the
  // last block resets its counter, so they are zero after every launch, for
  // any problem), then AG_SPLIT_K * M * N floats of partial tiles. Counters
  // and partials never overlap, whatever problem used the workspace before.
  {
    __shared__ int is_last;
    const i64 slice = (i64)M * N;
    unsigned* counters = reinterpret_cast<unsigned*>(workspace);
    workspace += AG_SPLIT_TILES;
#pragma unroll
    for (int i = 0; i < AG_TM; ++i) {
      const i64 m = (i64)m0 + (i / AG_QM) * AG_SUB_M + tr * AG_QM + i % AG_QM;
#pragma unroll
      for (int j = 0; j < AG_TN; ++j) {
        const i64 n = (i64)n0 + (j / AG_QN) * AG_SUB_N + tc * AG_QN + j % AG_QN;
        if (AG_PROBE != 2 && m < M && n < N) workspace[blockIdx.z * slice + (i64)m * N + n] = acc[i][j];
      }
    }
#if AG_SPLIT_REDUCE
    return;  // agemm_splitk_reduce folds the slices in a second launch
#endif
    __threadfence();  // partials visible device-wide before the count
    __syncthreads();
    const int tile = tile_m * tiles_n + tile_n;
    if (tid == 0) is_last = atomicAdd(&counters[tile], 1u) == AG_SPLIT_K - 1;
    __syncthreads();
    if (!is_last) return;
    __threadfence();
    // Slice-major loop: each step issues TM*TN independent L2 loads (__ldcg:
    // other blocks wrote them) and adds them, so the loads overlap; the sum
    // of every element still runs over z = 0, 1, ... in order. The loop
    // itself is not unrolled: AG_SPLIT_K reaches 256.
#pragma unroll
    for (int i = 0; i < AG_TM; ++i)
#pragma unroll
      for (int j = 0; j < AG_TN; ++j) acc[i][j] = 0.f;
#pragma unroll 1
    for (int z = 0; z < AG_SPLIT_K; ++z) {
      const float* part = workspace + z * slice;
#pragma unroll
      for (int i = 0; i < AG_TM; ++i) {
        const i64 m = (i64)m0 + (i / AG_QM) * AG_SUB_M + tr * AG_QM + i % AG_QM;
#pragma unroll
        for (int j = 0; j < AG_TN; ++j) {
          const i64 n = (i64)n0 + (j / AG_QN) * AG_SUB_N + tc * AG_QN + j % AG_QN;
          if (m < M && n < N) acc[i][j] += __ldcg(part + (i64)m * N + n);
        }
      }
    }
    if (tid == 0) counters[tile] = 0u;
  }
#endif

  // ---- Epilogue: C = alpha * acc + beta * C ----
#pragma unroll
  for (int i = 0; i < AG_TM / AG_QM; ++i) {
#pragma unroll
    for (int q = 0; q < AG_QM; ++q) {
      // 64-bit row and column: m0 + offset passes 2^31 in the last tile of M near 2^31.
      const i64 m = (i64)m0 + i * AG_SUB_M + tr * AG_QM + q;
      if (m >= M) continue;
#pragma unroll
      for (int j = 0; j < AG_TN / AG_QN; ++j) {
        const i64 n = (i64)n0 + j * AG_SUB_N + tc * AG_QN;
        const float* v = &acc[i * AG_QM + q][j * AG_QN];
        float* c = C + (i64)m * ldc + n;
        if (AG_VEC == 4 && AG_QN == 4 && n + 3 < N) {
          // Technique: 16-byte stores of C (aligned class only).
          float4 out = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
          if (beta != 0.f) {  // beta == 0 never reads C: NaN there must not leak
            const float4 old = *reinterpret_cast<const float4*>(c);
            out.x = fmaf(beta, old.x, out.x);
            out.y = fmaf(beta, old.y, out.y);
            out.z = fmaf(beta, old.z, out.z);
            out.w = fmaf(beta, old.w, out.w);
          }
          *reinterpret_cast<float4*>(c) = out;
        } else {
#pragma unroll
          for (int e = 0; e < AG_QN; ++e) {
            if (n + e < N) c[e] = beta != 0.f ? fmaf(beta, c[e], alpha * v[e]) : alpha * v[e];
          }
        }
      }
    }
  }
}

// Technique: split-K reduction as its own launch (AG_SPLIT_REDUCE == 1).
// Every thread folds whole elements over the slices in order z = 0, 1, ...
// (deterministic), and the work spreads over all SMs instead of one block
// per tile. Partials start after the tile-counter area, as above.
extern "C" __global__ void agemm_splitk_reduce(int M, int N, float alpha,
                                               const float* __restrict__ workspace, float beta,
                                               float* __restrict__ C, i64 ldc) {
  wait_for_main_kernel();
  const float* part = workspace + AG_SPLIT_TILES;
  const i64 total = (i64)M * N;
  for (i64 idx = blockIdx.x * (i64)blockDim.x + threadIdx.x; idx < total;
       idx += (i64)gridDim.x * blockDim.x) {
    float s = 0.f;
    // Up to 16 slices' loads in flight before the first add (the adds
    // still run z = 0, 1, ... in order): one L2 round trip, not four.
#pragma unroll 16
    for (int z = 0; z < AG_SPLIT_K; ++z) s += __ldcg(part + z * total + idx);
    float* c = C + (idx / N) * ldc + idx % N;
    *c = beta != 0.f ? fmaf(beta, *c, alpha * s) : alpha * s;  // beta == 0 never reads C
  }
}
