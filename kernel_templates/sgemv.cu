// sgemv.cu — the GEMMs with a short output dimension (M or N at most 16):
// one matrix streamed once against a few vectors.
//
// Computes, in autogemm's canonical form (row-major, 64-bit leading dims),
//     C[M x N] = alpha * op(A)[M x K] * op(B)[K x N] + beta * C
// when one output dimension, the short one (rs rows), is at most AG_ROWS:
//   AG_ONE == 0 (M short): y(r, i) = C[r, i], x(r, k) = op(A)[r, k], matrix op(B)
//   AG_ONE == 1 (N short): y(r, i) = C[i, r], x(r, k) = op(B)[k, r], matrix op(A)
// so y(r, :) = alpha * matrix . x(r, :) + beta * y(r, :) for r < rs (op(A)/op(B)
// as in sgemm_tiled.cu). Such a product reads the matrix once and does 2*rs
// FLOP per element of it: it is bound by memory bandwidth, so the kernels only
// stream the matrix with wide loads and many bytes in flight, and keep the
// vectors (rs * K floats, small) in the L1 cache, or, with rings (AG_STAGES),
// stage both through shared memory.
// Which of the two kernels runs follows from the layout of the matrix:
//   dot:  the matrix's rows along k are contiguous (one output = one row):
//         warps stream rows and reduce with shuffles (AG_ROWS == 1);
//   axpy: the matrix's contiguous direction is the outputs': each thread
//         owns 4 outputs of every row r, K is cut into slices (thread groups
//         of a block, then blocks along blockIdx.y) whose partial sums are
//         added in order.
//
// ---- Parameters ----------------------------------------------------------
// AG_ONE        which output dimension is short (see above)
// AG_ROWS       rows kept per thread (1, 2, 4, 8, 16): the kernel serves rs <= AG_ROWS
// AG_THREADS    threads per block
// AG_KGROUPS    axpy only: groups of threads along k within a block (1 for dot);
//               AG_THREADS / AG_KGROUPS (at least 8) threads along the outputs
// AG_SPLIT_K    axpy only: K slices over blockIdx.y, reduced deterministically
//               through the workspace; 1 for dot
// AG_UNROLL     loads of the matrix in flight per thread: 4 * AG_UNROLL
// AG_PREFETCH   axpy only: 1 loads the next batch of the matrix before using this one
// AG_STAGES     axpy only: 0 the matrix's batches go straight to registers; S >= 2
//               each thread streams through its own ring of S batches in shared
//               memory (cp.async, 16-byte path), S - 1 in flight during the FMAs
// AG_LDHINT     1: matrix loads skip L1 and ask L2 for 256-byte fetches; 0: plain
// AG_VEC        4: 16-byte loads (aligned class); 1: any (16-byte loads where
//               the pointers happen to allow them)
// AG_PROBE      0 (default). Not a family parameter: tools/kernel_probe builds
//               1 (the ring's batches are not used: no FMAs) or 2 (the vectors
//               are not read: constant x) to time the stages apart; results are wrong
// AG_TRANS_A, AG_TRANS_B  operand layouts
// ---------------------------------------------------------------------------

#ifndef AG_ONE
#error "AG_ONE must be defined"
#endif
#ifndef AG_PREFETCH
#define AG_PREFETCH 0
#endif
#ifndef AG_STAGES
#define AG_STAGES 0
#endif
#ifndef AG_PROBE
#define AG_PROBE 0
#endif

#include "agemm_device.cuh"  // the shared device helpers (part of this template's hash)

// The matrix's layout decides the kernel (see above).
#if AG_ONE == 0
#define AG_DOT AG_TRANS_B
#define AG_X_ALONG_K (!AG_TRANS_A)  // x(r, k..k+3) contiguous
#else
#define AG_DOT (!AG_TRANS_A)
#define AG_X_ALONG_K AG_TRANS_B
#endif

struct GemvView {
  const float* mat;  // the matrix: mat[k * ld + i] (axpy) or mat[i * ld + k] (dot)
  i64 ld;
  const float* x;    // x(r, k) = x[r * xr + k * xk]
  i64 xr, xk;
  float* y;          // y(r, i) = y[r * yr + i * yi]
  i64 yr, yi;
  int len;           // outputs per row
  int rs;            // rows (the short dimension)
};

