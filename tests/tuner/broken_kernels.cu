// broken_kernels.cu — TEST ONLY: deliberately faulting stand-ins for
// agemm_tiled (kernel_templates/sgemm_tiled.cu), injected into the tuner
// through TuneOptions::injected to prove that a candidate which traps, reads
// far out of bounds or never finishes costs a worker process, not the tuning.
//
// Same entry name, signature and -D parameters as the real template (so the
// tuner loads and launches it exactly like a real candidate); the body is
// chosen by AG_BROKEN_MODE:
//   1  __trap()                                 -> CUDA_ERROR_LAUNCH_FAILED (sticky)
//   2  read 2^40 floats past A                  -> CUDA_ERROR_ILLEGAL_ADDRESS (sticky)
//   3  spin forever                             -> never completes (timeout)
// Each mode also defines an empty marker kernel (agemm_broken_<mode>), so the
// fake worker of the CPU tests can tell from the cubin which fault to act out.
// Never embedded in the library; never a winner (tuner.cpp skips injected).

#ifndef AG_BROKEN_MODE
#error "AG_BROKEN_MODE must be 1 (trap), 2 (out-of-bounds read) or 3 (hang)"
#endif

#define AG_THREADS ((AG_BM / AG_TM) * (AG_BN / AG_TN))
typedef long long i64;

extern "C" __global__ void __launch_bounds__(AG_THREADS)
    agemm_tiled(int M, int N, int K, float alpha, const float* __restrict__ A, i64 lda,
                const float* __restrict__ B, i64 ldb, float beta, float* __restrict__ C, i64 ldc,
                float* __restrict__ workspace) {
  const int tid = threadIdx.x;
#if AG_BROKEN_MODE == 1
  if (M > 0) __trap();
#elif AG_BROKEN_MODE == 2
  // Far beyond any allocation (4 TiB past A), and the value is stored, so
  // the load cannot be optimised away.
  const float* far = A + ((i64)1 << 40) + tid;
  if (M > 0 && N > 0) C[tid % N] = far[0] * alpha;
#elif AG_BROKEN_MODE == 3
  // clock64() is volatile inline assembly: the compiler can neither hoist
  // it nor prove the loop finite, so the loop really spins.
  if (M > 0) {
    while (clock64() != -1LL) {
    }
    C[tid % N] = 0.f;
  }
#else
#error "unknown AG_BROKEN_MODE"
#endif
  (void)K, (void)lda, (void)B, (void)ldb, (void)beta, (void)ldc, (void)workspace, (void)tid;
}

#if AG_BROKEN_MODE == 1
extern "C" __global__ void agemm_broken_trap() {}
#elif AG_BROKEN_MODE == 2
extern "C" __global__ void agemm_broken_oob() {}
#else
extern "C" __global__ void agemm_broken_hang() {}
#endif
