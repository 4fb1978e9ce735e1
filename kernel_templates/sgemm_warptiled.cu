// sgemm_warptiled.cu — warp-tiled FP32 GEMM on a multi-stage cp.async pipeline.
//
// Computes, in autogemm's canonical form (row-major, 64-bit leading dims):
//     C[M x N] = alpha * op(A)[M x K] * op(B)[K x N] + beta * C
// op(A) = A (A is M x K, k contiguous)   when AG_TRANS_A == 0
//       = A^T (A is K x M, m contiguous) when AG_TRANS_A == 1
// op(B) = B (B is K x N, n contiguous)   when AG_TRANS_B == 0
//       = B^T (B is N x K, k contiguous) when AG_TRANS_B == 1
//
// The shape of the fastest FFMA kernels on Hopper (e.g. a 256x128x8 block of
// 4x2 warps, each warp 64x64, each thread 16x8, three stages): every
// instruction the main loop spends on anything but an FFMA is budgeted, so
// that FFMAs are ~90% of what issues. Compiled by NVRTC at run time; every
// parameter arrives as a -D value that autogemm generates from a validated
// KernelConfig (never from file text).
//
// ---- Parameters ----------------------------------------------------------
// AG_BM, AG_BN   block tile of C computed by one thread block
// AG_BK          K depth of one pipeline stage (8, 16 or 32)
// AG_WM, AG_WN   warp tile; the block is (AG_BM/AG_WM) x (AG_BN/AG_WN) warps
// AG_LN          lanes of a warp laid along N (32/AG_LN along M): a thread
//                owns TM = AG_WM*AG_LN/32 rows by TN = AG_WN/AG_LN columns
// AG_STAGES      shared-memory stages of the cp.async pipeline (2..4)
// AG_VEC         copy width, in floats, of the operand whose rows run along m
//                or n: 4 (16-byte copies, aligned problem class) or 1 (any
//                pointer, any leading dimension). The operand whose rows run
//                along k is copied one float at a time in either case; a
//                staged operand (AG_STAGE_A, AG_STAGE_B) 16 bytes at a time.
// AG_SPLIT_K     K slices computed by different blocks (blockIdx.z); > 1
//                stores partial tiles in a workspace that agemm_warptiled_reduce
//                folds into C in a second launch (AG_BATCHED must be 0)
// AG_SWIZZLE     block raster: groups of AG_SWIZZLE tile-rows are walked
//                column by column so concurrently running blocks share
//                A and B tiles in L2
// AG_BATCHED     1: blockIdx.z is the product of a strided batch (operands
//                moved by stride_a/b/c); 0: a single product (strides unused)
// AG_PEEL        1: the module also holds agemm_warptiled_peel1..8, which the
//                host runs on the last 8 or fewer rows or columns of C when
//                a side is just past a multiple of the tile (see there)
// AG_STAGE_B     1 (with AG_TRANS_B == 1 only): the module also holds
//                agemm_warptiled_transpose, which the host runs first to copy
//                B^T into the workspace as K x N rows; the main kernel then
//                reads that copy as op(B) = B (AG_TRANS_B is taken as 0)
// AG_STAGE_A     1 (with AG_TRANS_A == 0 only): likewise A, copied as K x M
//                rows and read as op(A) = A^T (AG_TRANS_A is taken as 1)
// AG_C_ALIGN_STORES 1 (default). Not a family parameter: kernel_probe builds
//                0 (one-float stores of an unaligned C) to time the stores
//                apart.
// AG_FFMA_ORDER  order of a k step's FFMAs (the same sums): 0 row by row,
//                1 row by row turning at each row's end, 2 column by
//                column turning at each column's end
// AG_TRANS_A, AG_TRANS_B  operand layouts, see above
// ---------------------------------------------------------------------------

#ifndef AG_BM
#error "AG_BM must be defined"
#endif
#ifndef AG_PEEL
#define AG_PEEL 0
#endif
#ifndef AG_FFMA_ORDER
#define AG_FFMA_ORDER 0
#endif
#ifndef AG_STAGE_B
#define AG_STAGE_B 0
#endif
#if AG_STAGE_B
#if !AG_TRANS_B
#error "AG_STAGE_B stages a k-contiguous B (AG_TRANS_B == 1)"
#endif
// The main kernel reads the staged, n-contiguous copy.
#undef AG_TRANS_B
#define AG_TRANS_B 0
#endif
#ifndef AG_STAGE_A
#define AG_STAGE_A 0
#endif
#if AG_STAGE_A
#if AG_TRANS_A
#error "AG_STAGE_A stages a k-contiguous A (AG_TRANS_A == 0)"
#endif
// The main kernel reads the staged, m-contiguous copy.
#undef AG_TRANS_A
#define AG_TRANS_A 1
#endif

