// Strategies: budgets, determinism and the model's preference order (the
// neighbour pass's candidates: test_neighbours.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "autogemm/strategy.h"
#include "autogemm/tiled_family.h"
#include "autogemm/warptiled_family.h"
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

TEST(Strategy, ParseAndPrint) {
  for (auto k : {StrategyKind::Exhaustive, StrategyKind::Sampled, StrategyKind::Model})
    EXPECT_EQ(parse_strategy(to_string(k)), k);
  EXPECT_FALSE(parse_strategy("fastest").has_value());
  EXPECT_FALSE(parse_strategy("").has_value());
}

TEST(Strategy, BudgetsAreRespectedAndCandidatesComeFromTheSpace) {
  const SearchLimits lim;
  const Problem p = shape("2048x2048x2048");
  const auto space = TiledFamily::instance().search_space(p, lim);
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

// Costs rank candidates within one family only, so the budget applies per
// family: a space of two families gives up to `budget` of each.
TEST(Strategy, BudgetsApplyPerFamily) {
  const SearchLimits lim;
  const Problem p = shape("1000x1000x1000");
  std::vector<KernelConfig> space = TiledFamily::instance().search_space(p, lim);
  ASSERT_GT(space.size(), 20u);
  // The generic family is not tuned (empty space): add its config by hand,
  // once in the middle and once at the end (a duplicate, taken once).
  const KernelConfig generic = KernelConfig::generic(p.trans_a, p.trans_b);
  space.insert(space.begin() + space.size() / 2, generic);
  space.push_back(generic);
  for (auto k : {StrategyKind::Sampled, StrategyKind::Model}) {
    const auto pick = select_candidates(k, space, p, lim, 5, 3);
    std::map<std::string, int> per_family;
    for (const auto& c : pick) ++per_family[c.family().name()];
    EXPECT_EQ(per_family["tiled"], 5) << to_string(k);
    EXPECT_EQ(per_family["generic"], 1) << to_string(k);
    EXPECT_EQ(pick.size(), 6u) << to_string(k);
  }
  // Preferred configs come first and on top of every family's budget: the
  // model's own two tiled picks (and the generic one) still follow, once each.
  const auto own = select_candidates(StrategyKind::Model, space, p, lim, 2, 1);
  ASSERT_EQ(own.size(), 3u);
  const KernelConfig outside = space[space.size() / 3];  // a tiled config the model does not pick
  ASSERT_TRUE(outside.is<TiledParams>());
  ASSERT_TRUE(std::find(own.begin(), own.end(), outside) == own.end()) << outside.to_string();
  const std::vector<KernelConfig> preferred = {generic, outside};
  const auto pick = select_candidates(StrategyKind::Model, space, p, lim, 2, 1, preferred);
  ASSERT_EQ(pick.size(), 4u);
  EXPECT_EQ(pick[0], generic);
  EXPECT_EQ(pick[1], outside);
  for (const KernelConfig& c : own) EXPECT_TRUE(std::find(pick.begin(), pick.end(), c) != pick.end()) << c.to_string();
  // The model's cost is the family's own.
  for (const KernelConfig& c : {space.front(), generic})
    EXPECT_DOUBLE_EQ(model_cost(c, p, lim), c.family().cost(c, p, lim)) << c.to_string();
}

TEST(Strategy, SamplingIsSeededAndModelIsDeterministic) {
  const SearchLimits lim;
  const Problem p = shape("1000x1000x1000");
  const auto space = TiledFamily::instance().search_space(p, lim);
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

// History: the nearest tuned shape's winner comes first, its split-K-free
// twin next; configs of other transposes are dropped; the problem's own row
// is not history.
TEST(Strategy, HistoryPutsTheNearestShapesWinnersFirst) {
  const SearchLimits lim;
  const Problem p = shape("3000x3000x3000");
  const auto space = TiledFamily::instance().search_space(p, lim);
  auto cfg = [](const char* t) { return *KernelConfig::parse(t); };
  const std::vector<HistoryEntry> history = {
      {shape("8192x8192x8192").key(), cfg("tiled bm=128 bn=128 bk=16 tm=16 tn=8 wc=4 vec=4 sk=1 sw=8 ta=0 tb=0")},
      {shape("2048x2048x2048").key(), cfg("tiled bm=64 bn=256 bk=8 tm=16 tn=8 wc=8 vec=4 sk=2 rd=1 sw=8 ta=0 tb=0")},
      {shape("3000x3000x3000:NT").key(), cfg("tiled bm=128 bn=128 bk=8 tm=16 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=1")},
      {p.key(), cfg("tiled bm=64 bn=64 bk=8 tm=8 tn=4 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0")},
  };
  const auto h = history_candidates(p, space, history, 8);
  std::vector<std::string> got;
  for (const auto& c : h) got.push_back(c.to_string());
  const std::vector<std::string> want = {
      "tiled bm=64 bn=256 bk=8 tm=16 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",  // 2048^3's, split-K removed
      "tiled bm=128 bn=128 bk=16 tm=16 tn=8 wc=4 vec=4 sk=1 sw=8 ta=0 tb=0"};
  // 2048^3's sk=2 variant is in the space only if 3000^3's waves call for it.
  std::vector<std::string> filtered;
  for (const auto& g : got)
    if (g.find("sk=2") == std::string::npos) filtered.push_back(g);
  EXPECT_EQ(filtered, want);
  EXPECT_LE(history_candidates(p, space, history, 1).size(), 1u);
  // A built-in row of the problem's own shape is history (measured elsewhere).
  std::vector<HistoryEntry> with_builtin = history;
  with_builtin.push_back({p.key(), cfg("tiled bm=64 bn=64 bk=8 tm=8 tn=4 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0"), true});
  const auto hb = history_candidates(p, space, with_builtin, 8);
  ASSERT_FALSE(hb.empty());
  EXPECT_EQ(hb.front().to_string(), "tiled bm=64 bn=64 bk=8 tm=8 tn=4 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0");

  // Preferred configs lead, once each, and the model's ten follow whole:
  // history never displaces a pick of the budget.
  const auto pick = select_candidates(StrategyKind::Model, space, p, lim, 10, 1, h);
  const auto own = select_candidates(StrategyKind::Model, space, p, lim, 10, 1);
  ASSERT_EQ(own.size(), 10u);
  for (size_t i = 0; i < h.size(); ++i) EXPECT_EQ(pick[i], h[i]);
  std::set<std::string> unique, expected;
  for (const auto& c : pick) EXPECT_TRUE(unique.insert(c.to_string()).second) << c.to_string();
  for (const auto& c : h) expected.insert(c.to_string());
  for (const auto& c : own) expected.insert(c.to_string());
  EXPECT_EQ(unique, expected);
}

}  // namespace
}  // namespace autogemm

