// The cuBLAS entry points of the drop-in: cublasSgemm_v2, its _64 and
// strided-batched forms, cublasGemmEx and cublasGemmStridedBatchedEx (and
// their _64 forms), cublasSgemmBatched. Each decides (route.h) from its
// arguments and its handle's modes, runs a routed call on autogemm_sgemm, and
// hands everything else, and every routed call autogemm cannot run, to the
// real cuBLAS unchanged.
#pragma GCC visibility push(default)
#include <cublas_v2.h>
#pragma GCC visibility pop

#include <string>

#include "autogemm/autogemm.h"
#include "gemm_runner.h"
#include "handle_workspace.h"
#include "real_cublas.h"
#include "route.h"
#include "shim_stats.h"

namespace autogemm::cublas {
namespace {

/// The handle's stream and modes, from the real cuBLAS.
struct HandleModes {
  cudaStream_t stream = nullptr;
  int math = 0, pointer = 0;
};

/// Why `g` on handle `h` goes to cuBLAS, or Routed (then *modes is filled).
/// compute_type < 0: an S routine, which follows the handle's math mode.
Reason decide(cublasHandle_t h, const GemmCall& g, const void* alpha, const void* beta, int compute_type,
              HandleModes* modes) {
  if (!routing_enabled()) return Reason::RoutingOff;
  if (InRealCublas::active()) return Reason::InsideCublas;
  const RealCublas& r = real_cublas();
  if (!r.GetStream || !r.GetMathMode || !r.GetPointerMode) return Reason::NoRealCublas;
  cublasMath_t math{};
  cublasPointerMode_t pointer{};
  {
    const InRealCublas inside;
    if (r.GetStream(h, &modes->stream) != CUBLAS_STATUS_SUCCESS || r.GetMathMode(h, &math) != CUBLAS_STATUS_SUCCESS ||
        r.GetPointerMode(h, &pointer) != CUBLAS_STATUS_SUCCESS)
      return Reason::InvalidArguments;  // a bad handle: cuBLAS says so
  }
  modes->math = int(math), modes->pointer = int(pointer);
  Reason why = compute_type < 0 ? check_math_mode(modes->math) : check_compute_type(compute_type, modes->math);
  if (why == Reason::Routed) why = check_pointer_mode(modes->pointer);
  if (why == Reason::Routed) why = check_sizes(g);
  if (why == Reason::Routed && (!alpha || !beta || !to_transpose(g.trans_a) || !to_transpose(g.trans_b)))
    why = Reason::InvalidArguments;
  return why;
}

/// Routes or passes one call: `pass` calls the real entry point.
template <class Pass>
cublasStatus_t answer(Entry e, cublasHandle_t h, const GemmCall& g, const void* alpha, const void* a, const void* b,
                      const void* beta, void* c, int compute_type, Pass pass) {
  HandleModes modes;
  Reason why = decide(h, g, alpha, beta, compute_type, &modes);
  if (why == Reason::Routed) {
    std::string what;
    const RunOutcome o = run_gemm(g, *static_cast<const float*>(alpha), static_cast<const float*>(a),
                                  static_cast<const float*>(b), *static_cast<const float*>(beta),
                                  static_cast<float*>(c), modes.stream, handle_workspace(h), &what);
    if (o == RunOutcome::Done) {
      count_routed(e);
      return CUBLAS_STATUS_SUCCESS;
    }
    if (o == RunOutcome::Failed) count_fallback(e, what.c_str());
    why = o == RunOutcome::Failed ? Reason::Routed : Reason::InvalidArguments;
  }
  if (why != Reason::Routed) count_passed(e, why);
  const InRealCublas inside;
  return pass();
}

GemmCall plain(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
               int64_t ldc) {
  GemmCall g;
  g.trans_a = int(ta), g.trans_b = int(tb);
  g.m = m, g.n = n, g.k = k, g.lda = lda, g.ldb = ldb, g.ldc = ldc;
  return g;
}

GemmCall strided(GemmCall g, long long sa, long long sb, long long sc, int64_t batch) {
  g.stride_a = sa, g.stride_b = sb, g.stride_c = sc, g.batch = batch;
  return g;
}

/// Passes a call cuBLAS must run, counted with its reason.
template <class Pass>
cublasStatus_t pass_to_cublas(Entry e, Reason why, Pass pass) {
  count_passed(e, why);
  const InRealCublas inside;
  return pass();
}

/// GemmEx's types: FP32 data routes, by its compute type; the rest passes.
template <class Pass>
cublasStatus_t answer_ex(Entry e, cublasHandle_t h, const GemmCall& g, const void* alpha, const void* a,
                         cudaDataType at, const void* b, cudaDataType bt, const void* beta, void* c, cudaDataType ct,
                         cublasComputeType_t compute, Pass pass) {
  const Reason types = check_data_types(int(at), int(bt), int(ct));
  if (types != Reason::Routed && routing_enabled() && !InRealCublas::active()) return pass_to_cublas(e, types, pass);
  return answer(e, h, g, alpha, a, b, beta, c, int(compute), pass);
}

/// The real entry point `fn` with `args`, or NOT_INITIALIZED without one.
template <class F, class... Args>
cublasStatus_t call_real(F fn, Args... args) {
  return fn ? fn(args...) : CUBLAS_STATUS_NOT_INITIALIZED;
}

}  // namespace
}  // namespace autogemm::cublas

