// Files that are not ours, newer than this build, or damaged are refused with
// CacheError and left exactly as they were. ReadOnly never creates anything.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "cache_fault_files.h"
#include "cache_test_util.h"

namespace autogemm::test {
namespace {

using Mode = TuningCache::Mode;
using testing::make_valid_cache;  // 300 trials, 50 winners, a cubin

std::vector<std::string> dir_entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
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

// The catalogue of damaged files (tests/support/cache_fault_files.h), which the
// library's and gemm_tune's fault suites iterate too: in each mode each file is
// refused as catalogued and left alone, or accepted and then current.
class Catalogued : public ::testing::TestWithParam<testing::DamagedFile> {};

TEST_P(Catalogued, OpenedInEachModeAsCatalogued) {
  const testing::DamagedFile& f = GetParam();
  for (Mode mode : {Mode::ReadOnly, Mode::ReadWrite}) {
    SCOPED_TRACE(mode == Mode::ReadOnly ? "read-only" : "read-write");
    TempDir dir;
    const std::string path = dir.file(std::string(f.name) + ".db");
    f.make(path);
    const testing::FaultOutcome& want = mode == Mode::ReadOnly ? f.read_only : f.read_write;
    if (want.refused) {
      expect_refused(path, want.reason, {mode}, f.in_pages ? Damage::InPages : Damage::InHeader);
      continue;
    }
    EXPECT_NO_THROW(TuningCache::open(path, mode));
    EXPECT_EQ(raw_query(path, "PRAGMA user_version")[0],
              std::to_string(TuningCache::schema_version()));
  }
}

INSTANTIATE_TEST_SUITE_P(DamagedFiles, Catalogued, ::testing::ValuesIn(testing::damaged_files()),
                         testing::damaged_file_name);

// Page damage means something only if the valid cache has pages to damage.
TEST(Refusal, CatalogueStartsFromAFileOfManyPages) {
  TempDir dir;
  make_valid_cache(dir.file("valid.db"));
  EXPECT_GT(read_bytes(dir.file("valid.db")).size(), 8 * 4096u);
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

TEST(ReadOnly, ReadsWithoutWriting) {
  TempDir dir;
  const std::string path = dir.file("ro.db");
  make_valid_cache(path);
  const auto bytes = read_bytes(path);
  {
    auto cache = TuningCache::open(path, Mode::ReadOnly);
    EXPECT_EQ(cache->load_winners(h200()).size(), 50u);
    EXPECT_TRUE(cache->find_winner(h200(), shape(16, 64, 64), "tiled", "hash1").has_value());
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