#define AG_LM (32 / AG_LN)
#define AG_TM (AG_WM / AG_LM)
#define AG_TN (AG_WN / AG_LN)
#define AG_WARPS_N (AG_BN / AG_WN)
#define AG_THREADS (32 * (AG_BM / AG_WM) * AG_WARPS_N)
// An edge tile moves (see agemm_warptiled) only by a multiple of these: 4
// along m where A^T's rows are copied 16 bytes at a time, along n where B's
// rows are or where C or the split-K workspace is stored 16 bytes at a
// time (so a store group is never split); 1 elsewhere. kernel_probe
// variants may set them (a huge step: edge tiles never move).
// Technique: a staged operand is copied 16 bytes at a time in either class.
// Its workspace copy has 16-byte aligned rows whatever the caller's layout,
// so an unaligned problem's staged operand costs a quarter of the copy
// instructions its 4-byte copies would.
#define AG_VEC_A (AG_STAGE_A ? 4 : AG_VEC)
#define AG_VEC_B (AG_STAGE_B ? 4 : AG_VEC)
#ifndef AG_SHIFT_M_STEP
#define AG_SHIFT_M_STEP (AG_TRANS_A && AG_VEC_A == 4 ? 4 : 1)
#endif
#ifndef AG_SHIFT_N_STEP
#define AG_SHIFT_N_STEP (AG_VEC_B == 4 || AG_VEC == 4 || AG_SPLIT_K > 1 ? 4 : 1)
#endif

// Technique: padded [k][mn] shared tiles. Rows are padded by 4 floats: they
// stay 16-byte aligned for ld.shared.v4, and the one-float copies of a
// k-contiguous operand (8 consecutive threads on 8 consecutive k of one mn,
// 4 mn per warp) land in 32 distinct banks ((4k + mn) mod 32).
#define AG_PAD 4
#define AG_LDS_A (AG_BM + AG_PAD)
#define AG_LDS_B (AG_BN + AG_PAD)
// Floats per pipeline stage (AG_STAGE_B, the config macro, is another thing).
#define AG_RING_A (AG_BK * AG_LDS_A)
#define AG_RING_B (AG_BK * AG_LDS_B)

#include "agemm_device.cuh"  // the shared device helpers (part of this template's hash)

// Technique: the shared address and the constant part of the global address
// go into the instruction as immediates ("n" operands), so an unrolled run of
// copies costs one LDGSTS each plus one 64-bit add per distinct global row.
template <int BYTES, int SOFF, int GOFF>
__device__ __forceinline__ void cp_async(unsigned dst, const float* src) {
  if (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0+%2], [%1+%3], 16;\n" ::"r"(dst), "l"(src), "n"(SOFF),
                 "n"(GOFF * 4));
  else
    asm volatile("cp.async.ca.shared.global [%0+%2], [%1+%3], 4;\n" ::"r"(dst), "l"(src), "n"(SOFF),
                 "n"(GOFF * 4));
}
// Edge copies: src_bytes < BYTES zero-fills the rest (src_bytes 0 reads nothing).
template <int BYTES, int SOFF>
__device__ __forceinline__ void cp_async_fill(unsigned dst, const float* src, int src_bytes) {
  if (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0+%3], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes),
                 "n"(SOFF));
  else
    asm volatile("cp.async.ca.shared.global [%0+%3], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes),
                 "n"(SOFF));
}

// Technique: 4-byte copies of an operand whose rows run along m or n
// (the unaligned class) are laid out like 16-byte ones: a thread per 4
// elements of a row, the 4 a quarter-row apart instead of adjacent (SPREAD).
// So a thread's copies touch as few global rows as the 16-byte copies do
// (one 64-bit pointer per row; the elements differ by immediates), each
// warp-wide copy still reads 128 consecutive bytes and writes 32 banks, and
// the main loop keeps the registers the row pointers would take.
template <int MN, bool K_CONTIG, int W>
struct CopySpread {
  enum { value = !K_CONTIG && W == 1 && (AG_BK * (MN / 4)) % AG_THREADS == 0 };
};

