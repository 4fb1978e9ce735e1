// The C boundary: no exception crosses it (Dispatcher methods are noexcept).
#include "autogemm/autogemm.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "autogemm/dispatcher.h"

using autogemm::Dispatcher;
using autogemm::GemmArgs;

extern "C" {

const char* autogemm_status_string(autogemm_status s) {
  switch (s) {
    case AUTOGEMM_SUCCESS: return "success";
    case AUTOGEMM_INVALID_LAYOUT: return "invalid argument: layout must be row-major or column-major";
    case AUTOGEMM_INVALID_TRANS_A: return "invalid argument: trans_a is not a transpose value";
    case AUTOGEMM_INVALID_TRANS_B: return "invalid argument: trans_b is not a transpose value";
    case AUTOGEMM_INVALID_M: return "invalid argument: M is negative";
    case AUTOGEMM_INVALID_N: return "invalid argument: N is negative";
    case AUTOGEMM_INVALID_K: return "invalid argument: K is negative";
    case AUTOGEMM_INVALID_LDA: return "invalid argument: lda is smaller than the stored rows of A allow";
    case AUTOGEMM_INVALID_LDB: return "invalid argument: ldb is smaller than the stored rows of B allow";
    case AUTOGEMM_INVALID_LDC: return "invalid argument: ldc is smaller than the stored rows of C allow";
    case AUTOGEMM_NULL_A: return "invalid argument: A is a null pointer";
    case AUTOGEMM_NULL_B: return "invalid argument: B is a null pointer";
    case AUTOGEMM_NULL_C: return "invalid argument: C is a null pointer";
    case AUTOGEMM_NO_DEVICE: return "no CUDA driver or no GPU is available";
    case AUTOGEMM_NO_CONTEXT: return "no CUDA context is current on the calling thread";
    case AUTOGEMM_CUDA_ERROR: return "a CUDA driver call failed";
    case AUTOGEMM_COMPILE_ERROR: return "NVRTC could not compile a kernel";
    case AUTOGEMM_OUT_OF_MEMORY: return "out of memory";
    case AUTOGEMM_CACHE_ERROR: return "the tuning cache file cannot be used; running on built-in defaults";
    case AUTOGEMM_INTERNAL_ERROR: return "internal error";
  }
  return "unknown status";
}

autogemm_status autogemm_init(const char* cache_path) { return Dispatcher::instance().init(cache_path); }

void autogemm_shutdown(void) { Dispatcher::instance().shutdown(); }

autogemm_status autogemm_sgemm(autogemm_layout layout, autogemm_transpose trans_a,
                               autogemm_transpose trans_b, int m, int n, int k, float alpha,
                               const float* a, int lda, const float* b, int ldb, float beta,
                               float* c, int ldc, struct CUstream_st* stream) {
  const GemmArgs g{layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc};
  return Dispatcher::instance().sgemm(g, stream);
}

void autogemm_get_stats(autogemm_stats* out) {
  if (out) Dispatcher::instance().stats(out);
}

autogemm_status autogemm_describe(autogemm_layout layout, autogemm_transpose trans_a,
                                  autogemm_transpose trans_b, int m, int n, int k,
                                  const float* a, int lda, const float* b, int ldb,
                                  const float* c, int ldc, char* config, unsigned long size) {
  const GemmArgs g{layout, trans_a, trans_b, m, n, k, 1.f, a, lda, b, ldb, 0.f, const_cast<float*>(c), ldc};
  std::string text;
  const autogemm_status st = Dispatcher::instance().describe(g, &text);
  if (st == AUTOGEMM_SUCCESS && config && size > 0) {
    const size_t n_copy = std::min<size_t>(text.size(), size - 1);
    std::memcpy(config, text.data(), n_copy);
    config[n_copy] = '\0';
  }
  return st;
}

}  // extern "C"
