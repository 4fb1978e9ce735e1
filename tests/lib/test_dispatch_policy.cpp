// Dispatch policy without a GPU: usable_winners(), choose_config(),
// default_config(), with winners of several kernel families.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "autogemm/dispatch_policy.h"
#include "autogemm/kernel_template.h"

namespace {

using autogemm::KernelConfig;
using autogemm::PlanSource;
using autogemm::Problem;
using autogemm::ShapeKey;
using autogemm::TiledParams;
using autogemm::TunedEntry;

KernelConfig tiled(int bm, int bn, int bk, int tm, int tn, int vec, int sk, bool ta, bool tb) {
  TiledParams t;
  t.bm = bm, t.bn = bn, t.bk = bk, t.tm = tm, t.tn = tn;
  t.wc = 8, t.vec = vec, t.split_k = sk, t.swizzle = 4;
  const KernelConfig c(t, ta, tb);
  std::string why;
  EXPECT_TRUE(c.is_valid(&why)) << c.to_string() << ": " << why;
  return c;
}

Problem problem(int64_t m, int64_t n, int64_t k, bool ta = false, bool tb = false, bool aligned = true) {
  Problem p;
  p.m = m, p.n = n, p.k = k;
  p.trans_a = ta, p.trans_b = tb;
  p.lda = ta ? m : k;
  p.ldb = tb ? k : n;
  p.ldc = n;
  p.aligned = aligned;
  return p;
}

const TiledParams& tp(const KernelConfig& c) { return c.get<TiledParams>(); }
// The built-in default is warptiled's; stored winners here are tiled.
int vec_of(const KernelConfig& c) {
  return c.is<autogemm::WarpTiledParams>() ? c.get<autogemm::WarpTiledParams>().vec : tp(c).vec;
}

TunedEntry entry(int64_t m, int64_t n, int64_t k, const KernelConfig& c, bool aligned = true, double ms = 1.0) {
  return TunedEntry{ShapeKey{m, n, k, c.trans_a, c.trans_b, aligned}, c, 100.0, ms};
}

// ---- choose_config -----------------------------------------------------------

TEST(ChooseConfig, NoWinnersGivesTheDefault) {
  const Problem p = problem(100, 200, 300);
  const auto choice = autogemm::choose_config(p, {});
  EXPECT_EQ(choice.source, PlanSource::Default);
  EXPECT_EQ(choice.config, autogemm::default_config(p));
}

TEST(ChooseConfig, ExactHit) {
  const KernelConfig near = tiled(64, 64, 8, 4, 4, 4, 1, false, false);
  const KernelConfig exact = tiled(128, 64, 16, 8, 4, 4, 1, false, false);
  const std::vector<TunedEntry> w = {entry(1000, 1000, 1000, near), entry(1024, 512, 256, exact),
                                     entry(1024, 512, 257, near)};
  const auto choice = autogemm::choose_config(problem(1024, 512, 256), w);
  EXPECT_EQ(choice.source, PlanSource::Exact);
  EXPECT_EQ(choice.config, exact);
}

// Winners are kept per family: an exact shape may have one of each, and the
// fastest of them runs, whichever family it is.
TEST(ChooseConfig, ExactHitTakesTheFastestFamilysWinner) {
  const KernelConfig t = tiled(128, 64, 16, 8, 4, 4, 1, false, false);
  const KernelConfig g = KernelConfig::generic(false, false);
  const Problem p = problem(1024, 512, 256);
  auto choice = autogemm::choose_config(p, {entry(1024, 512, 256, t, true, 2.0), entry(1024, 512, 256, g, true, 9.0)});
  EXPECT_EQ(choice.source, PlanSource::Exact);
  EXPECT_EQ(choice.config, t);
  choice = autogemm::choose_config(p, {entry(1024, 512, 256, t, true, 2.0), entry(1024, 512, 256, g, true, 1.5)});
  EXPECT_EQ(choice.source, PlanSource::Exact);
  EXPECT_EQ(choice.config, g);
  // Two winners of one shape, borrowed for twice its K (both models scale
  // their time by 2): the one measured faster runs.
  choice = autogemm::choose_config(problem(1024, 512, 512),
                                   {entry(1024, 512, 256, t, true, 2.0), entry(1024, 512, 256, g, true, 1.5)});
  EXPECT_EQ(choice.source, PlanSource::Nearest);
  EXPECT_EQ(choice.config, g);
}

// Equal estimates (both grids fit one wave, K unchanged): the nearer shape
// by log distance, not linear distance.
TEST(ChooseConfig, EqualEstimatesGoToTheNearerShapeInLogDistance) {
  const KernelConfig lo = tiled(64, 64, 8, 4, 4, 4, 1, false, false);
  const KernelConfig hi = tiled(128, 128, 8, 8, 8, 4, 1, false, false);
  // M = 2000: 1000 is closer linearly (1000 vs 1500), 3500 is closer in log
  // (ln 1.75 < ln 2).
  const std::vector<TunedEntry> w = {entry(1000, 512, 512, lo), entry(3500, 512, 512, hi)};
  const autogemm::SearchLimits lim;
  ASSERT_DOUBLE_EQ(lo.family().cost(lo, problem(2000, 512, 512), lim), lo.family().cost(lo, problem(1000, 512, 512), lim));
  ASSERT_DOUBLE_EQ(hi.family().cost(hi, problem(2000, 512, 512), lim), hi.family().cost(hi, problem(3500, 512, 512), lim));
  const auto choice = autogemm::choose_config(problem(2000, 512, 512), w);
  EXPECT_EQ(choice.source, PlanSource::Nearest);
  EXPECT_EQ(choice.config, hi);
}

// The estimate, not the distance, decides: each winner's measured time
// scaled by its family's model from its shape to the problem.
TEST(ChooseConfig, TheLowestScaledEstimateRunsNotTheNearestShape) {
  const KernelConfig a = tiled(64, 64, 8, 4, 4, 4, 1, false, false);
  const KernelConfig b = tiled(128, 128, 8, 8, 8, 4, 1, false, false);
  // Problem 1024^3. a is nearer (x2 in M only) and keeps its time (one wave
  // either way); b (x1.5 in each dimension) was measured as fast on 1.5x
  // the K, so the model gives it 2/3 of that here.
  const Problem p = problem(1024, 1024, 1024);
  const std::vector<TunedEntry> w = {entry(1536, 1536, 1536, b), entry(2048, 1024, 1024, a)};
  auto choice = autogemm::choose_config(p, w);
  EXPECT_EQ(choice.source, PlanSource::Nearest);
  EXPECT_EQ(choice.config, b);
  // b measured 2x slower than a: a's estimate (1 ms) beats b's (4/3 ms).
  choice = autogemm::choose_config(p, {entry(1536, 1536, 1536, b, true, 2.0), entry(2048, 1024, 1024, a)});
  EXPECT_EQ(choice.config, a);
}

// A family's row that lost on its own shape is not borrowed, even where
// its model alone would rank it first: the generic kernel (model: FLOPs)
// keeps its 3 ms on a problem of the same FLOPs, the tiled winner's model
// grows 8x (K x8 on one wave), and the tiled winner still runs.
TEST(ChooseConfig, ARowThatLostOnItsOwnShapeIsNotBorrowed) {
  const KernelConfig t = tiled(128, 64, 16, 8, 4, 4, 1, false, false);
  const KernelConfig g = KernelConfig::generic(false, false);
  const Problem p = problem(128, 512, 2048);
  const autogemm::SearchLimits lim;
  ASSERT_DOUBLE_EQ(t.family().cost(t, p, lim), 8 * t.family().cost(t, problem(1024, 512, 256), lim));
  const auto choice =
      autogemm::choose_config(p, {entry(1024, 512, 256, t, true, 1.0), entry(1024, 512, 256, g, true, 3.0)});
  EXPECT_EQ(choice.source, PlanSource::Nearest);
  EXPECT_EQ(choice.config, t);
}

// The built-in default competes once its family's model is calibrated by
// stored winners: against a borrowed winner that ran far slower than its
// family's others, the default runs.
TEST(ChooseConfig, TheDefaultCompetesWhereItsFamilyHasWinners) {
  const Problem p = problem(2048, 2048, 2048);
  const KernelConfig d = autogemm::default_config(p);
  const autogemm::SearchLimits lim;
  // The default itself measured on two other shapes (calibration 1: measured
  // = modelled), and a slow borrowed config of the same family.
  auto at = [&](int64_t m, const KernelConfig& c, double factor) {
    const Problem q = problem(m, 2048, 2048);
    return TunedEntry{q.key(), c, 100.0, 1e3 * factor * c.family().cost(c, q, lim)};
  };
  KernelConfig slow = d;
  slow.get<autogemm::WarpTiledParams>().swizzle = 1;
  ASSERT_FALSE(slow == d);
  auto choice = autogemm::choose_config(p, {at(4096, d, 1.0), at(8192, d, 1.0), at(1024, slow, 10.0)});
  EXPECT_EQ(choice.config, d);  // borrowed from 4096 or 8192, or the default: the same config
  choice = autogemm::choose_config(p, {at(1024, slow, 10.0), at(3000, slow, 1.0), at(6000, slow, 1.0)});
  EXPECT_EQ(choice.source, PlanSource::Nearest);  // slow's own shapes, calibration 1
  choice = autogemm::choose_config(p, {at(1024, slow, 10.0), at(4096, d, 0.5), at(8192, d, 0.5)});
  EXPECT_EQ(choice.config, d);
}

TEST(ChooseConfig, VectorWinnerIsNeverUsedForAnUnalignedProblem) {
  const KernelConfig v4 = tiled(128, 128, 8, 8, 8, 4, 1, false, false);
  const KernelConfig v1 = tiled(64, 64, 8, 4, 4, 1, 1, false, false);
  const Problem p = problem(1000, 1000, 1000, false, false, /*aligned=*/false);
  // Only vec=4 winners, one at the very same M, N, K: the default (vec=1).
  auto choice = autogemm::choose_config(p, {entry(1000, 1000, 1000, v4), entry(999, 1000, 1000, v4)});
  EXPECT_EQ(choice.source, PlanSource::Default);
  EXPECT_EQ(vec_of(choice.config), 1);
  EXPECT_TRUE(choice.config.can_implement(p));
  // A farther vec=1 winner is preferred over a nearer vec=4 one.
  choice = autogemm::choose_config(p, {entry(1000, 1000, 1000, v4), entry(8000, 8000, 8000, v1)});
  EXPECT_EQ(choice.source, PlanSource::Nearest);
  EXPECT_EQ(choice.config, v1);
  // Even a (corrupt) row keyed as unaligned but holding a vec=4 config.
  choice = autogemm::choose_config(p, {entry(1000, 1000, 1000, v4, /*aligned=*/false)});
  EXPECT_EQ(choice.source, PlanSource::Default);
  EXPECT_EQ(vec_of(choice.config), 1);
}

TEST(ChooseConfig, UnalignedWinnerMayServeAnAlignedProblemOfTheSameShape) {
  const KernelConfig v1 = tiled(64, 64, 8, 4, 4, 1, 1, false, false);
  const auto choice =
      autogemm::choose_config(problem(512, 512, 512), {entry(512, 512, 512, v1, /*aligned=*/false)});
  EXPECT_EQ(choice.source, PlanSource::Nearest);  // different key: not exact
  EXPECT_EQ(choice.config, v1);
}

TEST(ChooseConfig, OtherTransposesAreNeverUsed) {
  for (int t = 0; t < 4; ++t) {
    const bool ta = t & 1, tb = t & 2;
    const Problem p = problem(777, 888, 999, ta, tb);
    std::vector<TunedEntry> w;
    for (int u = 0; u < 4; ++u) {
      if (u == t) continue;
      w.push_back(entry(777, 888, 999, tiled(64, 64, 8, 4, 4, 4, 1, u & 1, u & 2)));
      w.push_back(entry(777, 888, 999, KernelConfig::generic(u & 1, u & 2)));
    }
    const auto choice = autogemm::choose_config(p, w);
    EXPECT_EQ(choice.source, PlanSource::Default) << t;
    EXPECT_EQ(choice.config.trans_a, ta);
    EXPECT_EQ(choice.config.trans_b, tb);
    // With a matching one among them, that one is chosen.
    const KernelConfig mine = tiled(32, 32, 16, 2, 2, 1, 1, ta, tb);
    w.push_back(entry(1, 1, 1, mine));
    const auto c2 = autogemm::choose_config(p, w);
    EXPECT_EQ(c2.source, PlanSource::Nearest);
    EXPECT_EQ(c2.config, mine);
  }
}

TEST(ChooseConfig, SplitKWinnerOverTheWorkspaceLimitIsSkipped) {
  // 2048 x 2048 with split-K 16 and the tile counters fits exactly under
  // kMaxWorkspaceFloats; 17 does not.
  const Problem p = problem(2048, 2048, 65536);
  const KernelConfig sk16 = tiled(128, 128, 8, 8, 8, 4, 16, false, false);
  const KernelConfig sk17 = tiled(128, 128, 8, 8, 8, 4, 17, false, false);
  ASSERT_EQ(sk16.workspace_floats(p), autogemm::kMaxWorkspaceFloats);
  ASSERT_LE(sk16.workspace_floats(p), autogemm::kMaxWorkspaceFloats);
  ASSERT_GT(sk17.workspace_floats(p), autogemm::kMaxWorkspaceFloats);
  auto choice = autogemm::choose_config(p, {entry(2048, 2048, 65536, sk16)});
  EXPECT_EQ(choice.source, PlanSource::Exact);
  EXPECT_EQ(choice.config, sk16);
  choice = autogemm::choose_config(p, {entry(2048, 2048, 65536, sk17)});
  EXPECT_EQ(choice.source, PlanSource::Default);
  EXPECT_EQ(choice.config, autogemm::default_config(p));
  EXPECT_LE(choice.config.workspace_floats(p), autogemm::kMaxWorkspaceFloats);
  // A nearest split-K winner is judged on this problem's workspace, too.
  const KernelConfig sk64 = tiled(64, 64, 8, 4, 4, 4, 64, false, false);
  const KernelConfig sk2 = tiled(64, 64, 8, 4, 4, 4, 2, false, false);
  choice = autogemm::choose_config(p, {entry(512, 512, 65536, sk64), entry(16, 16, 16, sk2)});
  EXPECT_EQ(choice.source, PlanSource::Nearest);
  EXPECT_EQ(choice.config, sk2);
}

TEST(ChooseConfig, PlanSourceNames) {
  EXPECT_STREQ(autogemm::to_string(PlanSource::Exact), "exact");
  EXPECT_STREQ(autogemm::to_string(PlanSource::Nearest), "nearest");
  EXPECT_STREQ(autogemm::to_string(PlanSource::Default), "default");
}

// ---- default_config ------------------------------------------------------------

TEST(DefaultConfig, ImplementsManyRandomProblems) {
  std::mt19937_64 rng(12345);
  auto dim = [&] {
    // Mostly small and odd sizes, some large, some exactly 1.
    switch (rng() % 4) {
      case 0: return int64_t(1 + rng() % 8);
      case 1: return int64_t(1 + rng() % 300);
      case 2: return int64_t(1 + rng() % 5000);
      default: return int64_t(1) << (rng() % 16);
    }
  };
  for (int i = 0; i < 2000; ++i) {
    const Problem p = problem(dim(), dim(), dim(), rng() & 1, rng() & 1, rng() & 1);
    const KernelConfig c = autogemm::default_config(p);
    std::string why;
    ASSERT_TRUE(c.is_valid(&why)) << p.to_string() << ": " << why;
    ASSERT_TRUE(c.can_implement(p)) << p.to_string() << " / " << c.to_string();
    ASSERT_LE(c.workspace_floats(p), autogemm::kMaxWorkspaceFloats) << p.to_string();
    ASSERT_TRUE(KernelConfig::parse(c.to_string()).has_value()) << c.to_string();
  }
}

TEST(DefaultConfig, AlignedProblemsGetVectorAccessUnalignedDoNot) {
  for (int64_t size : {64, 1000, 4096}) {
    const KernelConfig aligned = autogemm::default_config(problem(size, size, size, false, false, true));
    const KernelConfig unaligned = autogemm::default_config(problem(size, size, size, false, false, false));
    ASSERT_TRUE(aligned.is<autogemm::WarpTiledParams>()) << aligned.to_string() << ": warptiled provides the default";
    ASSERT_TRUE(unaligned.is<autogemm::WarpTiledParams>()) << unaligned.to_string();
    EXPECT_EQ(aligned.get<autogemm::WarpTiledParams>().vec, 4) << size;
    EXPECT_EQ(unaligned.get<autogemm::WarpTiledParams>().vec, 1) << size;
  }
}

// ---- usable_winners ------------------------------------------------------------

/// A stored winner; its family is the config's first word unless given.
autogemm::WinnerRecord record(ShapeKey s, const std::string& cfg, const std::string& hash,
                              const char* family = nullptr) {
  autogemm::WinnerRecord w;
  w.shape = s;
  w.family = family ? family : cfg.substr(0, cfg.find(' '));
  w.config = cfg;
  w.template_hash = hash;
  w.gflops = 1234.5;
  w.median_ms = 0.25;
  return w;
}

TEST(UsableWinners, KeepsGoodRowsDropsBadOnes) {
  const KernelConfig good = tiled(128, 128, 8, 8, 8, 4, 1, false, true);
  const KernelConfig gen = KernelConfig::generic(true, false);
  const std::string th = autogemm::template_hash(good);
  const std::string gh = autogemm::template_hash(gen);
  ASSERT_NE(th, gh);
  const ShapeKey s{256, 256, 256, false, true, true};
  const std::vector<autogemm::WinnerRecord> rows = {
      record(s, good.to_string(), th),                               // kept
      record(ShapeKey{64, 64, 64, true, false, false}, gen.to_string(), gh),  // kept
      record(s, "tiled bm=128", th),                                 // missing fields
      record(s, "garbage", th),                                      // unknown family
      record(s, "", th),                                             // empty
      record(s, good.to_string() + " extra=1", th),                  // unknown field
      record(s, "tiled bm=48 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=1", th),  // range
      record(s, good.to_string(), gh),                               // hash of another template
      record(s, good.to_string(), std::string(64, '0')),             // stale
      record(s, good.to_string(), ""),                               // no hash
      record(s, good.to_string(), th, "generic"),                    // not of its row's family
      record(s, good.to_string(), th, ""),                           // no family
      record(s, gen.to_string(), gh, "tiled"),                       // not of its row's family
      record(ShapeKey{0, 256, 256, false, true, true}, good.to_string(), th),
      record(ShapeKey{256, -1, 256, false, true, true}, good.to_string(), th),
      record(ShapeKey{256, 256, 0, false, true, true}, good.to_string(), th),
  };
  std::vector<autogemm::WinnerRecord> all = rows;
  // A winner without a time cannot be ranked against another family's.
  all.push_back(record(s, good.to_string(), th));
  all.back().median_ms = 0;
  const auto out = autogemm::usable_winners(all);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].config, good);
  EXPECT_EQ(out[0].shape, s);
  EXPECT_DOUBLE_EQ(out[0].gflops, 1234.5);
  EXPECT_DOUBLE_EQ(out[0].median_ms, 0.25);
  EXPECT_EQ(out[1].config, gen);
}