// Where copy I of one thread goes, relative to the thread's first copy: all
// compile-time, so the unrolled copies differ only in immediates and in which
// multiple of `row_step` they add to the global pointer.
//   K_CONTIG false (rows along k, mn contiguous): chunks of W floats, CPR per
//     row; with more threads than chunks per row a copy round covers several
//     k rows, otherwise a row takes several rounds. SPREAD: chunks of 4
//     elements CPR apart, copied as 4 copies (J = I / 4, element E = I % 4).
//   K_CONTIG true (rows along mn, k contiguous): single floats, 8 threads per
//     8 consecutive k of one mn row, THREADS/8 mn rows per round; after MN
//     rows the next 8 k.
template <int MN, bool K_CONTIG, int W, int I>
struct CopySlot {
  enum { T = AG_THREADS, SP = CopySpread<MN, K_CONTIG, W>::value };
  enum { CPR = MN / (SP ? 4 : W), J = SP ? I / 4 : I, E = SP ? I % 4 : 0 };
  enum { R = (T >= CPR ? 1 : CPR / T), KSTEP = (T >= CPR ? T / CPR : 1), G = T / 8 };
  enum {
    ROW = K_CONTIG ? (I * G % MN) / G : J / R,                           // multiple of row_step
    DMN = K_CONTIG ? I * G % MN : (J % R) * T * (SP ? 1 : W) + E * CPR,  // mn offset in the tile
    DK = K_CONTIG ? 8 * (I * G / MN) : (J / R) * KSTEP,                  // k offset in the tile
    GOFF = K_CONTIG ? DK : DMN,                                          // global offset beyond ROW*row_step
    SOFF = (DK * (MN + AG_PAD) + DMN) * 4                                // shared byte offset
  };
};

// One operand's share of a pipeline stage: an AG_BK x MN tile of op(X) into
// shared memory as [k][mn] (row stride MN + AG_PAD).
template <int MN, bool K_CONTIG, int W>
struct StageCopier {
  enum { CHUNK = K_CONTIG ? 1 : W };
  enum { COPIES = AG_BK * MN / CHUNK / AG_THREADS };
  const float* g;  // this thread's first element of the current K slice
  i64 row_step;    // global distance of one step in CopySlot::ROW
  i64 slice_step;  // global distance between consecutive K slices
  unsigned s;      // shared byte address of the first copy in stage 0
  int mn0, k0;     // tile coordinates of the first copy

  __device__ __forceinline__ void init(const float* x, i64 ld, int mn_base, int k_base, float* stage0, int tid) {
    if (K_CONTIG) {
      mn0 = tid / 8, k0 = tid % 8;
      row_step = (i64)(AG_THREADS / 8) * ld;
      slice_step = AG_BK;
      g = x + (i64)(mn_base + mn0) * ld + k_base + k0;
    } else {
      enum { SP = CopySpread<MN, K_CONTIG, W>::value, CPR = MN / (SP ? 4 : W) };
      mn0 = (tid % CPR) * (SP ? 1 : W), k0 = tid / CPR;
      row_step = (AG_THREADS >= CPR ? AG_THREADS / CPR : 1) * ld;
      slice_step = (i64)AG_BK * ld;
      g = x + (i64)(k_base + k0) * ld + mn_base + mn0;
    }
    s = smem_addr(stage0) + (k0 * (MN + AG_PAD) + mn0) * 4;
  }

  // Interior tile, full slice: no bounds at all.
  template <int I = 0>
  __device__ __forceinline__ void copy(unsigned stage) const {
    if constexpr (I < COPIES) {
      typedef CopySlot<MN, K_CONTIG, W, I> S;
      cp_async<CHUNK * 4, S::SOFF, S::GOFF>(s + stage, g + S::ROW * row_step);
      copy<I + 1>(stage);
    }
  }