__device__ __forceinline__ GemvView view(int M, int N, const float* A, i64 lda, const float* B, i64 ldb, float* C,
                                         i64 ldc) {
  GemvView v;
#if AG_ONE == 0
  v.mat = B, v.ld = ldb, v.x = A, v.y = C, v.yr = ldc, v.yi = 1, v.len = N, v.rs = M;
  v.xr = AG_TRANS_A ? 1 : lda, v.xk = AG_TRANS_A ? lda : 1;
#else
  v.mat = A, v.ld = lda, v.x = B, v.y = C, v.yr = 1, v.yi = ldc, v.len = M, v.rs = N;
  v.xr = AG_TRANS_B ? ldb : 1, v.xk = AG_TRANS_B ? 1 : ldb;
#endif
  return v;
}

__device__ __forceinline__ void store(float* y, float alpha, float sum, float beta) {
  *y = beta != 0.f ? fmaf(beta, *y, alpha * sum) : alpha * sum;  // beta == 0 never reads C
}

// Technique: the matrix is read exactly once, so its loads need not stay in
// L1 (no_allocate leaves L1 to the vectors, which every thread re-reads),
// and a 256-byte L2 fetch per request halves the requests to DRAM for a
// stream whose neighbours are read by the next warps anyway.
__device__ __forceinline__ float4 ld_mat4(const float* p) {
#if AG_LDHINT
  float4 v;
  asm("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(p));
  return v;
#else
  return __ldg(reinterpret_cast<const float4*>(p));
#endif
}

__device__ __forceinline__ bool aligned16(const void* p) { return ((unsigned long long)p & 15) == 0; }

// Technique: a programmatic dependent launch (sm_90+; the host launches
// agemv with the programmatic-serialization attribute). The kernel waits
// for the previous kernel of the stream to end and its memory to be
// visible before it touches any, then lets the next kernel launch: a
// product of 20-30 us streams from a block start and a first load that
// otherwise wait for the previous kernel's last block, and the next
// call's launch overlaps this one (begin_after_previous_kernel).

#if AG_DOT
#if AG_ROWS != 1
#error "the dot kernel keeps one row (AG_ROWS == 1)"
#endif
// Technique: one warp per output, 16-byte loads, 4 * AG_UNROLL of them in
// flight per lane before any is used, shuffle reduction: the row streams at
// the memory system's rate and no shared memory or barrier is needed.
extern "C" __global__ void __launch_bounds__(AG_THREADS)
    agemv(int M, int N, int K, float alpha, const float* __restrict__ A, i64 lda, const float* __restrict__ B,
          i64 ldb, float beta, float* __restrict__ C, i64 ldc) {
  begin_after_previous_kernel();
  const GemvView v = view(M, N, A, lda, B, ldb, C, ldc);
  const int lane = threadIdx.x % 32;
  const i64 row = (i64)blockIdx.x * (AG_THREADS / 32) + threadIdx.x / 32;
  if (row >= v.len) return;
  const float* r = v.mat + row * v.ld;
  float sum = 0.f;
  if (alpha != 0.f) {  // alpha == 0 never reads A or B
    int k = 0;
    // The unaligned class takes the 16-byte path where the pointers allow it.
    if ((AG_VEC == 4 || (aligned16(v.mat) && v.ld % 4 == 0 && aligned16(v.x))) && v.xk == 1) {
      const int batch = 128 * 4 * AG_UNROLL;  // k per batch: every lane's loads in flight together
      for (; k + batch <= K; k += batch) {
        float4 a[4 * AG_UNROLL];
#pragma unroll
        for (int j = 0; j < 4 * AG_UNROLL; ++j) a[j] = ld_mat4(r + k + 128 * j + 4 * lane);
#pragma unroll
        for (int j = 0; j < 4 * AG_UNROLL; ++j) {
          const float4 b = __ldg(reinterpret_cast<const float4*>(v.x + k + 128 * j) + lane);
          sum = fmaf(a[j].x, b.x, sum), sum = fmaf(a[j].y, b.y, sum);
          sum = fmaf(a[j].z, b.z, sum), sum = fmaf(a[j].w, b.w, sum);
        }
      }
      for (; k + 128 <= K; k += 128) {
        const float4 a = ld_mat4(r + k + 4 * lane);
        const float4 b = __ldg(reinterpret_cast<const float4*>(v.x + k) + lane);
        sum = fmaf(a.x, b.x, sum), sum = fmaf(a.y, b.y, sum), sum = fmaf(a.z, b.z, sum), sum = fmaf(a.w, b.w, sum);
      }
    }
#pragma unroll 4
    for (k += lane; k < K; k += 32) sum = fmaf(__ldg(r + k), __ldg(v.x + k * v.xk), sum);
  }
#pragma unroll
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (lane == 0) store(v.y + row * v.yi, alpha, sum, beta);
}
#else
#define AG_CW (AG_THREADS / AG_KGROUPS)  // threads along the outputs
#define AG_LW (AG_CW < 32 ? AG_CW : 32)  // lanes of a warp along the outputs
#define AG_BATCH (4 * AG_UNROLL)         // k steps whose matrix loads are in flight together

// The axpy kernel's pieces take VEC, the access width, as a template
// argument: the unaligned class (AG_VEC == 1) runs the 16-byte path too when
// the pointers and strides it reads happen to allow it (see agemv).

// The 4 outputs of a thread: consecutive with 16-byte loads; with scalar
// loads AG_LW apart, so that each load instruction of a warp reads
// 4 * AG_LW consecutive bytes of each row it touches.
// Technique: fewer than 32 threads along the outputs (AG_LW = 8 or 16) put
// 32 / AG_LW rows of k in one warp's load (a full 128-byte line each with
// 16-byte loads), so a block covers a narrow band of outputs over all of K:
// enough blocks to fill the GPU without split-K, whose fold through the
// workspace ends every block with a dependent round trip to L2.
template <int VEC>
__device__ __forceinline__ i64 out_index(i64 warp_base, int lane, int e) {
  return VEC == 4 ? warp_base + 4 * lane + e : warp_base + lane + AG_LW * e;
}

// One row k of the matrix at this thread's outputs; outside them, zero.
template <int VEC>
__device__ __forceinline__ float4 load_row(const float* m, const GemvView& v, i64 base, int lane, bool full) {
  if (VEC == 4 && full) return ld_mat4(m);
  const float* p = m - out_index<VEC>(base, lane, 0);  // back to the row's start
  float e[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const i64 i = out_index<VEC>(base, lane, j);
    e[j] = i < v.len ? __ldg(p + i) : 0.f;
  }
  return make_float4(e[0], e[1], e[2], e[3]);
}

#if AG_STAGES > 0
// Technique: with rings a thread's sums of one row are kept rotated, the
// sum of output column c in component c - 1 (mod 4), and put back in order
// only when they leave the thread (unrotate). ptxas gives a float4 four
// consecutive registers in component order, so otherwise each FFMA reads
// the matrix's column c and its sum from registers equal modulo 4: same
// register bank, a dispatch stall. Measured (kernel_probe, H200, with the
// ring's split loop below): 16 rows 17.31 -> 17.50 TFLOP/s, 16x8192x8192
// 27.05 -> 27.65; the FFMAs with two reads in one bank 147 -> 82 of 512.
__device__ __forceinline__ void fma4(float4& acc, float x, const float4& b) {
  acc.w = fmaf(x, b.x, acc.w), acc.x = fmaf(x, b.y, acc.x), acc.y = fmaf(x, b.z, acc.y), acc.z = fmaf(x, b.w, acc.z);
}
__device__ __forceinline__ float4 unrotate(const float4& a) { return make_float4(a.w, a.x, a.y, a.z); }
#else
__device__ __forceinline__ void fma4(float4& acc, float x, const float4& b) {
  acc.x = fmaf(x, b.x, acc.x), acc.y = fmaf(x, b.y, acc.y), acc.z = fmaf(x, b.z, acc.z), acc.w = fmaf(x, b.w, acc.w);
}
__device__ __forceinline__ float4 unrotate(const float4& a) { return a; }
#endif

// acc[r] += x(r, k + j) * b[j] for the batch's AG_BATCH steps, in k order.
// Technique: the vectors are read in 16-byte pieces along their contiguous
// direction: a row r that does not exist (r >= rs) reads row rs - 1
// instead, so no load needs a predicate and its sums are dropped.
template <int VEC>
__device__ __forceinline__ void fma_batch(float4 (&acc)[AG_ROWS], const GemvView& v, int k,
                                          const float4 (&b)[AG_BATCH]) {
  if (VEC == 4 && AG_X_ALONG_K) {
#pragma unroll
    for (int r = 0; r < AG_ROWS; ++r) {
      const float* xr = v.x + (i64)min(r, v.rs - 1) * v.xr + k;
#pragma unroll
      for (int u = 0; u < AG_UNROLL; ++u) {
        const float4 q = AG_PROBE == 2 ? make_float4(1.f, 0.5f, 0.25f, 2.f) : __ldg(reinterpret_cast<const float4*>(xr) + u);
        fma4(acc[r], q.x, b[4 * u]), fma4(acc[r], q.y, b[4 * u + 1]);
        fma4(acc[r], q.z, b[4 * u + 2]), fma4(acc[r], q.w, b[4 * u + 3]);
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < AG_BATCH; ++j) {
      const float* xk = v.x + (i64)(k + j) * v.xk;
#pragma unroll
      for (int r = 0; r < AG_ROWS; r += 4) {
        if (VEC == 4 && AG_ROWS >= 4 && r + 4 <= v.rs) {  // rows along the vector's contiguous direction
          const float4 q = __ldg(reinterpret_cast<const float4*>(xk + r));
          fma4(acc[r], q.x, b[j]), fma4(acc[r + 1], q.y, b[j]), fma4(acc[r + 2], q.z, b[j]), fma4(acc[r + 3], q.w, b[j]);
        } else {
#pragma unroll
          for (int e = 0; e < 4 && r + e < AG_ROWS; ++e) fma4(acc[r + e], __ldg(xk + (i64)min(r + e, v.rs - 1) * v.xr), b[j]);
        }
      }
    }
  }
}

#if AG_STAGES > 0
__device__ __forceinline__ void cp_async16_ring(float4* dst, const float* src, int bytes) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
#if AG_LDHINT
  asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(bytes) : "memory");
#else
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(bytes) : "memory");
#endif
}
__device__ __forceinline__ void cp_async_commit_ring() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Batch b has landed when at most S - 2 later groups are pending.
__device__ __forceinline__ void cp_async_wait_ring() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(AG_STAGES - 2) : "memory");
}

