// gemm_tune against a tuning cache file that is damaged, foreign, newer,
// unwritable, on a full disk or locked: it stops before any GPU work with
// exit status 4 and one sentence "gemm_tune: cannot use the tuning cache:
// <reason>", and the file is left byte for byte as it was. Benign cases (a
// missing directory, a 0-byte file, an older schema) get past the cache; on
// this GPU-less machine gemm_tune then stops with exit status 3 ("no CUDA
// GPU"), on a GPU machine it tunes one small shape and exits 0.
//
// gemm_tune runs as a child process. Tests run as root in CI, and root ignores
// permission bits, so the read-only cases run gemm_tune as user "nobody"
// (65534) through setpriv(1); a full disk is simulated with a file-size limit
// (RLIMIT_FSIZE, SIGXFSZ ignored: writes fail with EFBIG, which SQLite reports
// as a full disk); a lock is held with a raw SQLite connection in this process.
#include <fcntl.h>
#include <poll.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "autogemm/cuda_driver.h"
#include "autogemm/tuning_cache.h"
#include "cache_fault_files.h"

namespace {

using namespace autogemm::testing;  // NOLINT: the shared fault-file helpers

namespace fs = std::filesystem;
using autogemm::TuningCache;


// --- files -------------------------------------------------------------------

std::string raw_query1(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string out = "<none>";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW) {
      auto* t = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
      out = t ? t : "NULL";
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return out;
}

/// mkdtemp under /tmp, removed (permissions restored first) at the end.
// --- running gemm_tune ----------------------------------------------------------

std::string tool(const char* name) {
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string dir = n > 0 ? std::string(self, size_t(n)) : std::string();
  dir = dir.substr(0, dir.rfind('/'));
  return dir + "/" + TOOLS_REL + "/" + name;
}

const std::string GEMM_TUNE = tool("gemm_tune");

Outcome run_gemm_tune(const std::vector<std::string>& args, const Child& how = {}) {
  std::vector<std::string> argv = {GEMM_TUNE};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, how);
}

std::vector<std::string> tune_args(const std::string& db) {
  return {"--db", db, "--shape", "64x64x64", "--budget", "1"};
}

/// gemm_tune on `db` fails at the cache: exit 4, one stderr line
/// "gemm_tune: cannot use the tuning cache: tuning cache <db>: <reason>"
/// containing `reason`, and `db` is byte for byte what it was (or still
/// missing), with no file added next to it beyond SQLite's -wal/-shm.
Outcome expect_refused(const std::string& db, const std::string& reason, const Child& how = {}) {
  const bool existed = fs::exists(db);
  const auto before = read_bytes(db);
  const Outcome o = run_gemm_tune(tune_args(db), how);
  EXPECT_EQ(o.status, 4) << "stdout:\n" << o.out << "stderr:\n" << o.err;
  const auto errs = lines(o.err);
  EXPECT_EQ(errs.size(), 1u) << o.err;
  if (!errs.empty()) {
    const std::string& e = errs.back();
    EXPECT_EQ(e.rfind("gemm_tune: cannot use the tuning cache: tuning cache " + db + ": ", 0), 0u)
        << e;
    EXPECT_NE(e.find(reason), std::string::npos) << "expected \"" << reason << "\" in: " << e;
    EXPECT_EQ(e.find("no CUDA GPU"), std::string::npos) << e;
  }
  EXPECT_EQ(fs::exists(db), existed);
  EXPECT_TRUE(read_bytes(db) == before) << db << " was modified";
  return o;
}

/// Where gemm_tune gets past the cache: here (no GPU) exit 3 with the GPU
/// sentence; on a GPU machine it tunes the one shape and exits 0.
void expect_past_the_cache(const Outcome& o) {
  std::string why;
  if (autogemm::gpu_available(&why)) {
    EXPECT_EQ(o.status, 0) << o.out << o.err;
  } else {
    EXPECT_EQ(o.status, 3) << o.out << o.err;
    EXPECT_NE(o.err.find("gemm_tune: no CUDA GPU is available"), std::string::npos) << o.err;
  }
  EXPECT_EQ(o.err.find("cannot use the tuning cache"), std::string::npos) << o.err;
}

bool gpu_here() {
  std::string why;
  return autogemm::gpu_available(&why);
}

