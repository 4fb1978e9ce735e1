// The benchmark's arithmetic on the CPU: how many operand copies a rotating
// timing needs, and the median/IQR of samples.
#include <gtest/gtest.h>

#include <limits>

#include "autogemm/benchmark.h"
#include "autogemm/shape_spec.h"

namespace autogemm {
namespace {

constexpr size_t kL2 = size_t(50) << 20;  // an H100/H200's 50 MB

TEST(RotatingOperands, FootprintCountsEveryOperandWithItsLeadingDimension) {
  Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 3, 5, 7, false);
  p.lda = 9;   // A is 3 x 7 in rows of 9
  p.ldb = 6;   // B is 7 x 5 in rows of 6
  p.ldc = 8;   // C is 3 x 5 in rows of 8
  EXPECT_EQ(RotatingOperands::footprint_bytes(p), 4u * (3 * 9 + 7 * 6 + 3 * 8));
  p.trans_a = true;  // A stored k x m: 7 rows
  p.lda = 4;
  EXPECT_EQ(RotatingOperands::footprint_bytes(p), 4u * (7 * 4 + 7 * 6 + 3 * 8));
}

TEST(RotatingOperands, CopiesTogetherExceedThreeTimesL2) {
  for (int64_t m : {1, 16, 128, 512, 1024, 2048}) {
    const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, false, m, 4096, 1024, true);
    const int copies = RotatingOperands::copies_for(p, kL2);
    const size_t one = RotatingOperands::footprint_bytes(p);
    EXPECT_GE(size_t(copies) * one, 3 * kL2) << p.to_string();
    EXPECT_LT(size_t(copies - 1) * one, 3 * kL2) << p.to_string() << ": one copy fewer would do";
  }
}

TEST(RotatingOperands, LargeProblemsUseTheirOwnOperandsAndTinyOnesAreBounded) {
  const Problem big = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 4096, 4096, 4096, true);
  EXPECT_EQ(RotatingOperands::copies_for(big, kL2), 1);
  const Problem tiny = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 8, 8, 8, true);
  EXPECT_EQ(RotatingOperands::copies_for(tiny, kL2), 1024);
  // Over 4 GiB in all is never asked for, even if L2 were that large.
  const Problem mid = make_problem(AUTOGEMM_ROW_MAJOR, false, false, 1024, 1024, 1024, true);
  EXPECT_EQ(RotatingOperands::copies_for(mid, size_t(8) << 30),
            int((size_t(4) << 30) / RotatingOperands::footprint_bytes(mid)));
}

TEST(Summarize, MedianAndInterquartileRangeOfUnsortedSamples) {
  const Timing t = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(t.runs, 5);
  EXPECT_DOUBLE_EQ(t.median_ms, 3);
  EXPECT_DOUBLE_EQ(t.iqr_ms, 2);  // 4 - 2
  EXPECT_DOUBLE_EQ(t.min_ms, 1);
  EXPECT_DOUBLE_EQ(summarize({1, 2}).median_ms, 1.5);
  EXPECT_EQ(summarize({}).runs, 0);
}

TEST(SettledByOneRun, OnlyAClearLossIsSettledByOneRun) {
  // Short runs: only 3x slower is sure; from 1 ms, 1.5x.
  EXPECT_EQ(settled_by_one_run(0.5, 0.2), nullptr);
  EXPECT_NE(settled_by_one_run(0.7, 0.2), nullptr);
  EXPECT_EQ(settled_by_one_run(2.0, 1.5), nullptr);
  EXPECT_NE(settled_by_one_run(2.4, 1.5), nullptr);
  // Below 30 ms a run 10 % slower is still timed fully...
  EXPECT_EQ(settled_by_one_run(22.0, 20.0), nullptr);
  // ...from 30 ms one run settles what is past the finalists' margin and a
  // run's spread, and nothing nearer.
  EXPECT_NE(settled_by_one_run(176.0, 168.0), nullptr);
  EXPECT_EQ(settled_by_one_run(172.0, 168.0), nullptr);
  EXPECT_EQ(settled_by_one_run(168.0 * (1 + kFinalistMargin), 168.0), nullptr);
}

TEST(SettledByOneRun, NothingIsSettledWithoutABest) {
  EXPECT_EQ(settled_by_one_run(50.0, std::numeric_limits<double>::infinity()), nullptr);
  EXPECT_EQ(settled_by_one_run(50.0, 0.0), nullptr);
  EXPECT_EQ(settled_by_one_run(0.0, 50.0), nullptr);
}

}  // namespace
}  // namespace autogemm
