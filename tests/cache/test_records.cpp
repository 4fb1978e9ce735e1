// Round trips and the rules of what is stored: trials, winners, cubins,
// failed configs, device keys, merge, and validation of values read back.
#include <cmath>

#include "cache_test_util.h"

namespace autogemm::test {
namespace {

TEST(TrialStatusNames, RoundTrip) {
  const TrialStatus all[] = {TrialStatus::Ok,          TrialStatus::CompileFailed,
                             TrialStatus::LimitsExceeded, TrialStatus::WrongResult,
                             TrialStatus::Timeout,     TrialStatus::Crashed};
  const char* names[] = {"ok", "compile_failed", "limits_exceeded", "wrong_result", "timeout",
                         "crashed"};
  for (int i = 0; i < 6; ++i) {
    EXPECT_STREQ(to_string(all[i]), names[i]);
    EXPECT_EQ(parse_trial_status(names[i]), all[i]);
  }
  EXPECT_FALSE(parse_trial_status("OK").has_value());
  EXPECT_FALSE(parse_trial_status("").has_value());
}

TEST(Records, TrialsRoundTripAndUpsert) {
  TempDir dir;
  auto cache = open_rw(dir.file("t.db"));
  const ShapeKey s = shape(1024, 512, 256, false, true);
  std::vector<TrialRecord> trials = {
      {"bm128_bn64", TrialStatus::Ok, 0.25, 0.01, 1073.7, ""},
      {"bm256_bn256", TrialStatus::LimitsExceeded, 0, 0, 0, "smem 200 KiB > 227 KiB? no"},
      {"bm64_bn64", TrialStatus::WrongResult, 0.2, 0.0, 0, "max rel err 3e-2 at (3,7)"},
  };
  cache->record_trials(h200(), s, "tiled", "hash1", trials);
  auto back = cache->load_trials(h200(), s);
  ASSERT_EQ(back.size(), 3u);  // ordered by config
  EXPECT_EQ(back[0].config, "bm128_bn64");
  EXPECT_EQ(back[0].status, TrialStatus::Ok);
  EXPECT_DOUBLE_EQ(back[0].median_ms, 0.25);
  EXPECT_DOUBLE_EQ(back[0].spread_ms, 0.01);
  EXPECT_DOUBLE_EQ(back[0].gflops, 1073.7);
  EXPECT_EQ(back[1].config, "bm256_bn256");
  EXPECT_EQ(back[1].detail, "smem 200 KiB > 227 KiB? no");
  EXPECT_EQ(back[2].status, TrialStatus::WrongResult);

  // Same key again: replaced, not duplicated. Another hash: a separate row.
  cache->record_trials(h200(), s, "tiled", "hash1",
                       {{"bm64_bn64", TrialStatus::Ok, 0.3, 0.02, 900, ""}});
  cache->record_trials(h200(), s, "tiled", "hash2",
                       {{"bm64_bn64", TrialStatus::Timeout, 0, 0, 0, "5 s"}});
  back = cache->load_trials(h200(), s);
  ASSERT_EQ(back.size(), 4u);
  auto all = cache->load_all_trials(h200());
  ASSERT_EQ(all.size(), 4u);
  int replaced = 0;
  for (const TrialRow& r : all) {
    EXPECT_EQ(r.shape, s);
    EXPECT_EQ(r.family, "tiled");
    EXPECT_GT(r.recorded_at, 0);
    if (r.template_hash == "hash1" && r.trial.config == "bm64_bn64") {
      ++replaced;
      EXPECT_EQ(r.trial.status, TrialStatus::Ok);
    }
  }
  EXPECT_EQ(replaced, 1);
  // Other shapes and layouts see nothing.
  EXPECT_TRUE(cache->load_trials(h200(), shape(1024, 512, 256, false, false)).empty());
  EXPECT_TRUE(cache->load_trials(h200(), shape(1024, 512, 256, false, true, false)).empty());
}

TEST(Records, WinnersRoundTrip) {
  TempDir dir;
  auto cache = open_rw(dir.file("w.db"));
  WinnerRecord w = winner(shape(4096, 4096, 4096, true, false, false), "tiled a", 1.5, 0.02);
  w.tuned_at = 1700000000;
  EXPECT_TRUE(cache->record_winner(h200(), w, cost()));
  auto all = cache->load_winners(h200());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].shape, w.shape);
  EXPECT_EQ(all[0].family, "tiled");
  EXPECT_EQ(all[0].config, "tiled a");
  EXPECT_EQ(all[0].template_hash, "hash1");
  EXPECT_DOUBLE_EQ(all[0].median_ms, 1.5);
  EXPECT_DOUBLE_EQ(all[0].spread_ms, 0.02);
  EXPECT_DOUBLE_EQ(all[0].gflops, w.gflops);
  EXPECT_EQ(all[0].tuned_at, 1700000000);