TEST(UsableWinners, StaleRowsAreNotDispatched) {
  const KernelConfig c = tiled(64, 64, 8, 4, 4, 4, 1, false, false);
  const ShapeKey s{512, 512, 512, false, false, true};
  const auto out = autogemm::usable_winners({record(s, c.to_string(), "deadbeef")});
  const auto choice = autogemm::choose_config(problem(512, 512, 512), out);
  EXPECT_EQ(choice.source, PlanSource::Default);
}

}  // namespace

namespace {

// Math modes: a faster FP32-accurate tensor-core winner is dispatched only
// when the caller's mode admits it; strict callers get the FFMA winner.
TEST(DispatchPolicyMathMode, TensorCoreWinnersOnlyInTheFp32AccurateMode) {
  const Problem p = problem(1024, 1024, 1024);
  const auto tc_space = autogemm::Tf32x3Family::instance().search_space(p, autogemm::SearchLimits{});
  ASSERT_FALSE(tc_space.empty());
  const KernelConfig strict = tiled(128, 128, 8, 8, 8, 4, 1, false, false);
  std::vector<TunedEntry> winners = {{p.key(), strict, 30000, 2.0}, {p.key(), tc_space.front(), 60000, 1.0}};
  const auto in_strict = autogemm::choose_config(p, winners, autogemm::MathMode::Strict);
  EXPECT_EQ(in_strict.config.to_string(), strict.to_string());
  EXPECT_EQ(in_strict.source, PlanSource::Exact);
  const auto in_accurate = autogemm::choose_config(p, winners, autogemm::MathMode::Fp32Accurate);
  EXPECT_EQ(in_accurate.config.to_string(), tc_space.front().to_string());
  EXPECT_EQ(in_accurate.source, PlanSource::Exact);
  // Borrowed for another shape too, but never by a strict caller.
  const Problem other = problem(1000, 1100, 900);
  EXPECT_FALSE(autogemm::choose_config(other, winners, autogemm::MathMode::Strict).config.is<autogemm::Tf32x3Params>());
  EXPECT_TRUE(autogemm::choose_config(other, winners, autogemm::MathMode::Fp32Accurate).config.is<autogemm::Tf32x3Params>());
  // With only a tensor-core winner, a strict caller gets the built-in default.
  const std::vector<TunedEntry> only_tc = {winners[1]};
  EXPECT_EQ(autogemm::choose_config(p, only_tc, autogemm::MathMode::Strict).source, PlanSource::Default);
}

}  // namespace
