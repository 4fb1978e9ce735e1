// The C boundary. Every exported function starts with an FpEnvGuard (the
// caller's floating-point environment is left exactly as it was, see
// fp_env_guard.h), and every one that returns a status runs its body through
// api_call(): the one place where an exception from inside autogemm becomes a
// status (status_of) and the text of autogemm_last_error. No exception
// crosses this file.
#include "autogemm/autogemm.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "autogemm/cuda_driver.h"
#include "autogemm/dispatcher.h"
#include "autogemm/nvrtc_compiler.h"
#include "autogemm/tuning_cache.h"
#include "autogemm/gemm_args.h"
#include "fp_env_guard.h"

using autogemm::Dispatcher;
using autogemm::FpEnvGuard;
using autogemm::GemmArgs;
using autogemm::PlanDescription;

namespace {

/// The calling thread's autogemm_last_error text. A function-local
/// thread_local: built on a thread's first use, so threads that never fail
/// (or never call autogemm) pay nothing; cleared, not freed, on success, so
/// the hot path never allocates.
std::string& last_error_text() {
  thread_local std::string text;
  return text;
}

autogemm_status status_of(const std::exception& e) {
  if (auto* a = dynamic_cast<const autogemm::ApiError*>(&e)) return a->status();
  if (auto* c = dynamic_cast<const autogemm::CudaError*>(&e)) {
    if (c->code() == CUDA_ERROR_OUT_OF_MEMORY) return AUTOGEMM_OUT_OF_MEMORY;
    if (c->code() == CUDA_ERROR_NO_DEVICE) return AUTOGEMM_NO_DEVICE;
    return AUTOGEMM_CUDA_ERROR;
  }
  if (dynamic_cast<const autogemm::CompileError*>(&e)) return AUTOGEMM_COMPILE_ERROR;
  if (dynamic_cast<const autogemm::CacheError*>(&e)) return AUTOGEMM_CACHE_ERROR;
  if (dynamic_cast<const std::bad_alloc*>(&e)) return AUTOGEMM_OUT_OF_MEMORY;
  return AUTOGEMM_INTERNAL_ERROR;
}

/// Runs the body of a status-returning API function: success empties the
/// thread's last error, any exception sets it and becomes the status.
template <class Body>
autogemm_status api_call(Body&& body) noexcept {
  std::string& text = last_error_text();
  try {
    body();
    text.clear();
    return AUTOGEMM_SUCCESS;
  } catch (const std::exception& e) {
    const autogemm_status st = status_of(e);
    try {
      text = *e.what() ? e.what() : autogemm_status_string(st);
    } catch (...) {
      text.clear();  // no memory even for the message: the status must do
    }
    return st;
  } catch (...) {
    text.clear();
    return AUTOGEMM_INTERNAL_ERROR;
  }
}

/// The MathMode of a C mode value; ApiError for anything else (DEFAULT is
/// only handled by the caller where `default_ok`).
autogemm::MathMode math_mode_of(autogemm_math_mode mode, bool default_ok) {
  switch (int(mode)) {
    case AUTOGEMM_MATH_STRICT: return autogemm::MathMode::Strict;
    case AUTOGEMM_MATH_FP32_ACCURATE: return autogemm::MathMode::Fp32Accurate;
    default: break;
  }
  throw autogemm::ApiError(AUTOGEMM_INVALID_MATH_MODE,
                           "math mode " + std::to_string(int(mode)) + " is not AUTOGEMM_MATH_STRICT (0)" +
                               (default_ok ? ", AUTOGEMM_MATH_DEFAULT (-1)" : "") +
                               " or AUTOGEMM_MATH_FP32_ACCURATE (1)");
}

/// Copies `src` into `dst[size]` with its terminating zero; false (nothing
/// written) if it does not fit.
bool copy_text(const std::string& src, char* dst, size_t size) {
  if (src.size() >= size) return false;
  std::memcpy(dst, src.c_str(), src.size() + 1);
  return true;
}

/// The plan dispatch would use for `g`, into *out (when not NULL) or not at
/// all: filled in a copy first, so a field that does not fit fails the call
/// and leaves *out as it was, never half written or cut short.
void describe_into(const GemmArgs& g, autogemm_plan_info* out) {
  const PlanDescription plan = Dispatcher::instance().describe(g);
  if (!out) return;
  autogemm_plan_info info{};
  if (!copy_text(plan.family, info.family, sizeof info.family) ||
      !copy_text(plan.config, info.config, sizeof info.config) ||
      !copy_text(to_string(plan.source), info.source_name, sizeof info.source_name))
    throw std::length_error("the plan's text does not fit autogemm_plan_info: " + plan.config);
  info.math_mode = plan.mode == autogemm::MathMode::Fp32Accurate ? AUTOGEMM_MATH_FP32_ACCURATE : AUTOGEMM_MATH_STRICT;
  info.fp32_accurate = plan.accuracy == autogemm::AccuracyClass::Fp32Accurate ? 1 : 0;
  info.source = plan.source == autogemm::PlanSource::Exact     ? AUTOGEMM_PLAN_EXACT
                : plan.source == autogemm::PlanSource::Nearest ? AUTOGEMM_PLAN_NEAREST
                                                               : AUTOGEMM_PLAN_DEFAULT;
  *out = info;
}

}  // namespace