namespace autogemm {
namespace {

// An aligned shape's winner is history for an unaligned problem too, with
// scalar copies (its tile is what carries over), after a winner of the
// problem's own class at the same distance.
TEST(Strategy, HistoryFitsAnAlignedWinnerToAnUnalignedProblem) {
  const SearchLimits lim;
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, true, 851, 4095, 2695, false);
  ASSERT_FALSE(p.aligned);
  const auto space = WarpTiledFamily::instance().search_space(p, lim);
  auto cfg = [](const char* t) { return *KernelConfig::parse(t); };
  ShapeKey aligned_twin = make_problem(AUTOGEMM_ROW_MAJOR, false, true, 852, 4096, 2696, true).key();
  ShapeKey unaligned_twin = make_problem(AUTOGEMM_ROW_MAJOR, false, true, 853, 4097, 2697, false).key();
  const std::vector<HistoryEntry> history = {
      {aligned_twin, cfg("warptiled bm=64 bn=128 bk=16 wm=64 wn=32 ln=4 st=3 vec=4 sk=2 sw=1 ta=0 tb=1")},
      {unaligned_twin, cfg("warptiled bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 vec=1 sw=1 tp=1 ta=0 tb=1")},
  };
  const auto h = history_candidates(p, space, history, 4);
  std::vector<std::string> got;
  for (const auto& c : h) got.push_back(c.to_string());
  const std::vector<std::string> want = {
      "warptiled bm=128 bn=256 bk=16 wm=64 wn=64 ln=4 st=3 vec=1 sw=1 tp=1 ta=0 tb=1",
      "warptiled bm=64 bn=128 bk=16 wm=64 wn=32 ln=4 st=3 vec=1 sk=2 sw=1 ta=0 tb=1"};
  EXPECT_EQ(got, want);
  // The other way round nothing carries over: an aligned problem's space
  // has only 16-byte copies.
  const Problem q = make_problem(AUTOGEMM_ROW_MAJOR, false, true, 852, 4096, 2696, true);
  const std::vector<HistoryEntry> unaligned_only = {history[1]};
  EXPECT_TRUE(history_candidates(q, WarpTiledFamily::instance().search_space(q, lim), unaligned_only, 4).empty());
}

// Dispatch fits a built-in row of other transposes to a problem before
// tuning (64x64x65536's NN row ran its TN form at 1.20x cuBLAS on an H100,
// where tuning without it ended on 0.74x): where that row is nearer than
// every built-in row of the problem's own transposes, tuning measures it
// first. Not where a row of the problem's own is as near, and never for a
// stored winner of other transposes.
TEST(Strategy, HistoryMeasuresANearerBuiltinRowOfOtherTransposesFittedFirst) {
  const SearchLimits lim;
  const Problem p = shape("64x64x65536:TN");
  const auto space = TiledFamily::instance().search_space(p, lim);
  auto cfg = [](const char* t) { return *KernelConfig::parse(t); };
  const KernelConfig nn = cfg("tiled bm=64 bn=64 bk=32 tm=8 tn=4 wc=8 vec=4 sk=128 rd=1 sw=1 st=3 ta=0 tb=0");
  const KernelConfig tn = cfg("tiled bm=64 bn=64 bk=32 tm=8 tn=8 wc=4 vec=4 sk=128 rd=1 sw=1 st=3 ta=1 tb=0");
  const std::string nn_fitted = "tiled bm=64 bn=64 bk=32 tm=8 tn=4 wc=8 vec=4 sk=128 rd=1 sw=1 st=3 ta=1 tb=0";
  const std::vector<HistoryEntry> far_own = {{shape("64x64x65536").key(), nn, true},
                                             {shape("64x64x16384:TN").key(), tn, true}};
  const auto h = history_candidates(p, space, far_own, 4);
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h.front().to_string(), nn_fitted);
  const std::vector<HistoryEntry> near_own = {{shape("64x64x65536").key(), nn, true}, {p.key(), tn, true}};
  for (const KernelConfig& c : history_candidates(p, space, near_own, 4)) EXPECT_NE(c.to_string(), nn_fitted);
  const std::vector<HistoryEntry> tuned_only = {{shape("64x64x65536").key(), nn, false}};
  EXPECT_TRUE(history_candidates(p, space, tuned_only, 4).empty());
}

