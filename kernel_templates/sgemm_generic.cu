// sgemm_generic.cu — the fallback SGEMM that can implement any problem.
//
// Same contract and canonical form as sgemm_tiled.cu (row-major, 64-bit
// leading dimensions, op(A) selected by AG_TRANS_A, op(B) by AG_TRANS_B), with
// no alignment, size or resource requirement beyond 256 threads and 2 KiB of
// static shared memory, so it runs on any problem and any CUDA GPU. It is
// what autogemm launches when no tuned or default tiled kernel can be used.
//
// ---- Parameters ----------------------------------------------------------
// AG_TRANS_A, AG_TRANS_B  operand layouts (0 or 1)
// The workspace argument is unused: the arguments are those every family's
// kernel shares (kernel_family.h), a strided batch's strides after it.
// ---------------------------------------------------------------------------

#include "agemm_device.cuh"  // the shared device helpers (part of this template's hash)

#define AG_G 16  // 16 x 16 threads, one C element each, 16-deep K slices

// Technique: classic shared-memory tiling. Each K slice of A and B is read
// from global memory once per block instead of once per thread.
extern "C" __global__ void __launch_bounds__(AG_G * AG_G)
    agemm_generic(int M, int N, int K, float alpha, const float* __restrict__ A, i64 lda,
                  const float* __restrict__ B, i64 ldb, float beta, float* __restrict__ C, i64 ldc,
                  float* __restrict__ workspace, i64 stride_a, i64 stride_b, i64 stride_c) {
  __shared__ float As[AG_G][AG_G + 1];  // +1: no bank conflicts on column reads
  __shared__ float Bs[AG_G][AG_G + 1];
  // Technique: a programmatic dependent launch (the host launches it with
  // the programmatic-serialization attribute): wait for the kernel before
  // it in the stream before touching memory, then let the next one launch.
  begin_after_previous_kernel();
  const int tx = threadIdx.x % AG_G, ty = threadIdx.x / AG_G;
  // One linear grid dimension: blockIdx.y would cap M at 65535 tiles.
  // Index math in 64 bits: M, N, K up to 2^31-1 and matrices of more than
  // 2^31 elements must not wrap (N + 15, m = tile * 16 + ty, k0 + 16 would).
  const i64 tiles_n = ((i64)N + AG_G - 1) / AG_G;
  const i64 m = ((i64)blockIdx.x / tiles_n) * AG_G + ty;
  const i64 n = ((i64)blockIdx.x % tiles_n) * AG_G + tx;
  // Technique: a strided batch rides on blockIdx.z: block z computes product
  // z, its operands z strides further on (0 and one product for a plain call).
  A += (i64)blockIdx.z * stride_a;
  B += (i64)blockIdx.z * stride_b;
  C += (i64)blockIdx.z * stride_c;
  float acc = 0.f;
  // alpha == 0 never reads A or B (reference-BLAS rule), so NaN there cannot leak.
  const i64 k_stop = alpha != 0.f ? K : 0;
  for (i64 k0 = 0; k0 < k_stop; k0 += AG_G) {
    // Thread (ty, tx) loads A(m, k0+tx) and B(k0+ty, n).
    const i64 ka = k0 + tx, kb = k0 + ty;
#if AG_TRANS_A
    As[ty][tx] = (m < M && ka < K) ? A[ka * lda + m] : 0.f;
#else
    As[ty][tx] = (m < M && ka < K) ? A[m * lda + ka] : 0.f;
#endif
#if AG_TRANS_B
    Bs[ty][tx] = (n < N && kb < K) ? B[n * ldb + kb] : 0.f;
#else
    Bs[ty][tx] = (n < N && kb < K) ? B[kb * ldb + n] : 0.f;
#endif
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < AG_G; ++kk) acc = fmaf(As[ty][kk], Bs[kk][tx], acc);
    __syncthreads();
  }
  if (m < M && n < N) {
    float* c = C + m * ldc + n;
    // beta == 0 never reads C, so NaN or garbage there cannot leak.
    *c = beta != 0.f ? fmaf(beta, *c, alpha * acc) : alpha * acc;
  }
}

