// The user-facing autogemm_sgemm call (row- or column-major) that computes a
// canonical product held by the Verifier. Row-major keeps the operands as
// they are; column-major computes C^T = op(B)^T op(A)^T, so A and B, their
// transposes and M and N swap places. Shared by the GPU tests of the C API.
#pragma once

#include "autogemm/autogemm.h"
#include "autogemm/verifier.h"

namespace autogemm::testing {

struct UserCall {
  autogemm_layout layout;
  autogemm_transpose ta, tb;
  int m, n, k, lda, ldb, ldc;
  const float *a, *b;
  float* c;
  long long stride_a = 0, stride_b = 0, stride_c = 0;  ///< a strided batch's, in the user's A and B
  int batch = 1;
};

inline autogemm_transpose tr(bool t) { return t ? AUTOGEMM_TRANS : AUTOGEMM_NO_TRANS; }

inline UserCall user_call(const CanonicalCall& cc, autogemm_layout layout) {
  const Problem& p = cc.problem;
  const int batch = int(p.batch);
  if (layout == AUTOGEMM_ROW_MAJOR)
    return {layout, tr(p.trans_a), tr(p.trans_b), int(p.m), int(p.n), int(p.k), int(p.lda), int(p.ldb), int(p.ldc),
            cc.a, cc.b, cc.c, p.stride_a, p.stride_b, p.stride_c, batch};
  return {layout, tr(p.trans_b), tr(p.trans_a), int(p.n), int(p.m), int(p.k), int(p.ldb), int(p.lda), int(p.ldc),
          cc.b, cc.a, cc.c, p.stride_b, p.stride_a, p.stride_c, batch};
}

}  // namespace autogemm::testing