extern "C" {

const char* autogemm_status_string(autogemm_status s) {
  const FpEnvGuard fp;
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
    case AUTOGEMM_INVALID_BATCH_COUNT: return "invalid argument: the batch count is negative";
    case AUTOGEMM_INVALID_STRIDE_A: return "invalid argument: stride_a is negative or too large";
    case AUTOGEMM_INVALID_STRIDE_B: return "invalid argument: stride_b is negative or too large";
    case AUTOGEMM_INVALID_STRIDE_C: return "invalid argument: stride_c lets the products' C overlap";
    case AUTOGEMM_NO_DEVICE: return "no CUDA driver or no GPU is available";
    case AUTOGEMM_NO_CONTEXT: return "no CUDA context is current on the calling thread";
    case AUTOGEMM_CUDA_ERROR: return "a CUDA driver call failed";
    case AUTOGEMM_COMPILE_ERROR: return "NVRTC could not compile a kernel";
    case AUTOGEMM_OUT_OF_MEMORY: return "out of memory";
    case AUTOGEMM_CACHE_ERROR: return "the tuning cache file cannot be used; running on built-in defaults";
    case AUTOGEMM_INTERNAL_ERROR: return "internal error";
    case AUTOGEMM_INVALID_MATH_MODE: return "invalid math mode";
  }
  return "unknown status";
}

const char* autogemm_last_error(void) {
  const FpEnvGuard fp;
  return last_error_text().c_str();
}

int autogemm_version(int* major, int* minor, int* patch) {
  const FpEnvGuard fp;
  if (major) *major = AUTOGEMM_VERSION_MAJOR;
  if (minor) *minor = AUTOGEMM_VERSION_MINOR;
  if (patch) *patch = AUTOGEMM_VERSION_PATCH;
  return AUTOGEMM_VERSION;
}

autogemm_status autogemm_init(const char* cache_path) {
  const FpEnvGuard fp;
  return api_call([&] { Dispatcher::instance().init(cache_path); });
}

void autogemm_shutdown(void) {
  const FpEnvGuard fp;
  try {
    Dispatcher::instance().shutdown();
  } catch (...) {
    // Nothing to report it to: shutdown is best effort by contract.
  }
}

autogemm_status autogemm_sgemm(autogemm_layout layout, autogemm_transpose trans_a,
                               autogemm_transpose trans_b, int m, int n, int k, float alpha,
                               const float* a, int lda, const float* b, int ldb, float beta,
                               float* c, int ldc, struct CUstream_st* stream) {
  const FpEnvGuard fp;
  const GemmArgs g{layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc};
  return api_call([&] { Dispatcher::instance().sgemm(g, stream); });
}

autogemm_status autogemm_sgemm_strided_batched(autogemm_layout layout, autogemm_transpose trans_a,
                                               autogemm_transpose trans_b, int m, int n, int k, float alpha,
                                               const float* a, int lda, long long stride_a, const float* b,
                                               int ldb, long long stride_b, float beta, float* c, int ldc,
                                               long long stride_c, int batch_count, struct CUstream_st* stream) {
  const FpEnvGuard fp;
  GemmArgs g{layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc};
  g.batch = batch_count;
  g.stride_a = stride_a, g.stride_b = stride_b, g.stride_c = stride_c;
  return api_call([&] { Dispatcher::instance().sgemm(g, stream); });
}

