// Damaged, foreign and locked cache files for the fault tests of the store
// (tests/cache/test_refusal.cpp), the library (tests/lib/test_cache_faults.cpp)
// and gemm_tune (tests/tools/test_gemm_tune_cache_faults.cpp): file helpers, a
// schema version 1 file, child-process options, permission helpers, and the one
// catalogue of damaged files all three iterate (damaged_files(), at the end).
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <signal.h>
#include <poll.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "autogemm/tuning_cache.h"
#include "sqlite_files.h"

namespace autogemm::testing {

namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;

/// mkdtemp under /tmp, removed (permissions restored first) at the end.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "autogemm-faults") {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    const char* p = mkdtemp(tmpl.data());
    if (!p) throw std::runtime_error("mkdtemp failed");
    path_ = p;
  }
  ~TempDir() {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::end(it);
         it.increment(ec))
      if (it->is_directory(ec)) fs::permissions(it->path(), fs::perms::owner_all, ec);
    fs::permissions(path_, fs::perms::owner_all, ec);
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A valid, current cache with some pages of rows: 300 trials of 512x512x512
// (every third crashed), 50 winners ((16 i)x64x64, config "tiled cfg", hash
// "hash1") and a 20000-byte cubin. Its -wal is checkpointed away on close.
inline void make_valid_cache(const std::string& path) {
  auto cache = TuningCache::open(path, TuningCache::Mode::ReadWrite);
  const autogemm::DeviceKey dev{"NVIDIA H200", 9, 0, 132, 13000, 13000};
  std::vector<autogemm::TrialRecord> trials;
  for (int i = 0; i < 300; ++i)
    trials.push_back({"tiled config_" + std::to_string(i),
                      i % 3 ? autogemm::TrialStatus::Ok : autogemm::TrialStatus::Crashed, 1.0 + i,
                      0.01, 100.0 * i, std::string(100, char('a' + i % 26))});
  cache->record_trials(dev, {512, 512, 512, false, false, true}, "tiled", "hash1", trials);
  for (int i = 1; i <= 50; ++i) {
    autogemm::WinnerRecord w;
    w.shape = {i * 16, 64, 64, false, false, true};
    w.family = "tiled";
    w.config = "tiled cfg";
    w.template_hash = "hash1";
    w.median_ms = 1;
    w.spread_ms = 0.01;
    cache->record_winner(dev, w, {1, 0.1, 0.2, "exhaustive"});
  }
  cache->store_cubin({"hash1", "tiled cfg", "sm_90", 13000}, std::vector<char>(20000, 'c'));
}

// Schema version 1 as released (tests/support/sqlite_files.h), with rows.
inline const std::string kVersion1 = kVersion1Tables + R"sql(
INSERT INTO devices VALUES (1, 'NVIDIA H200', 9, 0, 132, 13000, 13000, 1700000000);
INSERT INTO trials VALUES (1, 256, 128, 64, 0, 1, 1, 'hash1', 'cfgA', 'ok', 0.5, 0.01, 8.4, '',
                           1700000001);
INSERT INTO winners VALUES (1, 256, 128, 64, 0, 1, 1, 'cfgA', 'hash1', 0.5, 0.01, 8.4,
                            1700000003);
)sql";

inline bool have_setpriv() {
  for (const char* p : {"/usr/bin/setpriv", "/bin/setpriv"})
    if (access(p, X_OK) == 0) return true;
  return false;
}
struct Child {
  std::vector<std::string> env;  ///< NAME=value added to the environment
  bool as_nobody = false;        ///< run as uid/gid 65534 (through setpriv when root)
  long fsize_limit = -1;         ///< RLIMIT_FSIZE in bytes (a full disk), -1: none
};

