// Kernel families (schema version 3): winners are kept per (device, shape,
// family), stale means another template hash of the same family, and the
// trials of one template hash can be loaded to resume an interrupted tuning.
#include <map>
#include <utility>

#include "cache_test_util.h"

namespace autogemm::test {
namespace {

const char* const kTiled = "tiled bm=128 bn=128 bk=8 tm=16 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0";
const char* const kTiled2 = "tiled bm=64 bn=64 bk=16 tm=8 tn=4 wc=8 vec=4 sk=1 sw=4 ta=0 tb=0";
const char* const kGeneric = "generic ta=0 tb=0";

TEST(Families, WinnersOfTwoFamiliesForOneShapeCoexist) {
  TempDir dir;
  const std::string path = dir.file("two.db");
  auto cache = open_rw(path);
  const ShapeKey s = shape(4096, 4096, 4096);
  ASSERT_TRUE(cache->record_winner(h200(), winner(s, kTiled, 3.0, 0.01, "th1"), cost()));
  // Ten times slower, but of another family: stored beside the tiled winner.
  ASSERT_TRUE(cache->record_winner(h200(), winner(s, kGeneric, 30.0, 0.1, "gh1"), cost()));
  auto all = cache->load_winners(h200());
  ASSERT_EQ(all.size(), 2u);  // ordered by family
  EXPECT_EQ(all[0].family, "generic");
  EXPECT_EQ(all[0].config, kGeneric);
  EXPECT_EQ(all[1].family, "tiled");
  EXPECT_EQ(all[1].config, kTiled);
  EXPECT_EQ(cache->find_winner(h200(), s, "tiled", "th1")->config, kTiled);
  EXPECT_EQ(cache->find_winner(h200(), s, "generic", "gh1")->config, kGeneric);
  EXPECT_FALSE(cache->find_winner(h200(), s, "tiled", "gh1").has_value());
  EXPECT_FALSE(cache->find_winner(h200(), s, "generic", "th1").has_value());
  // The noise rule compares a winner with its own family's only.
  EXPECT_FALSE(cache->record_winner(h200(), winner(s, kGeneric, 29.95, 0.1, "gh1"), cost()));
  EXPECT_TRUE(cache->record_winner(h200(), winner(s, kTiled2, 2.5, 0.01, "th1"), cost()));
  EXPECT_DOUBLE_EQ(cache->find_winner(h200(), s, "generic", "gh1")->median_ms, 30.0);
  EXPECT_EQ(cache->find_winner(h200(), s, "tiled", "th1")->config, kTiled2);
  EXPECT_EQ(raw_query(path, "SELECT family || ' ' || winner_stored FROM tuning_runs ORDER BY id"),
            (std::vector<std::string>{"tiled 1", "generic 1", "generic 0", "tiled 1"}));
  // Even a slower winner with the same template hash as another family's is no
  // rival of it (families never share a template, but the store need not know).
  const ShapeKey s2 = shape(8, 4096, 4096);
  ASSERT_TRUE(cache->record_winner(h200(), winner(s2, kTiled, 1.0, 0.01, "th1"), cost()));
  EXPECT_TRUE(cache->record_winner(h200(), winner(s2, "gemv v=4", 9.0, 0.01, "th1"), cost()));
  EXPECT_EQ(cache->find_winner(h200(), s2, "tiled", "th1")->config, kTiled);
  EXPECT_EQ(cache->find_winner(h200(), s2, "gemv", "th1")->config, "gemv v=4");
}

TEST(Families, StaleIsAnotherHashOfTheSameFamilyOnly) {
  TempDir dir;
  auto cache = open_rw(dir.file("stale.db"));
  const ShapeKey s = shape(1024, 1024, 1024, false, true, false);
  WinnerRecord generic = winner(s, kGeneric, 5.0, 0.01, "gh1");
  generic.tuned_at = 1700000000;
  ASSERT_TRUE(cache->record_winner(h200(), generic, cost()));
  ASSERT_TRUE(cache->record_winner(h200(), winner(s, kTiled, 1.0, 0.01, "th1"), cost()));
  // A new tiled template: its winner replaces the stale one even though it is
  // slower, and the generic winner is left exactly as it was.
  EXPECT_TRUE(cache->record_winner(h200(), winner(s, kTiled2, 2.0, 0.01, "th2"), cost()));
  EXPECT_FALSE(cache->find_winner(h200(), s, "tiled", "th1").has_value());
  EXPECT_EQ(cache->find_winner(h200(), s, "tiled", "th2")->config, kTiled2);
  auto g = cache->find_winner(h200(), s, "generic", "gh1");
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->config, kGeneric);
  EXPECT_DOUBLE_EQ(g->median_ms, 5.0);
  EXPECT_EQ(g->tuned_at, 1700000000);
  EXPECT_EQ(cache->load_winners(h200()).size(), 2u);
}

TEST(Families, LoadTrialsByHashResumesAnInterruptedTuning) {
  TempDir dir;
  auto cache = open_rw(dir.file("resume.db"));
  const ShapeKey s = shape(2048, 512, 256);
  // One call per measured candidate, as a tuner commits them.
  const std::vector<TrialRecord> measured = {
      {"tiled a", TrialStatus::Ok, 0.5, 0.01, 1073.7, ""},
      {"tiled b", TrialStatus::CompileFailed, 0, 0, 0, "error: too many resources"},
      {"tiled c", TrialStatus::LimitsExceeded, 0, 0, 0, "smem"},
      {"tiled d", TrialStatus::WrongResult, 0.4, 0, 0, "max rel err 1e-1"},
      {"tiled e", TrialStatus::Timeout, 0, 0, 0, "5 s"},
      {"tiled f", TrialStatus::Crashed, 0, 0, 0, "signal 11"}};
  for (const TrialRecord& t : measured) cache->record_trials(h200(), s, "tiled", "th2", {t});
  // Not of this template hash or this shape: not part of the resumed tuning.
  cache->record_trials(h200(), s, "tiled", "th1", {{"tiled old", TrialStatus::Ok, 1, 0, 1, ""}});
  cache->record_trials(h200(), s, "generic", "gh1", {{kGeneric, TrialStatus::Ok, 9, 0, 1, ""}});
  cache->record_trials(h200(), shape(2048, 512, 257), "tiled", "th2",
                       {{"tiled a", TrialStatus::Ok, 1, 0, 1, ""}});

  auto back = cache->load_trials(h200(), s, "th2");
  ASSERT_EQ(back.size(), measured.size());  // ordered by config
  for (size_t i = 0; i < measured.size(); ++i) {
    EXPECT_EQ(back[i].config, measured[i].config);
    EXPECT_EQ(back[i].status, measured[i].status);
    EXPECT_DOUBLE_EQ(back[i].median_ms, measured[i].median_ms);
    EXPECT_DOUBLE_EQ(back[i].gflops, measured[i].gflops);
    EXPECT_EQ(back[i].detail, measured[i].detail);
  }
  EXPECT_TRUE(cache->load_trials(h200(), s, "th3").empty());
  EXPECT_EQ(cache->load_trials(h200(), s).size(), measured.size() + 2);
  std::map<std::string, int> families;
  for (const TrialRow& r : cache->load_all_trials(h200())) ++families[r.family];
  EXPECT_EQ(families, (std::map<std::string, int>{{"generic", 1}, {"tiled", 8}}));
}

TEST(Families, MergeCarriesFamilies) {
  TempDir dir;
  auto cache = open_rw(dir.file("merge.db"));
  const ShapeKey s = shape(300, 200, 100);
  ASSERT_TRUE(cache->record_winner(h200(), winner(s, kTiled, 1.0, 0.01, "th1"), cost()));
  std::vector<WinnerRecord> in = {winner(s, kTiled2, 0.995, 0.01, "th1"),  // noise: kept
                                  winner(s, kGeneric, 4.0, 0.01, "gh1")};  // new family
  std::vector<TrialRow> trials = {
      {s, "tiled", "th1", {kTiled2, TrialStatus::Ok, 0.995, 0.01, 120.6, ""}, 1600000000},
      {s, "generic", "gh1", {kGeneric, TrialStatus::Crashed, 0, 0, 0, "signal 6"}, 1600000001}};
  MergeStats st = cache->merge(h200(), in, trials);
  EXPECT_EQ(st.winners_stored, 1u);
  EXPECT_EQ(st.winners_kept, 1u);
  EXPECT_EQ(st.trials, 2u);
  EXPECT_EQ(cache->find_winner(h200(), s, "tiled", "th1")->config, kTiled);
  EXPECT_EQ(cache->find_winner(h200(), s, "generic", "gh1")->config, kGeneric);
  auto rows = cache->load_all_trials(h200());
  ASSERT_EQ(rows.size(), 2u);  // ordered by template hash
  EXPECT_EQ(rows[0].family, "generic");
  EXPECT_EQ(rows[0].recorded_at, 1600000001);
  EXPECT_EQ(rows[1].family, "tiled");
  // A trial without a family or a winner under another family's name: nothing merged.
  std::vector<TrialRow> nameless = {trials[0]};
  nameless[0].family.clear();
  EXPECT_THROW(cache->merge(h200(), {winner(s, kGeneric, 1.0, 0, "gh2")}, nameless), CacheError);
  WinnerRecord misfiled = winner(shape(1, 1, 1), kTiled, 1.0, 0);
  misfiled.family = "generic";
  EXPECT_THROW(cache->merge(h200(), {misfiled}, {}), CacheError);
  EXPECT_EQ(cache->load_winners(h200()).size(), 2u);
  EXPECT_EQ(cache->find_winner(h200(), s, "generic", "gh1")->config, kGeneric);
}

TEST(Families, WinnerWhoseConfigDoesNotBeginWithItsFamilyIsRefused) {
  TempDir dir;
  const std::string path = dir.file("misfiled.db");
  auto cache = open_rw(path);
  const ShapeKey s = shape(64, 64, 64);
  const std::pair<const char*, const char*> refused[] = {
      {"generic", kTiled},          // another family's config
      {"tile", kTiled},             // a prefix of the first word is not the family
      {"tiled", "tiledx bm=128"},   // nor is a word that merely starts with it
      {"tiled bm=128", "tiled"}};   // nor text longer than the config
  for (const auto& [family, config] : refused) {
    WinnerRecord w = winner(s, config, 1.0, 0);
    w.family = family;
    try {
      cache->record_winner(h200(), w, cost());
      ADD_FAILURE() << "stored '" << config << "' as family '" << family << "'";
    } catch (const CacheError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_NE(msg.find("does not begin with"), std::string::npos) << msg;
    }
  }
  EXPECT_TRUE(cache->load_devices().empty());  // nothing written, not even the device
  // A config that is the family name alone is fine.
  WinnerRecord bare = winner(s, "generic", 1.0, 0);
  EXPECT_TRUE(cache->record_winner(h200(), bare, cost()));
  EXPECT_EQ(cache->find_winner(h200(), s, "generic", "hash1")->config, "generic");
}

}  // namespace
}  // namespace autogemm::test
