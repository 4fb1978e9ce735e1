// A library never writes to its host program's stdout: that stream is the
// program's output (a pipe into another tool, a JSON document, ...). autogemm
// logs to stderr only (lib/base/log.cpp), whatever its level.
//
// Each case forks a child whose stdout and stderr are pipes. The child sets
// the most verbose log level, calls autogemm_init on a damaged cache file
// (truncated, not SQLite, another program's SQLite database, zero bytes;
// each written here byte by byte) and then the rest of the C API. The
// parent asserts that not one byte came out on stdout, and that stderr does
// carry a warning naming the file. The child reports its statuses on a third
// pipe. The parent never calls autogemm itself, so no library or driver
// state crosses a fork().
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "autogemm/autogemm.h"

namespace {

// --- damaged files, byte by byte ---------------------------------------------

void put_be(std::vector<unsigned char>& b, size_t at, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + i] = static_cast<unsigned char>(v >> (8 * (bytes - 1 - i)));
}

/// A one-page SQLite database with an empty schema whose header claims
/// `pages` pages, cut (or padded with zeros) to `size` bytes. With pages = 1
/// and size = page_size it is a sound database (sqlite3 says "ok").
std::vector<unsigned char> sqlite_file(uint32_t page_size, uint32_t pages, uint32_t application_id,
                                       uint32_t user_version, size_t size) {
  std::vector<unsigned char> b(std::max<size_t>(page_size, size), 0);
  const char magic[] = "SQLite format 3";  // 16 bytes with the NUL
  std::copy(magic, magic + sizeof magic, b.begin());
  put_be(b, 16, page_size, 2);
  b[18] = b[19] = 1;                 // legacy (rollback) journal
  b[21] = 64, b[22] = 32, b[23] = 32;  // payload fractions (fixed values)
  put_be(b, 24, 1, 4);               // file change counter
  put_be(b, 28, pages, 4);           // database size in pages
  put_be(b, 44, 4, 4);               // schema format
  put_be(b, 56, 1, 4);               // UTF-8
  put_be(b, 60, user_version, 4);
  put_be(b, 68, application_id, 4);
  put_be(b, 92, 1, 4);               // version-valid-for = change counter
  put_be(b, 96, 3040001, 4);
  b[100] = 0x0D;                     // page 1: an empty table b-tree leaf
  put_be(b, 105, page_size, 2);      // cell content starts at the page end
  b.resize(size);
  return b;
}

constexpr uint32_t kAutogemmId = 0x4147454D;  // "AGEM", the cache's application_id

std::string write_file(const std::string& dir, const char* name, const std::vector<unsigned char>& bytes) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return path;
}

