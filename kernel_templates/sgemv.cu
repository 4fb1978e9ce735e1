// sgemv.cu — matrix-vector products: the GEMMs with M == 1 or N == 1.
//
// Computes, in autogemm's canonical form (row-major, 64-bit leading dims),
//     C[M x N] = alpha * op(A)[M x K] * op(B)[K x N] + beta * C
// when one output dimension is 1, as y = alpha * (matrix . x) + beta * y:
//   AG_ONE == 0 (M == 1): y = C[0, :] (N long), x = op(A)[0, :], matrix op(B)
//   AG_ONE == 1 (N == 1): y = C[:, 0] (M long), x = op(B)[:, 0], matrix op(A)
// (op(A)/op(B) as in sgemm_tiled.cu). Such a product reads the whole matrix
// once and does 2 FLOP per element: it is bound by memory bandwidth, so the
// kernels only stream the matrix with wide loads and enough bytes in flight.
// Which of the two kernels runs follows from the layout of the matrix:
//   dot:  the matrix's rows along k are contiguous (one output = one row):
//         warps stream rows and reduce with shuffles;
//   axpy: the matrix's contiguous direction is the output's: each thread owns
//         4 consecutive outputs, blocks split K (blockIdx.y) and the last
//         block of each group of outputs adds the partial sums in order.
//
// ---- Parameters ----------------------------------------------------------
// AG_ONE        which output dimension is 1 (see above)
// AG_THREADS    threads per block
// AG_KGROUPS    axpy only: groups of threads along k within a block (1 for dot)
// AG_SPLIT_K    axpy only: K slices (blockIdx.y), reduced deterministically
//               through the workspace; 1 for dot
// AG_VEC        4: 16-byte loads of the matrix (aligned class); 1: any
// AG_TRANS_A, AG_TRANS_B  operand layouts
// ---------------------------------------------------------------------------

#ifndef AG_ONE
#error "AG_ONE must be defined"
#endif

typedef long long i64;

// The matrix's layout decides the kernel (see above).
#if AG_ONE == 0
#define AG_DOT AG_TRANS_B
#else
#define AG_DOT (!AG_TRANS_A)
#endif

// Floats at the start of the workspace that are counters (kWorkspaceCounterFloats).
#define AG_WS_SKIP 65536

struct GemvView {
  const float* mat;  // the matrix
  i64 ld;            // its leading dimension
  const float* x;    // the vector, stride xs
  i64 xs;
  float* y;          // the output, stride ys
  i64 ys;
  int len;           // outputs
};

__device__ __forceinline__ GemvView view(int M, int N, const float* A, i64 lda, const float* B, i64 ldb, float* C,
                                         i64 ldc) {
  GemvView v;
#if AG_ONE == 0
  v.mat = B, v.ld = ldb, v.x = A, v.xs = AG_TRANS_A ? lda : 1, v.y = C, v.ys = 1, v.len = N;
#else
  v.mat = A, v.ld = lda, v.x = B, v.xs = AG_TRANS_B ? 1 : ldb, v.y = C, v.ys = ldc, v.len = M;
#endif
  return v;
}

__device__ __forceinline__ void store(float* y, float alpha, float sum, float beta) {
  *y = beta != 0.f ? fmaf(beta, *y, alpha * sum) : alpha * sum;  // beta == 0 never reads C
}

