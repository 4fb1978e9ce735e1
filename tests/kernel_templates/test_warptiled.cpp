// The warptiled family's own checks (the registry-wide suite is in
// test_families.cpp): its canonical text, the thread-tile and copy rules,
// the alignment classes, the shape of its search space, its defaults, and
// NVRTC builds for sm_90 of the register-heaviest configs in every layout
// and copy width with ptxas reporting no spills. CPU only.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autogemm/kernel_launch.h"
#include "autogemm/problem.h"
#include "autogemm/shape_spec.h"
#include "nvrtc_builds.h"

namespace {

using autogemm::KernelConfig;
using autogemm::Problem;
using autogemm::SearchLimits;
using autogemm::WarpTiledFamily;
using autogemm::WarpTiledParams;
using autogemm::testing::build_without_spills;
using autogemm::testing::NvrtcBuild;

Problem problem(int64_t m, int64_t n, int64_t k, int t, bool aligned) {
  auto up = [aligned](int64_t v) { return aligned ? (v + 3) / 4 * 4 : v; };
  Problem p;
  p.m = m, p.n = n, p.k = k, p.trans_a = t & 1, p.trans_b = (t >> 1) & 1, p.aligned = aligned;
  p.lda = up(p.trans_a ? m : k), p.ldb = up(p.trans_b ? k : n), p.ldc = up(n);
  return p;
}

WarpTiledParams params(int bm, int bn, int bk, int wm, int wn, int ln, int st, int vec, int sk = 1) {
  WarpTiledParams t;
  t.bm = bm, t.bn = bn, t.bk = bk, t.wm = wm, t.wn = wn, t.ln = ln, t.stages = st, t.vec = vec, t.split_k = sk;
  t.swizzle = 8;
  return t;
}

TEST(WarpTiled, BatchedVariantsPrintBtAndNeverSplitK) {
  WarpTiledParams p = params(64, 64, 8, 64, 32, 4, 4, 4);
  p.batched = 1;
  const KernelConfig c(p, false, false);
  EXPECT_NE(c.to_string().find(" bt=1"), std::string::npos) << c.to_string();
  EXPECT_TRUE(c.is_valid());
  EXPECT_EQ(KernelConfig::parse(c.to_string())->to_string(), c.to_string());
  EXPECT_EQ(KernelConfig(params(64, 64, 8, 64, 32, 4, 4, 4), false, false).to_string().find("bt="), std::string::npos);
  p.split_k = 2;
  std::string why;
  EXPECT_FALSE(KernelConfig(p, false, false).is_valid(&why));
  EXPECT_NE(why.find("bt=1"), std::string::npos) << why;
  const Problem many = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, false, false, 64, 64, 64, true, 100);
  for (const KernelConfig& s : WarpTiledFamily::instance().search_space(many, SearchLimits{}))
    EXPECT_TRUE(s.get<WarpTiledParams>().batched == 1 && s.can_implement(many)) << s.to_string();
  EXPECT_FALSE(KernelConfig(params(64, 64, 8, 64, 32, 4, 4, 4), false, false).can_implement(many));
}

TEST(WarpTiled, ABatchOfSixteenOrFewerRowsAndColumnsStillHasASpace) {
  // gemv and tiled's 16-row tiles do not batch: warptiled's 32-tiles must
  // stay eligible, or the tuner has nothing but the default to measure.
  for (int64_t side : {1, 8, 16}) {
    const Problem p = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, false, false, side, side, 128, true, 16384);
    const std::vector<KernelConfig> space = WarpTiledFamily::instance().search_space(p, SearchLimits{});
    EXPECT_FALSE(space.empty()) << side;
    for (const KernelConfig& c : space) EXPECT_EQ(c.get<WarpTiledParams>().bm, 32) << c.to_string();
  }
  // A plain problem of 16 rows keeps to the families made for it.
  const Problem plain = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, false, false, 16, 16, 128, true);
  EXPECT_TRUE(WarpTiledFamily::instance().search_space(plain, SearchLimits{}).empty());
}

