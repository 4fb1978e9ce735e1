// sgemm_'s bad arguments and quick returns, as the reference has them: each
// bad argument reaches the program's xerbla_ once, with the reference INFO
// and "SGEMM ", and nothing else happens (alpha and beta are not even read,
// C stays bit for bit); a quick return reads and writes nothing.
#include <cmath>
#include <limits>

#include "blas_stats.h"
#include "blas_testing.h"
#include "xerbla_recorder.h"

namespace {

using blas_testing::same_bits;

struct BadCall {
  const char* what;
  char ta, tb;
  int m, n, k, lda, ldb, ldc;
  int info;
};

// In the reference's order of checks: the first bad argument is reported.
const BadCall kBadCalls[] = {
    {"TRANSA '/'", '/', 'N', 0, 0, 0, 1, 1, 1, 1},
    {"TRANSA 'X' and TRANSB '/'", 'X', '/', 0, 0, 0, 1, 1, 1, 1},
    {"TRANSA ' '", ' ', 'T', 2, 2, 2, 2, 2, 2, 1},
    {"TRANSB '/'", 'N', '/', 0, 0, 0, 1, 1, 1, 2},
    {"TRANSB 'x' after a lower-case TRANSA", 'c', 'x', 0, 0, 0, 1, 1, 1, 2},
    {"M -1", 'N', 'N', -1, 0, 0, 1, 1, 1, 3},
    {"M -1 and N -1", 'T', 'T', -1, -1, 0, 1, 1, 1, 3},
    {"N -1", 'N', 'T', 0, -1, 0, 1, 1, 1, 4},
    {"K -1", 'T', 'N', 0, 0, -1, 1, 1, 1, 5},
    {"K -1 and LDA 0", 'N', 'N', 2, 0, -1, 0, 1, 2, 5},
    {"LDA 1 < M 2 (NN)", 'N', 'N', 2, 0, 0, 1, 1, 2, 8},
    {"LDA 1 < K 2 (TN)", 'T', 'N', 0, 0, 2, 1, 2, 1, 8},
    {"LDA 0 with M 0", 'N', 'N', 0, 0, 0, 0, 1, 1, 8},
    {"LDB 1 < K 2 (NN)", 'N', 'N', 0, 0, 2, 1, 1, 1, 10},
    {"LDB 1 < N 2 (NT)", 'N', 'T', 0, 2, 0, 1, 1, 1, 10},
    {"LDB 0 with K 0", 'N', 'N', 0, 0, 0, 1, 0, 1, 10},
    {"LDC 1 < M 2", 'N', 'N', 2, 0, 0, 2, 1, 1, 13},
    {"LDC 0 with M 0", 'T', 'C', 0, 0, 0, 1, 1, 0, 13},
};

TEST(BlasArguments, EachBadArgumentCallsXerblaOnceWithTheReferenceInfo) {
  for (const BadCall& bad : kBadCalls) {
    std::vector<float> a(16, 1.f), b(16, 2.f), c(16, std::numeric_limits<float>::quiet_NaN());
    c[1] = 3.f;
    const std::vector<float> c0 = c;
    const auto before = autogemm::blas::blas_counts();
    xerbla_calls().clear();
    // alpha and beta as null pointers: the reference reads neither before
    // its checks, so a bad call must not either.
    sgemm_(&bad.ta, &bad.tb, &bad.m, &bad.n, &bad.k, nullptr, a.data(), &bad.lda, b.data(), &bad.ldb, nullptr,
           c.data(), &bad.ldc, 1, 1);
    ASSERT_EQ(xerbla_calls().size(), 1u) << bad.what;
    EXPECT_EQ(xerbla_calls()[0].name, "SGEMM ") << bad.what;
    EXPECT_EQ(xerbla_calls()[0].info, bad.info) << bad.what;
    for (size_t i = 0; i < c.size(); ++i) EXPECT_TRUE(same_bits(c[i], c0[i])) << bad.what << ": C[" << i << "]";
    const auto after = autogemm::blas::blas_counts();
    EXPECT_EQ(after.bad_arguments - before.bad_arguments, 1u) << bad.what;
    EXPECT_EQ(after.routed + after.by_next_sgemm + after.by_host_loop,
              before.routed + before.by_next_sgemm + before.by_host_loop) << bad.what;
  }
}

TEST(BlasArguments, ValidCallsNeverCallXerbla) {
  xerbla_calls().clear();
  for (const auto& [ta, tb] : blas_testing::transposes()) {
    auto o = blas_testing::make_operands(ta, tb, 3, 2, 4, 1, 7);
    blas_testing::call(o, 1.5f, 0.5f);
  }
  EXPECT_TRUE(xerbla_calls().empty());
}

/// A C full of a NaN pattern, which a quick return must leave bit for bit.
std::vector<float> poisoned(size_t n) {
  std::vector<float> c(n);
  for (size_t i = 0; i < n; ++i) {
    const unsigned bits = 0x7fc00000u | unsigned(i * 2654435761u & 0x3fffffu);
    std::memcpy(&c[i], &bits, sizeof bits);
  }
  return c;
}

struct QuickCall {
  const char* what;
  int m, n, k;
  float alpha, beta;
  bool null_c;  // M or N 0: C may be anything, even a null pointer
};

const QuickCall kQuickCalls[] = {
    {"M 0", 0, 5, 3, 1.f, 0.f, true},
    {"N 0", 4, 0, 3, 2.f, 0.5f, true},
    {"M and N and K 0", 0, 0, 0, 1.f, 1.f, true},
    {"alpha 0, beta 1", 4, 5, 3, 0.f, 1.f, false},
    {"alpha -0, beta 1", 4, 5, 3, -0.f, 1.f, false},
    {"K 0, beta 1", 4, 5, 0, 2.f, 1.f, false},
    {"K 0, NaN alpha, beta 1", 4, 5, 0, std::numeric_limits<float>::quiet_NaN(), 1.f, false},
};

TEST(BlasQuickReturn, TouchesNothing) {
  for (const QuickCall& q : kQuickCalls)
    for (const auto& [ta, tb] : blas_testing::transposes()) {
      std::vector<float> c = poisoned(64);
      const std::vector<float> c0 = c;
      const int ld = 8;
      const auto before = autogemm::blas::blas_counts();
      // A and B are null: a quick return never reads them.
      sgemm_(&ta, &tb, &q.m, &q.n, &q.k, &q.alpha, nullptr, &ld, nullptr, &ld, &q.beta,
             q.null_c ? nullptr : c.data(), &ld, 1, 1);
      for (size_t i = 0; i < c.size(); ++i) ASSERT_TRUE(same_bits(c[i], c0[i])) << q.what << ": C[" << i << "]";
      const auto after = autogemm::blas::blas_counts();
      EXPECT_EQ(after.quick_returns - before.quick_returns, 1u) << q.what;
    }
}

TEST(BlasQuickReturn, AlphaZeroScalesCWithoutReadingAOrB) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const auto& [ta, tb] : blas_testing::transposes())
    for (float beta : {0.f, 2.f, -0.5f}) {
      auto o = blas_testing::make_operands(ta, tb, 5, 3, 4, 2, 11);
      std::fill(o.a.begin(), o.a.end(), nan);
      std::fill(o.b.begin(), o.b.end(), nan);
      if (beta == 0.f) std::fill(o.c.begin(), o.c.end(), nan);  // beta 0: C is not read either
      std::vector<float> out = o.c;
      const float zero = 0.f;
      const auto before = autogemm::blas::blas_counts();
      sgemm_(&o.ta, &o.tb, &o.m, &o.n, &o.k, &zero, nullptr, &o.lda, nullptr, &o.ldb, &beta, out.data(), &o.ldc, 1,
             1);
      EXPECT_TRUE(blas_testing::matches_fp64(o, 0.f, beta, out)) << ta << tb << " beta " << beta;
      EXPECT_EQ(autogemm::blas::blas_counts().scaled_on_host - before.scaled_on_host, 1u);
    }
}

TEST(BlasQuickReturn, KZeroScalesC) {
  for (float beta : {0.f, 0.25f}) {
    auto o = blas_testing::make_operands('N', 'T', 6, 4, 0, 1, 5);
    std::vector<float> out = o.c;
    const float alpha = 3.f;
    sgemm_(&o.ta, &o.tb, &o.m, &o.n, &o.k, &alpha, nullptr, &o.lda, nullptr, &o.ldb, &beta, out.data(), &o.ldc, 1, 1);
    EXPECT_TRUE(blas_testing::matches_fp64(o, alpha, beta, out)) << "beta " << beta;
  }
}

}  // namespace
