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
//
// Second test (issue 8): an exhaustive tuning SIGKILLed in the middle of its
// one shape and run again keeps every trial measured before the kill (same
// time, same timestamp: not measured again), measures only the rest, and
// stores, for each kernel family (an exhaustive run stores one winner per
// family, issue 29), the fastest of that family's trials, the ones before
// the kill included; each is the winner of an uninterrupted exhaustive run
// on the same build, or times within noise of it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
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

// ---- exhaustive, killed mid-shape, resumed ----------------------------------

// 448 candidates in two families (tiled, warptiled) on an H200: every
// family's winner is checked, and the three runs (killed, resumed, whole)
// fit scripts/gpu_check.sh's time (96x80x64 had 1465).
const std::string kExhaustiveShape = "48x40x32";

std::vector<std::string> exhaustive_argv(const std::string& db) {
  return {GEMM_TUNE, "--device", "0", "--db", db, "--strategy", "exhaustive", "--shape", kExhaustiveShape};
}

/// The highest "done/total" of gemm_tune's progress lines for the shape.
std::pair<size_t, size_t> progress_of(const std::string& err) {
  std::pair<size_t, size_t> best{0, 0};
  for (const std::string& l : text_lines(err)) {
    const std::string name = canonical_shape(kExhaustiveShape) + " ";  // "48x40x32:NN "
    const size_t at = l.find(name);
    if (at == std::string::npos) continue;
    std::istringstream in(l.substr(at + name.size()));
    size_t d = 0, t = 0;
    char slash = 0;
    if (in >> d >> slash >> t && slash == '/' && d > best.first) best = {d, t};
  }
  return best;
}

struct StoredTrial {
  double median_ms;
  int64_t recorded_at;
  autogemm::TrialStatus status;
  std::string family;
};

std::map<std::string, StoredTrial> trials_of(const std::string& db) {
  std::map<std::string, StoredTrial> out;
  auto cache = autogemm::TuningCache::open(db, autogemm::TuningCache::Mode::ReadOnly);
  for (const autogemm::DeviceKey& d : cache->load_devices())
    for (const autogemm::TrialRow& r : cache->load_all_trials(d))
      out[r.trial.config] = {r.trial.median_ms, r.recorded_at, r.trial.status, r.family};
  return out;
}

/// The fastest verified trial of each family of a store: family -> config.
std::map<std::string, std::string> fastest_per_family(const std::map<std::string, StoredTrial>& trials) {
  std::map<std::string, std::string> best;
  for (const auto& [config, t] : trials) {
    if (t.status != autogemm::TrialStatus::Ok) continue;
    auto [at, added] = best.emplace(t.family, config);
    if (!added && t.median_ms < trials.at(at->second).median_ms) at->second = config;
  }
  return best;
}

/// The stored winners of a store's one device: family -> config.
std::map<std::string, std::string> stored_winners(const std::string& db) {
  auto cache = autogemm::TuningCache::open(db, autogemm::TuningCache::Mode::ReadOnly);
  const auto devs = cache->load_devices();
  EXPECT_EQ(devs.size(), 1u) << db;
  std::map<std::string, std::string> out;
  for (const autogemm::DeviceKey& d : devs)
    for (const autogemm::WinnerRecord& w : cache->load_winners(d)) {
      EXPECT_EQ(out.count(w.family), 0u) << "two winners of family " << w.family << " for one shape in " << db;
      out[w.family] = w.config;
    }
  return out;
}

// Two runs' winners of one family are the same kernel within noise: the
// same config, or each run timed the other's winner within 5 % of its own
// (kernels of a few microseconds tie).
void expect_same_winner_within_noise(const std::string& family, const std::map<std::string, StoredTrial>& a,
                                     const std::string& a_win, const std::map<std::string, StoredTrial>& b,
                                     const std::string& b_win) {
  if (a_win == b_win) return;
  ASSERT_EQ(a.count(b_win), 1u) << b_win << " was never measured by the resumed run";
  ASSERT_EQ(b.count(a_win), 1u) << a_win << " was never measured by the uninterrupted run";
  const double ra = a.at(b_win).median_ms / a.at(a_win).median_ms;
  const double rb = b.at(a_win).median_ms / b.at(b_win).median_ms;
  EXPECT_LT(ra, 1.05) << family << ": " << a_win << " vs " << b_win;
  EXPECT_LT(rb, 1.05) << family << ": " << a_win << " vs " << b_win;
  std::printf("[ resume   ] %s winners differ within noise: %s / %s (%.4f, %.4f)\n", family.c_str(), a_win.c_str(),
              b_win.c_str(), ra, rb);
}

TEST(GpuTuneCrash, AnExhaustiveTuneKilledMidShapeResumesToTheSameWinner) {
  std::string why;
  if (!autogemm::gpu_available(&why)) GTEST_SKIP() << "no GPU on this machine: " << why;
  const std::string dir = temp_dir();
  const std::string db = dir + "/split.db", whole = dir + "/whole.db";
  Child first(exhaustive_argv(db));
  const ChildRun& r = first.run(600, [](const std::string&, const std::string& err) {
    const auto [done, total] = progress_of(err);
    return total > 0 && done * 10 >= total * 3;  // about a third measured
  });
  ASSERT_TRUE(r.killed) << "the exhaustive run ended before the kill:\n" << r.err;
  const auto before = trials_of(db);
  ASSERT_GT(before.size(), 10u) << r.err;

  const ChildRun rest = run_child(exhaustive_argv(db), 600);
  ASSERT_EQ(rest.exit_status, 0) << rest.err;
  const auto after = trials_of(db);
  for (const auto& [config, t] : before) {
    ASSERT_EQ(after.count(config), 1u) << config << " was lost";
    EXPECT_EQ(after.at(config).median_ms, t.median_ms) << config << " was measured again";
    EXPECT_EQ(after.at(config).recorded_at, t.recorded_at) << config << " was measured again";
  }
  const auto [done, total] = progress_of(rest.err);
  EXPECT_EQ(done, total);

  const ChildRun once = run_child(exhaustive_argv(whole), 600);
  ASSERT_EQ(once.exit_status, 0) << once.err;
  const auto uninterrupted = trials_of(whole);
  EXPECT_EQ(uninterrupted.size(), after.size()) << "both runs measure the same space";
  // Each family's stored winner is the fastest of its trials, those before
  // the kill included, and the families with a winner are the uninterrupted
  // run's.
  const auto resumed_best = fastest_per_family(after), whole_best = fastest_per_family(uninterrupted);
  ASSERT_FALSE(resumed_best.empty()) << rest.err;
  EXPECT_EQ(stored_winners(db), resumed_best);
  EXPECT_EQ(stored_winners(whole), whole_best);
  ASSERT_EQ(resumed_best.size(), whole_best.size()) << "the two runs found winners in different families";
  for (const auto& [family, config] : resumed_best) {
    ASSERT_EQ(whole_best.count(family), 1u) << family << " has no winner in the uninterrupted run";
    expect_same_winner_within_noise(family, after, config, uninterrupted, whole_best.at(family));
  }
  std::printf("[ resume   ] exhaustive %s: %zu of %zu trials kept across the kill; %zu family winner(s)\n",
              kExhaustiveShape.c_str(), before.size(), after.size(), resumed_best.size());
  if (std::system(("rm -rf " + dir).c_str()) != 0) std::printf("could not remove %s\n", dir.c_str());
}

}  // namespace