TEST(WarpTiled, CanonicalTextPrintsSplitKOnlyWhenUsed) {
  const KernelConfig c(params(256, 128, 8, 64, 64, 8, 3, 4), false, false);
  EXPECT_EQ(c.to_string(), "warptiled bm=256 bn=128 bk=8 wm=64 wn=64 ln=8 st=3 vec=4 sw=8 ta=0 tb=0");
  EXPECT_EQ(c.threads(), 256);  // 4 x 2 warps of 64 x 64
  EXPECT_EQ(c.get<WarpTiledParams>().tm(), 16);
  EXPECT_EQ(c.get<WarpTiledParams>().tn(), 8);
  const KernelConfig s(params(64, 128, 8, 64, 64, 8, 3, 1, 4), true, true);
  EXPECT_EQ(s.to_string(), "warptiled bm=64 bn=128 bk=8 wm=64 wn=64 ln=8 st=3 vec=1 sk=4 sw=8 ta=1 tb=1");
  for (const KernelConfig& x : {c, s}) {
    const auto back = KernelConfig::parse(x.to_string());
    ASSERT_TRUE(back.has_value()) << x.to_string();
    EXPECT_EQ(*back, x);
  }
}

TEST(WarpTiled, RejectsWhatCannotBuild) {
  for (const char* text : {
           "warptiled bm=32 bn=128 bk=8 wm=64 wn=64 ln=8 st=3 vec=4 sw=1 ta=0 tb=0",   // warp tile > block tile
           "warptiled bm=64 bn=64 bk=8 wm=16 wn=64 ln=4 st=3 vec=4 sw=1 ta=0 tb=0",    // tm = 2: no 4-float fragment
           "warptiled bm=256 bn=256 bk=8 wm=32 wn=32 ln=8 st=3 vec=4 sw=1 ta=0 tb=0",  // 2048 threads
           "warptiled bm=256 bn=32 bk=8 wm=16 wn=32 ln=8 st=3 vec=4 sw=1 ta=0 tb=1",   // 512 threads, B rows of 32
           "warptiled bm=64 bn=64 bk=12 wm=32 wn=32 ln=8 st=3 vec=4 sw=1 ta=0 tb=0",   // bk not 8/16/32
           "warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=8 st=5 vec=4 sw=1 ta=0 tb=0",    // stages 2..4
           "warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=8 st=3 vec=2 sw=1 ta=0 tb=0",    // vec 1 or 4
           "warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=8 st=3 vec=4 sk=17 sw=1 ta=0 tb=0",
           "warptiled bm=64 bn=64 bk=8 wm=32 wn=32 ln=2 st=3 vec=4 sw=1 ta=0 tb=0",
       }) {
    std::string err;
    EXPECT_FALSE(KernelConfig::parse(text, &err).has_value()) << text;
    EXPECT_FALSE(err.empty()) << text;
  }
}

TEST(WarpTiled, SixteenByteCopiesNeedTheAlignedClass) {
  const KernelConfig v4(params(128, 128, 8, 64, 64, 8, 3, 4), false, false);
  const KernelConfig v1(params(128, 128, 8, 64, 64, 8, 3, 1), false, false);
  EXPECT_TRUE(v4.can_implement(problem(4096, 4096, 4096, 0, true)));
  EXPECT_FALSE(v4.can_implement(problem(4095, 4097, 1023, 0, false)));
  EXPECT_TRUE(v1.can_implement(problem(4095, 4097, 1023, 0, false)));
  EXPECT_TRUE(v1.can_implement(problem(1, 1, 1, 0, false)));
}

TEST(WarpTiled, SplitKHasAWorkspaceOfPaddedPartialTilesAndASecondKernel) {
  const Problem p = problem(128, 4097, 4096, 0, false);
  const KernelConfig plain(params(64, 256, 8, 64, 64, 8, 3, 1), false, false);
  const KernelConfig split(params(64, 256, 8, 64, 64, 8, 3, 1, 8), false, false);
  EXPECT_EQ(plain.workspace_floats(p), 0u);
  EXPECT_EQ(plain.family().entry_points(plain).size(), 1u);
  // The shared counter area, then rows rounded up to 4 floats.
  EXPECT_EQ(split.workspace_floats(p), autogemm::kWorkspaceCounterFloats + size_t(8) * 128 * 4100);
  EXPECT_EQ(split.family().entry_points(split), (std::vector<std::string>{"agemm_warptiled", "agemm_warptiled_reduce"}));
  EXPECT_EQ(split.family().geometry(split, p).grid_z, 8u);
}

