#include "route.h"

#include <climits>

namespace autogemm::cublas {

namespace {
constexpr int kCudaR32F = 0;        // cudaDataType CUDA_R_32F
constexpr int kCompute32F = 68;     // CUBLAS_COMPUTE_32F
constexpr int kCompute32FPedantic = 69;
constexpr int kCompute32FFast16F = 74, kCompute32FFast16BF = 75, kCompute32FFastTF32 = 77;
constexpr int kCompute32FEmulated16BFx9 = 78;
constexpr int kMathDefault = 0, kMathPedantic = 2;
constexpr int kMathFlagMask = 0xf;  // the low bits are the mode, the rest flags
constexpr uint32_t kEpilogueDefault = 1, kEpilogueBias = 4;
constexpr int kOrderCol = 0, kOrderRow = 1;
}  // namespace

const char* entry_name(Entry e) {
  static const char* const names[] = {"cublasSgemm_v2",
                                      "cublasSgemm_v2_64",
                                      "cublasSgemmStridedBatched",
                                      "cublasSgemmStridedBatched_64",
                                      "cublasGemmEx",
                                      "cublasGemmEx_64",
                                      "cublasGemmStridedBatchedEx",
                                      "cublasGemmStridedBatchedEx_64",
                                      "cublasSgemmBatched",
                                      "cublasLtMatmul"};
  const int i = int(e);
  return i >= 0 && i < int(Entry::Count) ? names[i] : "unknown";
}

const char* reason_name(Reason r) {
  static const char* const names[] = {"routed",
                                      "routing turned off (AUTOGEMM_CUBLAS=0)",
                                      "called by cuBLAS itself",
                                      "TF32 or lower precision allowed by math mode or compute type",
                                      "not FP32 data",
                                      "alpha/beta in device memory",
                                      "sizes beyond 32-bit int",
                                      "pointer-array batch",
                                      "cublasLt epilogue, order, scaling or batch mode not supported",
                                      "graph capture before the bias buffer was ready",
                                      "arguments refused (cuBLAS reports them)",
                                      "real cuBLAS not found"};
  const int i = int(r);
  return i >= 0 && i < int(Reason::Count) ? names[i] : "unknown";
}

Reason check_math_mode(int cublas_math) {
  const int m = cublas_math & kMathFlagMask;
  return m == kMathDefault || m == kMathPedantic ? Reason::Routed : Reason::ReducedPrecision;
}

Reason check_compute_type(int compute_type, int cublas_math) {
  if (compute_type == kCompute32FPedantic) return Reason::Routed;
  if (compute_type == kCompute32F) return check_math_mode(cublas_math);
  // FP32 data on TF32, FP16, BF16 or BF16x9 tensor cores; anything else
  // (16F, 64F, 32I, ...) is another precision altogether.
  for (const int fast : {kCompute32FFast16F, kCompute32FFast16BF, kCompute32FFastTF32, kCompute32FEmulated16BFx9})
    if (compute_type == fast) return Reason::ReducedPrecision;
  return Reason::NotFp32;
}

Reason check_data_types(int a_type, int b_type, int c_type) {
  return a_type == kCudaR32F && b_type == kCudaR32F && c_type == kCudaR32F ? Reason::Routed : Reason::NotFp32;
}

Reason check_pointer_mode(int pointer_mode) { return pointer_mode == 0 ? Reason::Routed : Reason::DeviceScalars; }

Reason check_sizes(const GemmCall& c) {
  for (const int64_t v : {c.m, c.n, c.k, c.lda, c.ldb, c.ldc, c.batch})
    if (v > INT_MAX) return Reason::SizesBeyondInt;
  return Reason::Routed;
}

std::optional<autogemm_transpose> to_transpose(int op) {
  switch (op) {
    case 0: return AUTOGEMM_NO_TRANS;
    case 1: return AUTOGEMM_TRANS;
    case 2: return AUTOGEMM_CONJ_TRANS;  // real data: the transpose
    default: return std::nullopt;
  }
}

namespace {

/// Types, modes and epilogue: what the descriptor asks beyond the sizes.
Reason check_lt_descriptor(const LtCall& lt) {
  if (lt.scale_type != kCudaR32F) return Reason::NotFp32;
  for (const LtCall::Layout* l : {&lt.a, &lt.b, &lt.c, &lt.d})
    if (l->type != kCudaR32F) return Reason::NotFp32;
  // Lt has no math mode: the compute type alone says it.
  if (const Reason r = check_compute_type(lt.compute_type, 0); r != Reason::Routed) return r;
  if (lt.pointer_mode != 0) return Reason::DeviceScalars;
  if (lt.scaled || lt.trans_c != 0) return Reason::LtUnsupported;
  if (lt.epilogue != kEpilogueDefault && lt.epilogue != kEpilogueBias) return Reason::LtUnsupported;
  if (lt.epilogue == kEpilogueBias && (lt.bias_type != -1 && lt.bias_type != kCudaR32F)) return Reason::NotFp32;
  return Reason::Routed;
}

/// Order, batch mode and planes: one memory order for all four, strided.
Reason check_lt_layouts(const LtCall& lt) {
  for (const LtCall::Layout* l : {&lt.a, &lt.b, &lt.c, &lt.d}) {
    if (l->order != lt.d.order || (l->order != kOrderCol && l->order != kOrderRow)) return Reason::LtUnsupported;
    if (l->batch_mode != 0 || l->plane_offset != 0) return Reason::LtUnsupported;
    if (l->batch != lt.d.batch) return Reason::LtUnsupported;
  }
  // C apart from D: autogemm updates in place, so C is first copied to D
  // (one 2D copy: the same leading dimension, a single product).
  if (!lt.c_is_d && !lt.beta_zero && (lt.c.ld != lt.d.ld || lt.d.batch > 1)) return Reason::LtUnsupported;
  if (lt.epilogue == kEpilogueBias && lt.d.batch > 1) return Reason::LtUnsupported;
  return Reason::Routed;
}

}  // namespace

LtRoute route_lt(const LtCall& lt) {
  LtRoute out;
  out.reason = check_lt_descriptor(lt);
  if (out.reason == Reason::Routed) out.reason = check_lt_layouts(lt);
  if (out.reason != Reason::Routed) return out;
  GemmCall& g = out.gemm;
  g.trans_a = lt.trans_a, g.trans_b = lt.trans_b;
  g.m = int64_t(lt.d.rows), g.n = int64_t(lt.d.cols);
  // op(A) is m x k: A stored k x m when transposed.
  g.k = int64_t(lt.trans_a == 0 ? lt.a.cols : lt.a.rows);
  g.lda = lt.a.ld, g.ldb = lt.b.ld, g.ldc = lt.d.ld;
  g.batch = lt.d.batch, g.stride_a = lt.a.stride, g.stride_b = lt.b.stride, g.stride_c = lt.d.stride;
  g.layout = lt.d.order == kOrderRow ? AUTOGEMM_ROW_MAJOR : AUTOGEMM_COL_MAJOR;
  out.bias = lt.epilogue == kEpilogueBias;
  // Shapes that do not agree, or a bias epilogue without its vector: Lt
  // itself reports them.
  const uint64_t a_rows = lt.trans_a == 0 ? lt.a.rows : lt.a.cols;
  const uint64_t b_rows = lt.trans_b == 0 ? lt.b.rows : lt.b.cols, b_cols = lt.trans_b == 0 ? lt.b.cols : lt.b.rows;
  const bool agree = a_rows == lt.d.rows && b_rows == uint64_t(g.k) && b_cols == lt.d.cols &&
                     lt.c.rows == lt.d.rows && lt.c.cols == lt.d.cols;
  const bool ops = to_transpose(lt.trans_a) && to_transpose(lt.trans_b);
  if (!agree || !ops || (out.bias && !lt.bias)) out.reason = Reason::InvalidArguments;
  if (out.reason == Reason::Routed) out.reason = check_sizes(g);
  return out;
}

}  // namespace autogemm::cublas