class TempDir {
 public:
  TempDir() {
    char t[] = "/tmp/autogemm-no-stdout-XXXXXX";
    path_ = mkdtemp(t) ? t : "/tmp";
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// --- the child ----------------------------------------------------------------

/// What an application does: init on the file, then work, a quick return, a
/// bad argument, describe, stats. Statuses go to `report` (never stdout).
void child_calls(const std::string& db, int report) {
  const auto* a = reinterpret_cast<const float*>(std::uintptr_t(0x10000));  // never dereferenced
  const auto* b = reinterpret_cast<const float*>(std::uintptr_t(0x20000));
  auto* c = reinterpret_cast<float*>(std::uintptr_t(0x30000));
  const int init = autogemm_init(db.c_str());
  const std::string init_error = autogemm_last_error();
  const int work = autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8,
                                  1.f, a, 8, b, 8, 0.f, c, 8, nullptr);
  const int quick = autogemm_sgemm(AUTOGEMM_COL_MAJOR, AUTOGEMM_TRANS, AUTOGEMM_NO_TRANS, 0, 8, 8,
                                   1.f, a, 8, b, 8, 0.f, c, 1, nullptr);
  const int bad = autogemm_sgemm(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8,
                                 1.f, a, 7, b, 8, 0.f, c, 8, nullptr);
  char text[300];
  autogemm_describe(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8, a, 8, b, 8, c,
                    8, text, sizeof text);
  autogemm_plan_info info;
  autogemm_describe_plan(AUTOGEMM_ROW_MAJOR, AUTOGEMM_NO_TRANS, AUTOGEMM_NO_TRANS, 8, 8, 8, a, 8, b,
                         8, c, 8, &info);
  autogemm_stats s;
  autogemm_get_stats(&s);
  autogemm_record_shapes(1);
  autogemm_flush_recorded_shapes();
  autogemm_record_shapes(0);
  autogemm_shutdown();
  const std::string line = "init=" + std::to_string(init) + " work=" + std::to_string(work) +
                           " quick=" + std::to_string(quick) + " bad=" + std::to_string(bad) +
                           "\n" + init_error;
  (void)!write(report, line.data(), line.size());
}

struct Outcome {
  int status = -1;
  std::string out, err, report;
};

/// Reads the three pipes until all are closed (poll: a child filling one
/// pipe while the parent waits on another must not deadlock).
void drain(int fds[3], std::string* into[3]) {
  std::vector<pollfd> open;
  for (int i = 0; i < 3; ++i) open.push_back({fds[i], POLLIN, 0});
  while (true) {
    bool any = false;
    for (auto& p : open) any |= p.fd >= 0;
    if (!any) return;
    if (poll(open.data(), open.size(), 30000) <= 0) return;
    for (size_t i = 0; i < open.size(); ++i) {
      if (open[i].fd < 0 || !(open[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t n = read(open[i].fd, buf, sizeof buf);
      if (n > 0) {
        into[i]->append(buf, size_t(n));
      } else {
        close(open[i].fd);
        open[i].fd = -1;
      }
    }
  }
}

Outcome run_child(const std::string& db) {
  int out[2], err[2], rep[2];
  if (pipe(out) || pipe(err) || pipe(rep)) return {};
  std::fflush(stdout);  // nothing of the parent's buffers may reach the child's pipe
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    for (int fd : {out[0], out[1], err[0], err[1], rep[0]}) close(fd);
    setenv("AUTOGEMM_LOG_LEVEL", "trace", 1);  // every line autogemm can log
    child_calls(db, rep[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(0);
  }
  for (int fd : {out[1], err[1], rep[1]}) close(fd);
  Outcome o;
  int fds[3] = {out[0], err[0], rep[0]};
  std::string* into[3] = {&o.out, &o.err, &o.report};
  drain(fds, into);
  waitpid(pid, &o.status, 0);
  return o;
}

/// The damaged file is refused with a warning on stderr that names it, and
/// nothing at all is written to stdout.
void expect_silent_on_stdout(const std::string& db) {
  const Outcome o = run_child(db);
  ASSERT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << "child status " << o.status
                                                                  << "\nstderr:\n" << o.err;
  EXPECT_EQ(o.out, "") << "autogemm wrote " << o.out.size() << " bytes to stdout";
  EXPECT_EQ(o.report.rfind("init=" + std::to_string(AUTOGEMM_CACHE_ERROR) + " ", 0), 0u) << o.report;
  EXPECT_NE(o.report.find("bad=" + std::to_string(AUTOGEMM_INVALID_LDA)), std::string::npos) << o.report;
  EXPECT_NE(o.report.find("\n" + std::string("tuning cache ") + db), std::string::npos)
      << "autogemm_last_error after init: " << o.report;
  EXPECT_NE(o.err.find("tuning cache unusable"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(db), std::string::npos) << o.err;
}

TEST(NoStdout, TruncatedCacheFile) {
  TempDir d;
  // An autogemm cache's header claiming 8 pages, cut off in page 2.
  expect_silent_on_stdout(write_file(d.path(), "truncated.db", sqlite_file(4096, 8, kAutogemmId, 1, 5096)));
}

TEST(NoStdout, FileThatIsNotSQLite) {
  TempDir d;
  const std::string text = "# my notes\nthis file is not a database at all\n";
  expect_silent_on_stdout(write_file(d.path(), "notes.db", std::vector<unsigned char>(text.begin(), text.end())));
}

TEST(NoStdout, ForeignSQLiteDatabase) {
  TempDir d;
  // A sound SQLite database of another program (application_id "FOO!").
  expect_silent_on_stdout(write_file(d.path(), "foreign.db", sqlite_file(512, 1, 0x464F4F21, 0, 512)));
}

TEST(NoStdout, ZeroByteFile) {
  TempDir d;
  expect_silent_on_stdout(write_file(d.path(), "empty.db", {}));
}

TEST(NoStdout, MissingFileIsNotAWarningAndStillNothingOnStdout) {
  TempDir d;
  const Outcome o = run_child(d.path() + "/missing.db");
  ASSERT_TRUE(WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.report.rfind("init=0 ", 0), 0u) << o.report;
  EXPECT_EQ(o.err.find("[autogemm W]"), std::string::npos) << o.err;
}

}  // namespace
