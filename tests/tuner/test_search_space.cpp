// SearchSpace over the families: the union of the families' spaces in
// registry order, the families a device may tune; then the tiled family's
// space: every candidate is valid, implements the problem, fits the device
// limits, and the space adapts to the shape. (The checks every family's
// space must pass are in tests/kernel_templates/test_families.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>

#include "autogemm/search_space.h"
#include "autogemm/tuner.h"
#include "autogemm/shape_spec.h"

namespace autogemm {

// Failure messages show configs as their canonical text.
[[maybe_unused]] static void PrintTo(const KernelConfig& c, std::ostream* os) { *os << c.to_string(); }

namespace {

Problem shape(const char* text) {
  ShapeSpec s;
  std::string err;
  EXPECT_TRUE(parse_shape(text, &s, &err)) << err;
  return s.problem();
}

const TiledParams& tp(const KernelConfig& c) { return c.get<TiledParams>(); }

/// The enumerated space, which must hold tiled configs only (the generic
/// family is not tuned), as tiled parameters with their configs.
std::vector<std::pair<KernelConfig, TiledParams>> tiled_space(const Problem& p, const SearchLimits& lim) {
  std::vector<std::pair<KernelConfig, TiledParams>> out;
  for (const KernelConfig& c : TiledFamily::instance().search_space(p, lim)) {
    EXPECT_TRUE(c.is<TiledParams>()) << c.to_string();
    if (c.is<TiledParams>()) out.emplace_back(c, tp(c));
  }
  return out;
}

DeviceInfo fake_sm90() {
  DeviceInfo d;
  d.name = "NVIDIA H200 (fake)";
  d.cc_major = 9, d.cc_minor = 0;
  d.sm_count = 132;
  return d;
}

// ---- over the families ------------------------------------------------------------

TEST(SearchSpace, IsTheFamiliesSpacesInRegistryOrder) {
  const SearchLimits lim;
  for (const char* text : {"127x257x509", "1x4096x4096:NT", "1024x1024x1024:TT"}) {
    const Problem p = shape(text);
    std::vector<KernelConfig> want;
    for (const KernelFamily* f : all_families())
      for (const KernelConfig& c : f->search_space(p, lim)) want.push_back(c);
    EXPECT_EQ(SearchSpace::enumerate(p, lim), want) << text;
    EXPECT_EQ(SearchSpace::enumerate(p, lim, all_families()), want) << text;
    // One family alone gives its own space; none gives nothing.
    EXPECT_EQ(SearchSpace::enumerate(p, lim, {&TiledFamily::instance()}),
              TiledFamily::instance().search_space(p, lim));
    EXPECT_TRUE(SearchSpace::enumerate(p, lim, {&GenericFamily::instance()}).empty()) << "generic is not tuned";
    EXPECT_TRUE(SearchSpace::enumerate(p, lim, {}).empty());
  }
}

TEST(TunableFamilies, NamedFamiliesThatRunOnTheDevice) {
  const DeviceInfo dev = fake_sm90();
  // Empty: the whole registry that the mode admits (every family runs on
  // sm_90), in registry order.
  for (MathMode mode : {MathMode::Strict, MathMode::Fp32Accurate}) {
    std::vector<const KernelFamily*> admitted;
    for (const KernelFamily* f : all_families())
      if (admits(mode, f->accuracy())) admitted.push_back(f);
    EXPECT_EQ(tunable_families(dev, {}, mode), admitted) << to_string(mode);
  }
  EXPECT_EQ(tunable_families(dev, {"tiled"}), std::vector<const KernelFamily*>{&TiledFamily::instance()});
  // Registry order, whatever the order of the names.
  std::vector<const KernelFamily*> two;
  for (const KernelFamily* f : all_families())
    if (f == &TiledFamily::instance() || f == &GenericFamily::instance()) two.push_back(f);
  EXPECT_EQ(tunable_families(dev, {"generic", "tiled"}), two);
  EXPECT_THROW(tunable_families(dev, {"tiled", "nope"}), std::invalid_argument);
  EXPECT_THROW(tunable_families(dev, {""}), std::invalid_argument);
}

// ---- the tiled family's space ---------------------------------------------------

TEST(SearchSpace, EveryCandidateIsValidImplementsAndFitsLimits) {
  const SearchLimits lim;  // H100/H200-like defaults
  for (const ShapeSpec& spec : default_suite()) {
    const Problem p = spec.problem();
    const auto space = TiledFamily::instance().search_space(p, lim);
    ASSERT_FALSE(space.empty()) << p.to_string();
    std::set<std::string> seen;
    for (const KernelConfig& c : space) {
      std::string why;
      ASSERT_TRUE(c.is_valid(&why)) << c.to_string() << ": " << why;
      ASSERT_TRUE(c.can_implement(p)) << c.to_string() << " for " << p.to_string();
      ASSERT_TRUE(c.is<TiledParams>()) << c.to_string();
      const TiledParams& t = tp(c);
      ASSERT_LE(c.smem_bytes(), lim.max_smem) << c.to_string();
      ASSERT_GE(c.threads(), 64);
      ASSERT_LE(c.threads(), 512);
      ASSERT_LE(TiledFamily::estimated_registers(t), 255) << c.to_string();
      ASSERT_LE(int64_t(TiledFamily::estimated_registers(t)) * c.threads(), lim.regs_per_sm) << c.to_string();
      // Dispatch refuses bigger workspaces: the tuner must never pick one.
      ASSERT_LE(c.workspace_floats(p), KernelConfig::kMaxWorkspaceFloats) << c.to_string();
      // Large register-tile bodies get a partly unrolled twin; nothing else.
      if (t.k_unroll) {
        ASSERT_GT(t.tm * t.tn * t.bk, 1024) << c.to_string();
      }
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
  for (const KernelConfig& c : TiledFamily::instance().search_space(p, small)) EXPECT_LE(c.smem_bytes(), small.max_smem);
  EXPECT_LT(TiledFamily::instance().search_space(p, small).size(), TiledFamily::instance().search_space(p, SearchLimits{}).size());
}

TEST(SearchSpace, SplitKOnlyWhenTilesCannotFillTheGpuOrTheLastWave) {
  const SearchLimits lim;
  for (const auto& [c, t] : tiled_space(shape("8192x8192x8192"), lim)) EXPECT_EQ(t.split_k, 1) << c.to_string();
  bool any_split = false;
  const Problem skinny = shape("16x4096x4096");
  for (const auto& [c, t] : tiled_space(skinny, lim)) {
    if (t.split_k > 1) {
      any_split = true;
      EXPECT_GE(skinny.k / t.split_k, 4 * t.bk) << c.to_string();
    }
  }
  EXPECT_TRUE(any_split);
}

// Many tiles: split-K only to fill a badly filled last wave, with 2..4 slices.
TEST(SearchSpace, SplitKAgainstAPartialLastWave) {
  const SearchLimits lim;
  const Problem p = shape("3000x3000x3000");
  bool any_split = false;
  for (const auto& [c, t] : tiled_space(p, lim)) {
    if (t.split_k == 1) continue;
    any_split = true;
    EXPECT_LE(t.split_k, 4) << c.to_string();
    const int64_t tiles = ((p.m + t.bm - 1) / t.bm) * ((p.n + t.bn - 1) / t.bn);
    const double waves = double(tiles) / (lim.sm_count * TiledFamily::blocks_per_sm(t, lim));
    EXPECT_LT(waves - std::floor(waves), 0.75) << c.to_string();
  }
  EXPECT_TRUE(any_split);
  // 4096^3 with 128x128 tiles: 1024 tiles on 2 x 132 slots, last wave 88% full.
  for (const auto& [c, t] : tiled_space(shape("4096x4096x4096"), lim))
    if (t.bm == 128 && t.bn == 128) {
      EXPECT_EQ(t.split_k, 1) << c.to_string();
    }
}

TEST(SearchSpace, FourStagesOnlyForSkinnyProblems) {
  const SearchLimits lim;
  for (const auto& [c, t] : tiled_space(shape("2048x2048x2048"), lim)) EXPECT_NE(t.stages, 4) << c.to_string();
  bool four = false;
  for (const auto& [c, t] : tiled_space(shape("1x4096x4096"), lim)) four |= t.stages == 4;
  EXPECT_TRUE(four);
}

TEST(SearchSpace, TilesNeverFarLargerThanTheMatrix) {
  for (const auto& [c, t] : tiled_space(shape("1x4096x4096"), SearchLimits{})) EXPECT_EQ(t.bm, 16) << c.to_string();
  for (const auto& [c, t] : tiled_space(shape("100x30x7"), SearchLimits{})) {
    EXPECT_LE(t.bm, 128) << c.to_string();
    EXPECT_LE(t.bn, 32) << c.to_string();
    EXPECT_EQ(t.bk, 8) << c.to_string();
  }
}

TEST(SearchSpace, UnalignedProblemsGetScalarAccessOnly) {
  Problem p = shape("1000x1000x1000");
  p.aligned = false;
  for (const auto& [c, t] : tiled_space(p, SearchLimits{})) EXPECT_EQ(t.vec, 1) << c.to_string();
  p.aligned = true;
  for (const auto& [c, t] : tiled_space(p, SearchLimits{})) EXPECT_EQ(t.vec, 4) << c.to_string();
}

TEST(SearchSpace, TransposesFollowTheProblem) {
  for (const char* t : {"512x512x512:NT", "512x512x512:TN", "col:512x256x128:TT"}) {
    const Problem p = shape(t);
    for (const KernelConfig& c : TiledFamily::instance().search_space(p, SearchLimits{})) {
      ASSERT_EQ(c.trans_a, p.trans_a);
      ASSERT_EQ(c.trans_b, p.trans_b);
    }
  }
}

}  // namespace
}  // namespace autogemm
