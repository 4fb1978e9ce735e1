// sgemm_ end to end, as a program calls it. Where autogemm cannot run (no
// GPU, or AUTOGEMM_BLAS_OFF=1) every call falls back: to the next sgemm_ when
// this test links a BLAS after the library (AUTOGEMM_TEST_NEXT_SGEMM=1),
// else to the host loop; on a GPU the calls are routed. Either way C matches
// the FP64 reference, alpha == 0 and beta == 0 read nothing they must not,
// the counters say what ran, and the caller's FP flags are left alone.
#include <cfenv>
#include <cstdlib>
#include <limits>

#include "autogemm/cuda_driver.h"
#include "blas_stats.h"
#include "blas_testing.h"

#ifndef AUTOGEMM_TEST_NEXT_SGEMM
#define AUTOGEMM_TEST_NEXT_SGEMM 0
#endif

namespace {

using autogemm::blas::BlasCounts;
using autogemm::blas::Why;

bool blas_off() {
  const char* v = std::getenv("AUTOGEMM_BLAS_OFF");
  return v && *v && std::string(v) != "0";
}

/// Checks that `calls` calls since `before` went where this machine sends
/// them: routed on a GPU, else fallen back for `why` to the expected runner.
void expect_went_the_expected_way(const BlasCounts& before, unsigned long long calls) {
  const BlasCounts after = autogemm::blas::blas_counts();
  const bool gpu = autogemm::gpu_available();
  if (!blas_off() && gpu) {
    EXPECT_EQ(after.routed - before.routed, calls) << "a GPU is here: the calls are routed";
    return;
  }
  const Why why = blas_off() ? Why::Off : Why::NoGpu;
  EXPECT_EQ(after.fell_back[int(why)] - before.fell_back[int(why)], calls) << autogemm::blas::why_name(why);
  EXPECT_EQ(after.routed, before.routed);
  if (AUTOGEMM_TEST_NEXT_SGEMM) {
    EXPECT_EQ(after.by_next_sgemm - before.by_next_sgemm, calls) << "the BLAS linked after the library runs them";
  } else {
    EXPECT_EQ(after.by_host_loop - before.by_host_loop, calls) << "no other sgemm_ here: the host loop runs them";
  }
}

TEST(BlasCall, MatchesFp64InEveryTransposeAndOddSize) {
  const BlasCounts before = autogemm::blas::blas_counts();
  unsigned long long calls = 0;
  unsigned seed = 100;
  for (const auto& [ta, tb] : blas_testing::transposes())
    for (const blas_testing::Size& s : blas_testing::odd_sizes())
      for (const auto& [alpha, beta] : {std::pair{1.f, 0.f}, {-1.25f, 0.5f}, {0.7f, 1.f}}) {
        auto o = blas_testing::make_operands(ta, tb, s.m, s.n, s.k, 5, seed++, 20);
        const auto in = o;
        blas_testing::call(o, alpha, beta);
        ++calls;
        EXPECT_TRUE(blas_testing::matches_fp64(in, alpha, beta, o.c));
      }
  expect_went_the_expected_way(before, calls);
}

TEST(BlasCall, BetaZeroNeverReadsC) {
  const BlasCounts before = autogemm::blas::blas_counts();
  for (const auto& [ta, tb] : blas_testing::transposes()) {
    auto o = blas_testing::make_operands(ta, tb, 33, 7, 19, 4, 9);
    std::fill(o.c.begin(), o.c.end(), std::numeric_limits<float>::quiet_NaN());
    const auto in = o;
    blas_testing::call(o, 1.5f, 0.f);
    EXPECT_TRUE(blas_testing::matches_fp64(in, 1.5f, 0.f, o.c)) << ta << tb;
  }
  expect_went_the_expected_way(before, blas_testing::transposes().size());
}

TEST(BlasCall, AlphaZeroNeverReadsAOrB) {
  for (const auto& [ta, tb] : blas_testing::transposes())
    for (float beta : {0.f, 0.7f}) {
      auto o = blas_testing::make_operands(ta, tb, 9, 35, 63, 2, 21);
      std::fill(o.a.begin(), o.a.end(), std::numeric_limits<float>::quiet_NaN());
      std::fill(o.b.begin(), o.b.end(), -std::numeric_limits<float>::infinity());
      if (beta == 0.f) std::fill(o.c.begin(), o.c.end(), std::numeric_limits<float>::quiet_NaN());
      const auto in = o;
      blas_testing::call(o, 0.f, beta);
      EXPECT_TRUE(blas_testing::matches_fp64(in, 0.f, beta, o.c)) << ta << tb << " beta " << beta;
    }
}

TEST(BlasCall, LeavesTheCallersFloatingPointFlagsAlone) {
  // Products that overflow and an Inf times 0: FE_OVERFLOW, FE_INVALID and
  // FE_INEXACT inside, none of them seen by the caller.
  auto o = blas_testing::make_operands('N', 'N', 5, 4, 3, 0, 1);
  std::fill(o.a.begin(), o.a.end(), 3e38f);
  o.b[0] = std::numeric_limits<float>::infinity(), o.b[1] = 0.f;
  std::feclearexcept(FE_ALL_EXCEPT);
  blas_testing::call(o, 2.f, 0.5f);
  EXPECT_EQ(std::fetestexcept(FE_ALL_EXCEPT), 0);
  // A flag the caller raised before the call is still raised after it.
  std::feraiseexcept(FE_UNDERFLOW);
  blas_testing::call(o, 2.f, 0.5f);
  EXPECT_EQ(std::fetestexcept(FE_ALL_EXCEPT), FE_UNDERFLOW);
  std::feclearexcept(FE_ALL_EXCEPT);
}

}  // namespace