  auto found = cache->find_winner(h200(), w.shape, "tiled", "hash1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->config, "tiled a");
  EXPECT_FALSE(cache->find_winner(h200(), w.shape, "tiled", "hash2").has_value());
  EXPECT_FALSE(cache->find_winner(h200(), w.shape, "generic", "hash1").has_value());
  EXPECT_FALSE(cache->find_winner(h200(), shape(4096, 4096, 4096), "tiled", "hash1").has_value());

  // tuned_at 0 means now; the cost is recorded for every call.
  WinnerRecord w2 = winner(shape(64, 64, 64), "tiled b", 0.01, 0.001);
  EXPECT_TRUE(cache->record_winner(h200(), w2, cost()));
  auto f2 = cache->find_winner(h200(), w2.shape, "tiled", "hash1");
  ASSERT_TRUE(f2.has_value());
  EXPECT_NEAR(static_cast<double>(f2->tuned_at), static_cast<double>(std::time(nullptr)), 60);
  EXPECT_EQ(raw_query(dir.file("w.db"), "SELECT count(*) FROM tuning_runs")[0], "2");
  EXPECT_EQ(raw_query(dir.file("w.db"),
                      "SELECT candidates || ' ' || compile_s || ' ' || wall_s || ' ' || strategy "
                      "|| ' ' || family FROM tuning_runs ORDER BY id LIMIT 1")[0],
            "12 3.5 20.25 exhaustive tiled");
}

TEST(Records, WinnerReplacementRule) {
  TempDir dir;
  auto cache = open_rw(dir.file("r.db"));
  const ShapeKey s = shape(2048, 2048, 2048);
  auto stored = [&] { return cache->find_winner(h200(), s, "tiled", "hash1"); };

  ASSERT_TRUE(cache->record_winner(h200(), winner(s, "tiled first", 1.00, 0.02), cost()));
  // Faster, but only by noise (0.03 <= max(0.02, 0.05)): the incumbent stays.
  EXPECT_FALSE(cache->record_winner(h200(), winner(s, "tiled noise", 0.97, 0.05), cost()));
  EXPECT_EQ(stored()->config, "tiled first");
  // Slower: the incumbent stays.
  EXPECT_FALSE(cache->record_winner(h200(), winner(s, "tiled slower", 1.20, 0.01), cost()));
  EXPECT_EQ(stored()->config, "tiled first");
  // Same speed, same config re-measured: kept (no churn).
  EXPECT_FALSE(cache->record_winner(h200(), winner(s, "tiled first", 1.00, 0.02), cost()));
  // Clearly faster (0.2 > 0.02): replaces.
  EXPECT_TRUE(cache->record_winner(h200(), winner(s, "tiled clear", 0.80, 0.01), cost()));
  EXPECT_EQ(stored()->config, "tiled clear");
  EXPECT_DOUBLE_EQ(stored()->median_ms, 0.80);
  // A winner of another template (the stored one is stale): replaces even if slower.
  EXPECT_TRUE(
      cache->record_winner(h200(), winner(s, "tiled newtmpl", 2.0, 0.01, "hash2"), cost()));
  EXPECT_FALSE(stored().has_value());
  ASSERT_TRUE(cache->find_winner(h200(), s, "tiled", "hash2").has_value());
  EXPECT_EQ(cache->find_winner(h200(), s, "tiled", "hash2")->config, "tiled newtmpl");
  EXPECT_EQ(cache->load_winners(h200()).size(), 1u);
  // Every call recorded its cost, stored or not.
  EXPECT_EQ(raw_query(dir.file("r.db"), "SELECT count(*) FROM tuning_runs")[0], "6");
  EXPECT_EQ(raw_query(dir.file("r.db"), "SELECT sum(winner_stored) FROM tuning_runs")[0], "3");
}

TEST(Records, FailedConfigs) {
  TempDir dir;
  auto cache = open_rw(dir.file("f.db"));
  const ShapeKey s = shape(100, 200, 300);
  cache->record_trials(h200(), s, "tiled", "hash1",
                       {{"ok1", TrialStatus::Ok, 1, 0, 10, ""},
                        {"cf", TrialStatus::CompileFailed, 0, 0, 0, "error: x"},
                        {"le", TrialStatus::LimitsExceeded, 0, 0, 0, ""},
                        {"wr", TrialStatus::WrongResult, 0, 0, 0, ""},
                        {"to", TrialStatus::Timeout, 0, 0, 0, ""},
                        {"cr", TrialStatus::Crashed, 0, 0, 0, "signal 11"}});
  cache->record_trials(h200(), s, "tiled", "hash2",
                       {{"other_hash", TrialStatus::Crashed, 0, 0, 0, ""}});
  cache->record_trials(h200(), shape(100, 200, 301), "tiled", "hash1",
                       {{"other_shape", TrialStatus::Crashed, 0, 0, 0, ""}});
  EXPECT_EQ(cache->failed_configs(h200(), s, "hash1"),
            (std::vector<std::string>{"cf", "cr", "le", "to", "wr"}));
  EXPECT_EQ(cache->failed_configs(h200(), s, "hash2"), std::vector<std::string>{"other_hash"});
  EXPECT_TRUE(cache->failed_configs(h200(), s, "hash3").empty());
  // A status this build does not know still counts as failed (never retried).
  raw_sql(dir.file("f.db"), "UPDATE trials SET status = 'future_status' WHERE config = 'ok1'");
  EXPECT_EQ(cache->failed_configs(h200(), s, "hash1").size(), 6u);
}

TEST(Records, DevicesDifferInEveryKeyField) {
  TempDir dir;
  auto cache = open_rw(dir.file("d.db"));
  std::vector<DeviceKey> devs(7, h200());
  devs[1].name = "NVIDIA H100 80GB HBM3";
  devs[2].cc_major = 10;
  devs[3].cc_minor = 1;
  devs[4].sm_count = 114;
  devs[5].driver_version = 12080;
  devs[6].nvrtc_version = 12090;
  const ShapeKey s = shape(512, 512, 512);
  for (size_t i = 0; i < devs.size(); ++i) {
    ASSERT_TRUE(cache->record_winner(
        devs[i], winner(s, "tiled cfg" + std::to_string(i), 1.0, 0.0), cost()));
    cache->record_trials(devs[i], s, "tiled", "hash1",
                         {{"t" + std::to_string(i), TrialStatus::Crashed, 0, 0, 0, ""}});
  }
  for (size_t i = 0; i < devs.size(); ++i) {
    auto w = cache->load_winners(devs[i]);
    ASSERT_EQ(w.size(), 1u) << i;
    EXPECT_EQ(w[0].config, "tiled cfg" + std::to_string(i));
    EXPECT_EQ(cache->failed_configs(devs[i], s, "hash1"),
              std::vector<std::string>{"t" + std::to_string(i)});
  }
  EXPECT_EQ(cache->load_devices(), devs);
  DeviceKey unknown = h200();
  unknown.sm_count = 1;
  EXPECT_TRUE(cache->load_winners(unknown).empty());
}

TEST(Records, CubinsRoundTrip) {
  TempDir dir;
  auto cache = open_rw(dir.file("c.db"));
  std::vector<char> bin(300000);
  for (size_t i = 0; i < bin.size(); ++i) bin[i] = static_cast<char>(i * 7 + (i >> 9));
  bin[10] = '\0';  // binary-safe
  CubinKey key{"hash1", "cfgA", "sm_90", 13000};
  EXPECT_FALSE(cache->load_cubin(key).has_value());
  cache->store_cubin(key, bin);
  EXPECT_EQ(cache->load_cubin(key), bin);
  for (CubinKey other : {CubinKey{"hash2", "cfgA", "sm_90", 13000},
                         CubinKey{"hash1", "cfgB", "sm_90", 13000},
                         CubinKey{"hash1", "cfgA", "sm_100", 13000},
                         CubinKey{"hash1", "cfgA", "sm_90", 12090}})
    EXPECT_FALSE(cache->load_cubin(other).has_value());
  std::vector<char> bin2 = {'x', 'y'};
  cache->store_cubin(key, bin2);
  EXPECT_EQ(cache->load_cubin(key), bin2);
  EXPECT_THROW(cache->store_cubin(key, {}), CacheError);
}

TEST(Records, InvalidInputIsRefusedAndNothingWritten) {
  TempDir dir;
  auto cache = open_rw(dir.file("i.db"));
  const ShapeKey s = shape(8, 8, 8);
  EXPECT_THROW(cache->record_trials(h200(), shape(-1, 8, 8), "tiled", "h", {}), CacheError);
  EXPECT_THROW(cache->record_trials(h200(), s, "tiled", "", {}), CacheError);
  EXPECT_THROW(cache->record_trials(h200(), s, "", "h", {}), CacheError);
  EXPECT_THROW(cache->record_trials(h200(), s, "tiled", "h",
                                    {{"a", TrialStatus::Ok, 1, 0, 1, ""},
                                     {"b", TrialStatus::Ok, NAN, 0, 1, ""}}),
               CacheError);
  EXPECT_TRUE(cache->load_trials(h200(), s).empty());  // not even "a"
  DeviceKey nameless = h200();
  nameless.name.clear();
  EXPECT_THROW(cache->record_winner(nameless, winner(s, "c", 1, 0), cost()), CacheError);
  EXPECT_THROW(cache->record_winner(h200(), winner(s, "c", 0, 0), cost()), CacheError);
  EXPECT_THROW(cache->record_winner(h200(), winner(s, "", 1, 0), cost()), CacheError);
  WinnerRecord no_family = winner(s, "tiled c", 1, 0);
  no_family.family.clear();
  EXPECT_THROW(cache->record_winner(h200(), no_family, cost()), CacheError);
  EXPECT_TRUE(cache->load_devices().empty());
}

TEST(Records, InvalidStoredRowsAreSkipped) {
  TempDir dir;
  const std::string path = dir.file("bad_rows.db");
  {
    auto cache = open_rw(path);
    for (int i = 1; i <= 4; ++i)
      cache->record_winner(h200(), winner(shape(i, i, i), "tiled cfg", 1.0, 0), cost());
    cache->record_trials(h200(), shape(1, 1, 1), "tiled", "h",
                         {{"a", TrialStatus::Ok, 1, 0, 1, ""}, {"b", TrialStatus::Ok, 1, 0, 1, ""},
                          {"c", TrialStatus::Ok, 1, 0, 1, ""}});
  }
  raw_sql(path,
          "UPDATE winners SET m = -5 WHERE m = 1;"
          "UPDATE winners SET trans_a = 7 WHERE m = 2;"
          "UPDATE winners SET median_ms = 'fast' WHERE m = 3;"
          "UPDATE trials SET status = 'exploded' WHERE config = 'a';"
          "UPDATE trials SET gflops = -1 WHERE config = 'b';");
  auto cache = open_rw(path);
  auto w = cache->load_winners(h200());
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].shape.m, 4);
  auto t = cache->load_trials(h200(), shape(1, 1, 1));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].config, "c");
  // A stored winner that cannot be read is replaced by any new one.
  EXPECT_TRUE(cache->record_winner(h200(), winner(shape(3, 3, 3), "tiled new", 5.0, 0), cost()));
  EXPECT_EQ(cache->find_winner(h200(), shape(3, 3, 3), "tiled", "hash1")->config, "tiled new");
}

