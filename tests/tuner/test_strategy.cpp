// Strategies: budgets, determinism, and the model's preference order.
#include <gtest/gtest.h>

#include <set>

#include "autogemm/strategy.h"
#include "autogemm/tuner.h"

namespace autogemm {
namespace {

Problem shape(const char* text) {
  ShapeSpec s;
  std::string err;
  EXPECT_TRUE(parse_shape(text, &s, &err)) << err;
  return s.problem();
}

TEST(Strategy, ParseAndPrint) {
  for (auto k : {StrategyKind::Exhaustive, StrategyKind::Sampled, StrategyKind::Model})
    EXPECT_EQ(parse_strategy(to_string(k)), k);
  EXPECT_FALSE(parse_strategy("fastest").has_value());
  EXPECT_FALSE(parse_strategy("").has_value());
}

TEST(Strategy, BudgetsAreRespectedAndCandidatesComeFromTheSpace) {
  const SearchLimits lim;
  const Problem p = shape("2048x2048x2048");
  const auto space = SearchSpace::enumerate(p, lim);
  std::set<std::string> all;
  for (const auto& c : space) all.insert(c.to_string());
  for (auto k : {StrategyKind::Sampled, StrategyKind::Model}) {
    const auto pick = select_candidates(k, space, p, lim, 17, 3);
    ASSERT_EQ(pick.size(), 17u);
    std::set<std::string> uniq;
    for (const auto& c : pick) {
      EXPECT_TRUE(all.count(c.to_string())) << c.to_string();
      uniq.insert(c.to_string());
    }
    EXPECT_EQ(uniq.size(), pick.size()) << "duplicates in " << to_string(k);
  }
  EXPECT_EQ(select_candidates(StrategyKind::Exhaustive, space, p, lim, 17, 3).size(), space.size());
  EXPECT_EQ(select_candidates(StrategyKind::Model, space, p, lim, 1 << 20, 3).size(), space.size());
}

TEST(Strategy, SamplingIsSeededAndModelIsDeterministic) {
  const SearchLimits lim;
  const Problem p = shape("1000x1000x1000");
  const auto space = SearchSpace::enumerate(p, lim);
  auto str = [](const std::vector<KernelConfig>& v) {
    std::string s;
    for (const auto& c : v) s += c.to_string() + ";";
    return s;
  };
  EXPECT_EQ(str(select_candidates(StrategyKind::Sampled, space, p, lim, 20, 7)),
            str(select_candidates(StrategyKind::Sampled, space, p, lim, 20, 7)));
  EXPECT_NE(str(select_candidates(StrategyKind::Sampled, space, p, lim, 20, 7)),
            str(select_candidates(StrategyKind::Sampled, space, p, lim, 20, 8)));
  EXPECT_EQ(str(select_candidates(StrategyKind::Model, space, p, lim, 20, 7)),
            str(select_candidates(StrategyKind::Model, space, p, lim, 20, 99)));
}

TEST(Strategy, ModelPrefersWhatTheH200Measured) {
  // On the H200 (docs/PERFORMANCE.md) 16x8 register tiles of 128-wide block
  // tiles beat small 4x4 tiles by ~2x at 4096^3; the model must agree.
  const SearchLimits lim;
  const Problem p = shape("4096x4096x4096");
  auto cfg = [](const char* t) { return *KernelConfig::parse(t); };
  const double big = model_cost(cfg("tiled bm=128 bn=128 bk=8 tm=16 tn=8 wc=4 vec=4 sk=1 sw=1 ta=0 tb=0"), p, lim);
  const double small = model_cost(cfg("tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0"), p, lim);
  EXPECT_LT(big, small);
  // A skinny problem must rank split-K above a single slice.
  const Problem skinny = shape("16x4096x4096");
  const double split = model_cost(cfg("tiled bm=16 bn=128 bk=16 tm=4 tn=8 wc=8 vec=4 sk=24 rd=1 sw=1 ta=0 tb=0"), skinny, lim);
  const double whole = model_cost(cfg("tiled bm=16 bn=128 bk=16 tm=4 tn=8 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0"), skinny, lim);
  EXPECT_LT(split, whole);
}

}  // namespace
}  // namespace autogemm
