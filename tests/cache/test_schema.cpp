// Schema identity, migrations and the plain-words views.
#include "cache_test_util.h"

namespace autogemm::test {
namespace {

// Schema version 1 as released (tests/support/sqlite_files.h), with rows.
const std::string kVersion1 = testing::kVersion1Tables + R"sql(
INSERT INTO devices VALUES (1, 'NVIDIA H200', 9, 0, 132, 13000, 13000, 1700000000);
INSERT INTO trials VALUES (1, 256, 128, 64, 0, 1, 1, 'hash1', 'cfgA', 'ok', 0.5, 0.01, 8.4, '',
                           1700000001);
INSERT INTO trials VALUES (1, 256, 128, 64, 0, 1, 1, 'hash1', 'cfgB', 'crashed', 0, 0, 0,
                           'signal 11', 1700000002);
INSERT INTO winners VALUES (1, 256, 128, 64, 0, 1, 1, 'cfgA', 'hash1', 0.5, 0.01, 8.4,
                            1700000003);
INSERT INTO cubins VALUES ('hash1', 'cfgA', 'sm_90', 13000, x'7f454c46', 1700000004);
)sql";

int64_t pragma(const std::string& path, const char* name) {
  return std::stoll(raw_query(path, std::string("PRAGMA ") + name)[0]);
}

TEST(Schema, NewFileGetsIdentityVersionAndWal) {
  TempDir dir;
  const std::string path = dir.file("new.db");
  open_rw(path);
  EXPECT_EQ(pragma(path, "application_id"), 0x4147454D);
  EXPECT_EQ(pragma(path, "user_version"), TuningCache::schema_version());
  EXPECT_EQ(TuningCache::schema_version(), 6);
  EXPECT_EQ(raw_query(path, "PRAGMA journal_mode")[0], "wal");
  auto tables = raw_query(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1");
  EXPECT_EQ(tables, (std::vector<std::string>{"cubins", "devices", "requested_shapes", "trials",
                                               "tuning_runs", "winners"}));
  auto views = raw_query(path, "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY 1");
  EXPECT_EQ(views,
            (std::vector<std::string>{"best_configs", "shape_coverage", "trial_summary", "tuning_history"}));
  // Reopening a current file changes nothing and works read-only too.
  open_rw(path);
  EXPECT_NO_THROW(TuningCache::open(path, TuningCache::Mode::ReadOnly));
}

TEST(Schema, ZeroByteFileIsANewCache) {
  TempDir dir;
  const std::string path = dir.file("zero.db");
  write_bytes(path, {});
  auto cache = open_rw(path);
  EXPECT_EQ(pragma(path, "user_version"), TuningCache::schema_version());
}

TEST(Schema, MigratesVersion1AndKeepsData) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  raw_sql(path, kVersion1);
  ASSERT_EQ(pragma(path, "user_version"), 1);
  // Read-only cannot migrate: refused, untouched.
  const auto before = read_bytes(path);
  EXPECT_THROW(TuningCache::open(path, TuningCache::Mode::ReadOnly), CacheError);
  EXPECT_EQ(read_bytes(path), before);

  auto cache = open_rw(path);
  EXPECT_EQ(pragma(path, "user_version"), TuningCache::schema_version());
  EXPECT_EQ(pragma(path, "application_id"), 0x4147454D);
  const DeviceKey dev = h200();
  const ShapeKey s = shape(256, 128, 64, false, true, true);
  // A config without a space is a family of its own name (version 3).
  auto w = cache->find_winner(dev, s, "cfgA", "hash1");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->config, "cfgA");
  EXPECT_EQ(w->tuned_at, 1700000003);
  EXPECT_EQ(cache->load_trials(dev, s).size(), 2u);
  EXPECT_EQ(cache->failed_configs(dev, s, "hash1"), std::vector<std::string>{"cfgB"});
  EXPECT_EQ(cache->load_cubin({"hash1", "cfgA", "sm_90", 13000}),
            (std::vector<char>{0x7f, 'E', 'L', 'F'}));
  // The version 2 parts work on the migrated data.
  EXPECT_FALSE(cache->record_winner(dev, winner(s, "cfgA", 0.495, 0.01), cost()));
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM tuning_runs")[0], "1");
  EXPECT_EQ(raw_query(path, "SELECT config FROM best_configs")[0], "cfgA");
}