TEST(ModelCutoff, RulesOutOnlyWhatTheFamilysMostFavourableCalibrationCannotBringUnderTheBest) {
  const SearchLimits lim;
  const Problem p = shape("2048x2048x2048");
  auto space = TiledFamily::instance().search_space(p, lim);
  std::stable_sort(space.begin(), space.end(), [&](const KernelConfig& a, const KernelConfig& b) {
    return model_cost(a, p, lim) < model_cost(b, p, lim);
  });
  ASSERT_GT(space.size(), 100u);
  ModelCutoff cut(p, lim);
  const KernelConfig& slowest = space.back();
  // Measured at 2x (and one at 1.5x) the model's units: the lowest ratio is 1.5.
  for (int i = 0; i < ModelCutoff::kMinMeasured; ++i) {
    EXPECT_FALSE(cut.ruled_out(slowest)) << "ruled out after only " << i << " measurements";
    cut.measured(space[size_t(i)], model_cost(space[size_t(i)], p, lim) * (i == 3 ? 1.5 : 2.0));
  }
  double best = 0;
  for (int i = 0; i < ModelCutoff::kMinMeasured; ++i) {
    const double ms = model_cost(space[size_t(i)], p, lim) * (i == 3 ? 1.5 : 2.0);
    best = i == 0 ? ms : std::min(best, ms);
  }
  int out = 0;
  for (const KernelConfig& c : space) {
    const bool expected = model_cost(c, p, lim) * 1.5 > ModelCutoff::kMargin * best;
    EXPECT_EQ(cut.ruled_out(c), expected) << c.to_string();
    out += expected;
  }
  EXPECT_GT(out, 0);
  EXPECT_LT(out, int(space.size()));
  // Nonsense measurements change nothing.
  cut.measured(space[0], 0);
  cut.measured(space[0], std::numeric_limits<double>::infinity());
  cut.measured(space[0], std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(cut.ruled_out(slowest), model_cost(slowest, p, lim) * 1.5 > ModelCutoff::kMargin * best);
}

TEST(ModelCutoff, EveryFamilysCalibratingCandidatesAreMeasuredFirst) {
  const SearchLimits lim;
  const Problem p = shape("4096x4096x4096:NT");
  std::vector<KernelConfig> space = WarpTiledFamily::instance().search_space(p, lim);
  const auto tiled = TiledFamily::instance().search_space(p, lim);
  space.insert(space.end(), tiled.begin(), tiled.end());
  const auto picks = select_candidates(StrategyKind::Model, space, p, lim, 32, 1);
  const auto order = calibration_first(picks);
  ASSERT_EQ(order.size(), picks.size());
  EXPECT_TRUE(std::is_permutation(order.begin(), order.end(), picks.begin()));
  // On this shape the model puts every tiled candidate behind the
  // warptiled ones; reordered, both families' calibrating candidates lead.
  const int k = ModelCutoff::kMinMeasured;
  ASSERT_TRUE(picks.front().is<WarpTiledParams>());
  ASSERT_TRUE(picks[size_t(k)].is<WarpTiledParams>());
  std::map<std::string, int> lead;
  for (int i = 0; i < 2 * k; ++i) ++lead[order[size_t(i)].family().name()];
  EXPECT_EQ(lead["warptiled"], k);
  EXPECT_EQ(lead["tiled"], k);
  // Within each part, each family keeps its own order.
  for (const char* family : {"warptiled", "tiled"}) {
    std::vector<std::string> a, b;
    for (const KernelConfig& c : picks)
      if (c.family().name() == family) a.push_back(c.to_string());
    for (const KernelConfig& c : order)
      if (c.family().name() == family) b.push_back(c.to_string());
    EXPECT_EQ(a, b) << family;
  }
  // History and the default (fixed) stay in front and do not count as
  // calibrating: the warptiled lead is still six of the model's picks.
  const auto with_fixed = calibration_first(picks, {picks[2].to_string()});
  EXPECT_EQ(with_fixed[0], picks[2]);
  int lead_warptiled = 0;
  for (int i = 1; i <= 2 * k; ++i) lead_warptiled += with_fixed[size_t(i)].is<WarpTiledParams>();
  EXPECT_EQ(lead_warptiled, k);
}

TEST(ModelCutoff, AnotherShapesWinnerSetsTheBestTimeButDoesNotCalibrate) {
  const SearchLimits lim;
  const Problem p = shape("2048x2048x2048");
  auto space = TiledFamily::instance().search_space(p, lim);
  std::stable_sort(space.begin(), space.end(), [&](const KernelConfig& a, const KernelConfig& b) {
    return model_cost(a, p, lim) < model_cost(b, p, lim);
  });
  ModelCutoff cut(p, lim);
  const KernelConfig& slowest = space.back();
  // Another shape's winner, far down the model's order, ran fast: it sets
  // the best time but not the calibration.
  cut.measured(slowest, model_cost(slowest, p, lim) * 0.01, false);
  for (int i = 0; i < ModelCutoff::kMinMeasured - 1; ++i)
    cut.measured(space[size_t(i)], model_cost(space[size_t(i)], p, lim) * 2.0);
  EXPECT_FALSE(cut.ruled_out(space[space.size() / 2])) << "calibrated on too few picks";
  cut.measured(space[size_t(ModelCutoff::kMinMeasured)], model_cost(space[size_t(ModelCutoff::kMinMeasured)], p, lim) * 2.0);
  // Calibrated at 2x on its own picks, against the history winner's time:
  // everything the model costs above 0.01 / 2 / 1.15 of that config is out.
  EXPECT_TRUE(cut.ruled_out(space[size_t(ModelCutoff::kMinMeasured) + 1]));
  // With the history winner calibrating too, its ratio keeps everything.
  ModelCutoff all(p, lim);
  all.measured(slowest, model_cost(slowest, p, lim) * 0.01);
  for (int i = 0; i < ModelCutoff::kMinMeasured; ++i)
    all.measured(space[size_t(i)], model_cost(space[size_t(i)], p, lim) * 2.0);
  EXPECT_FALSE(all.ruled_out(space[size_t(ModelCutoff::kMinMeasured) + 1]));
}

TEST(ModelCutoff, AFamilyWhoseFirstPicksRanFarBehindTheBestIsRuledOutWhole) {
  const SearchLimits lim;
  const Problem p = shape("4096x4096x4096");
  const auto warptiled = WarpTiledFamily::instance().search_space(p, lim);
  const auto tiled = TiledFamily::instance().search_space(p, lim);
  ASSERT_GT(tiled.size(), size_t(ModelCutoff::kFamilyProbe) + 1);
  // Measured times in ms; the best of any family is warptiled's 1.0.
  auto run = [&](double tiled_ms, int tiled_picks) {
    ModelCutoff cut(p, lim);
    cut.measured(warptiled[0], 1.0);
    for (int i = 0; i < tiled_picks; ++i) cut.measured(tiled[size_t(i)], tiled_ms + 0.01 * i);
    return cut.ruled_out(tiled.back());
  };
  const int probe = ModelCutoff::kFamilyProbe;
  EXPECT_TRUE(run(ModelCutoff::kFarBehind * 1.05, probe));
  EXPECT_FALSE(run(ModelCutoff::kFarBehind * 1.05, probe - 1)) << "judged on too few picks";
  EXPECT_FALSE(run(ModelCutoff::kFarBehind * 0.95, probe)) << "within reach: calibrated as before";
  EXPECT_TRUE(run(ModelCutoff::kHopeless * 1.05, 1)) << "hopeless on its first pick";
  EXPECT_FALSE(run(ModelCutoff::kHopeless * 0.95, 1)) << "far behind, but judged on one pick";
  // Another shape's winner of the family that ran well here keeps it in.
  ModelCutoff cut(p, lim);
  cut.measured(warptiled[0], 1.0);
  cut.measured(tiled[size_t(probe)], 1.2, false);
  for (int i = 0; i < probe; ++i) cut.measured(tiled[size_t(i)], 3.0);
  EXPECT_FALSE(cut.ruled_out(tiled.back()));
  // The best family itself is never behind.
  ModelCutoff alone(p, lim);
  for (int i = 0; i < probe; ++i) alone.measured(tiled[size_t(i)], 3.0 - i);
  EXPECT_FALSE(alone.ruled_out(tiled[size_t(probe)]));
}

// The default is a shape-blind config: however far behind it runs, its
// family is judged hopeless only on a pick of its own.
TEST(ModelCutoff, ASlowDefaultAloneDoesNotRuleItsFamilyOut) {
  const SearchLimits lim;
  const Problem p = shape("128x4096x11008");
  const KernelConfig def = default_config(p);
  ASSERT_TRUE(def.is<WarpTiledParams>()) << def.to_string();
  const auto warptiled = WarpTiledFamily::instance().search_space(p, lim);
  const auto tiled = TiledFamily::instance().search_space(p, lim);
  ASSERT_FALSE(warptiled.empty());
  ASSERT_FALSE(tiled.empty());
  ModelCutoff cut(p, lim);
  cut.measured(def, 1.0);
  cut.measured(tiled[0], 1.0 / (ModelCutoff::kHopeless + 1));
  EXPECT_FALSE(cut.ruled_out(warptiled.front()));
  EXPECT_FALSE(cut.ruled_out(warptiled.back()));
  // Its first pick as slow: now the family is out.
  cut.measured(warptiled.front() == def ? warptiled.back() : warptiled.front(), 1.0);
  EXPECT_TRUE(cut.ruled_out(warptiled.back()));
}

TEST(ModelCutoff, AFamilyWithoutEnoughMeasurementsKeepsEveryCandidate) {
  const SearchLimits lim;
  const Problem p = shape("16x4096x4096");
  const auto tiled = TiledFamily::instance().search_space(p, lim);
  const auto gemv = GemvFamily::instance().search_space(p, lim);
  ASSERT_FALSE(tiled.empty());
  ASSERT_FALSE(gemv.empty());
  ModelCutoff cut(p, lim);
  // Tiled measured very fast: the best time is tiny, yet gemv, never
  // measured, keeps every candidate.
  for (size_t i = 0; i < 10; ++i) cut.measured(tiled[i], 1e-6);
  for (const KernelConfig& c : gemv) EXPECT_FALSE(cut.ruled_out(c)) << c.to_string();
}

}  // namespace
}  // namespace autogemm