using autogemm::cublas::answer;
using autogemm::cublas::answer_ex;
using autogemm::cublas::call_real;
using autogemm::cublas::Entry;
using autogemm::cublas::plain;
using autogemm::cublas::real_cublas;
using autogemm::cublas::strided;

extern "C" {

cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                              const float* alpha, const float* A, int lda, const float* B, int ldb,
                              const float* beta, float* C, int ldc) {
  return answer(Entry::Sgemm, h, plain(ta, tb, m, n, k, lda, ldb, ldc), alpha, A, B, beta, C, -1, [&] {
    return call_real(real_cublas().Sgemm, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  });
}

cublasStatus_t cublasSgemm_v2_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                                 int64_t k, const float* alpha, const float* A, int64_t lda, const float* B,
                                 int64_t ldb, const float* beta, float* C, int64_t ldc) {
  return answer(Entry::Sgemm64, h, plain(ta, tb, m, n, k, lda, ldb, ldc), alpha, A, B, beta, C, -1, [&] {
    return call_real(real_cublas().Sgemm64, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  });
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                         int k, const float* alpha, const float* A, int lda, long long sa,
                                         const float* B, int ldb, long long sb, const float* beta, float* C, int ldc,
                                         long long sc, int count) {
  const auto g = strided(plain(ta, tb, m, n, k, lda, ldb, ldc), sa, sb, sc, count);
  return answer(Entry::SgemmStridedBatched, h, g, alpha, A, B, beta, C, -1, [&] {
    return call_real(real_cublas().SgemmStridedBatched, h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C,
                     ldc, sc, count);
  });
}

cublasStatus_t cublasSgemmStridedBatched_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                                            int64_t n, int64_t k, const float* alpha, const float* A, int64_t lda,
                                            long long sa, const float* B, int64_t ldb, long long sb,
                                            const float* beta, float* C, int64_t ldc, long long sc, int64_t count) {
  const auto g = strided(plain(ta, tb, m, n, k, lda, ldb, ldc), sa, sb, sc, count);
  return answer(Entry::SgemmStridedBatched64, h, g, alpha, A, B, beta, C, -1, [&] {
    return call_real(real_cublas().SgemmStridedBatched64, h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C,
                     ldc, sc, count);
  });
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const void* alpha, const void* A, cudaDataType at, int lda, const void* B, cudaDataType bt,
                            int ldb, const void* beta, void* C, cudaDataType ct, int ldc, cublasComputeType_t compute,
                            cublasGemmAlgo_t algo) {
  return answer_ex(Entry::GemmEx, h, plain(ta, tb, m, n, k, lda, ldb, ldc), alpha, A, at, B, bt, beta, C, ct, compute, [&] {
    return call_real(real_cublas().GemmEx, h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc,
                     compute, algo);
  });
}

cublasStatus_t cublasGemmEx_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                               int64_t k, const void* alpha, const void* A, cudaDataType at, int64_t lda,
                               const void* B, cudaDataType bt, int64_t ldb, const void* beta, void* C,
                               cudaDataType ct, int64_t ldc, cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  return answer_ex(Entry::GemmEx64, h, plain(ta, tb, m, n, k, lda, ldb, ldc), alpha, A, at, B, bt, beta, C, ct, compute, [&] {
    return call_real(real_cublas().GemmEx64, h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc,
                     compute, algo);
  });
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                          int k, const void* alpha, const void* A, cudaDataType at, int lda,
                                          long long sa, const void* B, cudaDataType bt, int ldb, long long sb,
                                          const void* beta, void* C, cudaDataType ct, int ldc, long long sc,
                                          int count, cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  const auto g = strided(plain(ta, tb, m, n, k, lda, ldb, ldc), sa, sb, sc, count);
  return answer_ex(Entry::GemmStridedBatchedEx, h, g, alpha, A, at, B, bt, beta, C, ct, compute, [&] {
    return call_real(real_cublas().GemmStridedBatchedEx, h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb,
                     beta, C, ct, ldc, sc, count, compute, algo);
  });
}

cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                                             int64_t n, int64_t k, const void* alpha, const void* A, cudaDataType at,
                                             int64_t lda, long long sa, const void* B, cudaDataType bt, int64_t ldb,
                                             long long sb, const void* beta, void* C, cudaDataType ct, int64_t ldc,
                                             long long sc, int64_t count, cublasComputeType_t compute,
                                             cublasGemmAlgo_t algo) {
  const auto g = strided(plain(ta, tb, m, n, k, lda, ldb, ldc), sa, sb, sc, count);
  return answer_ex(Entry::GemmStridedBatchedEx64, h, g, alpha, A, at, B, bt, beta, C, ct, compute, [&] {
    return call_real(real_cublas().GemmStridedBatchedEx64, h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb,
                     beta, C, ct, ldc, sc, count, compute, algo);
  });
}

cublasStatus_t cublasSgemmBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                  const float* alpha, const float* const A[], int lda, const float* const B[], int ldb,
                                  const float* beta, float* const C[], int ldc, int count) {
  // Pointer arrays live in device memory: reading them would synchronize.
  autogemm::cublas::count_passed(Entry::SgemmBatched, autogemm::cublas::Reason::PointerArrayBatch);
  const autogemm::cublas::InRealCublas inside;
  return call_real(real_cublas().SgemmBatched, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, count);
}

}  // extern "C"
