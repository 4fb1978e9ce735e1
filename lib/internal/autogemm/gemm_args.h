// The arguments of autogemm_sgemm as the caller gave them, their checks in
// reference-BLAS order, and their reduction to the canonical problem
// (problem.h). Caller input is untrusted here: nothing below validate()
// touches a pointer or trusts a size.
#pragma once

#include "autogemm/autogemm.h"
#include "autogemm/problem.h"

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

}  // namespace autogemm
