// ShapeRecorder on the CPU: what it writes to the cache, when (explicit
// flush, background writer, destruction, exit), that a failed write loses
// nothing, and that a forked child writes only its own calls.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "autogemm/shape_recorder.h"
#include "autogemm/tuning_cache.h"

namespace autogemm {
namespace {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/autogemm_recorder_test_XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

DeviceKey gpu() { return {"NVIDIA H200", 9, 0, 132, 13000, 13000}; }
ShapeKey shape(int64_t m, bool aligned = true) { return ShapeKey{m, 4096, 4096, false, true, aligned}; }

std::vector<ShapeRequest> stored(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  return TuningCache::open(path, TuningCache::Mode::ReadOnly)->load_requests(gpu());
}

int64_t calls_of(const std::string& path, const ShapeKey& s) {
  for (const ShapeRequest& r : stored(path))
    if (r.shape == s) return r.calls;
  return 0;
}

TEST(ShapeRecorder, FlushWritesOnlyWhatIsNew) {
  TempDir dir;
  const std::string db = dir.file("c.db");
  ShapeRecorder rec(3600);
  rec.set_path(db);
  rec.flush();  // nothing counted: the file is not even created
  EXPECT_FALSE(std::filesystem::exists(db));
  ShapeRecorder::Usage* a = rec.track(gpu(), shape(17), false);
  EXPECT_EQ(rec.track(gpu(), shape(17), false), a);  // one counter per shape
  ShapeRecorder::Usage* b = rec.track(gpu(), shape(17, false), true);
  EXPECT_NE(a, b);  // the alignment class is part of the key
  a->calls += 5;
  b->calls += 1;
  rec.flush();
  EXPECT_EQ(calls_of(db, shape(17)), 5);
  EXPECT_EQ(calls_of(db, shape(17, false)), 1);
  a->calls += 2;
  rec.flush();
  rec.flush();
  EXPECT_EQ(calls_of(db, shape(17)), 7);
  EXPECT_EQ(calls_of(db, shape(17, false)), 1);
  for (const ShapeRequest& r : stored(db)) EXPECT_EQ(r.tuned_when_seen, r.shape == shape(17, false));
}

TEST(ShapeRecorder, ShapesTrackedButNeverCalledAreNotWritten) {
  TempDir dir;
  ShapeRecorder rec(3600);
  rec.set_path(dir.file("c.db"));
  rec.track(gpu(), shape(32), false);  // e.g. autogemm_describe_plan only
  rec.flush();
  EXPECT_TRUE(stored(dir.file("c.db")).empty());
}

TEST(ShapeRecorder, AFailedWriteKeepsTheCounts) {
  TempDir dir;
  ShapeRecorder rec(3600);
  rec.set_path("/proc/autogemm_cannot_write_here.db");  // no file can be made there
  rec.track(gpu(), shape(48), false)->calls += 4;
  EXPECT_THROW(rec.flush(), CacheError);
  rec.set_path(dir.file("c.db"));  // its own flush to the bad file fails again, quietly
  rec.flush();
  EXPECT_EQ(calls_of(dir.file("c.db"), shape(48)), 4);
}

TEST(ShapeRecorder, NoPathIsAnErrorNotALoss) {
  TempDir dir;
  ShapeRecorder rec(3600);
  rec.track(gpu(), shape(20), false)->calls += 1;
  EXPECT_THROW(rec.flush(), CacheError);
  rec.set_path(dir.file("c.db"));
  rec.flush();
  EXPECT_EQ(calls_of(dir.file("c.db"), shape(20)), 1);
}

TEST(ShapeRecorder, BackgroundWriterAndDestructorWrite) {
  TempDir dir;
  const std::string db = dir.file("c.db");
  {
    ShapeRecorder rec(0.05);
    rec.set_path(db);
    ShapeRecorder::Usage* u = rec.track(gpu(), shape(24), false);
    u->calls += 3;
    // Polled while the writer may be creating the file (an empty file is
    // not a cache yet to a reader).
    auto written = [&] {
      try {
        return calls_of(db, shape(24));
      } catch (const CacheError&) {
        return int64_t{-1};
      }
    };
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (written() != 3 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(written(), 3);
    rec.track(gpu(), shape(25), false)->calls += 1;  // the destructor writes it at the latest
  }
  EXPECT_EQ(calls_of(db, shape(25)), 1);
}

TEST(ShapeRecorder, WrittenAtExit) {
  TempDir dir;
  const std::string db = dir.file("c.db");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Like the dispatcher's: never destroyed, so only the exit handler writes it.
    auto* rec = new ShapeRecorder(3600);
    rec->set_path(db);
    rec->track(gpu(), shape(40), false)->calls += 6;
    std::exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(calls_of(db, shape(40)), 6);
}

TEST(ShapeRecorder, ForkedChildWritesOnlyItsOwnCalls) {
  TempDir dir;
  const std::string db = dir.file("c.db");
  ShapeRecorder rec(0.05);
  rec.set_path(db);
  ShapeRecorder::Usage* u = rec.track(gpu(), shape(50), false);
  u->calls += 10;  // the parent's, not yet written
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    u->calls += 1;
    rec.track(gpu(), shape(51), false)->calls += 2;  // starts the child's own writer
    try {
      rec.flush();
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  rec.flush();
  EXPECT_EQ(calls_of(db, shape(50)), 11);
  EXPECT_EQ(calls_of(db, shape(51)), 2);
}

TEST(ShapeRecorder, EnvironmentSwitch) {
  bool known = false;
  for (const char* on : {"1", "on", "yes", "true"}) {
    EXPECT_TRUE(ShapeRecorder::parse_switch(on, &known)) << on;
    EXPECT_TRUE(known);
  }
  for (const char* off : {"", "0", "off", "no", "false"}) {
    EXPECT_FALSE(ShapeRecorder::parse_switch(off, &known)) << off;
    EXPECT_TRUE(known);
  }
  EXPECT_FALSE(ShapeRecorder::parse_switch(nullptr, &known));
  EXPECT_TRUE(known);
  EXPECT_FALSE(ShapeRecorder::parse_switch("2", &known));
  EXPECT_FALSE(known);
}

}  // namespace
}  // namespace autogemm
