// SearchSpace: every candidate is valid, implements the problem, fits the
// device limits, and the space adapts to the shape.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "autogemm/search_space.h"
#include "autogemm/tuner.h"

namespace autogemm {
namespace {

Problem shape(const char* text) {
  ShapeSpec s;
  std::string err;
  EXPECT_TRUE(parse_shape(text, &s, &err)) << err;
  return s.problem();
}

TEST(SearchSpace, EveryCandidateIsValidImplementsAndFitsLimits) {
  const SearchLimits lim;  // H100/H200-like defaults
  for (const ShapeSpec& spec : default_suite()) {
    const Problem p = spec.problem();
    const auto space = SearchSpace::enumerate(p, lim);
    ASSERT_FALSE(space.empty()) << p.to_string();
    std::set<std::string> seen;
    for (const KernelConfig& c : space) {
      std::string why;
      ASSERT_TRUE(c.is_valid(&why)) << c.to_string() << ": " << why;
      ASSERT_TRUE(c.can_implement(p)) << c.to_string() << " for " << p.to_string();
      ASSERT_LE(c.smem_bytes(), lim.max_smem) << c.to_string();
      ASSERT_GE(c.threads(), 64);
      ASSERT_LE(c.threads(), 512);
      ASSERT_LE(SearchSpace::estimated_registers(c), 255) << c.to_string();
      // Dispatch refuses bigger workspaces: the tuner must never pick one.
      ASSERT_LE(c.workspace_floats(p), KernelConfig::kMaxWorkspaceFloats) << c.to_string();
      // Large register-tile bodies get a partly unrolled twin; nothing else.
      if (c.k_unroll) ASSERT_GT(c.tm * c.tn * c.bk, 1024) << c.to_string();
      ASSERT_TRUE(seen.insert(c.to_string()).second) << "duplicate " << c.to_string();
      // KernelConfig text survives the cache round trip.
      auto back = KernelConfig::parse(c.to_string());
      ASSERT_TRUE(back.has_value());
      ASSERT_EQ(*back, c);
    }
  }
}

TEST(SearchSpace, SmallerSharedMemoryLimitPrunesBigTiles) {
  SearchLimits small;
  small.max_smem = 16 * 1024;
  const Problem p = shape("4096x4096x4096");
  for (const KernelConfig& c : SearchSpace::enumerate(p, small)) EXPECT_LE(c.smem_bytes(), small.max_smem);
  EXPECT_LT(SearchSpace::enumerate(p, small).size(), SearchSpace::enumerate(p, SearchLimits{}).size());
}

TEST(SearchSpace, SplitKOnlyWhenTilesCannotFillTheGpuOrTheLastWave) {
  const SearchLimits lim;
  for (const KernelConfig& c : SearchSpace::enumerate(shape("8192x8192x8192"), lim)) EXPECT_EQ(c.split_k, 1);
  bool any_split = false;
  const Problem skinny = shape("16x4096x4096");
  for (const KernelConfig& c : SearchSpace::enumerate(skinny, lim)) {
    if (c.split_k > 1) {
      any_split = true;
      EXPECT_GE(skinny.k / c.split_k, 4 * c.bk) << c.to_string();
    }
  }
  EXPECT_TRUE(any_split);
}

// Many tiles: split-K only to fill a badly filled last wave, with 2..4 slices.
TEST(SearchSpace, SplitKAgainstAPartialLastWave) {
  const SearchLimits lim;
  const Problem p = shape("3000x3000x3000");
  bool any_split = false;
  for (const KernelConfig& c : SearchSpace::enumerate(p, lim)) {
    if (c.split_k == 1) continue;
    any_split = true;
    EXPECT_LE(c.split_k, 4) << c.to_string();
    const int64_t tiles = ((p.m + c.bm - 1) / c.bm) * ((p.n + c.bn - 1) / c.bn);
    const double waves = double(tiles) / (lim.sm_count * SearchSpace::blocks_per_sm(c, lim));
    EXPECT_LT(waves - std::floor(waves), 0.75) << c.to_string();
  }
  EXPECT_TRUE(any_split);
  // 4096^3 with 128x128 tiles: 1024 tiles on 2 x 132 slots, last wave 88% full.
  for (const KernelConfig& c : SearchSpace::enumerate(shape("4096x4096x4096"), lim))
    if (c.bm == 128 && c.bn == 128) EXPECT_EQ(c.split_k, 1) << c.to_string();
}

TEST(SearchSpace, FourStagesOnlyForSkinnyProblems) {
  const SearchLimits lim;
  for (const KernelConfig& c : SearchSpace::enumerate(shape("2048x2048x2048"), lim)) EXPECT_NE(c.stages, 4);
  bool four = false;
  for (const KernelConfig& c : SearchSpace::enumerate(shape("1x4096x4096"), lim)) four |= c.stages == 4;
  EXPECT_TRUE(four);
}

TEST(SearchSpace, TilesNeverFarLargerThanTheMatrix) {
  for (const KernelConfig& c : SearchSpace::enumerate(shape("1x4096x4096"), SearchLimits{})) EXPECT_EQ(c.bm, 16);
  for (const KernelConfig& c : SearchSpace::enumerate(shape("100x30x7"), SearchLimits{})) {
    EXPECT_LE(c.bm, 128);
    EXPECT_LE(c.bn, 32);
    EXPECT_EQ(c.bk, 8);
  }
}

TEST(SearchSpace, UnalignedProblemsGetScalarAccessOnly) {
  Problem p = shape("1000x1000x1000");
  p.aligned = false;
  for (const KernelConfig& c : SearchSpace::enumerate(p, SearchLimits{})) EXPECT_EQ(c.vec, 1);
  p.aligned = true;
  for (const KernelConfig& c : SearchSpace::enumerate(p, SearchLimits{})) EXPECT_EQ(c.vec, 4);
}

TEST(SearchSpace, TransposesFollowTheProblem) {
  for (const char* t : {"512x512x512:NT", "512x512x512:TN", "col:512x256x128:TT"}) {
    const Problem p = shape(t);
    for (const KernelConfig& c : SearchSpace::enumerate(p, SearchLimits{})) {
      ASSERT_EQ(c.trans_a, p.trans_a);
      ASSERT_EQ(c.trans_b, p.trans_b);
    }
  }
}

}  // namespace
}  // namespace autogemm
