// Many writers, one file: threads with their own connections, processes that
// race to create the file, a writer that waits for a held lock, and fork().
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "cache_test_util.h"

namespace autogemm::test {
namespace {

// One writer's work: trials and winners on shared and own shapes.
void write_lots(TuningCache& cache, int who, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    const ShapeKey shared = shape(128 + i % 4, 128, 128);
    cache.record_trials(h200(), shared, "tiled", "hash1",
                        {{"w" + std::to_string(who) + "_" + std::to_string(i), TrialStatus::Ok,
                          1.0, 0.01, 10, ""}});
    cache.record_winner(h200(),
                        winner(shared, "tiled w" + std::to_string(who), 1.0 - 0.001 * i, 0),
                        cost());
    cache.record_winner(h200(), winner(shape(1000 + who, 1000 + i, 8), "tiled own", 1.0, 0),
                        cost());
    cache.load_winners(h200());
  }
}

TEST(Concurrency, TwoConnectionsInThreads) {
  TempDir dir;
  const std::string path = dir.file("threads.db");
  auto a = open_rw(path);
  auto b = open_rw(path);
  std::atomic<int> errors{0};
  std::string first_error;
  auto worker = [&](TuningCache& c, int who) {
    try {
      write_lots(c, who, 150);
    } catch (const std::exception& e) {
      if (errors++ == 0) first_error = e.what();
    }
  };
  std::thread ta(worker, std::ref(*a), 0);
  std::thread tb(worker, std::ref(*b), 1);
  std::thread reader([&] {
    try {
      auto r = TuningCache::open(path, TuningCache::Mode::ReadOnly);
      for (int i = 0; i < 200; ++i) r->load_all_trials(h200());
    } catch (const std::exception& e) {
      if (errors++ == 0) first_error = e.what();
    }
  });
  ta.join();
  tb.join();
  reader.join();
  EXPECT_EQ(errors.load(), 0) << first_error;
  EXPECT_EQ(a->load_winners(h200()).size(), 4u + 2 * 150);
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM trials")[0], "300");
}

TEST(Concurrency, OneObjectSharedByThreads) {
  TempDir dir;
  auto cache = open_rw(dir.file("shared_object.db"));
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      try {
        write_lots(*cache, t, 40);
      } catch (const std::exception&) {
        ++errors;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(cache->load_winners(h200()).size(), 4u + 4 * 40);
}

// Runs work(p) in `n` forked processes at once; each must exit 0 (an
// exception in a child is printed and fails it).
template <typename Work>
void expect_processes_succeed(int n, const Work& work, const std::string& what) {
  std::vector<pid_t> kids;
  for (int p = 0; p < n; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        work(p);
      } catch (const std::exception& e) {
        fprintf(stderr, "%s child %d: %s\n", what.c_str(), p, e.what());
        rc = 1;
      }
      _exit(rc);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << what;
  }
}

TEST(Concurrency, ProcessesRaceToCreateAndWrite) {
  TempDir dir;
  const std::string path = dir.file("procs/tuning.db");  // nobody has created it yet
  expect_processes_succeed(4, [&](int p) { write_lots(*open_rw(path), p, 30); }, "writers");
  auto cache = TuningCache::open(path, TuningCache::Mode::ReadOnly);
  EXPECT_EQ(cache->load_winners(h200()).size(), 4u + 4 * 30);
  EXPECT_EQ(raw_query(path, "SELECT count(*) FROM tuning_runs")[0], std::to_string(4 * 30 * 2));
}

// The creation window itself, many times over: processes that only open a file
// another of them is creating at that moment must all see either an empty file
// or a finished autogemm cache, never a half-made one (a CI failure once showed
// one process refusing the file as "another program's database").
TEST(Concurrency, ProcessesOpeningAFileBeingCreatedAllAcceptIt) {
  TempDir dir;
  for (int round = 0; round < 150; ++round) {
    const std::string path = dir.file("round" + std::to_string(round) + "/tuning.db");
    expect_processes_succeed(6, [&](int) { open_rw(path); }, "round " + std::to_string(round));
  }
}

TEST(Concurrency, WriterWaitsThenFailsClearlyOnAHeldLock) {
  TempDir dir;
  const std::string path = dir.file("locked.db");
  open_rw(path);
  setenv("AUTOGEMM_CACHE_BUSY_MS", "300", 1);
  auto cache = open_rw(path);
  unsetenv("AUTOGEMM_CACHE_BUSY_MS");
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  // Released within the timeout: the writer waits and succeeds.
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
  });
  EXPECT_NO_THROW(cache->record_trials(h200(), shape(1, 1, 1), "tiled", "h",
                                       {{"c", TrialStatus::Ok, 1, 0, 1, ""}}));
  release.join();
  // Held past the timeout: a CacheError naming the file, after about 300 ms.
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto t0 = std::chrono::steady_clock::now();
  try {
    cache->record_trials(h200(), shape(1, 1, 1), "tiled", "h",
                         {{"d", TrialStatus::Ok, 1, 0, 1, ""}});
    ADD_FAILURE() << "no error while the lock was held";
  } catch (const CacheError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("locked"), std::string::npos) << e.what();
  }
  auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, std::chrono::milliseconds(250));
  EXPECT_LT(waited, std::chrono::seconds(5));
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(cache->load_trials(h200(), shape(1, 1, 1)).size(), 1u);  // the transaction rolled back
}

TEST(Concurrency, ObjectIsNotUsableAfterFork) {
  TempDir dir;
  auto cache = open_rw(dir.file("fork.db"));
  cache->record_trials(h200(), shape(2, 2, 2), "tiled", "h",
                       {{"c", TrialStatus::Ok, 1, 0, 1, ""}});
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int rc = 3;
    try {
      cache->load_winners(h200());
      rc = 1;
    } catch (const CacheError& e) {
      rc = std::string(e.what()).find("fork") != std::string::npos ? 0 : 2;
    }
    cache.reset();  // must leave the parent's connection alone
    _exit(rc);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(cache->load_trials(h200(), shape(2, 2, 2)).size(), 1u);  // parent unaffected
}

}  // namespace
}  // namespace autogemm::test
