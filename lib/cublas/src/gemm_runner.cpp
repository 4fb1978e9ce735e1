#include "gemm_runner.h"

#include "autogemm/autogemm.h"

namespace autogemm::cublas {

RunOutcome run_gemm(const GemmCall& g, float alpha, const float* a, const float* b, float beta, float* c,
                    CUstream stream, LentWorkspace lent, std::string* what) {
  const autogemm_transpose ta = *to_transpose(g.trans_a), tb = *to_transpose(g.trans_b);
  // One product is a batch of one with zero strides (the plain call's plan).
  const bool one = g.batch == 1;
  const autogemm_status st = autogemm_sgemm_strided_batched_workspace(
      g.layout, ta, tb, int(g.m), int(g.n), int(g.k), alpha, a, int(g.lda), one ? 0 : g.stride_a, b, int(g.ldb),
      one ? 0 : g.stride_b, beta, c, int(g.ldc), one ? 0 : g.stride_c, int(g.batch), lent.ptr, lent.bytes, stream);
  if (st == AUTOGEMM_SUCCESS) return RunOutcome::Done;
  *what = std::string(autogemm_status_string(st)) + ": " + autogemm_last_error();
  // Argument statuses come before AUTOGEMM_NO_DEVICE (autogemm.h).
  return st < AUTOGEMM_NO_DEVICE ? RunOutcome::Refused : RunOutcome::Failed;
}

}  // namespace autogemm::cublas