#if AG_DOT
// Technique: one warp per output row, 16-byte loads, four in flight per lane
// (the loop is unrolled by 4), shuffle reduction: the row streams at the
// memory system's rate and no shared memory or barrier is needed.
extern "C" __global__ void __launch_bounds__(AG_THREADS)
    agemv(int M, int N, int K, float alpha, const float* __restrict__ A, i64 lda, const float* __restrict__ B,
          i64 ldb, float beta, float* __restrict__ C, i64 ldc) {
  const GemvView v = view(M, N, A, lda, B, ldb, C, ldc);
  const int lane = threadIdx.x % 32;
  const i64 row = (i64)blockIdx.x * (AG_THREADS / 32) + threadIdx.x / 32;
  if (row >= v.len) return;
  const float* r = v.mat + row * v.ld;
  float sum = 0.f;
  if (alpha != 0.f) {  // alpha == 0 never reads A or B
    int k = 0;
    if (AG_VEC == 4 && v.xs == 1) {
#pragma unroll 4
      for (; k + 128 <= K; k += 128) {
        const float4 a = __ldg(reinterpret_cast<const float4*>(r + k) + lane);
        const float4 b = __ldg(reinterpret_cast<const float4*>(v.x + k) + lane);
        sum = fmaf(a.x, b.x, sum), sum = fmaf(a.y, b.y, sum), sum = fmaf(a.z, b.z, sum), sum = fmaf(a.w, b.w, sum);
      }
    }
#pragma unroll 4
    for (k += lane; k < K; k += 32) sum = fmaf(__ldg(r + k), __ldg(v.x + k * v.xs), sum);
  }
#pragma unroll
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (lane == 0) store(v.y + row * v.ys, alpha, sum, beta);
}
#else
// Technique: outputs contiguous in memory, each thread 4 of them (one
// 16-byte load per k in the aligned class). A block is AG_KGROUPS groups of
// threads along k over the same outputs (more bytes in flight per SM without
// more partial sums), folded in order through shared memory; K is split
// over blockIdx.y so that a short output still spreads over every SM; the
// partial sums go to the workspace and the last block of each output group
// (counted with an atomic in the workspace's counter area, which it resets)
// adds them in order z = 0, 1, ...: deterministic, one launch.
#define AG_CW (AG_THREADS / AG_KGROUPS)  // threads along the outputs
extern "C" __global__ void __launch_bounds__(AG_THREADS)
    agemv(int M, int N, int K, float alpha, const float* __restrict__ A, i64 lda, const float* __restrict__ B,
          i64 ldb, float beta, float* __restrict__ C, i64 ldc, float* __restrict__ workspace) {
  const GemvView v = view(M, N, A, lda, B, ldb, C, ldc);
  const int cw = threadIdx.x % AG_CW, kg = threadIdx.x / AG_CW;
  const i64 i0 = ((i64)blockIdx.x * AG_CW + cw) * 4;
  const int per = (K + AG_SPLIT_K - 1) / AG_SPLIT_K;
  const int k_begin = (int)min((i64)K, (i64)blockIdx.y * per), k_end = (int)min((i64)K, (i64)k_begin + per);
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  if (alpha != 0.f && i0 < v.len) {  // alpha == 0 never reads A or B
    const float* col = v.mat + (i64)(k_begin + kg) * v.ld + i0;
    const i64 step = AG_KGROUPS * v.ld;
    const bool full = i0 + 4 <= v.len;
#pragma unroll 8
    for (int k = k_begin + kg; k < k_end; k += AG_KGROUPS, col += step) {
      const float xk = __ldg(v.x + k * v.xs);
      float4 a;
      if (AG_VEC == 4 && full) {
        a = __ldg(reinterpret_cast<const float4*>(col));
      } else {
        a.x = __ldg(col);
        a.y = i0 + 1 < v.len ? __ldg(col + 1) : 0.f;
        a.z = i0 + 2 < v.len ? __ldg(col + 2) : 0.f;
        a.w = i0 + 3 < v.len ? __ldg(col + 3) : 0.f;
      }
      acc.x = fmaf(xk, a.x, acc.x), acc.y = fmaf(xk, a.y, acc.y);
      acc.z = fmaf(xk, a.z, acc.z), acc.w = fmaf(xk, a.w, acc.w);
    }
  }
#if AG_KGROUPS > 1
  __shared__ float4 groups[AG_KGROUPS][AG_CW];
  groups[kg][cw] = acc;
  __syncthreads();
  if (kg == 0) {
#pragma unroll
    for (int g = 1; g < AG_KGROUPS; ++g) {
      const float4 p = groups[g][cw];
      acc.x += p.x, acc.y += p.y, acc.z += p.z, acc.w += p.w;
    }
  }
#endif
#if AG_SPLIT_K == 1
  const float sums[4] = {acc.x, acc.y, acc.z, acc.w};
  if (kg == 0)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (i0 + e < v.len) store(v.y + (i0 + e) * v.ys, alpha, sums[e], beta);
#else
  __shared__ int is_last;
  unsigned* counters = reinterpret_cast<unsigned*>(workspace);
  float* part = workspace + AG_WS_SKIP;
  const i64 len4 = ((i64)v.len + 3) / 4 * 4;
  if (kg == 0 && i0 < v.len) *reinterpret_cast<float4*>(part + blockIdx.y * len4 + i0) = acc;
  __threadfence();  // partials visible device-wide before the count
  __syncthreads();
  if (threadIdx.x == 0) is_last = atomicAdd(&counters[blockIdx.x], 1u) == AG_SPLIT_K - 1;
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  if (kg == 0 && i0 < v.len) {
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
    for (int z = 0; z < AG_SPLIT_K; ++z) {
      const float4 p = __ldcg(reinterpret_cast<const float4*>(part + z * len4 + i0));
      s.x += p.x, s.y += p.y, s.z += p.z, s.w += p.w;
    }
    const float total[4] = {s.x, s.y, s.z, s.w};
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (i0 + e < v.len) store(v.y + (i0 + e) * v.ys, alpha, total[e], beta);
  }
  if (threadIdx.x == 0) counters[blockIdx.x] = 0u;  // the counter area stays zero
#endif
}
#endif
