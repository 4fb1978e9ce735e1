#include "gemm_runner.h"

#include "autogemm/autogemm.h"

namespace autogemm::cublas {

RunOutcome run_gemm(const GemmCall& g, float alpha, const float* a, const float* b, float beta, float* c,
                    CUstream stream, std::string* what) {
  const autogemm_transpose ta = *to_transpose(g.trans_a), tb = *to_transpose(g.trans_b);
  const autogemm_status st =
      g.batch == 1
          ? autogemm_sgemm(g.layout, ta, tb, int(g.m), int(g.n), int(g.k), alpha, a, int(g.lda), b, int(g.ldb), beta,
                           c, int(g.ldc), stream)
          : autogemm_sgemm_strided_batched(g.layout, ta, tb, int(g.m), int(g.n), int(g.k), alpha, a, int(g.lda),
                                           g.stride_a, b, int(g.ldb), g.stride_b, beta, c, int(g.ldc), g.stride_c,
                                           int(g.batch), stream);
  if (st == AUTOGEMM_SUCCESS) return RunOutcome::Done;
  *what = std::string(autogemm_status_string(st)) + ": " + autogemm_last_error();
  // Argument statuses come before AUTOGEMM_NO_DEVICE (autogemm.h).
  return st < AUTOGEMM_NO_DEVICE ? RunOutcome::Refused : RunOutcome::Failed;
}

}  // namespace autogemm::cublas
