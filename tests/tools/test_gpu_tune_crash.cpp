// GPU: gemm_tune killed with SIGKILL at random points (issue 4, item 3) loses
// no winner it had reported as stored, leaves a cache file that passes
// PRAGMA integrity_check and opens read-write, and a rerun resumes: shapes
// finished before a kill are reported "already tuned" and not measured again.
//
// gemm_tune logs "<shape>: best ..." after the shape's winner was committed,
// "[i/n] tuning <shape>" before measuring a shape, and "[i/n] <shape>: already
// tuned ..." when it skips one; the test reads those lines (stdout+stderr).
// The rounds kill it after a random delay (AUTOGEMM_CRASH_SEED=<n> replays a
// sequence), then one run goes to completion, then a rerun must not measure
// anything (the stored trial counts stay the same).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "autogemm/cuda_driver.h"
#include "kill_child.h"
#include "tune_db.h"

namespace {

using namespace autogemm::testing;  // NOLINT: the test helpers

const std::string GEMM_TUNE = beside_self(TOOLS_REL, "gemm_tune");

// Small shapes, a few seconds each with --budget 4.
const std::vector<std::string> kShapes = {"256x256x256", "192x320x128", "320x192x64:NT", "128x128x512:TN"};

std::vector<std::string> tune_argv(const std::string& db) {
  std::vector<std::string> argv = {GEMM_TUNE, "--device", "0", "--db", db, "--budget", "4"};
  for (const std::string& s : kShapes) argv.insert(argv.end(), {"--shape", s});
  return argv;
}

bool has_line_ending(const std::string& text, const std::string& what) {
  for (const std::string& l : text_lines(text))
    if (l.size() >= what.size() && l.compare(l.size() - what.size(), what.size(), what) == 0) return true;
  return false;
}
bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Shapes the output reports as stored ("<shape>: best ...").
std::set<std::string> reported_stored(const std::string& text) {
  std::set<std::string> done;
  for (const std::string& s : kShapes)
    if (mentions(text, canonical_shape(s) + ": best ")) done.insert(canonical_shape(s));
  return done;
}

bool busy_error(const std::string& text) {
  return mentions(text, "database is locked") || mentions(text, "SQLITE_BUSY");
}

std::string temp_dir() {
  char tmpl[] = "/tmp/autogemm-tune-crash-XXXXXX";
  return mkdtemp(tmpl) ? tmpl : "";
}

TEST(GpuTuneCrash, KilledAtRandomPointsKeepsFinishedShapesAndResumes) {
  std::string why;
  if (!autogemm::gpu_available(&why)) GTEST_SKIP() << "no GPU on this machine: " << why;
  ASSERT_EQ(access(GEMM_TUNE.c_str(), X_OK), 0) << "gemm_tune not found at " << GEMM_TUNE;
  const std::string dir = temp_dir();
  const std::string db = dir + "/tuning.db";
  unsigned seed = unsigned(std::random_device{}());
  if (const char* s = std::getenv("AUTOGEMM_CRASH_SEED")) seed = unsigned(std::strtoul(s, nullptr, 10));
  SCOPED_TRACE("AUTOGEMM_CRASH_SEED=" + std::to_string(seed) + " replays these kill times");
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> delay(0.3, 6.0);

  std::set<std::string> stored;  // shapes reported stored before some kill
  int kills = 0;
  for (int round = 0; round < 6; ++round) {
    const double t = delay(rng);
    SCOPED_TRACE("round " + std::to_string(round) + ": SIGKILL after " + std::to_string(t) + " s");
    Child tune(tune_argv(db));
    const ChildRun& r = tune.run(t);
    const std::string text = r.out + r.err;
    EXPECT_FALSE(busy_error(text)) << text;
    // Shapes stored in an earlier round are skipped, never measured again.
    for (const std::string& s : stored) {
      EXPECT_FALSE(has_line_ending(text, "tuning " + s)) << s << " was finished before, yet re-tuned:\n" << text;
    }
    const std::set<std::string> now = reported_stored(text);
    stored.insert(now.begin(), now.end());
    if (!r.killed) {
      ASSERT_EQ(r.exit_status, 0) << "gemm_tune failed on its own:\n" << text;
      break;  // it finished before the kill: nothing left to interrupt
    }
    ++kills;
    if (access(db.c_str(), F_OK) != 0) continue;  // killed before it created the file
    const TuneDbState st = read_tune_db(db, kShapes);
    ASSERT_TRUE(st.opened) << "after SIGKILL the cache must open read-write: " << st.open_error;
    EXPECT_EQ(st.integrity, "ok");
    for (const std::string& s : stored)
      EXPECT_EQ(st.winners.count(s), 1u) << s << " was reported stored before a kill, and its winner is gone";
  }

  // To completion.
  const ChildRun fin = run_child(tune_argv(db), 600);
  const std::string fin_text = fin.out + fin.err;
  ASSERT_EQ(fin.exit_status, 0) << fin_text;
  EXPECT_FALSE(busy_error(fin_text)) << fin_text;
  for (const std::string& s : stored)
    EXPECT_FALSE(has_line_ending(fin_text, "tuning " + s)) << s << " was finished before, yet re-tuned:\n" << fin_text;
  const TuneDbState full = read_tune_db(db, kShapes);
  ASSERT_TRUE(full.opened) << full.open_error;
  EXPECT_EQ(full.integrity, "ok");
  EXPECT_EQ(full.devices, 1);
  for (const std::string& s : kShapes)
    EXPECT_EQ(full.winners.count(canonical_shape(s)), 1u) << canonical_shape(s) << " has no winner after a full run";

  // A rerun: every shape "already tuned", nothing measured, no trial added.
  const ChildRun again = run_child(tune_argv(db), 300);
  const std::string again_text = again.out + again.err;
  ASSERT_EQ(again.exit_status, 0) << again_text;
  for (const std::string& s : kShapes) {
    const std::string c = canonical_shape(s);
    EXPECT_TRUE(mentions(again_text, c + ": already tuned")) << c << " not reported as already tuned:\n" << again_text;
    EXPECT_FALSE(has_line_ending(again_text, "tuning " + c)) << c << " measured again:\n" << again_text;
  }
  const TuneDbState after = read_tune_db(db, kShapes);
  EXPECT_EQ(after.trials, full.trials) << "the rerun stored new trials";
  EXPECT_EQ(after.winners, full.winners);
  std::printf("[ crash    ] %d kills of gemm_tune (seed %u); %zu shapes stored before a kill; resume ok\n", kills,
              seed, stored.size());
  if (std::system(("rm -rf " + dir).c_str()) != 0) std::printf("could not remove %s\n", dir.c_str());
}

}  // namespace