  // Edge tile or partial slice: mn_lim / k_lim are the valid extents from the
  // tile origin; out-of-range elements are zero-filled, never read (`any`
  // keeps the address of a copy that reads nothing legal).
  template <int I = 0>
  __device__ __forceinline__ void copy_checked(unsigned stage, int mn_lim, int k_lim, const float* any) const {
    if constexpr (I < COPIES) {
      typedef CopySlot<MN, K_CONTIG, W, I> S;
      const int mn = mn0 + S::DMN, k = k0 + S::DK;
      int bytes;
      if (K_CONTIG) {
        bytes = (mn < mn_lim && k < k_lim) ? 4 : 0;
      } else {
        int v = k < k_lim ? mn_lim - mn : 0;
        bytes = 4 * (v < 0 ? 0 : (v > W ? W : v));
      }
      const float* src = bytes > 0 ? g + S::ROW * row_step + S::GOFF : any;
      cp_async_fill<CHUNK * 4, S::SOFF>(s + stage, src, bytes);
      copy_checked<I + 1>(stage, mn_lim, k_lim, any);
    }
  }
};

// Technique: 4-float fragments. A thread's TM rows are TM/4 groups of 4
// consecutive rows strided by 4*AG_LM (and its TN columns likewise by
// 4*AG_LN), so every fragment is one ld.shared.v4 and the 8 lanes of a
// quarter-warp read one 16-byte word (A: same row group) or 8 consecutive
// ones (B): no bank conflicts. The loads take a 32-bit shared address and
// an immediate offset, so a k step costs its loads and nothing else (with C++
// pointers the compiler re-derived each B address from the stage index).
// "memory" keeps them after the barrier that publishes the stage.
template <int OFF>
__device__ __forceinline__ void lds128(float* v, unsigned addr) {
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4+%5];\n"
               : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
               : "r"(addr), "n"(OFF)
               : "memory");
}
template <int KK, int I = 0>
__device__ __forceinline__ void load_fragments(float (&a)[AG_TM], float (&b)[AG_TN], unsigned as, unsigned bs) {
  if constexpr (I < AG_TM / 4) {
    lds128<(KK * AG_LDS_A + I * 4 * AG_LM) * 4>(&a[4 * I], as);
    load_fragments<KK, I + 1>(a, b, as, bs);
  } else if constexpr (I - AG_TM / 4 < AG_TN / 4) {
    enum { J = I - AG_TM / 4 };
    lds128<(KK * AG_LDS_B + J * 4 * AG_LN) * 4>(&b[4 * J], bs);
    load_fragments<KK, I + 1>(a, b, as, bs);
  }
}

#ifndef AG_C_ALIGN_STORES
#define AG_C_ALIGN_STORES 1
#endif
// Technique: the widest stores a row's alignment allows. Where C's rows are
// not 16-byte aligned (an odd ldc), four one-float stores of a fragment's
// 4 columns each fill a quarter of the sectors they touch; by the address
// bits, 16 bytes, 8 + 8, or 4 + 8 + 4 cover the same 4 floats. An epilogue
// -bound problem (short K) writes C at the stores' sector rate.
__device__ __forceinline__ void store_c4_any_alignment(float* c, const float* v, float alpha, float beta) {
  float o[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) o[e] = beta != 0.f ? fmaf(beta, c[e], alpha * v[e]) : alpha * v[e];
  const unsigned words = (unsigned)(reinterpret_cast<unsigned long long>(c) >> 2) & 3u;
  if (words == 0) {
    *reinterpret_cast<float4*>(c) = make_float4(o[0], o[1], o[2], o[3]);
  } else if (words == 2) {
    reinterpret_cast<float2*>(c)[0] = make_float2(o[0], o[1]);
    reinterpret_cast<float2*>(c)[1] = make_float2(o[2], o[3]);
  } else {
    c[0] = o[0];
    *reinterpret_cast<float2*>(c + 1) = make_float2(o[1], o[2]);
    c[3] = o[3];
  }
}

