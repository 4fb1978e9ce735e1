// The neighbour pass's candidates (neighbour_candidates): configs one or two
// fields from the fastest measured, nearest first, and the variants a
// family leaves to it (KernelFamily::neighbour_only).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "autogemm/shape_spec.h"
#include "autogemm/strategy.h"
#include "autogemm/tuner.h"

namespace autogemm {

[[maybe_unused]] static void PrintTo(const KernelConfig& c, std::ostream* os) { *os << c.to_string(); }

namespace {

Problem shape(const char* text) {
  ShapeSpec spec;
  std::string why;
  EXPECT_TRUE(parse_shape(text, &spec, &why)) << text << ": " << why;
  return spec.problem();
}

/// The `key=value` fields of a config's canonical text (the family name,
/// the words before them, left out).
std::map<std::string, std::string> text_fields(const KernelConfig& c) {
  std::map<std::string, std::string> out;
  std::istringstream in(c.to_string());
  for (std::string tok; in >> tok;)
    if (const size_t eq = tok.find('='); eq != std::string::npos) out[tok.substr(0, eq)] = tok.substr(eq + 1);
  return out;
}

/// Fields that differ between two configs of one family, a key only one has included.
size_t fields_apart(const KernelConfig& a, const KernelConfig& b) {
  const auto fa = text_fields(a), fb = text_fields(b);
  std::set<std::string> keys;
  for (const auto& [k, v] : fa) keys.insert(k);
  for (const auto& [k, v] : fb) keys.insert(k);
  size_t d = 0;
  for (const std::string& k : keys) d += !fa.count(k) || !fb.count(k) || fa.at(k) != fb.at(k);
  return d;
}

std::set<std::string> texts(const std::vector<KernelConfig>& v) {
  std::set<std::string> out;
  for (const KernelConfig& c : v) out.insert(c.to_string());
  return out;
}

/// A two-family space of a large NT shape, the model's picks measured, the two best of them as seeds.
struct NeighbourSetup {
  SearchLimits lim;
  Problem p = shape("2048x4096x4096:NT");
  std::vector<KernelConfig> space, picks, seeds;
  std::set<std::string> measured;
  NeighbourSetup() {
    space = WarpTiledFamily::instance().search_space(p, lim);
    const auto tiled = TiledFamily::instance().search_space(p, lim);
    space.insert(space.end(), tiled.begin(), tiled.end());
    picks = select_candidates(StrategyKind::Model, space, p, lim, 8, 1);
    measured = texts(picks);
    seeds = {picks.at(0), picks.at(1)};
  }
};

TEST(Neighbours, AreUnmeasuredConfigsOfTheSpaceOneOrTwoFieldsFromTheirSeed) {
  const NeighbourSetup s;
  ASSERT_GT(s.space.size(), 100u);
  const std::set<std::string> in_space = texts(s.space);
  const size_t per_seed = 6;
  // Seed by seed: the first seed's neighbours, then the second's, leaving
  // out what the first took.
  const auto first = neighbour_candidates(s.space, {s.seeds[0]}, s.measured, s.p, s.lim, per_seed);
  std::set<std::string> taken = s.measured;
  for (const KernelConfig& c : first) taken.insert(c.to_string());
  const auto second = neighbour_candidates(s.space, {s.seeds[1]}, taken, s.p, s.lim, per_seed);
  const auto both = neighbour_candidates(s.space, s.seeds, s.measured, s.p, s.lim, per_seed);
  std::vector<KernelConfig> joined = first;
  joined.insert(joined.end(), second.begin(), second.end());
  EXPECT_EQ(both, joined);
  EXPECT_EQ(texts(both).size(), both.size()) << "duplicates";
  EXPECT_EQ(first.size(), per_seed);
  EXPECT_LE(second.size(), per_seed);
  for (size_t k = 0; k < 2; ++k) {
    const KernelConfig& seed = s.seeds[k];
    for (const KernelConfig& c : k == 0 ? first : second) {
      EXPECT_TRUE(in_space.count(c.to_string())) << c.to_string();
      EXPECT_FALSE(s.measured.count(c.to_string())) << c.to_string() << " was measured";
      EXPECT_EQ(&c.family(), &seed.family()) << c.to_string();
      const size_t d = fields_apart(c, seed);
      EXPECT_GE(d, 1u) << c.to_string();
      EXPECT_LE(d, 2u) << c.to_string() << " against " << seed.to_string();
      EXPECT_EQ(c.trans_a, seed.trans_a);
      EXPECT_EQ(c.trans_b, seed.trans_b);
    }
  }
  // Deterministic, and nothing without seeds or room.
  EXPECT_EQ(neighbour_candidates(s.space, s.seeds, s.measured, s.p, s.lim, per_seed), both);
  EXPECT_TRUE(neighbour_candidates(s.space, {}, s.measured, s.p, s.lim, per_seed).empty());
  EXPECT_TRUE(neighbour_candidates(s.space, s.seeds, s.measured, s.p, s.lim, 0).empty());
  EXPECT_EQ(neighbour_candidates(s.space, s.seeds, s.measured, s.p, s.lim, 1).size(), 2u);
}

TEST(Neighbours, NearestFirstThenByModelCost) {
  const NeighbourSetup s;
  const KernelConfig& seed = s.seeds[0];
  const auto all = neighbour_candidates(s.space, {seed}, s.measured, s.p, s.lim, s.space.size());
  // Every unmeasured config of the family one or two fields away, no other.
  size_t expected = 0;
  for (const KernelConfig& c : s.space) {
    const size_t d = fields_apart(c, seed);
    expected += &c.family() == &seed.family() && d >= 1 && d <= 2 && !s.measured.count(c.to_string());
  }
  ASSERT_EQ(all.size(), expected);
  ASSERT_GT(all.size(), 6u);
  for (size_t i = 1; i < all.size(); ++i) {
    const size_t da = fields_apart(all[i - 1], seed), db = fields_apart(all[i], seed);
    EXPECT_LE(da, db) << all[i].to_string();
    if (da == db) {
      EXPECT_LE(model_cost(all[i - 1], s.p, s.lim), model_cost(all[i], s.p, s.lim)) << all[i].to_string();
    }
  }
  // A smaller budget takes the front of the same order.
  const auto six = neighbour_candidates(s.space, {seed}, s.measured, s.p, s.lim, 6);
  EXPECT_EQ(six, std::vector<KernelConfig>(all.begin(), all.begin() + 6));
}

// A field one config has and the other lacks is a difference: tiled's rd
// comes with split-K only, so sk=1 -> sk=24 rd=1 is two fields away.
TEST(Neighbours, AFieldOnlyOneSideHasCountsAsADifference) {
  const SearchLimits lim;
  const Problem p = shape("16x4096x4096");
  auto cfg = [](const char* t) {
    auto c = KernelConfig::parse(t);
    EXPECT_TRUE(c.has_value()) << t;
    return *c;
  };
  const KernelConfig seed = cfg("tiled bm=16 bn=128 bk=16 tm=4 tn=8 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0");
  const KernelConfig two = cfg("tiled bm=16 bn=128 bk=16 tm=4 tn=8 wc=8 vec=4 sk=24 rd=1 sw=1 ta=0 tb=0");
  const KernelConfig three = cfg("tiled bm=16 bn=128 bk=16 tm=4 tn=8 wc=8 vec=4 sk=24 rd=1 sw=8 ta=0 tb=0");
  const KernelConfig one = cfg("tiled bm=16 bn=128 bk=16 tm=4 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0");
  const KernelConfig other_family = KernelConfig::generic(false, false);
  const std::vector<KernelConfig> space = {three, two, other_family, seed, one};
  EXPECT_EQ(neighbour_candidates(space, {seed}, {}, p, lim, 6), (std::vector<KernelConfig>{one, two}));
  EXPECT_EQ(neighbour_candidates(space, {seed}, {one.to_string()}, p, lim, 6), std::vector<KernelConfig>{two});
  // No seed is a neighbour, and the second seed's neighbours leave out the
  // first's: `one` is taken once.
  EXPECT_EQ(neighbour_candidates(space, {seed, two}, {}, p, lim, 6), (std::vector<KernelConfig>{one, three}));
  EXPECT_EQ(neighbour_candidates(space, {seed, one}, {}, p, lim, 6), (std::vector<KernelConfig>{two, three}));
}

// warptiled's staged A (sa=1) is never among the model's picks, whatever
// their number, and is the first neighbour of a fast NN config on a large
// square: its model cost sits below its twin's, which copies A a float at a
// time.
TEST(Neighbours, AVariantLeftToThePassIsNeverPickedAndComesFirstNextToItsTwin) {
  const SearchLimits lim;
  const Problem p = shape("4096x4096x4096");
  const std::vector<KernelConfig> space = WarpTiledFamily::instance().search_space(p, lim);
  size_t staged = 0;
  for (const KernelConfig& c : space) staged += WarpTiledFamily::instance().neighbour_only(c);
  ASSERT_GT(staged, 0u);
  for (int budget : {8, 32, 100000}) {
    const auto picks = select_candidates(StrategyKind::Model, space, p, lim, budget, 1);
    for (const KernelConfig& c : picks) EXPECT_FALSE(c.family().neighbour_only(c)) << c.to_string();
  }
  const auto picks = select_candidates(StrategyKind::Model, space, p, lim, 8, 1);
  const auto next = neighbour_candidates(space, {picks.at(0)}, texts(picks), p, lim, 6);
  ASSERT_FALSE(next.empty());
  WarpTiledParams twin = picks.at(0).get<WarpTiledParams>();
  twin.stage_a = 1;
  EXPECT_EQ(next.front().to_string(), KernelConfig(twin, false, false).to_string());
  // The exhaustive strategy measures the whole space, variants included.
  EXPECT_EQ(select_candidates(StrategyKind::Exhaustive, space, p, lim, 32, 1).size(), space.size());
}

// warptiled's FFMA orders other than 0 cost what their twin costs in the
// model, so only a measurement tells them apart: the pass offers both
// twins of a fast config, and the model never picks them itself.
TEST(Neighbours, TheOtherFfmaOrdersOfAFastConfigAreAmongItsNeighbours) {
  const SearchLimits lim;
  for (const char* text : {"4096x4096x4096", "8192x8192x8192:NT", "1000x1000x1000"}) {
    const Problem p = shape(text);
    const std::vector<KernelConfig> space = WarpTiledFamily::instance().search_space(p, lim);
    const auto picks = select_candidates(StrategyKind::Model, space, p, lim, 32, 1);
    ASSERT_FALSE(picks.empty()) << text;
    for (const KernelConfig& c : picks) EXPECT_EQ(c.get<WarpTiledParams>().ffma_order, 0) << c.to_string();
    const auto next = neighbour_candidates(space, {picks.at(0)}, texts(picks), p, lim, 6);
    for (int order : {1, 2}) {
      WarpTiledParams twin = picks.at(0).get<WarpTiledParams>();
      twin.ffma_order = order;
      const KernelConfig c(twin, p.trans_a, p.trans_b);
      EXPECT_DOUBLE_EQ(model_cost(c, p, lim), model_cost(picks.at(0), p, lim)) << c.to_string();
      EXPECT_NE(std::find(next.begin(), next.end(), c), next.end()) << text << ": " << c.to_string();
    }
  }
}

}  // namespace
}  // namespace autogemm