TEST(WarpTiled, PeelLeavesTheMainKernelTheMultipleOfTheTileWhereASliverRemains) {
  WarpTiledParams t = params(128, 256, 16, 64, 64, 4, 3, 1);
  const auto part = [&](int64_t m, int64_t n) {
    const WarpTiledFamily::MainPart mp = WarpTiledFamily::main_part(t, problem(m, n, 64, 0, false));
    return std::pair<int64_t, int64_t>(mp.m, mp.n);
  };
  EXPECT_EQ(part(4095, 4097), (std::pair<int64_t, int64_t>(4095, 4097)));  // pe=0: all of C
  t.peel = 1;
  EXPECT_EQ(part(4095, 4097), (std::pair<int64_t, int64_t>(4095, 4096)));  // 127 rows left is a tile
  EXPECT_EQ(part(1025, 4104), (std::pair<int64_t, int64_t>(1024, 4096)));  // 1 row, 8 columns
  EXPECT_EQ(part(1033, 4105), (std::pair<int64_t, int64_t>(1033, 4105)));  // 9 is more than a strip
  EXPECT_EQ(part(129, 257), (std::pair<int64_t, int64_t>(128, 256)));
  EXPECT_EQ(part(7, 200), (std::pair<int64_t, int64_t>(7, 200)));  // within one tile: nothing to peel
  const KernelConfig c(t, false, false);
  EXPECT_NE(c.to_string().find(" pe=1"), std::string::npos) << c.to_string();
  EXPECT_EQ(KernelConfig::parse(c.to_string())->to_string(), c.to_string());
  EXPECT_EQ(c.family().entry_points(c),
            (std::vector<std::string>{"agemm_warptiled", "agemm_warptiled_peel1", "agemm_warptiled_peel2",
                                      "agemm_warptiled_peel4", "agemm_warptiled_peel8"}));
  t.batched = 1;
  std::string why;
  EXPECT_FALSE(KernelConfig(t, false, false).is_valid(&why));
  EXPECT_NE(why.find("pe=0"), std::string::npos) << why;
}

TEST(WarpTiled, SpaceOffersPeelingOnlyWhereItLeavesASliver) {
  const SearchLimits lim;
  auto peeled = [&](const Problem& p) {
    size_t n = 0;
    for (const KernelConfig& c : WarpTiledFamily::instance().search_space(p, lim)) {
      const WarpTiledParams& t = c.get<WarpTiledParams>();
      if (t.peel == 0) continue;
      ++n;
      const WarpTiledFamily::MainPart mp = WarpTiledFamily::main_part(t, p);
      EXPECT_TRUE(mp.m < p.m || mp.n < p.n) << c.to_string();
      // Its unpeeled twin runs the same problem, and the model prices both.
      WarpTiledParams plain = t;
      plain.peel = 0;
      EXPECT_GT(c.family().cost(c, p, lim), 0.0);
      EXPECT_TRUE(KernelConfig(plain, p.trans_a, p.trans_b).can_implement(p));
    }
    return n;
  };
  EXPECT_GT(peeled(problem(4095, 4097, 1023, 0, false)), 0u);
  EXPECT_GT(peeled(problem(1025, 1023, 2049, 3, false)), 0u);
  EXPECT_EQ(peeled(problem(4096, 4096, 4096, 0, true)), 0u);
  // The model prefers peeling a one-column sliver off 256-wide tiles.
  const Problem p = problem(4095, 4097, 1023, 0, false);
  WarpTiledParams t = params(128, 256, 16, 64, 64, 4, 3, 1);
  const double plain = WarpTiledFamily::instance().cost(KernelConfig(t, false, false), p, lim);
  t.peel = 1;
  EXPECT_LT(WarpTiledFamily::instance().cost(KernelConfig(t, false, false), p, lim), plain);
}

TEST(WarpTiled, SpaceTriesSplitKOnlyWhereTheTilesLeaveSmsIdle) {
  const SearchLimits lim;
  auto has_split = [&](const Problem& p) {
    for (const KernelConfig& c : WarpTiledFamily::instance().search_space(p, lim)) {
      const WarpTiledParams& t = c.get<WarpTiledParams>();
      EXPECT_TRUE(t.split_k == 1 || t.stages == 3) << c.to_string();
      EXPECT_LE(t.tm(), 2 * t.tn()) << c.to_string();
      EXPECT_LE(t.tn(), 2 * t.tm()) << c.to_string();
      if (t.split_k > 1) return true;
    }
    return false;
  };
  EXPECT_TRUE(has_split(problem(128, 4096, 4096, 0, true)));  // 8..64 tiles for 132 SMs
  EXPECT_FALSE(has_split(problem(8192, 8192, 8192, 0, true)));  // many full waves
}

