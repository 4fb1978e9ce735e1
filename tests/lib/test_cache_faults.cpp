// The library (libautogemm, through its public C API) on a tuning cache file
// that is damaged, foreign, newer, older, unreadable, on a full disk or
// locked: autogemm_init returns AUTOGEMM_CACHE_ERROR and prints exactly one
// warning (or, where nothing is wrong for a reader, returns AUTOGEMM_SUCCESS
// silently), the file is left byte for byte as it was, and autogemm keeps
// working on its built-in defaults: a quick-return call succeeds and a call
// that needs the GPU gets as far as the device (AUTOGEMM_NO_DEVICE here).
//
// Each case runs in a child process (this binary with --cache-fault-child):
// a fresh library state, its own stderr to count warnings in, and the
// conditions a case needs: user "nobody" through setpriv(1) where permission
// bits must count (tests run as root in CI, and root ignores them), a
// file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) for a full disk. A lock is
// held by another process with a raw SQLite connection.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "autogemm/autogemm.h"
#include "autogemm/tuning_cache.h"
#include "cache_fault_files.h"

namespace {

using namespace autogemm::testing;  // NOLINT: the shared fault-file helpers

namespace fs = std::filesystem;
using autogemm::TuningCache;


// --- files -------------------------------------------------------------------

// --- the child: what an application sees ------------------------------------------

/// Runs in the child process: init on `path`, then one quick-return call and
/// one call that needs the GPU; prints the three statuses on stdout.
int child_main(const char* path) {
  const autogemm_status init = autogemm_init(path);
  const auto* a = reinterpret_cast<const float*>(std::uintptr_t(0x10000));  // never dereferenced
  const auto* b = reinterpret_cast<const float*>(std::uintptr_t(0x20000));
  auto* c = reinterpret_cast<float*>(std::uintptr_t(0x30000));
  const autogemm_status quick = autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS,
                                               AUTOGEMM_NO_TRANS, 0, 8, 8, 1.f, a, 8, b, 8, 0.f,
                                               c, 8, nullptr);
  const autogemm_status work = autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS,
                                              AUTOGEMM_NO_TRANS, 8, 8, 8, 1.f, a, 8, b, 8, 0.f,
                                              c, 8, nullptr);
  std::printf("init=%d quick=%d work=%d\n", int(init), int(quick), int(work));
  return 0;
}

// --- running the child ---------------------------------------------------------------

std::string self_exe() {
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  return n > 0 ? std::string(self, size_t(n)) : std::string();
}

Outcome run_child(const std::string& cache_path, const Child& how = {}) {
  return run_program({self_exe(), "--cache-fault-child", cache_path}, how);
}

bool driver_installed() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h) dlclose(h);
  return h != nullptr;
}

/// The child's statuses, and that the library kept working on defaults.
void expect_working(const Outcome& o, autogemm_status init) {
  ASSERT_EQ(o.status, 0) << "stdout:\n" << o.out << "stderr:\n" << o.err;
  int i = -1, q = -1, w = -1;
  ASSERT_EQ(std::sscanf(o.out.c_str(), "init=%d quick=%d work=%d", &i, &q, &w), 3) << o.out;
  EXPECT_EQ(i, int(init)) << autogemm_status_string(autogemm_status(i)) << "\n" << o.err;
  EXPECT_EQ(q, int(AUTOGEMM_SUCCESS)) << autogemm_status_string(autogemm_status(q));
  if (driver_installed())  // no context is ever made current in the child
    EXPECT_TRUE(w == AUTOGEMM_NO_DEVICE || w == AUTOGEMM_NO_CONTEXT)
        << autogemm_status_string(autogemm_status(w));
  else
    EXPECT_EQ(w, int(AUTOGEMM_NO_DEVICE)) << autogemm_status_string(autogemm_status(w));
}

/// autogemm_init(db) returns AUTOGEMM_CACHE_ERROR with exactly one warning
/// line on stderr, "[autogemm W] tuning cache unusable, running on built-in
/// defaults: tuning cache <db>: <reason>", containing `reason`; the library
/// keeps working; `db` is unchanged and no file next to it is removed.
Outcome expect_refused(const std::string& db, const std::string& reason, const Child& how = {}) {
  const auto before = read_bytes(db);
  const Outcome o = run_child(db, how);
  expect_working(o, AUTOGEMM_CACHE_ERROR);
  const auto errs = lines(o.err);
  EXPECT_EQ(errs.size(), 1u) << o.err;
  if (!errs.empty()) {
    const std::string& e = errs.front();
    EXPECT_EQ(e.rfind("[autogemm W] tuning cache unusable, running on built-in defaults: "
                      "tuning cache " + db + ": ", 0),
              0u)
        << e;
    EXPECT_NE(e.find(reason), std::string::npos) << "expected \"" << reason << "\" in: " << e;
  }
  EXPECT_TRUE(fs::exists(db));
  EXPECT_TRUE(read_bytes(db) == before) << db << " was modified";
  return o;
}

/// autogemm_init(db) succeeds without a word on stderr; the library works;
/// `db` (if it exists) is unchanged.
Outcome expect_accepted(const std::string& db, const Child& how = {}) {
  const bool existed = fs::exists(db);
  const auto before = read_bytes(db);
  const Outcome o = run_child(db, how);
  expect_working(o, AUTOGEMM_SUCCESS);
  EXPECT_EQ(o.err, "");
  EXPECT_EQ(fs::exists(db), existed);
  EXPECT_TRUE(read_bytes(db) == before) << db << " was modified";
  return o;
}