TEST(Records, MergeUsesTheWinnerRuleAndKeepsTimes) {
  TempDir dir;
  auto cache = open_rw(dir.file("m.db"));
  const ShapeKey a = shape(10, 10, 10), b = shape(20, 20, 20), c = shape(30, 30, 30);
  cache->record_winner(h200(), winner(a, "tiled a_old", 1.0, 0.01), cost());
  cache->record_winner(h200(), winner(b, "tiled b_old", 1.0, 0.01), cost());
  std::vector<WinnerRecord> in = {winner(a, "tiled a_new", 0.5, 0.01),
                                  winner(b, "tiled b_noise", 0.995, 0.01),
                                  winner(c, "tiled c_new", 3.0, 0.1)};
  for (auto& w : in) w.tuned_at = 1600000000;
  std::vector<TrialRow> trials = {
      {a, "tiled", "hash1", {"tiled a_new", TrialStatus::Ok, 0.5, 0.01, 2, ""}, 1500000000}};
  MergeStats st = cache->merge(h200(), in, trials);
  EXPECT_EQ(st.winners_stored, 2u);
  EXPECT_EQ(st.winners_kept, 1u);
  EXPECT_EQ(st.trials, 1u);
  EXPECT_EQ(cache->find_winner(h200(), a, "tiled", "hash1")->config, "tiled a_new");
  EXPECT_EQ(cache->find_winner(h200(), a, "tiled", "hash1")->tuned_at, 1600000000);
  EXPECT_EQ(cache->find_winner(h200(), b, "tiled", "hash1")->config, "tiled b_old");
  EXPECT_EQ(cache->find_winner(h200(), c, "tiled", "hash1")->config, "tiled c_new");
  auto rows = cache->load_all_trials(h200());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].recorded_at, 1500000000);
  // merge records no tuning cost
  EXPECT_EQ(raw_query(dir.file("m.db"), "SELECT count(*) FROM tuning_runs")[0], "2");
  // Invalid input: nothing merged at all.
  in.push_back(winner(shape(0, 1, 1), "bad", 1, 0));
  in[0].config = "tiled a_newest";
  in[0].median_ms = 0.1;
  EXPECT_THROW(cache->merge(h200(), in, {}), CacheError);
  EXPECT_EQ(cache->find_winner(h200(), a, "tiled", "hash1")->config, "tiled a_new");
}

}  // namespace
}  // namespace autogemm::test
