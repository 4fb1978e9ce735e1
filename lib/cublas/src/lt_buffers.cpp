#include "lt_buffers.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "autogemm/autogemm.h"
#include "autogemm/cuda_driver.h"

namespace autogemm::cublas {
namespace {

constexpr unsigned kOneBits = 0x3f800000u;  // 1.0f

/// A device vector of at least n ones for the current context, or 0 when a
/// capture is running on `stream` and none is large enough yet.
CUdeviceptr ones(int64_t n, CUstream stream) {
  static std::mutex mu;
  static auto* held = new std::map<CUcontext, std::pair<CUdeviceptr, int64_t>>();
  CUcontext ctx = nullptr;
  AUTOGEMM_CU(cuCtxGetCurrent(&ctx));
  std::lock_guard<std::mutex> lock(mu);
  auto& [ptr, size] = (*held)[ctx];
  if (size >= n) return ptr;
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  AUTOGEMM_CU(cuStreamIsCapturing(stream, &capture));
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE) return 0;
  int64_t floats = 1 << 16;
  while (floats < n) floats *= 2;
  CUdeviceptr fresh = 0;
  AUTOGEMM_CU(cuMemAlloc(&fresh, size_t(floats) * sizeof(float)));
  // Filled and finished on a stream of its own before any stream can read
  // it (a plain cuMemsetD32 may still run when the caller's non-blocking
  // stream starts). The old vector stays allocated: a graph may read it.
  Stream fill;
  AUTOGEMM_CU(cuMemsetD32Async(fresh, kOneBits, size_t(floats), fill.get()));
  fill.synchronize();
  ptr = fresh, size = floats;
  return ptr;
}

/// D = C, element by element over D's rows and columns (one 2D copy).
void copy_c_to_d(const GemmCall& g, const float* c, float* d, CUstream stream) {
  const bool col = g.layout == AUTOGEMM_COL_MAJOR;
  CUDA_MEMCPY2D copy{};
  copy.srcMemoryType = copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = reinterpret_cast<CUdeviceptr>(c);
  copy.dstDevice = reinterpret_cast<CUdeviceptr>(d);
  copy.srcPitch = copy.dstPitch = size_t(g.ldc) * sizeof(float);
  copy.WidthInBytes = size_t(col ? g.m : g.n) * sizeof(float);
  copy.Height = size_t(col ? g.n : g.m);
  AUTOGEMM_CU(cuMemcpy2DAsync(&copy, stream));
}

/// The rank-1 update D += bias * ones^T, as a K = 1 product.
GemmCall bias_update(const GemmCall& g) {
  GemmCall u;
  u.layout = g.layout;
  u.m = g.m, u.n = g.n, u.k = 1, u.ldc = g.ldc;
  const bool col = g.layout == AUTOGEMM_COL_MAJOR;
  u.lda = col ? std::max<int64_t>(1, g.m) : 1;
  u.ldb = col ? 1 : std::max<int64_t>(1, g.n);
  return u;
}

/// Loads the kernel of `g`'s plan and checks its arguments, writing nothing.
bool ready(const GemmCall& g, const float* a, const float* b, float* c, std::string* what) {
  const autogemm_status st =
      autogemm_describe_plan(g.layout, *to_transpose(g.trans_a), *to_transpose(g.trans_b), int(g.m), int(g.n),
                             int(g.k), a, int(g.lda), b, int(g.ldb), c, int(g.ldc), nullptr);
  if (st != AUTOGEMM_SUCCESS) *what = std::string(autogemm_status_string(st)) + ": " + autogemm_last_error();
  return st == AUTOGEMM_SUCCESS;
}

}  // namespace

RunOutcome run_lt(const LtRoute& r, float alpha, const float* a, const float* b, float beta, const float* c, float* d,
                  CUstream stream, LentWorkspace lent, std::string* what) {
  const GemmCall& g = r.gemm;
  try {
    if (c != d && !is_zero(beta) && g.m > 0 && g.n > 0) copy_c_to_d(g, c, d, stream);
    if (!r.bias || g.m == 0 || g.n == 0) return run_gemm(g, alpha, a, b, beta, d, stream, lent, what);
    const float* one = reinterpret_cast<const float*>(ones(g.n, stream));
    if (!one) return RunOutcome::NotReady;
    const GemmCall update = bias_update(g);
    if (!ready(update, r.bias_ptr, one, d, what)) return RunOutcome::Failed;
    // The product, then the bias as a second pass over D. (Bias first and
    // the product onto it with beta = 1 is slower: the product's epilogue
    // does not hide reading D, DECISIONS.md.)
    const RunOutcome main = run_gemm(g, alpha, a, b, beta, d, stream, lent, what);
    if (main != RunOutcome::Done) return main;
    return run_gemm(update, 1.0f, r.bias_ptr, one, 1.0f, d, stream, {}, what);
  } catch (const std::exception& e) {
    *what = e.what();
    return RunOutcome::Failed;
  }
}

}  // namespace autogemm::cublas