// tp=1: B^T transposed into the workspace by a first kernel, after any
// split-K partials; only where B is k-contiguous, one product, no peel; the
// model tries it on NT.
TEST(WarpTiled, StagedBIsForKContiguousBAloneWithItsCopyInTheWorkspace) {
  WarpTiledParams t = params(64, 256, 8, 64, 64, 4, 3, 4);
  t.stage_b = 1;
  const KernelConfig nt(t, false, true);
  std::string why;
  EXPECT_TRUE(nt.is_valid(&why)) << why;
  EXPECT_EQ(nt.to_string(), "warptiled bm=64 bn=256 bk=8 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 tp=1 ta=0 tb=1");
  EXPECT_FALSE(KernelConfig(t, false, false).is_valid(nullptr));  // B already n-contiguous
  const Problem p = problem(4096, 4097, 1000, 2, true);
  EXPECT_TRUE(nt.can_implement(p));
  EXPECT_EQ(nt.workspace_floats(p), autogemm::kWorkspaceCounterFloats + size_t(1000) * 4100);
  WarpTiledParams split = t;
  split.split_k = 3;
  const KernelConfig nt3(split, false, true);
  EXPECT_TRUE(nt3.is_valid(&why)) << why;
  const Problem q = problem(63, 1001, 5000, 2, true);
  const size_t partials = autogemm::kWorkspaceCounterFloats + 3 * 63 * 1004;
  EXPECT_EQ(WarpTiledFamily::staged_b_at(split, q), (partials + 31) / 32 * 32) << "after the partial tiles";
  EXPECT_EQ(nt3.workspace_floats(q), (partials + 31) / 32 * 32 + size_t(5000) * 1004);
  EXPECT_EQ(nt3.family().entry_points(nt3).back(), "agemm_warptiled_transpose");
  WarpTiledParams peeled = t;
  peeled.peel = 1;
  EXPECT_FALSE(KernelConfig(peeled, false, true).is_valid(nullptr));
  EXPECT_EQ(nt.family().entry_points(nt), (std::vector<std::string>{"agemm_warptiled", "agemm_warptiled_transpose"}));
  // An 8192x8192 B, with the counters in front, is the largest copy
  // dispatch's workspace holds whole; a larger one is staged in K chunks
  // of a multiple of 32 rows, within the workspace; with split-K (partials
  // over the whole K) it is refused.
  EXPECT_EQ(WarpTiledFamily::staged_k(t, problem(8192, 8192, 8192, 2, true)), 8192);
  for (const Problem& big : {problem(8192, 8196, 8192, 2, true), problem(64, 16384, 16384, 2, true)}) {
    const int64_t chunk = WarpTiledFamily::staged_k(t, big);
    EXPECT_GT(chunk, 0);
    EXPECT_LT(chunk, big.k);
    EXPECT_EQ(chunk % 32, 0);
    EXPECT_TRUE(nt.can_implement(big));
    EXPECT_LE(nt.workspace_floats(big), KernelConfig::kMaxWorkspaceFloats);
  }
  EXPECT_EQ(WarpTiledFamily::staged_k(t, problem(64, 16384, 16384, 2, true)), 4096);
  EXPECT_FALSE(KernelConfig(split, false, true).can_implement(problem(8192, 8196, 8192, 2, true)));

  const SearchLimits lim;
  auto staged = [&](const Problem& q) {
    int n = 0;
    for (const KernelConfig& c : WarpTiledFamily::instance().search_space(q, lim)) n += c.get<WarpTiledParams>().stage_b;
    return n;
  };
  EXPECT_GT(staged(problem(4096, 4096, 4096, 2, true)), 0);
  EXPECT_GT(staged(problem(8192, 8192, 8192, 2, true)), 0);
  EXPECT_GT(staged(problem(16384, 16384, 16384, 2, true)), 0);  // in K chunks
  EXPECT_GT(staged(problem(4096, 4096, 4096, 3, true)), 0);  // TT: B is k-contiguous too
  EXPECT_EQ(staged(problem(4096, 4096, 4096, 0, true)), 0);
  EXPECT_EQ(staged(problem(4096, 4096, 4096, 1, true)), 0);
  // At 4096^3:NT the model puts a staged config first.
  const Problem big = problem(4096, 4096, 4096, 2, true);
  const KernelConfig* best = nullptr;
  double best_cost = 0;
  const auto space = WarpTiledFamily::instance().search_space(big, lim);
  for (const KernelConfig& c : space) {
    const double cost = c.family().cost(c, big, lim);
    if (!best || cost < best_cost) best = &c, best_cost = cost;
  }
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->get<WarpTiledParams>().stage_b, 1) << best->to_string();
}