// Shared memory of the rings (GemvFamily::smem_bytes on the host): the
// matrix's, AG_STAGES batches of a float4 per row per thread, then the
// vectors', per warp AG_STAGES slots of AG_GPW groups' x(r, k..k+3), rows
// padded by one float4 so that the groups of a warp read different banks.
#define AG_GPW (32 / AG_LW)                    // groups of threads along k in a warp
#define AG_XQ (AG_ROWS * AG_UNROLL + 1)        // float4 of one group's x per slot
#define AG_XSLOT (AG_GPW * AG_XQ)              // float4 of a warp's slot
#define AG_MAT_RING (AG_STAGES * AG_BATCH * AG_THREADS)

// Batch b's AG_BATCH matrix rows (at m, v.ld apart) into this thread's ring
// slot, and its share of the group's x(r, k..k+4*AG_UNROLL) into the warp's.
__device__ __forceinline__ void fill_slot(float4* slot, const float* m, i64 ld, int bytes, float4* xslot,
                                          const GemvView& v, int k, int lane) {
#pragma unroll
  for (int j = 0; j < AG_BATCH; ++j) cp_async16_ring(slot + j * AG_THREADS, m + j * ld, bytes);
#if AG_X_ALONG_K
#pragma unroll
  for (int i = lane; i < AG_ROWS * AG_UNROLL; i += AG_LW) {
    const int r = i / AG_UNROLL, u = i % AG_UNROLL;
    // Rows past rs are zero-filled, never read.
    cp_async16_ring(xslot + i, v.x + (r < v.rs ? (i64)r * v.xr + k + 4 * u : 0), r < v.rs ? 16 : 0);
  }
#elif AG_ROWS >= 4
  // x(r..r+3, k + j) contiguous (xr == 1): quads of rows, the same count.
#pragma unroll
  for (int i = lane; i < AG_BATCH * (AG_ROWS / 4); i += AG_LW) {
    const int j = i / (AG_ROWS / 4), q = i % (AG_ROWS / 4);
    const int rows = min(4, v.rs - 4 * q);  // of this quad that exist; the rest zero-filled
    cp_async16_ring(xslot + i, v.x + (rows > 0 ? (i64)(k + j) * v.xk + 4 * q : 0), rows > 0 ? 4 * rows : 0);
  }
#endif
}

