// Crash safety of the tuning cache (issue 4, item 3, the CPU part): a writer
// process killed with SIGKILL at random points loses no row it had committed,
// and leaves a file that passes PRAGMA integrity_check and opens read-write.
//
// The writer is tests/cache/crash_writer.cpp: it writes trials, a winner and a
// cubin per row through TuningCache and prints the row's index after the
// three commits returned. Each round starts it on the same file, kills it
// after a random delay (0 to 500 ms, so kills land in creation, migration,
// writes, commits and WAL checkpoints), then checks in this process: every
// row acknowledged in this or an earlier round is there, complete; a row in
// flight is all or nothing per transaction; integrity_check says ok.
// AUTOGEMM_CRASH_SEED=<n> replays a sequence of delays.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <random>
#include <set>
#include <string>

#include "autogemm/tuning_cache.h"
#include "cache_test_util.h"
#include "crash_rows.h"
#include "kill_child.h"

namespace {

using autogemm::TuningCache;
using autogemm::testing::Child;

// Indices acknowledged by the writer: complete lines only (a kill can cut
// nothing: each line is one write(2) of a few bytes, atomic on a pipe).
std::set<long> acknowledged(const std::string& out) {
  std::set<long> acks;
  size_t start = 0, end;
  while ((end = out.find('\n', start)) != std::string::npos) {
    const std::string line = out.substr(start, end - start);
    if (line.rfind("ACK ", 0) == 0) acks.insert(std::stol(line.substr(4)));  // other lines: the cache's log
    start = end + 1;
  }
  return acks;
}

TEST(CrashSafety, WriterKilledAtRandomPointsLosesNoCommittedRow) {
  autogemm::test::TempDir dir;
  const std::string db = dir.file("sub/tuning.db");  // the first round also creates the directory
  unsigned seed = unsigned(std::random_device{}());
  if (const char* s = std::getenv("AUTOGEMM_CRASH_SEED")) seed = unsigned(std::strtoul(s, nullptr, 10));
  SCOPED_TRACE("AUTOGEMM_CRASH_SEED=" + std::to_string(seed) + " replays these kill times");
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> delay(0.0, 0.5);

  std::set<long> all_acks;
  long next = 0;
  int rounds_with_rows = 0, killed = 0;
  const int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    const double kill_after = delay(rng);
    SCOPED_TRACE("round " + std::to_string(round) + ", SIGKILL after " + std::to_string(kill_after) + " s");
    Child writer({CRASH_WRITER, db, std::to_string(next)});
    const auto& r = writer.run(kill_after);
    ASSERT_TRUE(r.killed) << "the writer ended by itself (exit " << r.exit_status << "): " << r.err;
    ASSERT_EQ(r.signal, SIGKILL) << r.err;
    ++killed;
    const std::set<long> acks = acknowledged(r.out);
    if (!acks.empty()) ++rounds_with_rows;
    all_acks.insert(acks.begin(), acks.end());

    struct stat st {};
    if (stat(db.c_str(), &st) != 0) continue;  // killed before it created the file: nothing to check
    std::unique_ptr<TuningCache> cache;
    ASSERT_NO_THROW(cache = TuningCache::open(db, TuningCache::Mode::ReadWrite))
        << "after a SIGKILL the file must still open read-write";
    EXPECT_EQ(cache->integrity_check(), "ok");
    for (long i : all_acks) {
      auto w = cache->find_winner(crash_rows::device(), crash_rows::shape(i), crash_rows::kFamily,
                                  crash_rows::kHash);
      ASSERT_TRUE(w.has_value()) << "row " << i << " was acknowledged (committed) but its winner is gone";
      EXPECT_EQ(w->config, crash_rows::winner(i).config);
      EXPECT_EQ(cache->load_trials(crash_rows::device(), crash_rows::shape(i)).size(), size_t(crash_rows::kTrials))
          << "row " << i;
      auto cubin = cache->load_cubin(crash_rows::cubin_key(i));
      ASSERT_TRUE(cubin.has_value()) << "row " << i << ": cubin gone";
      EXPECT_TRUE(*cubin == crash_rows::cubin(i)) << "row " << i << ": cubin bytes differ";
    }
    // The row in flight at the kill: each transaction all or nothing.
    const long in_flight = all_acks.empty() ? next : *all_acks.rbegin() + 1;
    const size_t t = cache->load_trials(crash_rows::device(), crash_rows::shape(in_flight)).size();
    EXPECT_TRUE(t == 0 || t == size_t(crash_rows::kTrials)) << "row " << in_flight << " has " << t << " of its trials";
    if (cache->find_winner(crash_rows::device(), crash_rows::shape(in_flight), crash_rows::kFamily,
                           crash_rows::kHash)) {
      EXPECT_EQ(t, size_t(crash_rows::kTrials)) << "a winner without the trials committed before it";
    }
    next = in_flight;  // rewrite the row in flight (idempotent), then go on
  }
  EXPECT_EQ(killed, kRounds);
  // Most rounds get past the open and commit rows; if none did, the test proved nothing.
  EXPECT_GE(rounds_with_rows, kRounds / 5) << "too few rounds committed rows before the kill ("
                                            << all_acks.size() << " rows in all)";
  std::printf("[ crash    ] %d kills, %zu rows committed and found again, seed %u\n", killed, all_acks.size(), seed);
}

}  // namespace
