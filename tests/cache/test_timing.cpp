// The timing regime of measurements (schema version 6): stored with every
// trial, winner and tuning run; a winner timed the other way never stands in
// the way of a new one.
#include "cache_test_util.h"

namespace autogemm::test {
namespace {

WinnerRecord timed(WinnerRecord w, TimingRegime t) {
  w.timing = t;
  return w;
}

TEST(Timing, TrialsAndWinnersKeepTheirRegime) {
  TempDir dir;
  const std::string path = dir.file("t.db");
  auto cache = open_rw(path);
  const ShapeKey s = shape(512, 512, 512);
  TrialRecord warm{"tiled a", TrialStatus::Ok, 0.1, 0.001, 2684.4, "", TimingRegime::Warm};
  TrialRecord rotate{"tiled b", TrialStatus::Ok, 0.2, 0.001, 1342.2, ""};
  cache->record_trials(h200(), s, "tiled", "h", {warm, rotate});
  std::vector<TrialRecord> back = cache->load_trials(h200(), s, "h");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].timing, TimingRegime::Warm);
  EXPECT_EQ(back[1].timing, TimingRegime::Rotate);
  EXPECT_EQ(raw_query(path, "SELECT group_concat(timing, ',') FROM trials ORDER BY config")[0], "warm,rotate");

  ASSERT_TRUE(cache->record_winner(h200(), timed(winner(s, "tiled a", 0.1, 0.001), TimingRegime::Warm), cost()));
  auto w = cache->find_winner(h200(), s, "tiled", winner(s, "tiled a", 0.1, 0.001).template_hash);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->timing, TimingRegime::Warm);
  EXPECT_EQ(raw_query(path, "SELECT timing FROM best_configs")[0], "warm");
  EXPECT_EQ(raw_query(path, "SELECT timing FROM tuning_history")[0], "warm");
}

TEST(Timing, AWinnerTimedTheOtherWayIsReplacedEvenBySlowerOne) {
  TempDir dir;
  auto cache = open_rw(dir.file("t.db"));
  const ShapeKey s = shape(4096, 4096, 4096);
  // Warm L2 times are shorter; a rotating time of the same kernel must not
  // lose to them.
  ASSERT_TRUE(cache->record_winner(h200(), timed(winner(s, "tiled a", 2.5, 0.01), TimingRegime::Warm), cost()));
  EXPECT_TRUE(cache->record_winner(h200(), winner(s, "tiled b", 2.8, 0.01), cost()));
  auto w = cache->load_winners(h200());
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].config, "tiled b");
  EXPECT_EQ(w[0].timing, TimingRegime::Rotate);
  // Within one regime the noise rule holds as before.
  EXPECT_FALSE(cache->record_winner(h200(), winner(s, "tiled c", 2.79, 0.02), cost()));
}

TEST(Timing, AnUnknownRegimeInTheFileIsASkippedRow) {
  TempDir dir;
  const std::string path = dir.file("t.db");
  {
    auto cache = open_rw(path);
    cache->record_winner(h200(), winner(shape(64, 64, 64), "tiled a", 0.01, 0), cost());
  }
  raw_sql(path, "UPDATE winners SET timing = 'lukewarm'");
  EXPECT_TRUE(open_rw(path)->load_winners(h200()).empty());
}

TEST(Timing, ParsesOnlyItsTwoNames) {
  EXPECT_EQ(parse_timing_regime("rotate"), TimingRegime::Rotate);
  EXPECT_EQ(parse_timing_regime("warm"), TimingRegime::Warm);
  EXPECT_FALSE(parse_timing_regime("Warm").has_value());
  EXPECT_FALSE(parse_timing_regime("").has_value());
  EXPECT_STREQ(to_string(TimingRegime::Warm), "warm");
  EXPECT_STREQ(to_string(TimingRegime::Rotate), "rotate");
}

}  // namespace
}  // namespace autogemm::test