// sa=1: A transposed into the workspace (K x M rows) by the same first
// kernel, after B's copy where both are staged; only where A is
// k-contiguous, one product, no peel; the model stages A of large NN
// squares, not of small ones.
TEST(WarpTiled, StagedAIsForKContiguousAAloneWithItsCopyAfterB) {
  WarpTiledParams t = params(64, 256, 8, 64, 64, 4, 3, 4);
  t.stage_a = 1;
  const KernelConfig nn(t, false, false);
  std::string why;
  EXPECT_TRUE(nn.is_valid(&why)) << why;
  EXPECT_EQ(nn.to_string(), "warptiled bm=64 bn=256 bk=8 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 sa=1 ta=0 tb=0");
  EXPECT_EQ(KernelConfig::parse(nn.to_string())->to_string(), nn.to_string());
  EXPECT_FALSE(KernelConfig(t, true, false).is_valid(nullptr));  // A already m-contiguous
  const Problem p = problem(4097, 4096, 1000, 0, true);
  EXPECT_TRUE(nn.can_implement(p));
  EXPECT_EQ(nn.workspace_floats(p), (autogemm::kWorkspaceCounterFloats + 31) / 32 * 32 + size_t(1000) * 4100);
  EXPECT_EQ(nn.family().entry_points(nn), (std::vector<std::string>{"agemm_warptiled", "agemm_warptiled_transpose"}));
  WarpTiledParams both = t;
  both.stage_b = 1, both.split_k = 3;
  const KernelConfig nt(both, false, true);
  EXPECT_TRUE(nt.is_valid(&why)) << why;
  const Problem q = problem(63, 1001, 5000, 2, true);
  const size_t b_at = WarpTiledFamily::staged_b_at(both, q);
  EXPECT_EQ(WarpTiledFamily::staged_a_at(both, q), (b_at + size_t(5000) * 1004 + 31) / 32 * 32) << "after B's copy";
  EXPECT_EQ(nt.workspace_floats(q), WarpTiledFamily::staged_a_at(both, q) + size_t(5000) * 64);
  WarpTiledParams peeled = t;
  peeled.peel = 1;
  EXPECT_FALSE(KernelConfig(peeled, false, false).is_valid(nullptr));
  // A copy past what dispatch allocates is staged in K chunks.
  EXPECT_EQ(WarpTiledFamily::staged_k(nn.get<WarpTiledParams>(), problem(16384, 64, 16384, 0, true)), 4096);
  EXPECT_TRUE(nn.can_implement(problem(16384, 64, 16384, 0, true)));

  const SearchLimits lim;
  auto staged = [&](const Problem& q) {
    int n = 0;
    for (const KernelConfig& c : WarpTiledFamily::instance().search_space(q, lim)) n += c.get<WarpTiledParams>().stage_a;
    return n;
  };
  EXPECT_GT(staged(problem(4096, 4096, 4096, 0, true)), 0);
  EXPECT_GT(staged(problem(4096, 4096, 4096, 2, true)), 0);  // NT: A is k-contiguous too
  EXPECT_EQ(staged(problem(4096, 4096, 4096, 1, true)), 0);
  EXPECT_EQ(staged(problem(4096, 4096, 4096, 3, true)), 0);
  // The model charges a staged A its copy and a k-contiguous A left in place
  // 3% (the NN/TN gap): on a large square the staged twin of the cheapest
  // tile costs a little less, on a small one far more. (The tuner measures
  // it only next to a fast config: neighbour_only.)
  const auto staged_over_plain = [&](const Problem& q) {
    const KernelConfig* best = nullptr;
    double best_cost = 0;
    const std::vector<KernelConfig> space = WarpTiledFamily::instance().search_space(q, lim);
    for (const KernelConfig& c : space) {
      const double cost = c.family().cost(c, q, lim);
      if (c.get<WarpTiledParams>().stage_a == 0 && (!best || cost < best_cost)) best = &c, best_cost = cost;
    }
    WarpTiledParams twin = best->get<WarpTiledParams>();
    twin.stage_a = 1;
    const KernelConfig staged(twin, q.trans_a, q.trans_b);
    return staged.family().cost(staged, q, lim) / best_cost;
  };
  const double large = staged_over_plain(problem(4096, 4096, 4096, 0, true));
  EXPECT_GT(large, 0.97);
  EXPECT_LT(large, 1.0);
  EXPECT_GT(staged_over_plain(problem(512, 512, 512, 0, true)), 1.2);
  EXPECT_TRUE(nn.family().neighbour_only(nn));
  EXPECT_FALSE(nn.family().neighbour_only(KernelConfig(params(64, 256, 8, 64, 64, 4, 3, 4), false, false)));
}