// acc[r] += x(r, k + j) * b[j] for the batch's steps, in k order, x from
// the warp's ring (laid out as fill_slot copies it).
__device__ __forceinline__ void fma_batch_staged(float4 (&acc)[AG_ROWS], const float4* xs,
                                                 const float4 (&b)[AG_BATCH]) {
#if AG_X_ALONG_K
#pragma unroll
  for (int r = 0; r < AG_ROWS; ++r)
#pragma unroll
    for (int u = 0; u < AG_UNROLL; ++u) {
      const float4 q = AG_PROBE == 2 ? make_float4(1.f, 0.5f, 0.25f, 2.f) : xs[r * AG_UNROLL + u];
      fma4(acc[r], q.x, b[4 * u]), fma4(acc[r], q.y, b[4 * u + 1]);
      fma4(acc[r], q.z, b[4 * u + 2]), fma4(acc[r], q.w, b[4 * u + 3]);
    }
#else
#pragma unroll
  for (int j = 0; j < AG_BATCH; ++j)
#pragma unroll
    for (int q = 0; q < AG_ROWS / 4; ++q) {
      const float4 x = xs[j * (AG_ROWS / 4) + q];
      fma4(acc[4 * q], x.x, b[j]), fma4(acc[4 * q + 1], x.y, b[j]);
      fma4(acc[4 * q + 2], x.z, b[j]), fma4(acc[4 * q + 3], x.w, b[j]);
    }
#endif
}

