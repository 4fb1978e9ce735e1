// Routing decisions of the cuBLAS drop-in (libautogemm_cublas): which FP32
// GEMM calls autogemm runs and why the others go to cuBLAS. Pure functions of
// the call's arguments and its handle's modes: no CUDA, no cuBLAS, so every
// decision is checked in CPU tests.
#pragma once

#include <cstdint>
#include <optional>

#include "autogemm/autogemm.h"

namespace autogemm::cublas {

/// The cuBLAS entry points the drop-in answers (autogemm_cublas.h numbers them).
enum class Entry : int {
  Sgemm,
  Sgemm64,
  SgemmStridedBatched,
  SgemmStridedBatched64,
  GemmEx,
  GemmEx64,
  GemmStridedBatchedEx,
  GemmStridedBatchedEx64,
  SgemmBatched,
  LtMatmul,
  Count
};

/// Why a call goes to cuBLAS instead (Routed: it does not).
enum class Reason : int {
  Routed,
  RoutingOff,          ///< AUTOGEMM_CUBLAS=0
  InsideCublas,        ///< cuBLAS calling its own entry points
  ReducedPrecision,    ///< math mode or compute type allows TF32/FP16/BF16
  NotFp32,             ///< a data or scale type other than FP32
  DeviceScalars,       ///< alpha and beta in device memory
  SizesBeyondInt,      ///< a size, leading dimension or count past 2^31-1
  PointerArrayBatch,   ///< batches given as arrays of device pointers
  LtUnsupported,       ///< a Lt epilogue, order, scaling or batch mode autogemm lacks
  CaptureUnprepared,   ///< inside a graph capture, a needed buffer was not ready
  InvalidArguments,    ///< autogemm refused the arguments; cuBLAS reports them
  NoRealCublas,        ///< (internal) the real library was not found
  Count
};

const char* entry_name(Entry e);
const char* reason_name(Reason r);

/// +0 or -0, by the bits: no floating-point compare, so a signaling NaN
/// raises no exception flag in the caller's thread.
inline bool is_zero(float v) {
  uint32_t bits;
  __builtin_memcpy(&bits, &v, sizeof bits);
  return (bits & 0x7fffffffu) == 0;
}

/// A column-major GEMM as cuBLAS takes it, sizes widened to 64 bits.
struct GemmCall {
  int trans_a = 0, trans_b = 0;  ///< cublasOperation_t: 0 N, 1 T, 2 C
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
  int64_t batch = 1, stride_a = 0, stride_b = 0, stride_c = 0;
  autogemm_layout layout = AUTOGEMM_COL_MAJOR;  ///< Lt's row order gives ROW_MAJOR
};

/// The handle's cublasMath_t: default and pedantic FP32 route; TF32 and the
/// deprecated tensor-op mode (FP16 for SGEMM) go to cuBLAS. The flag
/// CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION changes nothing for FP32.
Reason check_math_mode(int cublas_math);
/// GemmEx: the cublasComputeType_t (32F follows the handle's math mode,
/// 32F_PEDANTIC ignores it; the FAST and EMULATED FP32 types are reduced
/// precision, every other type is not FP32).
Reason check_compute_type(int compute_type, int cublas_math);
/// A, B and C as cudaDataType: only CUDA_R_32F routes.
Reason check_data_types(int a_type, int b_type, int c_type);
/// cublasPointerMode_t: host scalars route.
Reason check_pointer_mode(int pointer_mode);
/// Every size, leading dimension and the count fit in int (autogemm's API).
Reason check_sizes(const GemmCall& c);
/// cublasOperation_t as autogemm's transpose; nullopt for a value cuBLAS
/// rejects (it then reports it).
std::optional<autogemm_transpose> to_transpose(int op);

/// What a cublasLtMatmul call asks, read from its descriptors.
struct LtCall {
  int compute_type = 0, scale_type = 0, pointer_mode = 0;
  int trans_a = 0, trans_b = 0, trans_c = 0;
  uint32_t epilogue = 1;  ///< CUBLASLT_EPILOGUE_DEFAULT
  const void* bias = nullptr;
  int bias_type = -1;     ///< -1: the default (D's type)
  int64_t bias_batch_stride = 0;
  bool scaled = false;    ///< any A/B/C/D scale, amax, aux or alpha-vector pointer set
  struct Layout {
    int type = 0, order = 0, batch_mode = 0;
    uint64_t rows = 0, cols = 0;
    int64_t ld = 0, batch = 1, stride = 0, plane_offset = 0;
  } a, b, c, d;
  bool c_is_d = true;  ///< C and D the same pointer
  bool beta_zero = false;  ///< beta == 0: C is not read
};

/// The decision for a Lt call and, when it routes, the GEMM it is: the
/// D layout's order chooses the layout, sizes come from D and op(A).
struct LtRoute {
  Reason reason = Reason::Routed;
  GemmCall gemm;
  bool bias = false;  ///< add the bias vector along D's rows after the product
  const float* bias_ptr = nullptr;  ///< its device address (filled by the caller)
};
LtRoute route_lt(const LtCall& lt);

}  // namespace autogemm::cublas