TEST(Schema, FailedMigrationIsRolledBackWhole) {
  TempDir dir;
  const std::string path = dir.file("v1_blocked.db");
  raw_sql(path, kVersion1);
  // An object in the way of step 2's last view makes step 2 fail midway.
  raw_sql(path, "CREATE TABLE tuning_history (x)");
  EXPECT_THROW(open_rw(path), CacheError);
  EXPECT_EQ(pragma(path, "user_version"), 1);
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM sqlite_master WHERE name IN "
                            "('tuning_runs', 'best_configs', 'trial_summary')")[0],
            "0");
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM trials")[0], "2");
}

TEST(Schema, ConnectionSettings) {
  TempDir dir;
  const std::string path = dir.file("s.db");
  auto cache = open_rw(path);
  EXPECT_EQ(cache->path(), path);
  // foreign keys are enforced: a trial of an unknown device cannot exist.
  cache->record_trials(h200(), shape(1, 2, 3), "tiled", "h",
                       {{"c", TrialStatus::Ok, 1, 0, 1, ""}});
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM trials AS t LEFT JOIN devices AS d "
                            "ON d.id = t.device_id WHERE d.id IS NULL")[0],
            "0");
}

TEST(Views, PlainWords) {
  TempDir dir;
  const std::string path = dir.file("views.db");
  {
    auto cache = open_rw(path);
    WinnerRecord w = winner(shape(4096, 2048, 1024, false, true, true), "tiled bm=128 bn=128",
                            0.123456, 0.001);
    w.gflops = 69632.04;
    w.tuned_at = 1700000000;  // 2023-11-14 22:13:20 UTC
    cache->record_winner(h200(), w, cost());
    WinnerRecord tn = winner(shape(8, 8, 8, true, false, false), "generic ta=1 tb=0", 0.001, 0);
    tn.tuned_at = 1700000000;
    cache->record_winner(h200(), tn, cost());
    cache->record_trials(h200(), w.shape, "tiled", "hash1",
                         {{"tiled bm=128 bn=128", TrialStatus::Ok, 0.12, 0.001, 69632.04, ""},
                          {"tiled bm=64 bn=64", TrialStatus::Ok, 0.2, 0.001, 40000, ""},
                          {"tiled x", TrialStatus::CompileFailed, 0, 0, 0, "error"},
                          {"tiled y", TrialStatus::Timeout, 0, 0, 0, ""}});
    cache->record_trials(h200(), w.shape, "generic", "hash9",
                         {{"generic ta=0 tb=1", TrialStatus::Ok, 1.5, 0.01, 5726.6, ""}});
  }
  auto rows = raw_query(path,
                        "SELECT device || '|' || arch || '|' || layout || '|' || m || 'x' || n || "
                        "'x' || k || '|' || aligned || '|' || family || '|' || config || '|' || "
                        "gflops || '|' || median_ms || '|' || tuned FROM best_configs");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], "NVIDIA H200|sm_90|row-major TN|8x8x8|no|generic|generic ta=1 tb=0|1.0|0.001|"
                     "2023-11-14 22:13:20");
  EXPECT_EQ(rows[1],
            "NVIDIA H200|sm_90|row-major NT|4096x2048x1024|yes|tiled|tiled bm=128 bn=128|69632.0|"
            "0.1235|2023-11-14 22:13:20");
  // One summary row per family of the shape.
  auto summary = raw_query(path,
                           "SELECT layout || ' ' || family || ' ' || trials || ' ' || ok || ' ' || "
                           "failed || ' ' || compile_failed || ' ' || timeout || ' ' || crashed || "
                           "' ' || best_gflops FROM trial_summary");
  EXPECT_EQ(summary, (std::vector<std::string>{"row-major NT generic 1 1 0 0 0 0 5726.6",
                                               "row-major NT tiled 4 2 2 1 1 0 69632.0"}));
  auto history = raw_query(path, "SELECT family || ' ' || strategy || ' ' || candidates || ' ' || "
                                 "stored FROM tuning_history");
  EXPECT_EQ(history,
            (std::vector<std::string>{"tiled exhaustive 12 yes", "generic exhaustive 12 yes"}));
}

}  // namespace
}  // namespace autogemm::test
