// Problem: one SGEMM call reduced to autogemm's canonical form.
//
// Canonical form: row-major C[M x N] = alpha * op(A) op(B) + beta * C. A
// column-major call C = op(A) op(B) is the row-major call C^T = op(B)^T op(A)^T
// on the same memory: M and N swap, A and B swap, each keeps its transpose
// flag. Kernels, tuning keys and the cache only ever see the canonical form.
#pragma once

#include <cstdint>
#include <string>

#include "autogemm/tuning_keys.h"

namespace autogemm {

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

/// The canonical problem of a row-major shape: minimal leading dimensions,
/// the aligned class when asked and they allow it (multiples of 4), and
/// `batch` products packed tightly.
Problem canonical_problem(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, bool aligned,
                          int64_t batch = 1);

/// The canonical problem a stored key names (tuning a recorded shape):
/// minimal leading dimensions, rounded up to a multiple of 4 in the aligned
/// class (which needs them), and `key.batch` products packed tightly, so
/// that its key() is `key` again.
Problem make_problem(const ShapeKey& key);

/// Packs `p.batch` products tightly: each stride is one product's extent.
void pack_batch(Problem& p);

}  // namespace autogemm