// The FMAs of the batch in ring slot `slot` (its first k is k); xr is the
// thread's group's x in the warp's slot 0.
__device__ __forceinline__ void ring_batch(float4 (&acc)[AG_ROWS], const GemvView& v, int slot, const float4* ring,
                                           const float4* xr, int k) {
  const float4* sl = ring + slot * AG_BATCH * AG_THREADS;
  float4 r[AG_BATCH];
#pragma unroll
  for (int j = 0; j < AG_BATCH; ++j) r[j] = sl[j * AG_THREADS];
  if (AG_PROBE == 1) return;
#if AG_X_ALONG_K || AG_ROWS >= 4
  fma_batch_staged(acc, xr + slot * AG_XSLOT, r);
#else
  fma_batch<4>(acc, v, k, r);
#endif
}

// The whole batches of [k0, k1) through the rings (16-byte path); returns
// the first k left to stream.
// Technique: a ring per thread. Each thread copies its own 16-byte pieces of
// the matrix into its own slots of shared memory (cp.async, L1 bypassed) and
// reads back only those: AG_STAGES - 1 batches in flight during the FMAs,
// and they hold no registers (with 16 rows the sums alone take
// 64 registers, which left room for one batch). A thread's pieces are
// AG_THREADS apart: a warp's 16-byte reads of a slot are consecutive,
// conflict-free. Outputs past the row's end are zero-filled by cp.async
// (source size below 16), never read.
// Technique: the vectors ride in the same ring. The lanes of a thread group
// copy the group's x for the batch into the warp's slot, 16 bytes at a time
// along x's contiguous direction (k, or the rows from 4 rows up), so the
// FMAs read them from shared memory (a broadcast per group) instead of
// waiting on L1 misses: measured, reading them through L1 cost as much as
// the whole stream at 16 rows. The group's lanes are one warp's, so a warp
// barrier over them orders the copies.
__device__ __forceinline__ int stream_ring(float4 (&acc)[AG_ROWS], const GemvView& v, int k0, int k1, i64 base,
                                           int lane, float4* ring, float4* xring) {
  const i64 col = base + 4 * lane;
  const int bytes = (int)max((i64)0, min((i64)16, 4 * ((i64)v.len - col)));
  const i64 step = (i64)AG_BATCH * v.ld;
  const float* m = v.mat + (i64)k0 * v.ld + (bytes > 0 ? col : 0);
  const int batches = (k1 - k0) / AG_BATCH;
  const int g = (threadIdx.x % 32) / AG_LW;  // this thread's group in its warp
  const unsigned group = AG_LW == 32 ? 0xffffffffu : ((1u << AG_LW) - 1) << (g * AG_LW);
#pragma unroll
  for (int s = 0; s < AG_STAGES - 1; ++s) {
    if (s < batches)
      fill_slot(ring + s * AG_BATCH * AG_THREADS, m + s * step, v.ld, bytes, xring + s * AG_XSLOT + g * AG_XQ, v,
                k0 + s * AG_BATCH, lane);
    cp_async_commit_ring();  // empty groups too: the wait count stays exact
  }
  // Technique: the batches that refill the ring run in a loop of their own
  // and the last S - 1 after it: no refill test, and no divergent branch
  // with its convergence barrier, in the loop that does nearly all the work.
  int b = 0;
  for (; b < batches - (AG_STAGES - 1); ++b) {
    cp_async_wait_ring();  // this thread's copies of batch b have landed
    __syncwarp(group);     // and the group's; the group is done with batch b - 1
    // Batch b - 1's slot takes batch b + S - 1.
    const int refill = b + AG_STAGES - 1, rs = refill % AG_STAGES;
    fill_slot(ring + rs * AG_BATCH * AG_THREADS, m + refill * step, v.ld, bytes, xring + rs * AG_XSLOT + g * AG_XQ,
              v, k0 + refill * AG_BATCH, lane);
    cp_async_commit_ring();
    ring_batch(acc, v, b % AG_STAGES, ring, xring + g * AG_XQ, k0 + b * AG_BATCH);
  }
  for (; b < batches; ++b) {
    cp_async_wait_ring();
    __syncwarp(group);
    cp_async_commit_ring();  // an empty group: the wait count stays exact
    ring_batch(acc, v, b % AG_STAGES, ring, xring + g * AG_XQ, k0 + b * AG_BATCH);
  }
  return k0 + batches * AG_BATCH;
}
#endif

