#include "autogemm/gemm_args.h"

#include <algorithm>
#include <cstdint>

namespace autogemm {
namespace {

bool valid_trans(autogemm_transpose t) {
  return t == AUTOGEMM_NO_TRANS || t == AUTOGEMM_TRANS || t == AUTOGEMM_CONJ_TRANS;
}
bool is_trans(autogemm_transpose t) { return t != AUTOGEMM_NO_TRANS; }

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// The strides of a batch of more than one product: A and B are only read, so
// any stride >= 0 will do (0 shares one operand); C's products must not share
// an element: one after the other (stride past the last row's N floats), or
// side by side within each row (stride >= N, all of them within ldc). The
// products' offsets must stay far from overflowing 64 bits.
autogemm_status validate_batch(const GemmArgs& g) {
  if (g.batch < 0) return AUTOGEMM_INVALID_BATCH_COUNT;
  if (g.batch <= 1) return AUTOGEMM_SUCCESS;
  const long long limit = (1LL << 50) / g.batch;
  if (g.stride_a < 0 || g.stride_a > limit) return AUTOGEMM_INVALID_STRIDE_A;
  if (g.stride_b < 0 || g.stride_b > limit) return AUTOGEMM_INVALID_STRIDE_B;
  const bool row = g.layout == AUTOGEMM_ROW_MAJOR;
  const long long rows = row ? g.m : g.n, cols = row ? g.n : g.m, s = g.stride_c;
  const bool after = s >= (rows - 1) * (long long)g.ldc + cols;
  const bool beside = s >= cols && (g.batch - 1) * s + cols <= g.ldc;
  if (s > limit || !(after || beside)) return AUTOGEMM_INVALID_STRIDE_C;
  return AUTOGEMM_SUCCESS;
}

}  // namespace

autogemm_status validate(const GemmArgs& g) {
  // CBLAS checks the layout first: the leading-dimension rules depend on it.
  if (g.layout != AUTOGEMM_ROW_MAJOR && g.layout != AUTOGEMM_COL_MAJOR) return AUTOGEMM_INVALID_LAYOUT;
  if (!valid_trans(g.trans_a)) return AUTOGEMM_INVALID_TRANS_A;
  if (!valid_trans(g.trans_b)) return AUTOGEMM_INVALID_TRANS_B;
  if (g.m < 0) return AUTOGEMM_INVALID_M;
  if (g.n < 0) return AUTOGEMM_INVALID_N;
  if (g.k < 0) return AUTOGEMM_INVALID_K;
  const bool row = g.layout == AUTOGEMM_ROW_MAJOR;
  const bool ta = is_trans(g.trans_a), tb = is_trans(g.trans_b);
  // Stored rows/columns: the leading dimension is at least the length of the
  // contiguous dimension of the matrix as it sits in memory.
  const int a_min = row ? (ta ? g.m : g.k) : (ta ? g.k : g.m);
  const int b_min = row ? (tb ? g.k : g.n) : (tb ? g.n : g.k);
  const int c_min = row ? g.n : g.m;
  if (g.lda < std::max(1, a_min)) return AUTOGEMM_INVALID_LDA;
  if (g.ldb < std::max(1, b_min)) return AUTOGEMM_INVALID_LDB;
  if (g.ldc < std::max(1, c_min)) return AUTOGEMM_INVALID_LDC;
  return validate_batch(g);
}

bool is_quick_return(const GemmArgs& g) {
  return g.batch == 0 || g.m == 0 || g.n == 0 || ((g.alpha == 0.f || g.k == 0) && g.beta == 1.f);
}

autogemm_status check_pointers(const GemmArgs& g) {
  const bool reads_ab = g.alpha != 0.f && g.k > 0;
  if (reads_ab && g.a == nullptr) return AUTOGEMM_NULL_A;
  if (reads_ab && g.b == nullptr) return AUTOGEMM_NULL_B;
  if (g.c == nullptr) return AUTOGEMM_NULL_C;
  return AUTOGEMM_SUCCESS;
}

CanonicalCall normalize(const GemmArgs& g) {
  CanonicalCall c;
  Problem& p = c.problem;
  const bool ta = is_trans(g.trans_a), tb = is_trans(g.trans_b);
  if (g.layout == AUTOGEMM_ROW_MAJOR) {
    p.m = g.m;
    p.n = g.n;
    p.trans_a = ta;
    p.trans_b = tb;
    p.lda = g.lda;
    p.ldb = g.ldb;
    c.a = g.a;
    c.b = g.b;
  } else {
    // Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T.
    p.m = g.n;
    p.n = g.m;
    p.trans_a = tb;
    p.trans_b = ta;
    p.lda = g.ldb;
    p.ldb = g.lda;
    c.a = g.b;
    c.b = g.a;
  }
  p.k = g.k;
  p.ldc = g.ldc;
  c.c = g.c;
  c.alpha = g.alpha;
  c.beta = g.beta;
  p.batch = g.batch;
  if (g.batch > 1) {
    const bool row = g.layout == AUTOGEMM_ROW_MAJOR;
    p.stride_a = row ? g.stride_a : g.stride_b;
    p.stride_b = row ? g.stride_b : g.stride_a;
    p.stride_c = g.stride_c;
  }
  // Every product of a batch starts 16-byte aligned when the strides are
  // multiples of 4 floats.
  p.aligned = aligned16(c.a) && aligned16(c.b) && aligned16(c.c) && p.lda % 4 == 0 &&
              p.ldb % 4 == 0 && p.ldc % 4 == 0 && p.stride_a % 4 == 0 && p.stride_b % 4 == 0 &&
              p.stride_c % 4 == 0;
  return c;
}

}  // namespace autogemm
