// cublasLtMatmul in the drop-in: FP32 problems with no epilogue or a bias
// epilogue run on autogemm (the bias as a rank-1 update D += bias * 1^T
// after the product); any other Lt call, and every call libcublas makes for
// its own work, goes to the real cuBLASLt unchanged.
#pragma GCC visibility push(default)
#include <cublasLt.h>
#pragma GCC visibility pop

#include <string>

#include "autogemm/autogemm.h"
#include "autogemm/log.h"
#include "gemm_runner.h"
#include "lt_buffers.h"
#include "real_cublas.h"
#include "route.h"
#include "shim_stats.h"

namespace autogemm::cublas {
namespace {

/// An attribute of a descriptor or layout, or `fallback` where Lt has none.
template <class T, class Get, class Object, class Attr>
T attribute(Get get, Object object, Attr attr, T fallback) {
  T v = fallback;
  size_t written = 0;
  return get(object, attr, &v, sizeof v, &written) == CUBLAS_STATUS_SUCCESS ? v : fallback;
}

template <class T>
T desc_attr(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attr, T fallback) {
  return attribute(real_cublaslt().DescGetAttribute, d, attr, fallback);
}

template <class T>
T layout_attr(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t attr, T fallback) {
  return attribute(real_cublaslt().LayoutGetAttribute, l, attr, fallback);
}

LtCall::Layout read_layout(cublasLtMatrixLayout_t l) {
  LtCall::Layout out;
  out.type = int(layout_attr<uint32_t>(l, CUBLASLT_MATRIX_LAYOUT_TYPE, ~0u));
  out.order = layout_attr<int32_t>(l, CUBLASLT_MATRIX_LAYOUT_ORDER, 0);
  out.rows = layout_attr<uint64_t>(l, CUBLASLT_MATRIX_LAYOUT_ROWS, 0);
  out.cols = layout_attr<uint64_t>(l, CUBLASLT_MATRIX_LAYOUT_COLS, 0);
  out.ld = layout_attr<int64_t>(l, CUBLASLT_MATRIX_LAYOUT_LD, 0);
  out.batch = layout_attr<int32_t>(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 1);
  out.stride = layout_attr<int64_t>(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, 0);
  out.plane_offset = layout_attr<int64_t>(l, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, 0);
  out.batch_mode = int(layout_attr<uint32_t>(l, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, 0));
  return out;
}

/// Any pointer that scales, reduces or stores beside the product.
bool scaled(cublasLtMatmulDesc_t d) {
  for (const auto attr : {CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                          CUBLASLT_MATMUL_DESC_C_SCALE_POINTER, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER,
                          CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER})
    if (desc_attr<const void*>(d, attr, nullptr)) return true;
  return desc_attr<int64_t>(d, CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE, 0) != 0;
}

LtCall read_call(cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb,
                 cublasLtMatrixLayout_t lc, cublasLtMatrixLayout_t ld) {
  LtCall c;
  c.compute_type = desc_attr<int32_t>(d, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, -1);
  c.scale_type = desc_attr<int32_t>(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, -1);
  c.pointer_mode = desc_attr<int32_t>(d, CUBLASLT_MATMUL_DESC_POINTER_MODE, 0);
  c.trans_a = desc_attr<int32_t>(d, CUBLASLT_MATMUL_DESC_TRANSA, 0);
  c.trans_b = desc_attr<int32_t>(d, CUBLASLT_MATMUL_DESC_TRANSB, 0);
  c.trans_c = desc_attr<int32_t>(d, CUBLASLT_MATMUL_DESC_TRANSC, 0);
  c.epilogue = desc_attr<uint32_t>(d, CUBLASLT_MATMUL_DESC_EPILOGUE, 1);
  c.bias = desc_attr<const void*>(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, nullptr);
  c.bias_type = desc_attr<int32_t>(d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, -1);
  c.bias_batch_stride = desc_attr<int64_t>(d, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, 0);
  c.scaled = scaled(d);
  c.a = read_layout(la), c.b = read_layout(lb), c.c = read_layout(lc), c.d = read_layout(ld);
  return c;
}

/// Why this call goes to cuBLASLt, or Routed with *route filled.
Reason decide_lt(const void* caller, cublasLtMatmulDesc_t desc, const void* alpha, const void* beta, const void* C,
                 cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb, cublasLtMatrixLayout_t lc,
                 cublasLtMatrixLayout_t ld, const void* D, LtRoute* route) {
  if (!routing_enabled()) return Reason::RoutingOff;
  if (InRealCublas::active() || inside_real_cublas(caller)) return Reason::InsideCublas;
  const RealCublasLt& r = real_cublaslt();
  if (!r.Matmul || !r.DescGetAttribute || !r.LayoutGetAttribute) return Reason::NoRealCublas;
  if (!desc || !la || !lb || !lc || !ld || !alpha || !beta || !D) return Reason::InvalidArguments;
  LtCall call = read_call(desc, la, lb, lc, ld);
  call.c_is_d = C == D;
  // The scale type is checked before beta is read as a float; its bits are
  // compared, so a signaling NaN raises no flag in the caller's thread.
  call.beta_zero = call.scale_type == 0 && is_zero(*static_cast<const float*>(beta));
  *route = route_lt(call);
  if (route->reason != Reason::Routed)
    log().debug("cuBLAS drop-in: cublasLtMatmul to cuBLASLt ({}): compute {}, scale {}, pointer mode {}, epilogue {}, "
                "types {}/{}/{}/{}, orders {}/{}/{}/{}, batch {}",
                reason_name(route->reason), call.compute_type, call.scale_type, call.pointer_mode, call.epilogue,
                call.a.type, call.b.type, call.c.type, call.d.type, call.a.order, call.b.order, call.c.order,
                call.d.order, call.d.batch);
  if (route->reason == Reason::Routed && route->bias) route->bias_ptr = static_cast<const float*>(call.bias);
  return route->reason;
}

}  // namespace
}  // namespace autogemm::cublas

