// sgemm_tf32x3.cu — FP32-accurate GEMM on tensor cores ("3xTF32"), mma.sync.
//
// Computes, in autogemm's canonical form (row-major, 64-bit leading dims):
//     C[M x N] = alpha * op(A)[M x K] * op(B)[K x N] + beta * C
// op(A) = A (A is M x K, k contiguous)   when AG_TRANS_A == 0
//       = A^T (A is K x M, m contiguous) when AG_TRANS_A == 1
// op(B) = B (B is K x N, n contiguous)   when AG_TRANS_B == 0
//       = B^T (B is N x K, k contiguous) when AG_TRANS_B == 1
//
// Every FP32 operand x is split into two TF32 values, big = tf32(x) and
// small = tf32(x - big), and each product is big*big + big*small + small*big
// (small*small, ~2^-22 relative, is dropped), computed by
// mma.sync.m16n8k8.tf32 with FP32 accumulation. Needs sm_80 or newer.
//
// Compiled by NVRTC at run time; every parameter arrives as a -D value that
// autogemm generates from a validated KernelConfig (never from file text).
//
// ---- Parameters ----------------------------------------------------------
// AG_BM, AG_BN   block tile of C (64, 128 or 256)
// AG_BK          depth of the K slice per pipeline stage (16 or 32)
// AG_WM, AG_WN   warp tile of C (32 or 64); the block has
//                (AG_BM/AG_WM) x (AG_BN/AG_WN) warps
// AG_STAGES      cp.async pipeline depth: 2..4 shared buffers per operand
// AG_VEC         4: 16-byte copies of a k-contiguous operand (needs the
//                aligned problem class) and 8-byte stores of C; 1: 4-byte
//                copies and scalar stores (any pointer, any leading dimension)
// AG_DRAIN       0: every product accumulates in the MMA accumulators; d > 0:
//                d K slices accumulate into zeroed partial accumulators, which
//                are then added into FP32 totals (see "accumulator drain")
// AG_SWIZZLE     block raster: groups of AG_SWIZZLE tile-rows are walked
//                column by column so concurrently running blocks share tiles
// AG_TF32_PASSES 3 (default): 3xTF32; 1: big*big only (plain TF32). Not a
//                family parameter: a test builds 1 to prove that the verifier
//                rejects plain TF32 output.
// AG_TRANS_A, AG_TRANS_B  operand layouts, see above
// No split-K: one block computes all of K for its tile; `workspace` is unused.
// ---------------------------------------------------------------------------

#ifndef AG_BM
#error "AG_BM must be defined"
#endif
#ifndef AG_TF32_PASSES
#define AG_TF32_PASSES 3
#endif

#define AG_WARPS_N (AG_BN / AG_WN)
#define AG_THREADS ((AG_BM / AG_WM) * AG_WARPS_N * 32)
#define AG_MI (AG_WM / 16)  // m16 MMA tiles per warp
#define AG_NI (AG_WN / 8)   // n8 MMA tiles per warp

// Technique: k-contiguous shared tiles As[BM][BK+4], Bs[BN][BK+4], so both
// operands' fragments are read the same way. Why +4: a fragment load has lane
// (g = lane>>2, t = lane&3) read word g*LDS + t (+ a warp-uniform offset).
// LDS = 20 (BK 16): g*20 mod 32 = 0,20,8,28,16,4,24,12; LDS = 36 (BK 32):
// g*36 mod 32 = 0,4,...,28. Either way the 8 rows start on distinct multiples
// of 4 and t adds 0..3: 32 distinct banks, no conflict. Rows stay 16-byte
// aligned (80 or 144 bytes) for the 16-byte copies.
#define AG_LDS (AG_BK + 4)
#define AG_STAGE_A (AG_BM * AG_LDS)
#define AG_STAGE_B (AG_BN * AG_LDS)