struct Outcome {
  int status = -1;  ///< exit status, -1 if killed by a signal
  std::string out, err;
  double seconds = 0;
};
/// Runs `argv` (program first) as a child process with the options in
/// `how` (as nobody through setpriv when root, extra environment, a file-size
/// limit), with the default log level as an application has it; collects its
/// stdout, stderr, exit status and wall time.
inline Outcome run_program(const std::vector<std::string>& program_and_args, const Child& how = {}) {
  std::vector<std::string> argv;
  if (how.as_nobody && geteuid() == 0)
    argv = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"};
  argv.insert(argv.end(), program_and_args.begin(), program_and_args.end());
  // Pipes, not files: under a file-size limit a write to a file would fail.
  int out_pipe[2], err_pipe[2];
  Outcome o;
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe failed";
    return o;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    unsetenv("AUTOGEMM_LOG_LEVEL");  // the default level (warn), as an application has it
    for (const std::string& e : how.env) putenv(const_cast<char*>(e.c_str()));
    if (how.fsize_limit >= 0) {
      signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead of killing
      rlimit rl{static_cast<rlim_t>(how.fsize_limit), static_cast<rlim_t>(how.fsize_limit)};
      setrlimit(RLIMIT_FSIZE, &rl);
    }
    std::vector<char*> cargv;
    for (std::string& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* dest[2] = {&o.out, &o.err};
  int open_fds = 2;
  while (open_fds > 0 && poll(fds, 2, -1) > 0) {
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        dest[i]->append(buf, size_t(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int st = 0;
  waitpid(pid, &st, 0);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

/// The read-only cases need permission bits to be honoured: root runs the
/// child as nobody (setpriv), others run it as themselves.
inline bool can_drop_root(std::string* why) {
  if (geteuid() != 0) return true;
  if (have_setpriv()) return true;
  *why = "running as root without setpriv(1): root ignores permission bits";
  return false;
}

/// Makes `dir` (and what is in it) belong to the user the child process
/// runs as (nobody, when the tests run as root).
inline void give_to_runner(const std::string& dir) {
  if (geteuid() != 0) return;
  ASSERT_EQ(chown(dir.c_str(), kNobody, kNobody), 0);
  for (const auto& e : fs::recursive_directory_iterator(dir))
    ASSERT_EQ(chown(e.path().c_str(), kNobody, kNobody), 0);
}

/// Another process that holds an exclusive write lock on a file until released.
/// (A separate process: POSIX locks are per process, and any close() of the
/// file in the process that holds them, e.g. reading its bytes, drops them.)
class LockHolder {
 public:
  explicit LockHolder(const std::string& db) {
    int ready[2], release[2];
    if (pipe(ready) != 0 || pipe(release) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ == 0) {
      close(ready[0]);
      close(release[1]);
      sqlite3* h = nullptr;
      char ok = 0;
      if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK &&
          sqlite3_exec(h, "BEGIN EXCLUSIVE; INSERT INTO winners SELECT * FROM winners WHERE 0",
                       nullptr, nullptr, nullptr) == SQLITE_OK)
        ok = 1;
      if (write(ready[1], &ok, 1) != 1) _exit(1);
      char c;
      while (read(release[0], &c, 1) > 0) {
      }
      sqlite3_exec(h, "ROLLBACK", nullptr, nullptr, nullptr);
      sqlite3_close(h);
      _exit(0);
    }
    close(ready[1]);
    close(release[0]);
    release_ = release[1];
    char ok = 0;
    locked_ = read(ready[0], &ok, 1) == 1 && ok == 1;
    close(ready[0]);
  }
  ~LockHolder() { release(); }
  bool locked() const { return locked_; }
  void release() {
    if (release_ < 0) return;
    close(release_);
    release_ = -1;
    int st = 0;
    waitpid(pid_, &st, 0);
  }

 private:
  pid_t pid_ = -1;
  int release_ = -1;
  bool locked_ = false;
};

// --- the catalogue of damaged files ------------------------------------------

/// What opening a catalogued file in one mode must do.
struct FaultOutcome {
  bool refused = true;
  const char* reason = "";  ///< a fragment of the one-sentence CacheError, when refused
};

/// One damaged, foreign or odd cache file: how to make it, and what a read-only
/// open (the library) and a read-write open (gemm_tune) of it must do. A
/// refused file is never changed. `in_pages`: only SQLite can see the damage,
/// so it opens the file, and a read-only open of a WAL-mode file may leave
/// -wal/-shm side files behind (it cannot remove them).
struct DamagedFile {
  const char* name;  ///< letters, digits and '_' (a test name)
  void (*make)(const std::string& path);
  FaultOutcome read_only;
  FaultOutcome read_write;
  bool in_pages = false;
};

inline void PrintTo(const DamagedFile& f, std::ostream* os) { *os << f.name; }

/// For INSTANTIATE_TEST_SUITE_P(..., ValuesIn(damaged_files()), damaged_file_name).
inline std::string damaged_file_name(const ::testing::TestParamInfo<DamagedFile>& info) {
  return info.param.name;
}

namespace damage {

// A valid cache with its bytes changed by `edit`.
template <typename Edit>
void edited_cache(const std::string& path, Edit edit) {
  make_valid_cache(path);
  auto bytes = read_bytes(path);
  edit(bytes);
  write_bytes(path, bytes);
}

// A valid cache cut to its first `keep` bytes (negative: all but the last -keep).
template <long keep>
void truncated(const std::string& path) {
  edited_cache(path, [](std::vector<char>& b) { b.resize(keep >= 0 ? keep : b.size() + keep); });
}

inline void truncated_to_half(const std::string& path) {
  edited_cache(path, [](std::vector<char>& b) { b.resize(b.size() / 2); });
}
inline void flipped_page_headers(const std::string& path) {
  edited_cache(path, [](std::vector<char>& b) {  // the cell counts of every third page
    for (size_t p = 2; p * 4096 < b.size(); p += 3) b[p * 4096 + 3] ^= 0x5a;
  });
}
inline void flipped_header_magic(const std::string& path) {
  edited_cache(path, [](std::vector<char>& b) { b[5] ^= 0x20; });  // "SQLite format 3"
}
inline void random_bytes(const std::string& path) {
  std::vector<char> bytes(8192);
  uint32_t x = 12345;
  for (char& c : bytes) c = static_cast<char>((x = x * 1103515245u + 12345u) >> 24);
  write_bytes(path, bytes);
}
inline void text_file(const std::string& path) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "line " + std::to_string(i) + " of somebody's notes\n";
  write_bytes(path, {text.begin(), text.end()});
}
inline void foreign_tables(const std::string& path) {
  raw_sql(path, "CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT);"
                "INSERT INTO moz_places (url) VALUES ('https://example.org')");
}
inline void foreign_application_id(const std::string& path) {
  raw_sql(path, "PRAGMA application_id = 305419896; CREATE TABLE t (x); INSERT INTO t VALUES (1)");
}
inline void our_id_without_version(const std::string& path) {
  raw_sql(path, "PRAGMA application_id = 1095189837; CREATE TABLE t (x)");
}
inline void newer_schema(const std::string& path) {
  make_valid_cache(path);
  raw_sql(path, "PRAGMA user_version = " + std::to_string(TuningCache::schema_version() + 1));
}
inline void zero_bytes(const std::string& path) { write_bytes(path, {}); }
inline void schema_version_1(const std::string& path) { raw_sql(path, kVersion1); }

}  // namespace damage

/// Every damaged file the fault suites iterate, once.
inline const std::vector<DamagedFile>& damaged_files() {
  using namespace damage;  // NOLINT: the makers above
  auto both = [](const char* reason) { return FaultOutcome{true, reason}; };
  static const std::vector<DamagedFile> files = {
      {"flipped_page_headers", flipped_page_headers, both("is corrupt"), both("is corrupt"), true},
      {"flipped_header_magic", flipped_header_magic, both("is not a database"),
       both("is not a database")},
      {"truncated_inside_the_header", truncated<60>, both("is not a database"),
       both("is not a database")},
      {"truncated_to_the_header", truncated<100>, both("corrupt"), both("corrupt"), true},
      {"truncated_to_the_first_page", truncated<4096>, both("corrupt"), both("corrupt"), true},
      {"truncated_to_half", truncated_to_half, both("corrupt"), both("corrupt"), true},
      {"last_page_missing", truncated<-4096>, both("corrupt"), both("corrupt"), true},
      {"random_bytes", random_bytes, both("is not a database"), both("is not a database")},
      {"text_file", text_file, both("is not a database (no SQLite header)"),
       both("is not a database (no SQLite header)")},
      {"foreign_tables_without_application_id", foreign_tables, both("another program"),
       both("another program")},
      {"foreign_application_id", foreign_application_id,
       both("another program (application_id 0x12345678)"),
       both("another program (application_id 0x12345678)")},
      {"our_application_id_without_a_version", our_id_without_version, both("damaged"),
       both("damaged")},
      {"newer_schema_version", newer_schema, both("was written by a newer autogemm"),
       both("was written by a newer autogemm")},
      // Not damaged, but unreadable as they are: a read-write open makes an
      // empty file a new cache and migrates an old one.
      {"zero_bytes", zero_bytes, both("is an empty database"), {false, ""}},
      {"schema_version_1", schema_version_1, both("cannot be migrated read-only"), {false, ""}},
  };
  return files;
}

}  // namespace autogemm::testing
