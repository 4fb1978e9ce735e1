// sgemm_, the library's one exported name: the reference BLAS SGEMM for
// Fortran callers (gfortran ABI, LP64 integers). Bad arguments go to the
// program's xerbla_ exactly as the reference reports them; valid calls run on
// autogemm, else on the next sgemm_ in the process, else on the host loop. It
// never aborts, never writes to stdout, and leaves the caller's
// floating-point environment as it was (fp_env_guard.h).
#include <string>

#include "autogemm/log.h"
#include "blas_stats.h"
#include "fallback.h"
#include "fortran_call.h"
#include "fp_env_guard.h"
#include "gpu_sgemm.h"
#include "host_sgemm.h"

extern "C" {
/// The program's error handler (sblat3 defines its own; libblas has the
/// reference one). Weak, so that the library still loads where there is
/// none: then the error is logged instead.
void xerbla_(const char* name, const int* info, size_t name_len) __attribute__((weak));
}

namespace autogemm::blas {
namespace {

/// The reference's report of a bad argument: XERBLA('SGEMM ', INFO).
void report_bad_argument(int info) {
  count_bad_argument();
  if (xerbla_) return xerbla_("SGEMM ", &info, 6);
  log().error("BLAS drop-in: sgemm_ parameter number {} had an illegal value (no xerbla_ in the process)", info);
}

/// A valid call that is more than scaling C.
void compute(const FortranSgemm& g) {
  if (!routing_enabled()) return fall_back(g, Why::Off, "AUTOGEMM_BLAS_OFF is set");
  std::string why;
  GpuOutcome outcome = GpuOutcome::Cuda;
  try {
    outcome = run_on_autogemm(g, &why);
  } catch (...) {
    // Out of memory for the error's text, on a failure path: C is untouched.
  }
  switch (outcome) {
    case GpuOutcome::Done: return count_routed();
    case GpuOutcome::NoGpu: return fall_back(g, Why::NoGpu, why.c_str());
    case GpuOutcome::Cuda: return fall_back(g, Why::Cuda, why.c_str());
    case GpuOutcome::Autogemm: return fall_back(g, Why::Autogemm, why.c_str());
  }
}

}  // namespace
}  // namespace autogemm::blas

extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                       const float* beta, float* c, const int* ldc, size_t, size_t) {
  using namespace autogemm::blas;
  const autogemm::FpEnvGuard fp;
  // Only the first character of TRANSA and TRANSB counts (the hidden
  // lengths are not read: C callers often leave them out).
  FortranSgemm g;
  g.trans_a = *transa, g.trans_b = *transb;
  g.m = *m, g.n = *n, g.k = *k, g.lda = *lda, g.ldb = *ldb, g.ldc = *ldc;
  try {
    if (const int info = check_info(g)) return report_bad_argument(info);
    g.alpha = *alpha, g.beta = *beta, g.a = a, g.b = b, g.c = c;
    if (is_quick_return(g)) return count_quick_return();
    if (only_scales_c(g)) {
      scale_c(g);
      return count_scaled_on_host();
    }
    compute(g);
  } catch (...) {
    // Nothing above lets an exception out (the counters never throw, the
    // fallback catches its log line); this keeps one from ever reaching a
    // Fortran caller, where it would abort the program.
  }
}
