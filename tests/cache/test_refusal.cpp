// Files that are not ours, newer than this build, or damaged are refused with
// CacheError and left exactly as they were. ReadOnly never creates anything.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "cache_test_util.h"

namespace autogemm::test {
namespace {

using Mode = TuningCache::Mode;

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A valid cache with some pages of data, closed (WAL checkpointed).
void make_valid_cache(const std::string& path) {
  auto cache = open_rw(path);
  std::vector<TrialRecord> trials;
  for (int i = 0; i < 300; ++i)
    trials.push_back({"config_" + std::to_string(i), i % 3 ? TrialStatus::Ok : TrialStatus::Crashed,
                      1.0 + i, 0.01, 100.0 * i, std::string(100, 'a' + i % 26)});
  cache->record_trials(h200(), shape(512, 512, 512), "hash1", trials);
  for (int i = 1; i <= 50; ++i)
    cache->record_winner(h200(), winner(shape(i * 16, 64, 64), "cfg", 1.0, 0.01), cost());
  cache->store_cubin({"hash1", "cfg", "sm_90", 13000}, std::vector<char>(20000, 'c'));
}

// Opening `path` (in both modes by default) throws CacheError mentioning the
// path, and neither the file nor the directory around it changes. Damage that
// only SQLite can find (inside pages) needs SQLite to open the file; a
// read-only connection to a WAL-mode file may then leave SQLite's -wal/-shm
// side files behind (it cannot remove them): Damage::InPages.
enum class Damage { InHeader, InPages };

void expect_refused(const std::string& path, const std::string& why_fragment,
                    std::vector<Mode> modes = {Mode::ReadWrite, Mode::ReadOnly},
                    Damage damage = Damage::InHeader) {
  const auto bytes = read_bytes(path);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const auto entries = dir_entries(dir);
  for (Mode mode : modes) {
    try {
      TuningCache::open(path, mode);
      ADD_FAILURE() << path << " was accepted in mode " << static_cast<int>(mode);
    } catch (const CacheError& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_NE(msg.find(why_fragment), std::string::npos) << msg;
    }
    EXPECT_EQ(read_bytes(path), bytes) << "file modified in mode " << static_cast<int>(mode);
    if (mode == Mode::ReadWrite || damage == Damage::InHeader) {
      EXPECT_EQ(dir_entries(dir), entries) << "mode " << static_cast<int>(mode);
    }
  }
}

TEST(Refusal, NewerSchemaVersion) {
  TempDir dir;
  const std::string path = dir.file("newer.db");
  make_valid_cache(path);
  raw_sql(path, "PRAGMA user_version = " + std::to_string(TuningCache::schema_version() + 1));
  expect_refused(path, "newer autogemm");
}

// The newer version is only in the WAL (its writer still has the file open),
// so the raw header still shows the current version: SQLite's view decides.
TEST(Refusal, NewerSchemaVersionStillInTheWal) {
  TempDir dir;
  const std::string path = dir.file("newer_wal.db");
  make_valid_cache(path);
  sqlite3* newer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &newer), SQLITE_OK);
  const std::string sql = "PRAGMA wal_autocheckpoint = 0; PRAGMA user_version = " +
                          std::to_string(TuningCache::schema_version() + 1);
  ASSERT_EQ(sqlite3_exec(newer, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  expect_refused(path, "newer autogemm");
  sqlite3_close(newer);
}

TEST(Refusal, ForeignApplicationId) {
  TempDir dir;
  const std::string path = dir.file("foreign.db");
  raw_sql(path, "PRAGMA application_id = 305419896; CREATE TABLE t (x); INSERT INTO t VALUES (1)");
  expect_refused(path, "application_id 0x12345678");
}

TEST(Refusal, ForeignDatabaseWithoutApplicationId) {
  TempDir dir;
  const std::string path = dir.file("places.sqlite");
  raw_sql(path, "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)");
  expect_refused(path, "another program");
}

TEST(Refusal, OurIdWithoutVersion) {
  TempDir dir;
  const std::string path = dir.file("noversion.db");
  raw_sql(path, "PRAGMA application_id = 1095189837; CREATE TABLE t (x)");
  expect_refused(path, "damaged");
}

TEST(Refusal, RandomBytes) {
  TempDir dir;
  const std::string path = dir.file("random.db");
  std::vector<char> bytes(8192);
  uint32_t x = 12345;
  for (char& c : bytes) c = static_cast<char>((x = x * 1103515245u + 12345u) >> 24);
  write_bytes(path, bytes);
  expect_refused(path, "not a database");
  write_bytes(path, {'h', 'e', 'l', 'l', 'o', '\n'});
  expect_refused(path, "not a database");
}

TEST(Refusal, DamagedPageHeaders) {
  TempDir dir;
  const std::string path = dir.file("flipped.db");
  make_valid_cache(path);
  auto bytes = read_bytes(path);
  const size_t page = 4096;
  ASSERT_GT(bytes.size(), 8 * page);
  for (size_t p = 2; p * page < bytes.size(); p += 3) bytes[p * page + 3] ^= 0x5a;  // cell counts
  write_bytes(path, bytes);
  expect_refused(path, "corrupt", {Mode::ReadWrite, Mode::ReadOnly}, Damage::InPages);
}

TEST(Refusal, DamagedHeaderMagic) {
  TempDir dir;
  const std::string path = dir.file("magic.db");
  make_valid_cache(path);
  auto bytes = read_bytes(path);
  bytes[3] ^= 0x01;  // "SQLite format 3"
  write_bytes(path, bytes);
  expect_refused(path, "not a database");
}

TEST(Refusal, Truncated) {
  TempDir dir;
  const std::string full = dir.file("full.db");
  make_valid_cache(full);
  const auto bytes = read_bytes(full);
  for (size_t keep : {size_t{50}, size_t{99}}) {  // not even a whole SQLite header
    const std::string path = dir.file("truncated_" + std::to_string(keep) + ".db");
    write_bytes(path, std::vector<char>(bytes.begin(), bytes.begin() + static_cast<long>(keep)));
    SCOPED_TRACE(keep);
    expect_refused(path, "not a database");
  }
  for (size_t keep : {size_t{100}, size_t{4096}, bytes.size() / 2, bytes.size() - 4096}) {
    const std::string path = dir.file("truncated_" + std::to_string(keep) + ".db");
    write_bytes(path, std::vector<char>(bytes.begin(), bytes.begin() + static_cast<long>(keep)));
    SCOPED_TRACE(keep);
    expect_refused(path, "corrupt", {Mode::ReadWrite, Mode::ReadOnly}, Damage::InPages);
  }
}

// Single flipped bytes all over a valid file: either refused (file unchanged)
// or, where SQLite cannot notice (inside a text value, say), readable without
// a crash; every failure is a CacheError.
TEST(Refusal, FlippedBytesNeverCrash) {
  TempDir dir;
  const std::string full = dir.file("full.db");
  make_valid_cache(full);
  const auto bytes = read_bytes(full);
  int refused = 0, opened = 0;
  for (size_t pos = 0; pos < bytes.size(); pos += 1021) {
    const std::string path = dir.file("flip.db");
    auto damaged = bytes;
    damaged[pos] = static_cast<char>(damaged[pos] ^ 0xff);
    write_bytes(path, damaged);
    try {
      auto cache = TuningCache::open(path, Mode::ReadOnly);
      ++opened;
      for (const DeviceKey& d : cache->load_devices()) {
        cache->load_winners(d);
        cache->load_all_trials(d);
      }
    } catch (const CacheError&) {
      ++refused;
      EXPECT_EQ(read_bytes(path), damaged) << pos;
    }
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(opened, 0);
}

TEST(ReadOnly, MissingFileIsNotCreated) {
  TempDir dir;
  const std::string path = dir.file("sub/dir/none.db");
  EXPECT_THROW(TuningCache::open(path, Mode::ReadOnly), CacheError);
  EXPECT_FALSE(std::filesystem::exists(dir.file("sub")));
  EXPECT_TRUE(dir_entries(dir.path()).empty());
}

TEST(ReadOnly, EmptyFileIsRefusedAndNotWritten) {
  TempDir dir;
  const std::string path = dir.file("empty.db");
  write_bytes(path, {});
  expect_refused(path, "empty database", {Mode::ReadOnly});
  EXPECT_NO_THROW(open_rw(path));
}

TEST(ReadOnly, ReadsWithoutWriting) {
  TempDir dir;
  const std::string path = dir.file("ro.db");
  make_valid_cache(path);
  const auto bytes = read_bytes(path);
  {
    auto cache = TuningCache::open(path, Mode::ReadOnly);
    EXPECT_EQ(cache->load_winners(h200()).size(), 50u);
    EXPECT_TRUE(cache->find_winner(h200(), shape(16, 64, 64), "hash1").has_value());
    EXPECT_THROW(cache->record_winner(h200(), winner(shape(1, 1, 1), "c", 1, 0), cost()),
                 CacheError);
    EXPECT_THROW(cache->store_cubin({"h", "c", "sm_90", 1}, {'x'}), CacheError);
  }
  EXPECT_EQ(read_bytes(path), bytes);
}

TEST(ReadOnly, UnwritableFileInReadWriteModeIsRefused) {
  if (geteuid() == 0) GTEST_SKIP() << "root ignores file permissions";
  TempDir dir;
  const std::string path = dir.file("locked.db");
  make_valid_cache(path);
  ASSERT_EQ(chmod(path.c_str(), 0400), 0);
  const auto bytes = read_bytes(path);
  EXPECT_THROW(open_rw(path), CacheError);
  EXPECT_EQ(read_bytes(path), bytes);
  EXPECT_NO_THROW(TuningCache::open(path, Mode::ReadOnly));
}

}  // namespace
}  // namespace autogemm::test