// The FFMAs of one k step: the outer product of the fragments.
// Technique: the order of the FFMAs is a tuned parameter (AG_FFMA_ORDER).
// ptxas keeps much of the source order, and the order decides which operand
// an FFMA can take from the reuse cache and which registers share a bank;
// no order wins everywhere: on an H100, 4096^3's 128x128 tile ran 1.3 %
// faster turning at each row's end, 8192^3's 64x256 tile 3.2 % faster
// column by column turning, which cost the 128x128 tile 2.2 % (kernel_probe,
// DECISIONS).
__device__ __forceinline__ void outer_product(float (&acc)[AG_TM][AG_TN], const float (&a)[AG_TM],
                                              const float (&b)[AG_TN]) {
#if AG_FFMA_ORDER == 2
#pragma unroll
  for (int j = 0; j < AG_TN; ++j)
#pragma unroll
    for (int s = 0; s < AG_TM; ++s) {
      const int i = (j & 1) ? AG_TM - 1 - s : s;
      acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
#else
#pragma unroll
  for (int i = 0; i < AG_TM; ++i)
#pragma unroll
    for (int s = 0; s < AG_TN; ++s) {
      const int j = (AG_FFMA_ORDER == 1 && (i & 1)) ? AG_TN - 1 - s : s;
      acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
#endif
}

// One K slice: BK steps, each loading the next step's fragments (the first
// step of the next slice at the end) before its own FFMAs.
template <int KK, class Barrier, class Issue>
__device__ __forceinline__ void slice_steps(float (&acc)[AG_TM][AG_TN], float (&a)[2][AG_TM], float (&b)[2][AG_TN],
                                            unsigned& as, unsigned& bs, const Barrier& next_stage,
                                            const Issue& refill) {
  if constexpr (KK < AG_BK) {
    if constexpr (KK == AG_BK - 1) next_stage(as, bs);
    load_fragments<(KK + 1) % AG_BK>(a[(KK + 1) & 1], b[(KK + 1) & 1], as, bs);
    if constexpr (KK == 0) refill();
    outer_product(acc, a[KK & 1], b[KK & 1]);
    slice_steps<KK + 1>(acc, a, b, as, bs, next_stage, refill);
  }
}

extern "C" __global__ void __launch_bounds__(AG_THREADS, 1)
    agemm_warptiled(int M, int N, int K, float alpha, const float* __restrict__ A, i64 lda,
                    const float* __restrict__ B, i64 ldb, float beta, float* __restrict__ C, i64 ldc,
                    float* __restrict__ workspace, i64 stride_a, i64 stride_b, i64 stride_c) {
  extern __shared__ __align__(16) float smem[];
  float* As = smem;                                  // [AG_STAGES][AG_BK][AG_LDS_A]
  float* Bs = smem + AG_STAGES * AG_RING_A;         // [AG_STAGES][AG_BK][AG_LDS_B]

  begin_after_previous_kernel();
  const int tid = threadIdx.x;
  // Sizes up to 2^31 - 1: round up in 64 bits (M + AG_BM - 1 can wrap).
  const int tiles_m = (int)(((i64)M + AG_BM - 1) / AG_BM);
  const int tiles_n = (int)(((i64)N + AG_BN - 1) / AG_BN);
  int tile_m, tile_n;
  tile_of_block<AG_SWIZZLE>(blockIdx.x, tiles_m, tiles_n, &tile_m, &tile_n);
  int m0 = tile_m * AG_BM, n0 = tile_n * AG_BN;
  // Technique: shifted edge tiles. A tile that would run past M (or N) is
  // moved back to end exactly at C's edge; it recomputes rows (columns) of
  // its neighbour and stores only its own (m_skip, n_skip: the first rows
  // and columns of the moved tile, which the neighbour stores). So every
  // block of a C at least one tile long runs the unchecked copies of an
  // interior block: checked copies slow an edge block down, and at
  // near-full waves an edge block's time is the kernel's. A move must keep
  // 16-byte copies and stores aligned (AG_SHIFT_M_STEP, AG_SHIFT_N_STEP):
  // where it would not, the edge tile stays and checks. Same sums in the
  // same order: stored elements are bit for bit an unmoved tile's.
  int m_skip = 0, n_skip = 0;
  if (m0 > M - AG_BM && M >= AG_BM && (M - AG_BM) % AG_SHIFT_M_STEP == 0) {
    m_skip = m0 - (M - AG_BM), m0 = M - AG_BM;
  }
  if (n0 > N - AG_BN && N >= AG_BN && (N - AG_BN) % AG_SHIFT_N_STEP == 0) {
    n_skip = n0 - (N - AG_BN), n0 = N - AG_BN;
  }
  const int m_lim = M - m0, n_lim = N - n0;
  // Edge handling is decided once per block: interior blocks copy without
  // any bounds arithmetic; only a tile longer than C's side and a partial
  // last slice check.
  const bool interior = m_lim >= AG_BM && n_lim >= AG_BN;

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
  const int k_tiles = alpha != 0.f ? (k_end - k_begin + AG_BK - 1) / AG_BK : 0;
  const int k_full = interior ? (k_end - k_begin) / AG_BK : 0;  // slices copied without checks

  StageCopier<AG_BM, !AG_TRANS_A, AG_TRANS_A ? AG_VEC_A : 1> ca;
  StageCopier<AG_BN, (bool)AG_TRANS_B, AG_TRANS_B ? 1 : AG_VEC_B> cb;
  ca.init(A, lda, m0, k_begin, As, tid);
  cb.init(B, ldb, n0, k_begin, Bs, tid);

  // Issues the copies of K slice kt into stage `st` (one commit group, empty
  // past the last slice so the wait counts stay exact), then moves the
  // global pointers to the next slice.
  auto issue = [&](int kt, int st) {
    if (kt < k_full) {
      ca.copy(st * AG_RING_A * 4);
      cb.copy(st * AG_RING_B * 4);
    } else if (kt < k_tiles) {
      const int k_lim = k_end - (k_begin + kt * AG_BK);
      ca.copy_checked(st * AG_RING_A * 4, m_lim, k_lim, A);
      cb.copy_checked(st * AG_RING_B * 4, n_lim, k_lim, B);
    }
    cp_async_commit();
    ca.g += ca.slice_step;
    cb.g += cb.slice_step;
  };

  // Thread placement: warps in a (BM/WM) x (BN/WN) grid, lanes of a warp in
  // a AG_LM x AG_LN grid inside the warp tile.
  const int warp = tid / 32, lane = tid % 32;
  const int row0 = (warp / AG_WARPS_N) * AG_WM + (lane / AG_LN) * 4;
  const int col0 = (warp % AG_WARPS_N) * AG_WN + (lane % AG_LN) * 4;
  const unsigned a_frag = smem_addr(As) + row0 * 4, b_frag = smem_addr(Bs) + col0 * 4;

  float acc[AG_TM][AG_TN];
#pragma unroll
  for (int i = 0; i < AG_TM; ++i)
#pragma unroll
    for (int j = 0; j < AG_TN; ++j) acc[i][j] = 0.f;

#pragma unroll
  for (int s = 0; s < AG_STAGES - 1; ++s) issue(s, s);
  cp_async_wait<AG_STAGES - 2>();
  __syncthreads();

  // Technique: fragments double-buffered in registers, across slices too.
  // Step kk loads step kk+1's fragments before its FFMAs; the last step of a
  // slice first waits for the next stage (one barrier per slice), so shared
  // latency always hides behind a full step of FFMAs.
  float a[2][AG_TM], b[2][AG_TN];
  int rs = 0, ws = AG_STAGES - 1;  // stage read, stage written next
  unsigned as = a_frag, bs = b_frag;
  load_fragments<0>(a[0], b[0], as, bs);
  int kt = 0;
  // This thread's copies of slice kt+1 landed; after the barrier everyone's
  // did, and everyone has read all of slice kt, whose stage is the one
  // refilled next.
  auto next_stage = [&](unsigned& as_, unsigned& bs_) {
    cp_async_wait<AG_STAGES - 2>();
    __syncthreads();
    rs = rs + 1 == AG_STAGES ? 0 : rs + 1;
    as_ = a_frag + rs * (AG_RING_A * 4);
    bs_ = b_frag + rs * (AG_RING_B * 4);
  };
  auto refill = [&] {
    issue(kt + AG_STAGES - 1, ws);
    ws = ws + 1 == AG_STAGES ? 0 : ws + 1;
  };
  for (; kt < k_tiles; ++kt) slice_steps<0>(acc, a, b, as, bs, next_stage, refill);
  cp_async_wait<0>();

#if AG_SPLIT_K > 1
  // Partial tile z goes to workspace slice z, rows of AG_WS_LD(N) floats
  // (a multiple of 4, so every store is 16 bytes); the reduce kernel applies
  // alpha and beta.
  C = workspace + AG_WS_SKIP + (i64)blockIdx.z * M * AG_WS_LD(N) + (i64)m0 * AG_WS_LD(N) + n0;
  ldc = AG_WS_LD(N);
  alpha = 1.f, beta = 0.f;
#define AG_STORE_VEC 4
#else
#define AG_STORE_VEC AG_VEC
  C += (i64)m0 * ldc + n0;
#endif
  // ---- Epilogue: C = alpha * acc + beta * C ----
#pragma unroll
  for (int i = 0; i < AG_TM / 4; ++i) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int r = row0 + i * 4 * AG_LM + q;  // row inside the tile
      if (r < m_skip || (!interior && r >= m_lim)) continue;
      float* c_row = C + (i64)r * ldc;
#pragma unroll
      for (int j = 0; j < AG_TN / 4; ++j) {
        const int cn = col0 + j * 4 * AG_LN;
        if (cn + 3 < n_skip) continue;  // the neighbour's columns
        const float* v = &acc[i * 4 + q][j * 4];
        float* c = c_row + cn;
        if (AG_STORE_VEC == 4 && (interior || cn + 3 < n_lim)) {
          // Technique: 16-byte stores of C (aligned class, or the workspace).
          float4 out = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
          if (beta != 0.f) {  // beta == 0 never reads C: NaN there must not leak
            const float4 old = *reinterpret_cast<const float4*>(c);
            out.x = fmaf(beta, old.x, out.x);
            out.y = fmaf(beta, old.y, out.y);
            out.z = fmaf(beta, old.z, out.z);
            out.w = fmaf(beta, old.w, out.w);
          }
          *reinterpret_cast<float4*>(c) = out;
        } else if (AG_C_ALIGN_STORES && (interior || cn + 3 < n_lim) && cn >= n_skip) {
          store_c4_any_alignment(c, v, alpha, beta);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            if ((!interior && cn + e >= n_lim) || cn + e < n_skip) continue;
            c[e] = beta != 0.f ? fmaf(beta, c[e], alpha * v[e]) : alpha * v[e];
          }
        }
      }
    }
  }
}