static_assert(AG_BK == 16 || AG_BK == 32, "AG_BK must be 16 or 32");
static_assert(AG_BM % AG_WM == 0 && AG_BN % AG_WN == 0, "warp tiles must tile the block");
static_assert(AG_WM % 16 == 0 && AG_WN % 8 == 0, "warp tiles are made of m16n8 MMAs");
static_assert(AG_THREADS >= 64 && AG_THREADS <= 512, "64..512 threads per block");
static_assert(AG_STAGES >= 2 && AG_STAGES <= 4, "2..4 stages");
static_assert(AG_TF32_PASSES == 1 || AG_TF32_PASSES == 3, "AG_TF32_PASSES must be 1 or 3");

#include "agemm_device.cuh"  // the shared device helpers (part of this template's hash)

// Copies one ROWS x BK operand tile (rows are m of A or n of B) into the
// k-contiguous shared tile s[ROWS][AG_LDS]. `g` points at (row 0, k 0) of the
// tile in global memory; KCONTIG says k is the contiguous global dimension
// (element (r, k) at g[r*ld + k]), otherwise rows are (g[k*ld + r]).
// row_lim / k_lim: rows and k left in the problem from the tile's origin.
template <int ROWS, bool KCONTIG>
__device__ __forceinline__ void load_tile(float* __restrict__ s, const float* __restrict__ g, i64 ld, int row_lim,
                                          int k_lim, const float* safe, int tid) {
  if (KCONTIG && AG_VEC == 4) {
    // Technique: 16-byte cp.async.cg (L2 only: each element is read once per
    // block) of 4 consecutive k. Aligned class: A, B 16-byte aligned and
    // ld % 4 == 0, so every chunk (k a multiple of 4) is 16-byte aligned.
    enum { CPR = AG_BK / 4, CHUNKS = ROWS * CPR, LOADS = (CHUNKS + AG_THREADS - 1) / AG_THREADS };
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
      const int c = tid + i * AG_THREADS;
      if (CHUNKS % AG_THREADS == 0 || c < CHUNKS) {
        int row, k4;
        if (AG_BK == 32) {
          row = c >> 3, k4 = c & 7;  // a quarter-warp writes one whole row: 32 banks
        } else {
          // Technique: row interleave for BK 16. A 16-byte store is served per
          // quarter-warp (8 lanes); rows r and r+1 would overlap in 4 banks
          // (20 mod 32), so its two halves take rows r and r+4 (80 = 16 mod 32
          // words apart): 2 x 16 distinct banks. (c>>3 is uniform in the quarter.)
          const int j = c >> 3;
          k4 = c & 3;
          row = (j & 3) | (((c >> 2) & 1) << 2) | ((j >> 2) << 3);
        }
        int valid = row < row_lim ? k_lim - 4 * k4 : 0;
        valid = valid < 0 ? 0 : (valid > 4 ? 4 : valid);
        const float* src = valid > 0 ? g + (i64)row * ld + 4 * k4 : safe;
        cp_async16(s + row * AG_LDS + 4 * k4, src, valid * 4);
      }
    }
  } else {
    // Technique: 4-byte cp.async scattering into the k-contiguous layout (a
    // vector copy cannot transpose). A warp takes 8 rows x 4 k: its shared
    // writes hit words r*LDS + k, the conflict-free pattern of the fragment
    // loads above; for an mn-contiguous operand its global reads are 4 full
    // 32-byte sectors (8 consecutive rows at each of 4 k).
    // Technique: partial unrolling (4) of the copy loop. Fully unrolled, ptxas
    // keeps every copy's 64-bit address live across the main loop: measured
    // +65 registers for 16 copies a thread (128x128, bk 32, 256 threads).
    enum { ELEMS = ROWS * AG_BK, LOADS = (ELEMS + AG_THREADS - 1) / AG_THREADS };
#pragma unroll 4
    for (int i = 0; i < LOADS; ++i) {
      const int e = tid + i * AG_THREADS;
      if (ELEMS % AG_THREADS == 0 || e < ELEMS) {
        const int w = e >> 5;  // uniform in a warp: AG_THREADS is a multiple of 32
        const int row = (w % (ROWS / 8)) * 8 + (e & 7);
        const int k = (w / (ROWS / 8)) * 4 + ((e >> 3) & 3);
        const bool valid = row < row_lim && k < k_lim;
        const float* src = valid ? g + (KCONTIG ? (i64)row * ld + k : (i64)k * ld + row) : safe;
        cp_async4(s + row * AG_LDS + k, src, valid ? 4 : 0);
      }
    }
  }
}

