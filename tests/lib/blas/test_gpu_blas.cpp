// GPU: sgemm_ on host matrices routed to autogemm, in strict and
// fp32_accurate math modes: every transpose, odd sizes, padded leading
// dimensions, beta == 0 over a NaN C, several threads at once (each takes
// its own device buffers); each result held to the FP64 reference and every
// call counted as routed, none fallen back. Skips without a GPU.
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>

#include "autogemm/autogemm.h"
#include "autogemm/cuda_driver.h"
#include "blas_stats.h"
#include "blas_testing.h"

namespace {

using autogemm::blas::BlasCounts;

unsigned long long fallbacks(const BlasCounts& c) {
  unsigned long long n = 0;
  for (unsigned long long f : c.fell_back) n += f;
  return n;
}

class GpuBlas : public ::testing::TestWithParam<autogemm_math_mode> {
 protected:
  void SetUp() override {
    std::string why;
    if (!autogemm::gpu_available(&why)) GTEST_SKIP() << "no GPU on this machine: " << why;
    if (std::getenv("AUTOGEMM_BLAS_OFF")) GTEST_SKIP() << "AUTOGEMM_BLAS_OFF is set: nothing is routed";
    // No cache file: built-in plans, whatever this machine has tuned.
    static const bool init = autogemm_init("/nonexistent-dir/autogemm-test.db") == AUTOGEMM_SUCCESS;
    ASSERT_TRUE(init);
    ASSERT_EQ(autogemm_set_math_mode(GetParam()), AUTOGEMM_SUCCESS);
    before_ = autogemm::blas::blas_counts();
  }
  void TearDown() override { autogemm_set_math_mode(AUTOGEMM_MATH_STRICT); }

  /// Every call since SetUp routed: `calls` more routed, no fallback.
  void expect_routed(unsigned long long calls) const {
    const BlasCounts after = autogemm::blas::blas_counts();
    EXPECT_EQ(after.routed - before_.routed, calls);
    EXPECT_EQ(fallbacks(after), fallbacks(before_)) << "a call fell back: the log says why";
  }

  /// The error bound's allowance for the mode (blas_testing::matches_fp64).
  int extra() const { return GetParam() == AUTOGEMM_MATH_FP32_ACCURATE ? 12 : 0; }

  BlasCounts before_;
};

TEST_P(GpuBlas, MatchesFp64InEveryTransposeAndOddSize) {
  const blas_testing::Size sizes[] = {{1, 1, 1},     {7, 11, 13},    {33, 17, 65},   {127, 129, 257},
                                      {300, 1, 500}, {1, 300, 200},  {257, 250, 31}, {511, 385, 129}};
  unsigned long long calls = 0;
  unsigned seed = 1;
  for (const auto& [ta, tb] : blas_testing::transposes())
    for (const blas_testing::Size& s : sizes)
      for (int pad : {0, 3})
        for (const auto& [alpha, beta] : {std::pair{1.f, 0.f}, {-1.25f, 0.5f}, {0.7f, 1.f}}) {
          auto o = blas_testing::make_operands(ta, tb, s.m, s.n, s.k, pad, seed++, 12);
          const auto in = o;
          blas_testing::call(o, alpha, beta);
          ++calls;
          ASSERT_TRUE(blas_testing::matches_fp64(in, alpha, beta, o.c, extra())) << "pad " << pad << " alpha " << alpha;
        }
  expect_routed(calls);
}

TEST_P(GpuBlas, BetaZeroNeverReadsNaNInC) {
  for (const auto& [ta, tb] : blas_testing::transposes()) {
    auto o = blas_testing::make_operands(ta, tb, 65, 33, 100, 1, 5);
    std::fill(o.c.begin(), o.c.end(), std::numeric_limits<float>::quiet_NaN());
    const auto in = o;
    blas_testing::call(o, 2.f, 0.f);
    EXPECT_TRUE(blas_testing::matches_fp64(in, 2.f, 0.f, o.c, extra())) << ta << tb;
  }
  expect_routed(blas_testing::transposes().size());
}

TEST_P(GpuBlas, ThreadsCallAtOnce) {
  constexpr int kThreads = 4, kCalls = 20;
  std::vector<std::thread> threads;
  std::vector<int> bad(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &bad, extra = extra()] {
      autogemm_set_thread_math_mode(AUTOGEMM_MATH_DEFAULT);
      for (int i = 0; i < kCalls; ++i) {
        // Growing sizes, so that buffers are reallocated while others run.
        auto o = blas_testing::make_operands(i % 2 ? 'T' : 'N', 'N', 40 + 13 * i, 30 + t, 50 + 7 * i, t, 10 * t + i);
        const auto in = o;
        blas_testing::call(o, 1.f, 0.5f);
        if (!blas_testing::matches_fp64(in, 1.f, 0.5f, o.c, extra)) ++bad[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
  expect_routed(kThreads * kCalls);
}

INSTANTIATE_TEST_SUITE_P(MathModes, GpuBlas, ::testing::Values(AUTOGEMM_MATH_STRICT, AUTOGEMM_MATH_FP32_ACCURATE),
                         [](const auto& info) {
                           return std::string(info.param == AUTOGEMM_MATH_STRICT ? "Strict" : "Fp32Accurate");
                         });

}  // namespace
