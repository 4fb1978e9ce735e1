// Schema version 2 -> 3 on a file written by the last release of version 2
// (tests/cache/data/v2_release.db; data/README.md says how it was made): every
// row survives with identical values, gains family "tiled", and the file then
// works as a version 3 cache. The fixture itself is never opened, only copies.
#include <filesystem>

#include "cache_test_util.h"

namespace autogemm::test {
namespace {

const std::string kFixture = std::string(CACHE_TEST_DATA) + "/v2_release.db";
const char* const kHash = "015d87dc10245ba623da4904716b9f7852022879da9ca3a7ec57348d5d18de65";
constexpr int64_t kWrittenAt = 1796114715;  // when the generator ran (trials, runs, cubins)

struct Winner {
  ShapeKey shape;
  std::string config;
  double median_ms, spread_ms;
  int64_t tuned_at;
};

struct Trial {
  ShapeKey shape;
  std::string config;
  TrialStatus status;
  std::string detail;
};

// What the generator wrote (data/README.md).
const std::vector<Winner>& fixture_winners() {
  static const std::vector<Winner> w = {
      {shape(4096, 4096, 4096, false, false, true),
       "tiled bm=128 bn=128 bk=8 tm=16 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0", 3.02, 0.011,
       1747000000},
      {shape(1024, 1024, 1024, false, true, true),
       "tiled bm=64 bn=64 bk=16 tm=8 tn=4 wc=8 vec=4 sk=1 sw=4 ta=0 tb=1", 0.061, 0.0007,
       1747000600},
      {shape(16, 11008, 4096, true, false, false),
       "tiled bm=32 bn=128 bk=16 tm=4 tn=8 wc=4 vec=1 sk=4 rd=0 sw=1 ta=1 tb=0", 0.118, 0.002,
       1747001200},
      {shape(512, 512, 512, true, true, false),
       "tiled bm=64 bn=32 bk=8 tm=4 tn=4 wc=8 vec=1 sk=1 sw=2 ta=1 tb=1", 0.0145, 0.0002,
       1747001800}};
  return w;
}

// The failed trials (each shape's winner was also stored as an ok trial).
const std::vector<Trial>& fixture_failures() {
  const auto& w = fixture_winners();
  static const std::vector<Trial> t = {
      {w[0].shape, "tiled bm=256 bn=128 bk=16 tm=16 tn=16 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",
       TrialStatus::CompileFailed,
       "sgemm_tiled.cu(143): error: static assertion failed with \"the A tile does not fit the "
       "shared memory budget\""},
      {w[0].shape, "tiled bm=256 bn=256 bk=8 tm=16 tn=16 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0",
       TrialStatus::LimitsExceeded, "registers 312 > 255 per thread"},
      {w[1].shape, "tiled bm=64 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=2 rd=0 sw=4 ta=0 tb=1",
       TrialStatus::WrongResult, "max rel err 3.1e-02 at (17, 904)"},
      {w[2].shape, "tiled bm=16 bn=256 bk=32 tm=2 tn=16 wc=4 vec=1 sk=8 rd=1 sw=1 ta=1 tb=0",
       TrialStatus::Crashed, "worker killed by signal 11 (SIGSEGV)"},
      {w[2].shape, "tiled bm=32 bn=64 bk=8 tm=4 tn=4 wc=2 vec=1 sk=16 rd=0 sw=1 ta=1 tb=0",
       TrialStatus::Timeout, "no result within 5 s"}};
  return t;
}

// Every version 2 column of every table, one text line per row (quote() tells
// text from numbers and spells out blob bytes).
std::vector<std::string> v2_rows(const std::string& path) {
  const std::pair<const char*, const char*> tables[] = {
      {"devices", "id, name, cc_major, cc_minor, sm_count, driver_version, nvrtc_version, "
                  "first_seen"},
      {"winners", "device_id, m, n, k, trans_a, trans_b, aligned, config, template_hash, "
                  "median_ms, spread_ms, gflops, tuned_at"},
      {"trials", "device_id, m, n, k, trans_a, trans_b, aligned, template_hash, config, status, "
                 "median_ms, spread_ms, gflops, detail, recorded_at"},
      {"tuning_runs", "id, device_id, m, n, k, trans_a, trans_b, aligned, template_hash, "
                      "winner_config, winner_stored, candidates, compile_s, wall_s, strategy, "
                      "finished_at"},
      {"cubins", "template_hash, config, arch, nvrtc_version, cubin, created_at"}};
  std::vector<std::string> out;
  for (const auto& [table, cols] : tables) {
    std::string sql = "SELECT '" + std::string(table) + "'";
    std::string list = cols;
    for (size_t at = 0; at != std::string::npos;) {
      const size_t comma = list.find(", ", at);
      sql += " || '|' || quote(" + list.substr(at, comma - at) + ")";
      at = comma == std::string::npos ? comma : comma + 2;
    }
    sql += " FROM " + std::string(table) + " ORDER BY " + cols;
    for (std::string& row : raw_query(path, sql)) out.push_back(std::move(row));
  }
  return out;
}

// A copy of the fixture in `dir`, checked to be the version 2 file it claims to be.
std::string copy_fixture(const TempDir& dir) {
  const std::string path = dir.file("v2.db");
  std::filesystem::copy_file(kFixture, path);
  std::filesystem::permissions(path, std::filesystem::perms::owner_read |
                                         std::filesystem::perms::owner_write);
  EXPECT_EQ(raw_query(path, "PRAGMA user_version")[0], "2");
  return path;
}

TEST(MigrationV3, ReleasedVersion2FileKeepsEveryRow) {
  TempDir dir;
  const std::string path = copy_fixture(dir);
  const auto before = v2_rows(path);
  ASSERT_EQ(before.size(), 1u + 4 + 10 + 5 + 2);
  open_rw(path);
  EXPECT_EQ(raw_query(path, "PRAGMA user_version")[0], std::to_string(TuningCache::schema_version()));
  EXPECT_EQ(raw_query(path, "PRAGMA integrity_check")[0], "ok");
  EXPECT_EQ(v2_rows(path), before);
  for (const char* table : {"winners", "trials", "tuning_runs"})
    EXPECT_EQ(raw_query(path, std::string("SELECT group_concat(DISTINCT family) FROM ") + table),
              std::vector<std::string>{"tiled"})
        << table;
  // Every row of a file from before strided batches is a plain call's (batch 1).
  for (const char* table : {"winners", "trials", "tuning_runs"})
    EXPECT_EQ(raw_query(path, std::string("SELECT group_concat(DISTINCT batch) FROM ") + table),
              std::vector<std::string>{"1"})
        << table;
  // Every measurement before timing regimes was timed rotating.
  for (const char* table : {"winners", "trials", "tuning_runs"})
    EXPECT_EQ(raw_query(path, std::string("SELECT group_concat(DISTINCT timing) FROM ") + table),
              std::vector<std::string>{"rotate"})
        << table;
  // The views name the family too.
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM best_configs WHERE family = 'tiled'")[0], "4");
  EXPECT_EQ(raw_query(path, "SELECT m || ' ' || family || ' ' || trials FROM trial_summary"),
            (std::vector<std::string>{"16 tiled 3", "512 tiled 1", "1024 tiled 2",
                                      "4096 tiled 4"}));
  EXPECT_EQ(raw_query(path, "SELECT family || ' ' || stored FROM tuning_history"),
            (std::vector<std::string>{"tiled yes", "tiled yes", "tiled yes", "tiled yes",
                                      "tiled no"}));
}

TEST(MigrationV3, ReleasedVersion2FileReadsBackThroughTheApi) {
  TempDir dir;
  const std::string path = copy_fixture(dir);
  const DeviceKey dev = h200();
  auto cache = open_rw(path);
  EXPECT_EQ(cache->load_devices(), std::vector<DeviceKey>{dev});
  EXPECT_EQ(cache->load_winners(dev).size(), fixture_winners().size());
  for (const Winner& f : fixture_winners()) {
    SCOPED_TRACE(f.config);
    auto w = cache->find_winner(dev, f.shape, "tiled", kHash);
    ASSERT_TRUE(w.has_value());
    EXPECT_EQ(w->family, "tiled");
    EXPECT_EQ(w->config, f.config);
    EXPECT_DOUBLE_EQ(w->median_ms, f.median_ms);
    EXPECT_DOUBLE_EQ(w->spread_ms, f.spread_ms);
    EXPECT_DOUBLE_EQ(w->gflops, 2.0 * f.shape.m * f.shape.n * f.shape.k / (f.median_ms * 1e6));
    EXPECT_EQ(w->tuned_at, f.tuned_at);
    bool winner_trial = false;
    for (const TrialRecord& t : cache->load_trials(dev, f.shape, kHash))
      if (t.config == f.config)
        winner_trial = t.status == TrialStatus::Ok && t.median_ms == f.median_ms;
    EXPECT_TRUE(winner_trial);
  }
  auto rows = cache->load_all_trials(dev);
  ASSERT_EQ(rows.size(), 10u);
  size_t failures_found = 0;
  for (const TrialRow& r : rows) {
    EXPECT_EQ(r.family, "tiled");
    EXPECT_EQ(r.template_hash, kHash);
    EXPECT_EQ(r.recorded_at, kWrittenAt);
    for (const Trial& f : fixture_failures())
      if (r.shape == f.shape && r.trial.config == f.config) {
        ++failures_found;
        EXPECT_EQ(r.trial.status, f.status) << f.config;
        EXPECT_EQ(r.trial.detail, f.detail) << f.config;
      }
  }
  EXPECT_EQ(failures_found, fixture_failures().size());
  EXPECT_EQ(cache->failed_configs(dev, fixture_winners()[2].shape, kHash).size(), 2u);
}

TEST(MigrationV3, CubinsSurviveAndTakeNewArchNames) {
  TempDir dir;
  const std::string path = copy_fixture(dir);
  const auto blobs = raw_query(path, "SELECT hex(cubin) FROM cubins ORDER BY config");
  auto cache = open_rw(path);
  const CubinKey big{kHash, fixture_winners()[0].config, "sm_90", 13000};
  const CubinKey nt{kHash, fixture_winners()[1].config, "sm_90", 13000};
  auto hex = [](const std::vector<char>& bytes) {  // as SQLite's hex() writes it
    static const char digits[] = "0123456789ABCDEF";
    std::string s;
    for (char c : bytes) {
      s += digits[static_cast<unsigned char>(c) >> 4];
      s += digits[static_cast<unsigned char>(c) & 15];
    }
    return s;
  };
  ASSERT_EQ(blobs.size(), 2u);
  ASSERT_TRUE(cache->load_cubin(big).has_value());
  ASSERT_TRUE(cache->load_cubin(nt).has_value());
  EXPECT_EQ(hex(*cache->load_cubin(big)), blobs[0]);  // "bm=128" sorts before "bm=64"
  EXPECT_EQ(hex(*cache->load_cubin(nt)), blobs[1]);
  CubinKey arch_a = big;
  arch_a.arch = "sm_90a";
  EXPECT_FALSE(cache->load_cubin(arch_a).has_value());
  cache->store_cubin(arch_a, {'a'});
  EXPECT_EQ(cache->load_cubin(arch_a), std::vector<char>{'a'});
  EXPECT_EQ(hex(*cache->load_cubin(big)), blobs[0]);
}

TEST(MigrationV3, SecondFamilyJoinsAMigratedShape) {
  TempDir dir;
  const std::string path = copy_fixture(dir);
  const DeviceKey dev = h200();
  auto cache = open_rw(path);
  const Winner& tiled = fixture_winners()[0];
  ASSERT_TRUE(cache->record_winner(dev, winner(tiled.shape, "generic ta=0 tb=0", 40.0, 0.2,
                                               "generic-template-hash"),
                                   cost()));
  auto w = cache->find_winner(dev, tiled.shape, "tiled", kHash);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->config, tiled.config);
  EXPECT_EQ(w->tuned_at, tiled.tuned_at);
  EXPECT_EQ(cache->find_winner(dev, tiled.shape, "generic", "generic-template-hash")->config,
            "generic ta=0 tb=0");
  EXPECT_EQ(cache->load_winners(dev).size(), fixture_winners().size() + 1);
}

TEST(MigrationV3, ReadOnlyOpenOfVersion2IsRefusedAndLeavesItAlone) {
  TempDir dir;
  const std::string path = copy_fixture(dir);
  const auto bytes = read_bytes(path);
  try {
    TuningCache::open(path, TuningCache::Mode::ReadOnly);
    ADD_FAILURE() << "a version 2 file was opened read-only";
  } catch (const CacheError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 2, older"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_bytes(path), bytes);
}

TEST(MigrationV3, FailedStepLeavesTheVersion2FileWhole) {
  TempDir dir;
  const std::string path = copy_fixture(dir);
  raw_sql(path, "CREATE TABLE winners_v3 (x)");  // in the way of step 3
  const auto before = v2_rows(path);
  EXPECT_THROW(open_rw(path), CacheError);
  EXPECT_EQ(raw_query(path, "PRAGMA user_version")[0], "2");
  EXPECT_EQ(v2_rows(path), before);
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM pragma_table_info('trials') "
                            "WHERE name = 'family'")[0],
            "0");
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM sqlite_master WHERE type = 'view'")[0], "3");
}

}  // namespace
}  // namespace autogemm::test