using namespace autogemm::cublas;

extern "C" cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t desc, const void* alpha,
                                         const void* A, cublasLtMatrixLayout_t la, const void* B,
                                         cublasLtMatrixLayout_t lb, const void* beta, const void* C,
                                         cublasLtMatrixLayout_t lc, void* D, cublasLtMatrixLayout_t ld,
                                         const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspace_bytes,
                                         cudaStream_t stream) {
  LtRoute route;
  Reason why = decide_lt(__builtin_return_address(0), desc, alpha, beta, C, la, lb, lc, ld, D, &route);
  if (why == Reason::Routed) {
    std::string what;
    const RunOutcome o = run_lt(route, *static_cast<const float*>(alpha), static_cast<const float*>(A),
                                static_cast<const float*>(B), *static_cast<const float*>(beta),
                                static_cast<const float*>(C), static_cast<float*>(D), stream,
                                LentWorkspace{workspace, workspace_bytes}, &what);
    if (o == RunOutcome::Done) {
      count_routed(Entry::LtMatmul);
      return CUBLAS_STATUS_SUCCESS;
    }
    if (o == RunOutcome::Failed) count_fallback(Entry::LtMatmul, what.c_str());
    why = o == RunOutcome::Failed ? Reason::Routed : o == RunOutcome::Refused ? Reason::InvalidArguments
                                                                              : Reason::CaptureUnprepared;
  }
  if (why != Reason::Routed) count_passed(Entry::LtMatmul, why);
  const InRealCublas inside;
  const auto real = real_cublaslt().Matmul;
  if (!real) return CUBLAS_STATUS_NOT_INITIALIZED;
  return real(h, desc, alpha, A, la, B, lb, beta, C, lc, D, ld, algo, workspace, workspace_bytes, stream);
}
