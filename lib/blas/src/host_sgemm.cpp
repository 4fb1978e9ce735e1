#include "host_sgemm.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace autogemm::blas {
namespace {

/// Rows of C summed together when A is not transposed: the column of A is
/// read contiguously and the sums stay on the stack (nothing allocated, so
/// the fallback cannot fail for memory).
constexpr int kRowBlock = 64;

float a_at(const FortranSgemm& g, int i, int l) {
  return is_transpose(g.trans_a) ? g.a[l + size_t(i) * size_t(g.lda)] : g.a[i + size_t(l) * size_t(g.lda)];
}

float b_at(const FortranSgemm& g, int l, int j) {
  return is_transpose(g.trans_b) ? g.b[j + size_t(l) * size_t(g.ldb)] : g.b[l + size_t(j) * size_t(g.ldb)];
}

/// The reference's last step on one element: beta == 0 does not read C.
void store(const FortranSgemm& g, int i, int j, float sum) {
  float& c = g.c[i + size_t(j) * size_t(g.ldc)];
  c = g.beta == 0.f ? g.alpha * sum : g.alpha * sum + g.beta * c;
}

/// op(A) = A: a block of rows of column j, accumulated column of A by column.
void rows_of_column(const FortranSgemm& g, int i0, int rows, int j) {
  float sum[kRowBlock] = {};
  for (int l = 0; l < g.k; ++l) {
    const float b = b_at(g, l, j);
    const float* a = g.a + i0 + size_t(l) * size_t(g.lda);
    for (int r = 0; r < rows; ++r) sum[r] = std::fma(a[r], b, sum[r]);
  }
  for (int r = 0; r < rows; ++r) store(g, i0 + r, j, sum[r]);
}

/// op(A) = A**T: one dot product per element, a column of A against op(B).
void dot(const FortranSgemm& g, int i, int j) {
  float sum = 0.f;
  for (int l = 0; l < g.k; ++l) sum = std::fma(a_at(g, i, l), b_at(g, l, j), sum);
  store(g, i, j, sum);
}

}  // namespace

void scale_c(const FortranSgemm& g) {
  for (int j = 0; j < g.n; ++j) {
    float* c = g.c + size_t(j) * size_t(g.ldc);
    for (int i = 0; i < g.m; ++i) c[i] = g.beta == 0.f ? 0.f : g.beta * c[i];
  }
}

void host_sgemm(const FortranSgemm& g) {
  if (only_scales_c(g)) return scale_c(g);
  const bool ta = is_transpose(g.trans_a);
  for (int j = 0; j < g.n; ++j) {
    if (ta) {
      for (int i = 0; i < g.m; ++i) dot(g, i, j);
    } else {
      for (int i0 = 0; i0 < g.m; i0 += kRowBlock) rows_of_column(g, i0, std::min(kRowBlock, g.m - i0), j);
    }
  }
}

}  // namespace autogemm::blas