TEST(WarpTiled, DefaultsUseTheLargeTileForLargeOutputsAndNeedNoWorkspace) {
  const KernelConfig big = *WarpTiledFamily::instance().default_config(problem(4096, 4096, 4096, 0, true));
  EXPECT_EQ(big.to_string(), "warptiled bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 ta=0 tb=0");
  const KernelConfig mid = *WarpTiledFamily::instance().default_config(problem(512, 512, 512, 1, false));
  EXPECT_EQ(mid.to_string(), "warptiled bm=64 bn=128 bk=8 wm=64 wn=64 ln=4 st=3 vec=1 sw=1 ta=1 tb=0");
  // A default serves every problem of its class: no split-K workspace.
  EXPECT_EQ(mid.workspace_floats(problem(50000, 50000, 8, 1, false)), 0u);
}

// The heaviest thread tiles (16x8, 8x16) with the deepest pipelines, split-K
// and without, peeled, A or B staged, every layout, both copy widths, and
// the other FFMA orders of both tiles (one copy width a layout): no spills.
TEST(WarpTiled, HeaviestConfigsBuildWithoutSpillsInEveryLayout) {
  std::vector<NvrtcBuild> builds;
  for (int t = 0; t < 4; ++t)
    for (int vec : {1, 4}) {
      builds.push_back({KernelConfig(params(128, 256, 16, 64, 64, 4, 4, vec), t & 1, t & 2), {}, {}, {}});
      builds.push_back({KernelConfig(params(256, 128, 8, 64, 64, 8, 3, vec, 4), t & 1, t & 2), {}, {}, {}});
      WarpTiledParams batched = params(128, 256, 16, 64, 64, 4, 4, vec);
      batched.batched = 1;  // the strided batch's three pointer moves
      builds.push_back({KernelConfig(batched, t & 1, t & 2), {}, {}, {}});
      WarpTiledParams peeled = params(256, 128, 8, 64, 64, 8, 3, vec, 4);
      peeled.peel = 1;  // the four strip kernels beside the main and reduce kernels
      builds.push_back({KernelConfig(peeled, t & 1, t & 2), {}, {}, {}});
      if (t & 2) {  // B staged: the transposing kernel beside the main one
        WarpTiledParams staged = params(128, 256, 16, 64, 64, 4, 4, vec);
        staged.stage_b = 1;
        builds.push_back({KernelConfig(staged, t & 1, t & 2), {}, {}, {}});
      }
      if (!(t & 1)) {  // A staged, alone and (NT) with B
        WarpTiledParams staged = params(128, 256, 16, 64, 64, 4, 4, vec);
        staged.stage_a = 1;
        staged.stage_b = (t & 2) ? 1 : 0;
        builds.push_back({KernelConfig(staged, false, t & 2), {}, {}, {}});
      }
      if (vec == ((t & 1) ? 1 : 4))
        for (int order : {1, 2})
          for (WarpTiledParams heavy : {params(128, 256, 16, 64, 64, 4, 4, vec), params(256, 128, 8, 64, 64, 8, 3, vec, 4)}) {
            heavy.ffma_order = order;
            builds.push_back({KernelConfig(heavy, t & 1, t & 2), {}, {}, {}});
          }
    }
  build_without_spills(builds, "sm_90");
}

// The built-in defaults of both size classes, every layout, both copy
// widths, plain and batched: no spills (dispatch runs them untuned).
TEST(WarpTiled, DefaultsBuildWithoutSpillsInEveryLayout) {
  std::vector<NvrtcBuild> builds;
  for (int64_t size : {512, 4096})
    for (int t = 0; t < 4; ++t)
      for (bool aligned : {true, false})
        for (int64_t batch : {1, 2}) {
          const Problem p = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, t & 1, t & 2, size, size, size, aligned, batch);
          builds.push_back({*WarpTiledFamily::instance().default_config(p), {}, {}, {}});
        }
  build_without_spills(builds, "sm_90");
}

}  // namespace