autogemm_status autogemm_sgemm_strided_batched_workspace(
    autogemm_layout layout, autogemm_transpose trans_a, autogemm_transpose trans_b, int m, int n, int k,
    float alpha, const float* a, int lda, long long stride_a, const float* b, int ldb, long long stride_b,
    float beta, float* c, int ldc, long long stride_c, int batch_count, void* workspace,
    unsigned long long workspace_bytes, struct CUstream_st* stream) {
  const FpEnvGuard fp;
  GemmArgs g{layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc};
  g.batch = batch_count;
  g.stride_a = stride_a, g.stride_b = stride_b, g.stride_c = stride_c;
  g.workspace = workspace, g.workspace_bytes = workspace_bytes;
  return api_call([&] { Dispatcher::instance().sgemm(g, stream); });
}

autogemm_status autogemm_record_shapes(int enable) {
  const FpEnvGuard fp;
  return api_call([&] { Dispatcher::instance().set_recording(enable != 0); });
}

autogemm_status autogemm_flush_recorded_shapes(void) {
  const FpEnvGuard fp;
  return api_call([&] { Dispatcher::instance().flush_recorded(); });
}

autogemm_status autogemm_set_math_mode(autogemm_math_mode mode) {
  const FpEnvGuard fp;
  return api_call([&] { Dispatcher::instance().set_process_mode(math_mode_of(mode, false)); });
}

autogemm_status autogemm_set_thread_math_mode(autogemm_math_mode mode) {
  const FpEnvGuard fp;
  return api_call([&] {
    if (mode == AUTOGEMM_MATH_DEFAULT)
      Dispatcher::instance().set_thread_mode(std::nullopt);
    else
      Dispatcher::instance().set_thread_mode(math_mode_of(mode, true));
  });
}

autogemm_math_mode autogemm_get_math_mode(void) {
  const FpEnvGuard fp;
  return Dispatcher::instance().mode() == autogemm::MathMode::Fp32Accurate ? AUTOGEMM_MATH_FP32_ACCURATE
                                                                          : AUTOGEMM_MATH_STRICT;
}

void autogemm_get_stats(autogemm_stats* out) {
  const FpEnvGuard fp;
  if (out) Dispatcher::instance().stats(out);
}

autogemm_status autogemm_describe_plan(autogemm_layout layout, autogemm_transpose trans_a,
                                       autogemm_transpose trans_b, int m, int n, int k,
                                       const float* a, int lda, const float* b, int ldb,
                                       const float* c, int ldc, autogemm_plan_info* out) {
  const FpEnvGuard fp;
  const GemmArgs g{layout, trans_a, trans_b, m, n, k, 1.f, a, lda, b, ldb, 0.f, const_cast<float*>(c), ldc};
  return api_call([&] { describe_into(g, out); });
}

autogemm_status autogemm_describe_plan_strided_batched(
    autogemm_layout layout, autogemm_transpose trans_a, autogemm_transpose trans_b, int m, int n, int k,
    const float* a, int lda, long long stride_a, const float* b, int ldb, long long stride_b, const float* c,
    int ldc, long long stride_c, int batch_count, autogemm_plan_info* out) {
  const FpEnvGuard fp;
  GemmArgs g{layout, trans_a, trans_b, m, n, k, 1.f, a, lda, b, ldb, 0.f, const_cast<float*>(c), ldc};
  g.batch = batch_count;
  g.stride_a = stride_a, g.stride_b = stride_b, g.stride_c = stride_c;
  return api_call([&] { describe_into(g, out); });
}

autogemm_status autogemm_describe(autogemm_layout layout, autogemm_transpose trans_a,
                                  autogemm_transpose trans_b, int m, int n, int k,
                                  const float* a, int lda, const float* b, int ldb,
                                  const float* c, int ldc, char* config, unsigned long size) {
  const FpEnvGuard fp;
  const GemmArgs g{layout, trans_a, trans_b, m, n, k, 1.f, a, lda, b, ldb, 0.f, const_cast<float*>(c), ldc};
  return api_call([&] {
    const PlanDescription plan = Dispatcher::instance().describe(g);
    if (!config || size == 0) return;
    const std::string text = plan.config + " (" + to_string(plan.source) + ")";
    const size_t n_copy = std::min<size_t>(text.size(), size - 1);
    std::memcpy(config, text.data(), n_copy);
    config[n_copy] = '\0';
  });
}

}  // extern "C"