// --- the faults ----------------------------------------------------------------------

TEST(LibCacheFaults, ValidCacheIsReadSilently) {
  TempDir dir;
  const std::string db = dir.file("good.db");
  make_valid_cache(db);
  expect_accepted(db);
}

// The catalogue of damaged files (tests/support/cache_fault_files.h), which the
// store's and gemm_tune's suites iterate too. The library opens read-only: each
// file is refused as its read-only outcome says, with one warning, or read
// silently; either way it is left as it was.
class LibCatalogued : public ::testing::TestWithParam<DamagedFile> {};

TEST_P(LibCatalogued, RefusedWithOneWarningOrReadSilently) {
  const DamagedFile& f = GetParam();
  TempDir dir;
  const std::string db = dir.file(std::string(f.name) + ".db");
  f.make(db);
  if (f.read_only.refused)
    expect_refused(db, f.read_only.reason);
  else
    expect_accepted(db);
}

INSTANTIATE_TEST_SUITE_P(DamagedFiles, LibCatalogued, ::testing::ValuesIn(damaged_files()),
                         damaged_file_name);

// The library only reads: a read-only file is fine.
TEST(LibCacheFaults, ReadOnlyFileIsRead) {
  std::string why;
  if (!can_drop_root(&why)) GTEST_SKIP() << why;
  TempDir dir;
  const std::string db = dir.file("ro.db");
  make_valid_cache(db);
  give_to_runner(dir.path());
  ASSERT_EQ(chmod(db.c_str(), 0400), 0);
  expect_accepted(db, {{}, true});
}

// A WAL-mode cache (what gemm_tune writes) in a directory the reader cannot
// write to: SQLite cannot create the -shm file it needs to read it (unless a
// process that can has it open), so it is refused with one warning that says
// so and how to fix it; in rollback-journal mode the same file is read.
TEST(LibCacheFaults, ReadOnlyDirectory) {
  std::string why;
  if (!can_drop_root(&why)) GTEST_SKIP() << why;
  TempDir dir;
  const std::string sub = dir.file("ro");
  ASSERT_EQ(mkdir(sub.c_str(), 0700), 0);
  const std::string db = sub + "/tuning.db";
  make_valid_cache(db);
  give_to_runner(dir.path());
  ASSERT_EQ(chmod(sub.c_str(), 0500), 0);
  ASSERT_EQ(chmod(db.c_str(), 0400), 0);
  expect_refused(db, "is in WAL mode, and its directory " + sub + " is not writable", {{}, true});
  const std::string rollback = sub + "/rollback.db";
  ASSERT_EQ(chmod(sub.c_str(), 0700), 0);
  make_valid_cache(rollback);
  raw_sql(rollback, "PRAGMA journal_mode = DELETE");
  give_to_runner(dir.path());
  ASSERT_EQ(chmod(sub.c_str(), 0500), 0);
  expect_accepted(rollback, {{}, true});
  // Nothing there: built-in defaults, no warning, nothing created.
  expect_accepted(sub + "/none.db", {{}, true});
}

TEST(LibCacheFaults, MissingDirectoryMeansDefaultsSilently) {
  TempDir dir;
  expect_accepted(dir.file("no/such/dir/tuning.db"));
  EXPECT_FALSE(fs::exists(dir.file("no")));
}

// A full disk (simulated with a file-size limit: EFBIG, "File too large"; a
// real one reads "No space left on device"): the library writes nothing to
// the cache, but SQLite must size a -shm file to read a WAL-mode one.
TEST(LibCacheFaults, FullDisk) {
  TempDir dir;
  const std::string db = dir.file("good.db");
  make_valid_cache(db);
  Child full;
  full.fsize_limit = 0;
  expect_refused(db, "disk I/O error (File too large)", full);
}

// A writer holding the lock does not block a reader of a WAL-mode cache (the
// format gemm_tune writes); a rollback-journal file is reported after the
// busy timeout (200 ms here), with one warning.
TEST(LibCacheFaults, LockedByAnotherWriterPastTheTimeout) {
  TempDir dir;
  Child quick;
  quick.env = {"AUTOGEMM_CACHE_BUSY_MS=200"};
  {
    const std::string db = dir.file("wal.db");
    make_valid_cache(db);
    LockHolder holder(db);
    ASSERT_TRUE(holder.locked());
    expect_accepted(db, quick);
  }
  {
    const std::string db = dir.file("delete_mode.db");
    make_valid_cache(db);
    raw_sql(db, "PRAGMA journal_mode = DELETE");
    const auto before = read_bytes(db);
    LockHolder holder(db);
    ASSERT_TRUE(holder.locked());
    const Outcome o = expect_refused(db, "database is locked", quick);
    EXPECT_NE(o.err.find("AUTOGEMM_CACHE_BUSY_MS"), std::string::npos) << o.err;
    EXPECT_GE(o.seconds, 0.2);
    EXPECT_LT(o.seconds, 10.0);
    holder.release();
    EXPECT_TRUE(read_bytes(db) == before);
    expect_accepted(db, quick);  // once the lock is gone
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--cache-fault-child") == 0) return child_main(argv[2]);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