// The split-K reduction (fold_split_k: agemm_device.cuh).
extern "C" __global__ void agemm_warptiled_reduce(int M, int N, float alpha, const float* __restrict__ workspace,
                                                  float beta, float* __restrict__ C, i64 ldc) {
  fold_split_k<AG_SPLIT_K>(M, N, alpha, workspace, beta, C, ldc);
}

#if AG_PEEL
// Technique: peeled edges. A side of C a few elements past a multiple of
// the block tile (4097 = 16 x 256 + 1) would add a row or column of tiles
// that cost as much as full ones: at one block per SM, often a whole extra
// wave for a sliver of C. The host runs the main kernel on the multiple and
// these kernels on the strips left over (at most 8 rows or columns each),
// skinny products that read one operand once at memory speed.
// A strip is D[l][s] = alpha * sum_k X(l, k) Y(k, s) + beta * D[l][s], with
// l along the strip and s < S <= SMAX across it; the host passes element
// strides, so one kernel serves the row strip, the column strip and every
// layout, and picks the smallest SMAX (1, 2, 4, 8) that holds S: fewer
// accumulators, more resident warps, more loads in flight. A block takes 8
// values of l. Where X is k-contiguous each warp takes one l, lanes along k
// (coalesced), folded with shuffles; otherwise 8 lanes take 8 consecutive l
// (a 32-byte sector where X is l-contiguous) and the block's 32 such groups
// split K, their sums added in group order through shared memory. Either
// way the order of the sums is fixed by the shapes alone, never by timing.
template <int SMAX>
__device__ __forceinline__ void peel_strip(int L, int S, int K, float alpha, const float* __restrict__ X, i64 xl,
                                           i64 xk, const float* __restrict__ Y, i64 yk, i64 ys, float beta,
                                           float* __restrict__ D, i64 dl, i64 ds) {
  float acc[SMAX];
#pragma unroll
  for (int s = 0; s < SMAX; ++s) acc[s] = 0.f;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  i64 l;
  if (xk == 1) {
    l = (i64)blockIdx.x * 8 + warp;
    if (l >= L) return;  // no barrier on this path
    if (alpha != 0.f) {  // alpha == 0 never reads A or B
      const float* x = X + l * xl;
#pragma unroll 4
      for (int k = lane; k < K; k += 32) {
        const float xv = x[k];
        const float* y = Y + (i64)k * yk;
#pragma unroll
        for (int s = 0; s < SMAX; ++s)
          if (s < S) acc[s] = fmaf(xv, y[s * ys], acc[s]);
      }
    }
#pragma unroll
    for (int s = 0; s < SMAX; ++s)
#pragma unroll
      for (int off = 16; off > 0; off /= 2) acc[s] += __shfl_xor_sync(0xffffffffu, acc[s], off);
    if (lane != 0) return;
  } else {
    __shared__ float part[32][SMAX][8];
    const int group = warp * 4 + lane / 8;  // 32 groups split K
    l = (i64)blockIdx.x * 8 + lane % 8;
    if (alpha != 0.f && l < L) {
      const int chunk = (K + 31) / 32, k_end = min(K, (group + 1) * chunk);
      const float* x = X + l * xl;
#pragma unroll 4
      for (int k = group * chunk; k < k_end; ++k) {
        const float xv = x[k * xk];
        const float* y = Y + (i64)k * yk;
#pragma unroll
        for (int s = 0; s < SMAX; ++s)
          if (s < S) acc[s] = fmaf(xv, y[s * ys], acc[s]);
      }
    }
#pragma unroll
    for (int s = 0; s < SMAX; ++s) part[group][s][lane % 8] = acc[s];
    __syncthreads();
    if (threadIdx.x >= 8 || l >= L) return;
#pragma unroll
    for (int s = 0; s < SMAX; ++s) {
      acc[s] = part[0][s][lane];
      for (int g = 1; g < 32; ++g) acc[s] += part[g][s][lane];
    }
  }
#pragma unroll
  for (int s = 0; s < SMAX; ++s) {
    if (s >= S) break;
    float* d = D + l * dl + s * ds;
    *d = beta != 0.f ? fmaf(beta, *d, alpha * acc[s]) : alpha * acc[s];  // beta == 0 never reads C
  }
}