// The thread's partial sums over its k slice [k0, k1), in k order.
// Technique: AG_BATCH rows of the matrix are loaded before any is used, so
// each thread keeps 16 * AG_BATCH bytes in flight; with AG_PREFETCH the next
// batch is loaded before this one is used, so the loads stay in flight
// during the FMAs too. Slices start at multiples of 4, which keeps the
// vectors' 16-byte loads aligned.
template <int VEC>
__device__ __forceinline__ void stream_slice(float4 (&acc)[AG_ROWS], const GemvView& v, int k0, int k1, i64 base,
                                             int lane, bool full, float4* ring) {
  int k = k0;
#if AG_STAGES > 0
  if (VEC == 4)
    k = stream_ring(acc, v, k0, k1, base, lane, ring + threadIdx.x,
                    ring + AG_MAT_RING + threadIdx.x / 32 * AG_STAGES * AG_XSLOT);
#endif
  const float* m = v.mat + (i64)k * v.ld + (VEC == 4 ? base + 4 * lane : base + lane);
#if AG_PREFETCH
  float4 b[AG_BATCH];
  if (k + AG_BATCH <= k1)
#pragma unroll
    for (int j = 0; j < AG_BATCH; ++j) b[j] = load_row<VEC>(m + j * v.ld, v, base, lane, full);
  for (; k + AG_BATCH <= k1; k += AG_BATCH, m += AG_BATCH * v.ld) {
    float4 next[AG_BATCH];
    if (k + 2 * AG_BATCH <= k1)
#pragma unroll
      for (int j = 0; j < AG_BATCH; ++j) next[j] = load_row<VEC>(m + (AG_BATCH + j) * v.ld, v, base, lane, full);
    fma_batch<VEC>(acc, v, k, b);
#pragma unroll
    for (int j = 0; j < AG_BATCH; ++j) b[j] = next[j];
  }
#else
  // After a ring only the last K % AG_BATCH steps are left (below); without
  // the test ptxas holds this loop's registers anyway (measured: 168 -> 164
  // at 16 rows, 134 -> 93 for the 8-row winner).
  for (; !(AG_STAGES > 0 && VEC == 4) && k + AG_BATCH <= k1; k += AG_BATCH, m += AG_BATCH * v.ld) {
    float4 b[AG_BATCH];
#pragma unroll
    for (int j = 0; j < AG_BATCH; ++j) b[j] = load_row<VEC>(m + j * v.ld, v, base, lane, full);
    fma_batch<VEC>(acc, v, k, b);
  }
#endif
  for (; k < k1; ++k, m += v.ld) {
    const float4 b1 = load_row<VEC>(m, v, base, lane, full);
#pragma unroll
    for (int r = 0; r < AG_ROWS; ++r) fma4(acc[r], __ldg(v.x + (i64)min(r, v.rs - 1) * v.xr + (i64)k * v.xk), b1);
  }
}

