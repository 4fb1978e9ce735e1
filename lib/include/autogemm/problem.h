// Problem: one SGEMM call reduced to autogemm's canonical form.
//
// Canonical form: row-major C[M x N] = alpha * op(A) op(B) + beta * C. A
// column-major call C = op(A) op(B) is the row-major call C^T = op(B)^T op(A)^T
// on the same memory: M and N swap, A and B swap, each keeps its transpose
// flag. Kernels, tuning keys and the cache only ever see the canonical form.
#pragma once

#include <cstdint>
#include <string>

#include "autogemm/autogemm.h"
#include "autogemm/tuning_keys.h"

namespace autogemm {

/// The arguments of autogemm_sgemm, as the caller gave them.
struct GemmArgs {
  autogemm_layout layout = AUTOGEMM_ROW_MAJOR;
  autogemm_transpose trans_a = AUTOGEMM_NO_TRANS;
  autogemm_transpose trans_b = AUTOGEMM_NO_TRANS;
  int m = 0, n = 0, k = 0;
  float alpha = 1.f;
  const float* a = nullptr;
  int lda = 0;
  const float* b = nullptr;
  int ldb = 0;
  float beta = 0.f;
  float* c = nullptr;
  int ldc = 0;
  // Strided batch (autogemm_sgemm_strided_batched): `batch` products, the
  // i-th on a + i * stride_a, b + i * stride_b, c + i * stride_c (floats).
  int batch = 1;
  long long stride_a = 0, stride_b = 0, stride_c = 0;
  // Memory the caller lends (autogemm_sgemm_strided_batched_workspace):
  // split-K room for a call captured into a CUDA graph.
  void* workspace = nullptr;
  unsigned long long workspace_bytes = 0;
};

/// Shape, layouts and strides of a canonical problem (no pointers, no scalars).
struct Problem {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  int64_t lda = 0, ldb = 0, ldc = 0;
  bool aligned = false;  ///< 16-byte vector access legal for A, B and C (every product's)
  /// Strided batch: `batch` independent products, the i-th on A + i*stride_a,
  /// B + i*stride_b, C + i*stride_c (floats). 1 and strides 0 for a plain call.
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;

  ShapeKey key() const { return ShapeKey{m, n, k, trans_a, trans_b, aligned, batch_bucket(batch)}; }
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
  /// Floats one product's A, B and C span (rows times leading dimension).
  int64_t a_extent() const { return (trans_a ? k : m) * lda; }
  int64_t b_extent() const { return (trans_b ? n : k) * ldb; }
  int64_t c_extent() const { return m * ldc; }
  /// "4096x4096x4096 NN aligned" (canonical row-major).
  std::string to_string() const;
};

/// A canonical problem with its operands.
struct CanonicalCall {
  Problem problem;
  const float* a = nullptr;  ///< canonical A (the caller's B for column-major)
  const float* b = nullptr;
  float* c = nullptr;
  float alpha = 1.f, beta = 0.f;
};

/// Checks arguments in reference-BLAS order: layout, transA, transB, M, N, K,
/// lda, ldb, ldc, then for a batch the count and the strides of A, B and C.
/// Returns the first failure, or AUTOGEMM_SUCCESS. Pointers are
/// not checked here (see needs_* below): a quick return never touches them.
autogemm_status validate(const GemmArgs& g);

/// Reference-BLAS quick return: nothing to do at all (also a batch of 0).
bool is_quick_return(const GemmArgs& g);

/// Null-pointer check for the operands the call will actually read or write.
autogemm_status check_pointers(const GemmArgs& g);

/// Canonical form of validated arguments.
CanonicalCall normalize(const GemmArgs& g);

/// Canonical problem for a shape as users write it (tools, tests); a batch
/// is packed tightly (each stride is one product's extent).
Problem make_problem(autogemm_layout layout, bool trans_a, bool trans_b, int64_t m, int64_t n,
                     int64_t k, bool aligned, int64_t batch = 1);

/// The canonical problem a stored key names (tuning a recorded shape):
/// minimal leading dimensions, rounded up to a multiple of 4 in the aligned
/// class (which needs them), and `key.batch` products packed tightly, so
/// that its key() is `key` again.
Problem make_problem(const ShapeKey& key);

/// Packs `p.batch` products tightly: each stride is one product's extent.
void pack_batch(Problem& p);

/// Parses "MxNxK" with an optional layout/transpose suffix ":NN", ":NT",
/// ":TN", ":TT", an optional "col"/"row" prefix and an optional strided
/// batch "@COUNT" at the end, e.g. "4096x4096x4096:NT", "col:128x256x64:TN"
/// or "64x64x64@4096". Returns false with a message on any error.
struct ShapeSpec {
  autogemm_layout layout = AUTOGEMM_ROW_MAJOR;
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  std::string to_string() const;
  /// Canonical problem with minimal leading dimensions and aligned pointers.
  Problem problem() const;
};
bool parse_shape(const std::string& text, ShapeSpec* out, std::string* error);

}  // namespace autogemm