// The entry points by strip width (the host picks the smallest that holds S).
#define AG_PEEL_ARGS                                                                                         \
  int L, int S, int K, float alpha, const float *__restrict__ X, i64 xl, i64 xk, const float *__restrict__ Y, \
      i64 yk, i64 ys, float beta, float *__restrict__ D, i64 dl, i64 ds
#define AG_PEEL_PASS L, S, K, alpha, X, xl, xk, Y, yk, ys, beta, D, dl, ds
extern "C" __global__ void __launch_bounds__(256) agemm_warptiled_peel1(AG_PEEL_ARGS) { peel_strip<1>(AG_PEEL_PASS); }
extern "C" __global__ void __launch_bounds__(256) agemm_warptiled_peel2(AG_PEEL_ARGS) { peel_strip<2>(AG_PEEL_PASS); }
extern "C" __global__ void __launch_bounds__(256) agemm_warptiled_peel4(AG_PEEL_ARGS) { peel_strip<4>(AG_PEEL_PASS); }
extern "C" __global__ void __launch_bounds__(256) agemm_warptiled_peel8(AG_PEEL_ARGS) { peel_strip<8>(AG_PEEL_PASS); }
#endif

#if AG_STAGE_A || AG_STAGE_B
// Technique: a k-contiguous operand staged once into mn-contiguous rows. The
// pipeline copies a k-contiguous operand one float per cp.async (four times
// the copy instructions of 16-byte copies, issue slots the FFMAs lose:
// 4096^3 runs at 0.91 of cuBLAS as NT, 0.98 as NN and 1.01 as TN, where
// both operands are copied 16 bytes at a time). Transposing one costs a
// read and a write of it (about 1.6% of 4096^3's time for B). A 32x32 tile
// goes through shared memory, padded to 33 columns so that the column reads
// hit 32 distinct banks; both global sides are 128-byte rows.
// out[k][n] = B[n][k] for N rows of B, rows ldo floats long (A: M for N).
extern "C" __global__ void __launch_bounds__(256)
    agemm_warptiled_transpose(int N, int K, const float* __restrict__ B, i64 ldb, float* __restrict__ out, i64 ldo) {
  __shared__ float tile[32][33];
  const i64 k0 = (i64)blockIdx.x * 32, n0 = (i64)blockIdx.y * 32;
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  for (int r = ty; r < 32; r += 8)
    if (n0 + r < N && k0 + tx < K) tile[r][tx] = B[(n0 + r) * ldb + k0 + tx];
  __syncthreads();
  for (int r = ty; r < 32; r += 8)
    if (k0 + r < K && n0 + tx < N) out[(k0 + r) * ldo + n0 + tx] = tile[tx][r];
}
#endif
