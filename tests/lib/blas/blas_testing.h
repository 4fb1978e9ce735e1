// Shared by the BLAS drop-in's tests: column-major host operands with a wide
// exponent range and padded leading dimensions, the Fortran call, and the
// check of a result against an FP64-accumulated reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                       const float* beta, float* c, const int* ldc, size_t transa_len, size_t transb_len);

namespace blas_testing {

inline bool is_trans(char t) { return t != 'N' && t != 'n'; }

/// One problem: A, B, C as Fortran stores them, leading dimensions `pad`
/// above the minimum (the rows past it hold values no call may touch).
struct Operands {
  char ta = 'N', tb = 'N';
  int m = 0, n = 0, k = 0, lda = 1, ldb = 1, ldc = 1;
  std::vector<float> a, b, c;
  float* c_data() { return c.empty() ? nullptr : c.data(); }
};

/// Values +-[0.5, 1) * 2^e, e uniform in [-spread, spread].
inline void fill(std::vector<float>& v, size_t count, std::mt19937& rng, int spread) {
  std::uniform_real_distribution<float> mant(0.5f, 1.0f);
  std::uniform_int_distribution<int> ex(-spread, spread), sign(0, 1);
  v.resize(count);
  for (float& x : v) x = std::ldexp(mant(rng), ex(rng)) * (sign(rng) ? -1.f : 1.f);
}

inline Operands make_operands(char ta, char tb, int m, int n, int k, int pad, unsigned seed, int spread = 12) {
  Operands o;
  o.ta = ta, o.tb = tb, o.m = m, o.n = n, o.k = k;
  const int rows_a = is_trans(ta) ? k : m, cols_a = is_trans(ta) ? m : k;
  const int rows_b = is_trans(tb) ? n : k, cols_b = is_trans(tb) ? k : n;
  o.lda = std::max(1, rows_a) + pad, o.ldb = std::max(1, rows_b) + pad, o.ldc = std::max(1, m) + pad;
  std::mt19937 rng(seed);
  fill(o.a, size_t(o.lda) * size_t(std::max(1, cols_a)), rng, spread);
  fill(o.b, size_t(o.ldb) * size_t(std::max(1, cols_b)), rng, spread);
  fill(o.c, size_t(o.ldc) * size_t(std::max(1, n)), rng, spread);
  return o;
}

inline void call(Operands& o, float alpha, float beta) {
  sgemm_(&o.ta, &o.tb, &o.m, &o.n, &o.k, &alpha, o.a.data(), &o.lda, o.b.data(), &o.ldb, &beta, o.c.data(), &o.ldc,
         1, 1);
}

inline float a_at(const Operands& o, int i, int l) {
  return is_trans(o.ta) ? o.a[l + size_t(i) * o.lda] : o.a[i + size_t(l) * o.lda];
}
inline float b_at(const Operands& o, int l, int j) {
  return is_trans(o.tb) ? o.b[j + size_t(l) * o.ldb] : o.b[l + size_t(j) * o.ldb];
}

inline bool same_bits(float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; }

/// `out` (C after the call on `in`) against the FP64 reference: within
/// (2 (k + 2) + extra) u (|alpha| sum |a||b| + |beta c|) per element,
/// u = 2^-24 (extra = 12 for 3xTF32's split products, as autogemm's verifier
/// allows them), and the padding rows of C bit for bit as they were.
/// beta == 0: C not read.
inline ::testing::AssertionResult matches_fp64(const Operands& in, float alpha, float beta,
                                               const std::vector<float>& out, int extra = 0) {
  const double u = std::ldexp(1.0, -24);
  for (int j = 0; j < in.n; ++j)
    for (int i = 0; i < in.ldc; ++i) {
      const size_t at = i + size_t(j) * in.ldc;
      if (i >= in.m) {
        if (!same_bits(out[at], in.c[at]))
          return ::testing::AssertionFailure() << "padding C(" << i << "," << j << ") changed";
        continue;
      }
      double sum = 0, mag = 0;
      for (int l = 0; l < in.k && alpha != 0.f; ++l) {
        sum += double(a_at(in, i, l)) * b_at(in, l, j);
        mag += std::fabs(double(a_at(in, i, l)) * b_at(in, l, j));
      }
      const double c0 = beta == 0.f ? 0.0 : double(beta) * in.c[at];
      const double ref = double(alpha) * sum + c0;
      const double bound = (2 * (in.k + 2) + extra) * u * (std::fabs(double(alpha)) * mag + std::fabs(c0)) + 1e-30;
      if (!(std::fabs(out[at] - ref) <= bound))
        return ::testing::AssertionFailure() << in.ta << in.tb << " " << in.m << "x" << in.n << "x" << in.k
                                             << " C(" << i << "," << j << ") = " << out[at] << ", FP64 " << ref
                                             << " (bound " << bound << ")";
    }
  return ::testing::AssertionSuccess();
}

/// Every transpose pair the reference accepts, in both cases.
inline const std::vector<std::pair<char, char>>& transposes() {
  static const std::vector<std::pair<char, char>> all = {{'N', 'N'}, {'N', 'T'}, {'T', 'N'}, {'T', 'T'},
                                                         {'n', 'c'}, {'C', 'n'}, {'t', 'C'}};
  return all;
}

/// Odd sizes (M, N, K), small to a few hundred.
struct Size {
  int m, n, k;
};
inline const std::vector<Size>& odd_sizes() {
  static const std::vector<Size> all = {{1, 1, 1}, {3, 5, 7}, {17, 1, 33}, {1, 29, 13}, {31, 37, 41}, {65, 63, 129}};
  return all;
}

}  // namespace blas_testing
