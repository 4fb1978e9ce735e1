// The host loop (host_sgemm.h), the last resort of sgemm_, called directly:
// every transpose, odd sizes, padded leading dimensions, a wide exponent
// range, and the reference's rules for alpha == 0 and beta == 0.
#include <limits>

#include "blas_testing.h"
#include "fortran_call.h"
#include "host_sgemm.h"

namespace {

using autogemm::blas::FortranSgemm;

/// The library's view of the test's operands, with C at `out`.
FortranSgemm view(const blas_testing::Operands& o, float alpha, float beta, std::vector<float>& out) {
  FortranSgemm g;
  g.trans_a = o.ta, g.trans_b = o.tb, g.m = o.m, g.n = o.n, g.k = o.k;
  g.alpha = alpha, g.beta = beta;
  g.a = o.a.data(), g.lda = o.lda, g.b = o.b.data(), g.ldb = o.ldb, g.c = out.data(), g.ldc = o.ldc;
  return g;
}

TEST(BlasHostLoop, MatchesFp64InEveryTransposeAndOddSize) {
  unsigned seed = 1;
  for (const auto& [ta, tb] : blas_testing::transposes())
    for (const blas_testing::Size& s : blas_testing::odd_sizes())
      for (int pad : {0, 3})
        for (const auto& [alpha, beta] : {std::pair{1.f, 0.f}, {-1.25f, 0.5f}, {0.7f, 1.f}}) {
          const auto o = blas_testing::make_operands(ta, tb, s.m, s.n, s.k, pad, seed++, 20);
          std::vector<float> out = o.c;
          ASSERT_EQ(autogemm::blas::check_info(view(o, alpha, beta, out)), 0);
          autogemm::blas::host_sgemm(view(o, alpha, beta, out));
          EXPECT_TRUE(blas_testing::matches_fp64(o, alpha, beta, out)) << "pad " << pad;
        }
}

TEST(BlasHostLoop, BetaZeroNeverReadsC) {
  for (const auto& [ta, tb] : blas_testing::transposes()) {
    auto o = blas_testing::make_operands(ta, tb, 70, 9, 17, 2, 3);
    std::fill(o.c.begin(), o.c.end(), std::numeric_limits<float>::quiet_NaN());
    std::vector<float> out = o.c;
    autogemm::blas::host_sgemm(view(o, 2.f, 0.f, out));
    EXPECT_TRUE(blas_testing::matches_fp64(o, 2.f, 0.f, out));
  }
}

TEST(BlasHostLoop, AlphaZeroNeverReadsAOrB) {
  for (const auto& [ta, tb] : blas_testing::transposes()) {
    auto o = blas_testing::make_operands(ta, tb, 7, 6, 5, 1, 4);
    std::fill(o.a.begin(), o.a.end(), std::numeric_limits<float>::infinity());
    std::fill(o.b.begin(), o.b.end(), std::numeric_limits<float>::quiet_NaN());
    for (float beta : {0.f, 3.f}) {
      std::vector<float> out = o.c;
      autogemm::blas::host_sgemm(view(o, 0.f, beta, out));
      EXPECT_TRUE(blas_testing::matches_fp64(o, 0.f, beta, out)) << "beta " << beta;
    }
  }
}

TEST(BlasHostLoop, SumsInKOrderWithFusedMultiplyAdds) {
  // -1 * (1 + 2^-11), then (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 fused onto it:
  // 2^-24 exactly. Rounding that product first, or summing it first (its
  // fused start rounds it too), gives 0.
  const float a[2] = {-1.f, 1.f + 0x1p-12f};
  const float b[2] = {1.f + 0x1p-11f, 1.f + 0x1p-12f};
  for (const auto& [ta, tb] : blas_testing::transposes()) {
    float c = 42.f;
    FortranSgemm g;
    g.trans_a = ta, g.trans_b = tb, g.m = 1, g.n = 1, g.k = 2;
    // A is 1 x 2 (or 2 x 1 transposed), B 2 x 1 (or 1 x 2): one stride fits both.
    g.a = a, g.lda = blas_testing::is_trans(ta) ? 2 : 1, g.b = b, g.ldb = blas_testing::is_trans(tb) ? 1 : 2;
    g.c = &c, g.ldc = 1, g.alpha = 1.f, g.beta = 0.f;
    autogemm::blas::host_sgemm(g);
    EXPECT_EQ(c, 0x1p-24f) << ta << tb;
  }
}

}  // namespace
