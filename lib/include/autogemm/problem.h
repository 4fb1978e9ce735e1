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
};

/// Shape, layouts and strides of a canonical problem (no pointers, no scalars).
struct Problem {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  int64_t lda = 0, ldb = 0, ldc = 0;
  bool aligned = false;  ///< 16-byte vector access legal for A, B and C

  ShapeKey key() const { return ShapeKey{m, n, k, trans_a, trans_b, aligned}; }
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
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
/// lda, ldb, ldc. Returns the first failure, or AUTOGEMM_SUCCESS. Pointers are
/// not checked here (see needs_* below): a quick return never touches them.
autogemm_status validate(const GemmArgs& g);

/// Reference-BLAS quick return: nothing to do at all.
bool is_quick_return(const GemmArgs& g);

/// Null-pointer check for the operands the call will actually read or write.
autogemm_status check_pointers(const GemmArgs& g);

/// Canonical form of validated arguments.
CanonicalCall normalize(const GemmArgs& g);

/// Canonical problem for a shape as users write it (tools, tests).
Problem make_problem(autogemm_layout layout, bool trans_a, bool trans_b, int64_t m, int64_t n,
                     int64_t k, bool aligned);

/// The canonical problem a stored key names (tuning a recorded shape):
/// minimal leading dimensions, rounded up to a multiple of 4 in the aligned
/// class (which needs them), so that its key() is `key` again.
Problem make_problem(const ShapeKey& key);

/// Parses "MxNxK" with an optional layout/transpose suffix ":NN", ":NT",
/// ":TN", ":TT" and optional "col"/"row" prefix, e.g. "4096x4096x4096:NT" or
/// "col:128x256x64:TN". Returns false with a message on any error.
struct ShapeSpec {
  autogemm_layout layout = AUTOGEMM_ROW_MAJOR;
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  std::string to_string() const;
  /// Canonical problem with minimal leading dimensions and aligned pointers.
  Problem problem() const;
};
bool parse_shape(const std::string& text, ShapeSpec* out, std::string* error);

}  // namespace autogemm