/// Without a GPU and without a cache file: the GPU sentence, exit 3, and no
/// file left behind (the cache is created only once there is a GPU to tune).
void expect_no_gpu_and_no_file(const Outcome& o, const std::string& db) {
  EXPECT_EQ(o.status, 3) << o.out << o.err;
  EXPECT_NE(o.err.find("gemm_tune: no CUDA GPU is available"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(db)) << db << " was created on a machine without a GPU";
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// --- the faults ------------------------------------------------------------------

TEST(GemmTuneCacheFaults, ToolIsBuilt) {
  ASSERT_EQ(access(GEMM_TUNE.c_str(), X_OK), 0) << GEMM_TUNE;
}

// The catalogue of damaged files (tests/support/cache_fault_files.h), which the
// store's and the library's suites iterate too. gemm_tune opens read-write: each
// file is refused as its read-write outcome says (exit 4, one sentence, the file
// untouched), or gets past the cache, which is then current.
class GemmTuneCatalogued : public ::testing::TestWithParam<DamagedFile> {};

TEST_P(GemmTuneCatalogued, RefusedWithOneSentenceOrMadeCurrent) {
  const DamagedFile& f = GetParam();
  TempDir dir;
  const std::string db = dir.file(std::string(f.name) + ".db");
  f.make(db);
  if (f.read_write.refused) {
    expect_refused(db, f.read_write.reason);
    return;
  }
  expect_past_the_cache(run_gemm_tune(tune_args(db)));
  EXPECT_EQ(raw_query1(db, "PRAGMA user_version"), std::to_string(TuningCache::schema_version()));
}

INSTANTIATE_TEST_SUITE_P(DamagedFiles, GemmTuneCatalogued, ::testing::ValuesIn(damaged_files()),
                         damaged_file_name);

TEST(GemmTuneCacheFaults, ReadOnlyFile) {
  std::string why;
  if (!can_drop_root(&why)) GTEST_SKIP() << why;
  TempDir dir;
  const std::string db = dir.file("ro.db");
  make_valid_cache(db);
  give_to_runner(dir.path());
  ASSERT_EQ(chmod(db.c_str(), 0400), 0);
  expect_refused(db, "cannot be opened for writing", {{}, true});
}

TEST(GemmTuneCacheFaults, ReadOnlyDirectory) {
  std::string why;
  if (!can_drop_root(&why)) GTEST_SKIP() << why;
  TempDir dir;
  const std::string sub = dir.file("ro");
  ASSERT_EQ(mkdir(sub.c_str(), 0700), 0);
  const std::string db = sub + "/tuning.db";
  make_valid_cache(db);  // writable itself, but SQLite cannot create its -wal/-shm beside it
  give_to_runner(dir.path());
  ASSERT_EQ(chmod(sub.c_str(), 0500), 0);
  expect_refused(db, "its directory " + sub + " is not writable (Permission denied)", {{}, true});
  // A cache that does not exist yet cannot be created there (found once a
  // GPU is; without one nothing is created, so there is nothing to refuse).
  const std::string missing = sub + "/new.db";
  if (gpu_here())
    expect_refused(missing, "creating the file failed: Permission denied", {{}, true});
  else
    expect_no_gpu_and_no_file(run_gemm_tune(tune_args(missing), {{}, true}), missing);
  EXPECT_FALSE(fs::exists(missing));
}

// A missing directory is created (0700, as is every missing parent), the file in it 0600.
TEST(GemmTuneCacheFaults, MissingDirectoryIsCreatedPrivate) {
  TempDir dir;
  const std::string db = dir.file("a/b/tuning.db");
  const mode_t old_umask = umask(0);  // the modes must not depend on the umask
  const Outcome o = run_gemm_tune(tune_args(db));
  umask(old_umask);
  if (!gpu_here()) {
    // Without a GPU, gemm_tune says so and creates nothing.
    expect_no_gpu_and_no_file(o, db);
    EXPECT_FALSE(fs::exists(dir.file("a")));
    return;
  }
  expect_past_the_cache(o);
  ASSERT_TRUE(fs::exists(db));
  EXPECT_EQ(mode_of(dir.file("a")), 0700u);
  EXPECT_EQ(mode_of(dir.file("a/b")), 0700u);
  EXPECT_EQ(mode_of(db), 0600u);
  EXPECT_EQ(raw_query1(db, "PRAGMA user_version"), std::to_string(TuningCache::schema_version()));
}

// A full disk, simulated with a file-size limit (EFBIG, "File too large"; a
// real full disk reads "No space left on device"): the writes of a new cache
// or of a migration fail; nothing already in the file is lost.
TEST(GemmTuneCacheFaults, FullDisk) {
  TempDir dir;
  Child full;
  full.fsize_limit = 0;
  {
    const std::string db = dir.file("v1.db");
    raw_sql(db, kVersion1);  // must be migrated: a write
    expect_refused(db, "disk I/O error (File too large)", full);
    EXPECT_EQ(raw_query1(db, "PRAGMA user_version"), "1");
    EXPECT_EQ(raw_query1(db, "SELECT config FROM winners"), "cfgA");
  }
  if (!gpu_here()) {
    // A new cache is only created on a GPU machine.
    const std::string db = dir.file("fresh/new.db");
    expect_no_gpu_and_no_file(run_gemm_tune(tune_args(db), full), db);
  } else {
    const std::string db = dir.file("fresh/new.db");
    const Outcome o = run_gemm_tune(tune_args(db), full);
    EXPECT_EQ(o.status, 4) << o.out << o.err;
    EXPECT_NE(o.err.find("gemm_tune: cannot use the tuning cache: tuning cache " + db), std::string::npos)
        << o.err;
    EXPECT_NE(o.err.find("(File too large)"), std::string::npos) << o.err;
    EXPECT_EQ(lines(o.err).size(), 1u) << o.err;
    // What was created is an empty file, which a later run turns into a cache.
    EXPECT_EQ(fs::file_size(db), 0u);
    expect_past_the_cache(run_gemm_tune(tune_args(db)));
  }
}

// Another process holds the write lock past the busy timeout (200 ms here):
// a file that needs a migration (a write), or one in rollback-journal mode
// (where an exclusive lock blocks readers too), is reported after the timeout.
// (A current WAL-mode file is only read when opened, which a writer does not
// block: gemm_tune gets past it, and a held lock would then fail its first
// write after the timeout, with exit status 1.)
TEST(GemmTuneCacheFaults, LockedByAnotherWriterPastTheTimeout) {
  TempDir dir;
  Child quick;
  quick.env = {"AUTOGEMM_CACHE_BUSY_MS=200"};
  for (const bool rollback_journal : {false, true}) {
    SCOPED_TRACE(rollback_journal ? "rollback journal, current schema" : "WAL, schema 1");
    const std::string db = dir.file(rollback_journal ? "delete_mode.db" : "v1.db");
    if (rollback_journal) {
      make_valid_cache(db);
      raw_sql(db, "PRAGMA journal_mode = DELETE");
    } else {
      raw_sql(db, kVersion1);
      raw_sql(db, "PRAGMA journal_mode = WAL");
    }
    const auto before = read_bytes(db);
    LockHolder holder(db);
    ASSERT_TRUE(holder.locked());
    const Outcome o = expect_refused(db, "database is locked", quick);
    EXPECT_NE(o.err.find("AUTOGEMM_CACHE_BUSY_MS"), std::string::npos) << o.err;
    EXPECT_GE(o.seconds, 0.2);
    EXPECT_LT(o.seconds, 10.0);
    holder.release();
    EXPECT_TRUE(read_bytes(db) == before);
    // Once the lock is gone, the same file works.
    expect_past_the_cache(run_gemm_tune(tune_args(db), quick));
  }
}

// An older schema is migrated by gemm_tune, in one transaction, keeping the data.
TEST(GemmTuneCacheFaults, OlderSchemaIsMigratedKeepingItsData) {
  TempDir dir;
  const std::string db = dir.file("v1.db");
  raw_sql(db, kVersion1);
  const Outcome o = run_gemm_tune(tune_args(db));
  expect_past_the_cache(o);
  EXPECT_NE(o.err.find("migrated from schema version 1 to " +
                       std::to_string(TuningCache::schema_version())),
            std::string::npos)
      << o.err;
  EXPECT_EQ(raw_query1(db, "PRAGMA user_version"), std::to_string(TuningCache::schema_version()));
  EXPECT_EQ(raw_query1(db, "SELECT config FROM best_configs"), "cfgA");
  EXPECT_EQ(raw_query1(db, "SELECT count(*) FROM trials"), "1");
}

}  // namespace