template <int VEC>
__device__ __forceinline__ void store_outputs(const GemvView& v, int r, i64 base, int lane, float alpha,
                                              const float4& s, float beta) {
  const float e[4] = {s.x, s.y, s.z, s.w};
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const i64 i = out_index<VEC>(base, lane, j);
    if (i < v.len) store(v.y + r * v.yr + i * v.yi, alpha, e[j], beta);
  }
}

// The thread groups fold AG_FOLD rows of every thread's sums at a time (at
// most 32 KB), in the dynamic shared memory the rings used before
// (GemvFamily::smem_bytes on the host sizes both).
#define AG_FOLD (AG_ROWS < 2048 / AG_THREADS ? AG_ROWS : 2048 / AG_THREADS)

// Partial sums of split-K: part[(z * rs + r) * quads + quad], a quad per
// thread along the outputs (its 4 outputs, in either order), AG_LW per group.
__device__ __forceinline__ i64 part_quads(const GemvView& v) {
  return ((i64)v.len + 4 * AG_LW - 1) / (4 * AG_LW) * AG_LW;
}

// Row r of the 4 outputs at (base, lane), summed over this block's k: into
// C, or into the workspace's partial sums of slice blockIdx.y.
template <int VEC>
__device__ __forceinline__ void put_sums(const GemvView& v, int r, i64 base, int lane, float alpha, const float4& s,
                                         float beta, float* workspace) {
  if (r >= v.rs || base >= v.len) return;
#if AG_SPLIT_K == 1
  store_outputs<VEC>(v, r, base, lane, alpha, s, beta);
#else
  float4* part = reinterpret_cast<float4*>(workspace + AG_WS_SKIP);
  part[((i64)blockIdx.y * v.rs + r) * part_quads(v) + base / 4 + lane] = s;
#endif
}

// Technique: every thread of the block folds (row, quad) elements of the
// block's outputs over the groups g = 0, 1, ... in order, kg loads each: the
// same sums in the same order as one group adding the others' rows, without
// (kg - 1) * rows loads in a row for that group's threads.
template <int VEC>
__device__ __forceinline__ void fold_groups(const GemvView& v, float4 (&acc)[AG_ROWS], int cw, int kg, float alpha,
                                            float beta, float* workspace, float4* fold) {
  __syncthreads();  // every thread is done with its ring
#pragma unroll
  for (int r0 = 0; r0 < AG_ROWS; r0 += AG_FOLD) {
    if (r0 >= v.rs) continue;  // uniform: rs is the block's
#pragma unroll
    for (int r = 0; r < AG_FOLD; ++r) fold[(kg * AG_FOLD + r) * AG_CW + cw] = acc[r0 + r];
    __syncthreads();
    for (int e = threadIdx.x; e < AG_FOLD * AG_CW; e += AG_THREADS) {
      float4 s = fold[e];
#pragma unroll 8
      for (int g = 1; g < AG_KGROUPS; ++g) {
        const float4 p = fold[g * AG_FOLD * AG_CW + e];
        s.x += p.x, s.y += p.y, s.z += p.z, s.w += p.w;
      }
      const int c = e % AG_CW, l = c % AG_LW;
      put_sums<VEC>(v, r0 + e / AG_CW, ((i64)blockIdx.x * AG_CW + c - l) * 4, l, alpha, unrotate(s), beta,
                    workspace);
    }
    __syncthreads();
  }
}

