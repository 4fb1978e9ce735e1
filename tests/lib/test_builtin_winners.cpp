// Built-in winners (builtin_winners.h) and how the dispatch policy uses them
// before anything is tuned: every row parses and implements its own shape,
// a shape of the table runs its row, other layouts and the unaligned class
// get a row's tiles made to fit, a stored winner of this device still wins
// where it is faster, and every problem gets a config that implements it.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "autogemm/builtin_winners.h"
#include "autogemm/dispatch_policy.h"
#include "autogemm/gemv_family.h"
#include "autogemm/problem.h"

namespace autogemm {
namespace {

const std::vector<TunedEntry>& sm90() {
  static const std::vector<TunedEntry> e = builtin_entries("sm_90");
  return e;
}

Problem problem(int64_t m, int64_t n, int64_t k, bool ta = false, bool tb = false, bool aligned = true,
                int64_t batch = 1) {
  ShapeKey s{m, n, k, ta, tb, aligned, batch};
  return make_problem(s);
}

int vec_of(const KernelConfig& c) {
  const std::string t = c.to_string();
  const size_t at = t.find(" vec=");
  return at == std::string::npos ? 1 : std::stoi(t.substr(at + 5));
}

TEST(BuiltinWinners, EveryRowParsesAndImplementsItsOwnShape) {
  ASSERT_GT(builtin_winner_rows("sm_90"), 0u);
  ASSERT_EQ(builtin_winners("sm_90").size(), builtin_winner_rows("sm_90")) << "a row's config no longer parses";
  for (const BuiltinWinner& b : builtin_winners("sm_90")) {
    SCOPED_TRACE(b.config.to_string());
    EXPECT_GT(b.median_ms, 0);
    const Problem p = make_problem(b.shape);
    EXPECT_EQ(p.key(), b.shape) << "the row's shape is not canonical";
    EXPECT_TRUE(b.config.can_implement(p));
    EXPECT_LE(b.config.workspace_floats(p), kMaxWorkspaceFloats);
  }
}

TEST(BuiltinWinners, OnlyTheMeasuredArchitectureHasAny) {
  EXPECT_TRUE(builtin_winners("sm_80").empty());
  EXPECT_TRUE(builtin_winners("sm_100").empty());
  EXPECT_TRUE(builtin_entries("sm_89").empty());
  EXPECT_EQ(builtin_entries("sm_90").size(), builtin_winners("sm_90").size());
}

TEST(BuiltinDispatch, AShapeOfTheTableRunsItsRowAsADefault) {
  for (const BuiltinWinner& b : builtin_winners("sm_90")) {
    const Problem p = make_problem(b.shape);
    const PlanChoice c = choose_config(p, {}, MathMode::Strict, SearchLimits{}, sm90());
    EXPECT_EQ(c.source, PlanSource::Default) << "built in, not tuned here";
    EXPECT_EQ(c.config, b.config) << p.to_string();
  }
}

TEST(BuiltinDispatch, AStoredWinnerOfThisDeviceStaysExact) {
  const Problem p = problem(4096, 4096, 4096);
  const KernelConfig mine = KernelConfig::generic(false, false);
  const std::vector<TunedEntry> stored = {TunedEntry{p.key(), mine, 1.0, 500.0}};
  const PlanChoice c = choose_config(p, stored, MathMode::Strict, SearchLimits{}, sm90());
  EXPECT_EQ(c.source, PlanSource::Exact);
  EXPECT_EQ(c.config, mine);
}

TEST(BuiltinDispatch, AFasterStoredWinnerOfANearShapeIsBorrowed) {
  const Problem p = problem(600, 600, 600);
  const KernelConfig near = *KernelConfig::parse("warptiled bm=64 bn=128 bk=8 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 ta=0 tb=0");
  ASSERT_TRUE(near.can_implement(p));
  // Faster on its own shape than any built-in row would make 600^3.
  const std::vector<TunedEntry> stored = {TunedEntry{problem(640, 640, 640).key(), near, 1.0, 1e-5}};
  const PlanChoice c = choose_config(p, stored, MathMode::Strict, SearchLimits{}, sm90());
  EXPECT_EQ(c.source, PlanSource::Nearest);
  EXPECT_EQ(c.config, near);
}

TEST(BuiltinDispatch, OtherLayoutsAndTheUnalignedClassGetRowsMadeToFit) {
  for (int t = 0; t < 4; ++t)
    for (bool aligned : {true, false}) {
      const Problem p = problem(1536, 1536, 1536, t & 1, t & 2, aligned);
      const PlanChoice c = choose_config(p, {}, MathMode::Strict, SearchLimits{}, sm90());
      SCOPED_TRACE(p.to_string() + ": " + c.config.to_string());
      EXPECT_EQ(c.source, PlanSource::Default);
      EXPECT_TRUE(c.config.can_implement(p));
      EXPECT_EQ(c.config.trans_a, p.trans_a);
      EXPECT_EQ(c.config.trans_b, p.trans_b);
      if (!aligned) EXPECT_EQ(vec_of(c.config), 1);
      EXPECT_FALSE(c.config == default_config(p)) << "1536^3 has measured rows near it (1024^3, 2048^3, 3000^3)";
    }
}

TEST(BuiltinDispatch, AGemvRowBorrowedForFewerRowsSumsOnlyThose) {
  for (int64_t m : {2, 3, 4, 5}) {
    const Problem p = problem(m, 4096, 4096);
    const PlanChoice c = choose_config(p, {}, MathMode::Strict, SearchLimits{}, sm90());
    SCOPED_TRACE(p.to_string() + ": " + c.config.to_string());
    ASSERT_TRUE(c.config.is<GemvParams>());
    EXPECT_EQ(c.config.get<GemvParams>().rows, m <= 2 ? 2 : m <= 4 ? 4 : 8);
  }
}

TEST(BuiltinDispatch, EveryProblemGetsAConfigThatImplementsIt) {
  std::mt19937_64 rng(2026);
  auto dim = [&] {
    switch (rng() % 4) {
      case 0: return int64_t(1 + rng() % 16);
      case 1: return int64_t(1 + rng() % 300);
      case 2: return int64_t(1 + rng() % 6000);
      default: return int64_t(1) << (rng() % 15);
    }
  };
  for (int i = 0; i < 1500; ++i) {
    const int64_t batch = rng() % 5 == 0 ? int64_t(1 + rng() % 600) : 1;
    const Problem p = problem(dim(), dim(), dim(), rng() & 1, rng() & 1, rng() & 1, batch_bucket(batch));
    const PlanChoice c = choose_config(p, {}, MathMode::Strict, SearchLimits{}, sm90());
    ASSERT_TRUE(c.config.can_implement(p)) << p.to_string() << ": " << c.config.to_string();
    ASSERT_LE(c.config.workspace_floats(p), kMaxWorkspaceFloats) << p.to_string();
    ASSERT_EQ(c.source, PlanSource::Default);
  }
}

}  // namespace
}  // namespace autogemm