// ---- the 3xTF32 split ------------------------------------------------------
__device__ __forceinline__ unsigned tf32_rna(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

// One operand element as MMA inputs: big (for big*big), big_x (for the cross
// products) and small.
// Technique: no overflow from rounding. tf32(x) rounds x near FLT_MAX up to
// Inf; there big is x truncated to TF32 instead, and small the remainder
// truncated too: rounded, it can round up so that big + small = 2^128 (found
// by the host emulation at x = 0x7f7ffffe). Truncated, |big + small| <= |x|.
// Technique: special values as FP32 gives them. For Inf/NaN x, small = 0
// (x - big would be Inf - Inf = NaN) and big_x = 0: a cross product pairs one
// operand's small with the other's big, and small is 0 for any TF32-exact
// finite value, so an Inf big there would give 0 * Inf = NaN where FP32 gives
// +-Inf. Only big*big carries Inf/NaN, which is exactly FP32's x*y.
__device__ __forceinline__ void split(float x, unsigned& big, unsigned& big_x, unsigned& small) {
  const unsigned bits = __float_as_uint(x);
  const bool finite = (bits & 0x7f800000u) != 0x7f800000u;
  unsigned b = tf32_rna(x);
  const bool chop = finite && (b & 0x7fffffffu) == 0x7f800000u;
  if (chop) b = bits & 0xffffe000u;
  big = b;
#if AG_TF32_PASSES == 3
  big_x = finite ? b : 0u;
  // Exact in FP32: |x - big| is below one TF32 ulp of x, a multiple of x's ulp.
  const float rest = x - __uint_as_float(b);
  small = !finite ? 0u : chop ? __float_as_uint(rest) & 0xffffe000u : tf32_rna(rest);
#else
  big_x = small = 0u;  // unused
#endif
}

__device__ __forceinline__ void mma_tf32(float (&d)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3,
                                         unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// Multiplies one K slice (AG_BK deep) of the warp tile into acc.
// Fragments (PTX ISA, mma.m16n8k8 .tf32; g = lane>>2, t = lane&3):
//   A (16x8, row): a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
//   B (8x8, col):  b0 (k t, n g), b1 (k t+4, n g)
//   C (16x8):      c0 (g, 2t), c1 (g, 2t+1), c2 (g+8, 2t), c3 (g+8, 2t+1)
// Technique: split in registers after the shared load. Each element is split
// once per warp that reads it, into 3 pieces: a k8 step holds 6*AG_NI (B) +
// 12*AG_MI (A) fragment registers (ptxas hoists all of A's m tiles; measured).
// Technique: the k8 steps of a slice are a loop, not unrolled: unrolled,
// ptxas hoists the fragments of every step and spills (measured: 255
// registers and 436 bytes of spills at 64x32 warp tiles, 164 and none rolled).
__device__ __forceinline__ void multiply_slice(float (&acc)[AG_MI][AG_NI][4], const float* __restrict__ as,
                                               const float* __restrict__ bs, int g, int t) {
#pragma unroll 1
  for (int kk = 0; kk < AG_BK; kk += 8) {
    unsigned bb[AG_NI][2], bx[AG_NI][2], bsm[AG_NI][2];
#pragma unroll
    for (int ni = 0; ni < AG_NI; ++ni) {
      const float* p = bs + (ni * 8 + g) * AG_LDS + kk + t;
      split(p[0], bb[ni][0], bx[ni][0], bsm[ni][0]);
      split(p[4], bb[ni][1], bx[ni][1], bsm[ni][1]);
    }
#pragma unroll
    for (int mi = 0; mi < AG_MI; ++mi) {
      const float* p = as + (mi * 16 + g) * AG_LDS + kk + t;
      unsigned ab[4], ax[4], asm_[4];
      split(p[0], ab[0], ax[0], asm_[0]);
      split(p[8 * AG_LDS], ab[1], ax[1], asm_[1]);
      split(p[4], ab[2], ax[2], asm_[2]);
      split(p[8 * AG_LDS + 4], ab[3], ax[3], asm_[3]);
#pragma unroll
      for (int ni = 0; ni < AG_NI; ++ni) {
        // Technique: small products first (the cross terms, ~2^-11 of the big
        // product each, then big*big), the order CUTLASS's 3xTF32 uses; what
        // it buys on the H200 is not measured yet.
#if AG_TF32_PASSES == 3
        mma_tf32(acc[mi][ni], asm_[0], asm_[1], asm_[2], asm_[3], bx[ni][0], bx[ni][1]);
        mma_tf32(acc[mi][ni], ax[0], ax[1], ax[2], ax[3], bsm[ni][0], bsm[ni][1]);
#endif
        mma_tf32(acc[mi][ni], ab[0], ab[1], ab[2], ab[3], bb[ni][0], bb[ni][1]);
      }
    }
  }
}

extern "C" __global__ void __launch_bounds__(AG_THREADS, 1)
    agemm_tf32x3(int M, int N, int K, float alpha, const float* __restrict__ A, i64 lda,
                 const float* __restrict__ B, i64 ldb, float beta, float* __restrict__ C, i64 ldc,
                 float* __restrict__ workspace) {
  (void)workspace;  // no split-K in this family
  extern __shared__ __align__(16) float smem[];
  float* As = smem;                            // [AG_STAGES][AG_BM][AG_LDS]
  float* Bs = smem + AG_STAGES * AG_STAGE_A;   // [AG_STAGES][AG_BN][AG_LDS]

  const int tid = threadIdx.x;
  const int tiles_m = (int)(((i64)M + AG_BM - 1) / AG_BM);
  const int tiles_n = (int)(((i64)N + AG_BN - 1) / AG_BN);
  int tile_m, tile_n;
  tile_of_block<AG_SWIZZLE>(blockIdx.x, tiles_m, tiles_n, &tile_m, &tile_n);
  const int m0 = tile_m * AG_BM, n0 = tile_n * AG_BN;
  // alpha == 0 never reads A or B (reference-BLAS rule): no K slices at all.
  const int k_tiles = alpha != 0.f ? (int)(((i64)K + AG_BK - 1) / AG_BK) : 0;

  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int wm0 = (warp / AG_WARPS_N) * AG_WM, wn0 = (warp % AG_WARPS_N) * AG_WN;

  // Global origin of the block's tile and the step to the next K slice.
#if AG_TRANS_A
  const float* a_base = A + m0;  // A is K x M: element (m, k) at A[k*lda + m]
  const i64 a_step = (i64)AG_BK * lda;
#else
  const float* a_base = A + (i64)m0 * lda;
  const i64 a_step = AG_BK;
#endif
#if AG_TRANS_B
  const float* b_base = B + (i64)n0 * ldb;  // B is N x K: element (k, n) at B[n*ldb + k]
  const i64 b_step = AG_BK;
#else
  const float* b_base = B + n0;
  const i64 b_step = (i64)AG_BK * ldb;
#endif

  // Issues the copies of K slice kt into stage buffer buf (one commit group).
  auto issue = [&](int kt, int buf) {
    if (kt < k_tiles) {
      const int k_lim = K - kt * AG_BK;
      load_tile<AG_BM, !AG_TRANS_A>(As + buf * AG_STAGE_A, a_base + kt * a_step, lda, M - m0, k_lim, A, tid);
      load_tile<AG_BN, (bool)AG_TRANS_B>(Bs + buf * AG_STAGE_B, b_base + kt * b_step, ldb, N - n0, k_lim, B, tid);
    }
    cp_async_commit();  // empty groups too: the wait count below stays exact
  };

  float acc[AG_MI][AG_NI][4];
#pragma unroll
  for (int mi = 0; mi < AG_MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < AG_NI; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.f;
#if AG_DRAIN > 0
  // Technique: accumulator drain. The issue-9 measurements show long in-MMA
  // accumulation chains losing bits (3xTF32 error 2.5e-7 at K = 64 vs 9.6e-6 at
  // 4096); every AG_DRAIN slices the MMA accumulators are added into FP32
  // totals with IEEE adds and restarted from zero. Costs 4*AG_MI*AG_NI more
  // registers per thread.
  float tot[AG_MI][AG_NI][4];
#pragma unroll
  for (int mi = 0; mi < AG_MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < AG_NI; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) tot[mi][ni][e] = 0.f;
  int since_drain = 0;
#define AG_RESULT tot
#else
#define AG_RESULT acc
#endif

  // Technique: multi-stage cp.async pipeline. AG_STAGES-1 slices are in
  // flight while one is multiplied; copies bypass registers.
#pragma unroll
  for (int s = 0; s < AG_STAGES - 1; ++s) issue(s, s);
  int buf = 0;  // buffer holding slice kt
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<AG_STAGES - 2>();  // this thread's copies of slice kt landed
    // Everyone's copies landed, and everyone finished slice kt-1, whose
    // buffer is the one refilled next.
    __syncthreads();
    issue(kt + AG_STAGES - 1, buf == 0 ? AG_STAGES - 1 : buf - 1);
    multiply_slice(acc, As + buf * AG_STAGE_A + wm0 * AG_LDS, Bs + buf * AG_STAGE_B + wn0 * AG_LDS, g, t);
    buf = buf + 1 == AG_STAGES ? 0 : buf + 1;
#if AG_DRAIN > 0
    if (++since_drain == AG_DRAIN || kt + 1 == k_tiles) {
      since_drain = 0;
#pragma unroll
      for (int mi = 0; mi < AG_MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < AG_NI; ++ni)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            tot[mi][ni][e] += acc[mi][ni][e];
            acc[mi][ni][e] = 0.f;
          }
    }
#endif
  }
  cp_async_wait<0>();  // (only empty groups can be pending here)

  // ---- Epilogue: C = alpha * acc + beta * C, thread (g, t) holds rows g and
  // g+8, columns 2t and 2t+1 of each m16n8 tile ----
#pragma unroll
  for (int mi = 0; mi < AG_MI; ++mi) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // 64-bit row and column: m0 + offset passes 2^31 in the last tile near 2^31.
      const i64 m = (i64)m0 + wm0 + mi * 16 + h * 8 + g;
      if (m >= M) continue;
#pragma unroll
      for (int ni = 0; ni < AG_NI; ++ni) {
        const i64 n = (i64)n0 + wn0 + ni * 8 + 2 * t;
        const float v0 = alpha * AG_RESULT[mi][ni][2 * h], v1 = alpha * AG_RESULT[mi][ni][2 * h + 1];
        float* c = C + m * ldc + n;
        if (AG_VEC == 4 && n + 1 < N) {
          // Technique: 8-byte stores of C (aligned class: C 16-byte aligned,
          // ldc % 4 == 0 and n even, so c is 8-byte aligned).
          float2 out = make_float2(v0, v1);
          if (beta != 0.f) {  // beta == 0 never reads C: NaN there must not leak
            const float2 old = *reinterpret_cast<const float2*>(c);
            out.x = fmaf(beta, old.x, v0);
            out.y = fmaf(beta, old.y, v1);
          }
          *reinterpret_cast<float2*>(c) = out;
        } else {
          if (n < N) c[0] = beta != 0.f ? fmaf(beta, c[0], v0) : v0;
          if (n + 1 < N) c[1] = beta != 0.f ? fmaf(beta, c[1], v1) : v1;
        }
      }
    }
  }
#undef AG_RESULT
}