// Technique: a block is AG_KGROUPS groups of threads along k over the same
// outputs (more bytes in flight per SM without more partial sums), folded in
// order through shared memory; K is split over blockIdx.y so that a short
// output still spreads over every SM; the partial sums go to the workspace
// and the last block of each output group (counted with an atomic in the
// workspace's counter area, which it resets) adds them in order z = 0, 1, ...
// with every thread of the block and 16 loads in flight: deterministic, one
// launch.
template <int VEC>
__device__ __forceinline__ void axpy(const GemvView& v, int K, float alpha, float beta, float* workspace,
                                     float4* dyn, int& is_last) {
  const int cw = threadIdx.x % AG_CW, kg = threadIdx.x / AG_CW, lane = cw % AG_LW;
  const i64 base = ((i64)blockIdx.x * AG_CW + cw - lane) * 4;  // this warp's (group's) first output
  const bool full = base + 4 * AG_LW <= v.len;
  // K slices: AG_KGROUPS per block, AG_SPLIT_K blocks; lengths multiples of 4.
  const i64 slices = (i64)AG_SPLIT_K * AG_KGROUPS, slice = (i64)blockIdx.y * AG_KGROUPS + kg;
  const i64 per = ((K + slices - 1) / slices + 3) / 4 * 4;
  const int k0 = (int)min((i64)K, slice * per), k1 = (int)min((i64)K, slice * per + per);
  float4 acc[AG_ROWS];
#pragma unroll
  for (int r = 0; r < AG_ROWS; ++r) acc[r] = make_float4(0.f, 0.f, 0.f, 0.f);
  if (alpha != 0.f && base < v.len)  // alpha == 0 never reads A or B
    stream_slice<VEC>(acc, v, k0, k1, base, lane, full, dyn);
#if AG_KGROUPS > 1
  fold_groups<VEC>(v, acc, cw, kg, alpha, beta, workspace, dyn);
#else
#pragma unroll
  for (int r = 0; r < AG_ROWS; ++r) put_sums<VEC>(v, r, base, lane, alpha, unrotate(acc[r]), beta, workspace);
#endif
#if AG_SPLIT_K > 1
  unsigned* counters = reinterpret_cast<unsigned*>(workspace);
  const float4* part = reinterpret_cast<const float4*>(workspace + AG_WS_SKIP);
  const i64 quads = part_quads(v), quad = base / 4 + lane;
  __threadfence();  // partials visible device-wide before the count
  __syncthreads();
  if (threadIdx.x == 0) is_last = atomicAdd(&counters[blockIdx.x], 1u) == AG_SPLIT_K - 1;
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  // Every thread of the last block folds rows r = kg, kg + AG_KGROUPS, ...
  if (base < v.len)
#pragma unroll
    for (int r0 = 0; r0 < AG_ROWS; r0 += AG_KGROUPS) {
      const int r = r0 + kg;
      if (r >= v.rs) break;
      float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
      for (int z0 = 0; z0 < AG_SPLIT_K; z0 += 16) {
        float4 p[16];
#pragma unroll
        for (int z = 0; z < 16; ++z)
          if (z0 + z < AG_SPLIT_K) p[z] = __ldcg(&part[((i64)(z0 + z) * v.rs + r) * quads + quad]);
#pragma unroll
        for (int z = 0; z < 16; ++z)
          if (z0 + z < AG_SPLIT_K) s.x += p[z].x, s.y += p[z].y, s.z += p[z].z, s.w += p[z].w;
      }
      store_outputs<VEC>(v, r, base, lane, alpha, s, beta);
    }
  if (threadIdx.x == 0) counters[blockIdx.x] = 0u;  // the counter area stays zero
#endif
}

extern "C" __global__ void __launch_bounds__(AG_THREADS)
    agemv(int M, int N, int K, float alpha, const float* __restrict__ A, i64 lda, const float* __restrict__ B,
          i64 ldb, float beta, float* __restrict__ C, i64 ldc, float* __restrict__ workspace) {
  extern __shared__ float4 dyn[];  // the rings, then the groups' fold
  __shared__ int is_last;
  begin_after_previous_kernel();
  const GemvView v = view(M, N, A, lda, B, ldb, C, ldc);
#if AG_VEC == 4
  axpy<4>(v, K, alpha, beta, workspace, dyn, is_last);
#else
  // Technique: the unaligned class is a promise about the problem, not
  // these pointers: where the matrix and the vectors' contiguous direction
  // allow 16-byte loads (an N = 1 problem's C and B have stride 1, its
  // matrix may be aligned), the 16-byte path runs. The test is uniform.
  const bool x_ok = AG_X_ALONG_K ? aligned16(v.x) && v.xr % 4 == 0 : AG_ROWS < 4 || (aligned16(v.x) && v.xk % 4 == 0);
  if (aligned16(v.mat) && v.ld % 4 == 0 && x_ok)
    axpy<4>(v, K, alpha, beta, workspace, dyn, is_last);
  else
    axpy<1>(v, K, alpha, beta, workspace, dyn, is_last);
#endif
}
#endif
