// TuningSession on the CPU: the fake worker (tests/tuner/fake_worker.cpp)
// answers every real NVRTC-built candidate with a time derived from its
// config text, so runs are deterministic and the store's contents can be
// checked exactly: each trial committed as it is measured, an interrupted
// shape continued without re-measuring, the winner of a resumed run equal to
// an uninterrupted one's, already-tuned shapes skipped, failures never retried.
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "autogemm/kernel_template.h"
#include "autogemm/tuning_session.h"
#include "autogemm/shape_spec.h"
#include "cache_test_util.h"
#include "fake_device.h"

namespace autogemm {
namespace {

using test::TempDir;

using autogemm::testing::fake_h200;

Problem problem() { return make_problem(AUTOGEMM_ROW_MAJOR, false, false, 96, 80, 64, true); }

SessionOptions options(int budget) {
  SessionOptions o;
  o.tune.families = {"tiled"};  // the counts below are the tiled family's
  o.tune.strategy = StrategyKind::Model;
  o.tune.budget = budget;
  o.tune.neighbours_per_seed = 0;  // the counts below are the budget's (test_worker.cpp tests the neighbour pass)
  o.tune.pick_deadline_s = 1e6;   // and every pick's, however loaded the host
  o.tune.finalist_deadline_s = 1e6;
  o.tune.compile_threads = 2;
  o.tune.worker_path = AUTOGEMM_TEST_FAKE_WORKER;
  o.tune.candidate_timeout_s = 5;
  return o;
}

const std::string& tiled_hash() { return TiledFamily::instance().source().hash(); }

/// config -> (median, recorded_at) of every stored trial of the problem.
std::map<std::string, std::pair<double, int64_t>> stored(const TuningCache& c) {
  std::map<std::string, std::pair<double, int64_t>> out;
  for (const TrialRow& r : c.load_all_trials(fake_h200().key())) out[r.trial.config] = {r.trial.median_ms, r.recorded_at};
  return out;
}

struct Session : ::testing::Test {
  void SetUp() override { TuningSession::clear_stop(); }
  void TearDown() override { TuningSession::clear_stop(); }
};

TEST_F(Session, EveryTrialIsStoredWithItsFamilyAndTheWinnerWithItsCubin) {
  TempDir dir;
  auto cache = TuningCache::open(dir.file("t.db"), TuningCache::Mode::ReadWrite);
  std::vector<size_t> done, want;
  size_t total = 0;
  TuningSession s(*cache, fake_h200(), options(5));
  const ShapeOutcome o = s.tune(problem(), [&](const TuneProgressEvent& e) {
    done.push_back(e.done);
    if (!total) total = e.total;
    EXPECT_EQ(e.total, total);
    EXPECT_GE(e.eta_s, 0.0);
    ASSERT_TRUE(e.latest);
    if (e.latest->trial.status == TrialStatus::Ok) {
      ASSERT_TRUE(e.best.has_value());
    }
  });
  // The default, then the budget (5, or 6 when the default is not among them).
  ASSERT_GE(total, 5u);
  ASSERT_LE(total, 6u);
  for (size_t i = 1; i <= total; ++i) want.push_back(i);
  EXPECT_EQ(done, want);
  EXPECT_FALSE(o.interrupted);
  EXPECT_EQ(o.measured, int(total));
  ASSERT_EQ(o.families.size(), 1u);
  EXPECT_EQ(o.families[0].family, "tiled");
  EXPECT_EQ(o.families[0].state, FamilyOutcome::State::Tuned);
  const auto trials = cache->load_trials(fake_h200().key(), problem().key(), tiled_hash());
  ASSERT_EQ(trials.size(), total);
  const TrialRecord* best = nullptr;
  for (const TrialRecord& t : trials)
    if (!best || t.median_ms < best->median_ms) best = &t;
  ASSERT_TRUE(o.best);
  EXPECT_EQ(o.best->config, best->config);
  const auto w = cache->find_winner(fake_h200().key(), problem().key(), "tiled", tiled_hash());
  ASSERT_TRUE(w);
  EXPECT_EQ(w->config, best->config);
  EXPECT_EQ(w->family, "tiled");
  EXPECT_TRUE(cache->load_cubin({tiled_hash(), w->config, "sm_90", 13000}).has_value());
}

TEST_F(Session, AnInterruptedShapeContinuesWithoutRemeasuringAndEndsWithTheSameWinner) {
  TempDir dir;
  // The reference: one uninterrupted run.
  auto whole = TuningCache::open(dir.file("whole.db"), TuningCache::Mode::ReadWrite);
  const ShapeOutcome ref = TuningSession(*whole, fake_h200(), options(9)).tune(problem());
  ASSERT_TRUE(ref.best);
  const int n = ref.measured;
  ASSERT_GE(n, 9);

  auto cache = TuningCache::open(dir.file("split.db"), TuningCache::Mode::ReadWrite);
  // Stop after the fourth candidate, as Ctrl-C would.
  const ShapeOutcome first = TuningSession(*cache, fake_h200(), options(9)).tune(problem(), [](const TuneProgressEvent& e) {
    if (e.done == 4) TuningSession::request_stop();
  });
  EXPECT_TRUE(first.interrupted);
  EXPECT_EQ(first.measured, 4);
  ASSERT_EQ(first.families.size(), 1u);
  EXPECT_EQ(first.families[0].state, FamilyOutcome::State::Interrupted);
  EXPECT_FALSE(cache->find_winner(fake_h200().key(), problem().key(), "tiled", tiled_hash()));
  const auto before = stored(*cache);
  ASSERT_EQ(before.size(), 4u);

  TuningSession::clear_stop();
  std::vector<std::string> run_now;  // every candidate the second run sent to the worker
  const ShapeOutcome second = TuningSession(*cache, fake_h200(), options(9)).tune(problem(), [&](const TuneProgressEvent& e) {
    run_now.push_back(e.latest->trial.config);
  });
  EXPECT_EQ(run_now.size(), size_t(n - 4));
  for (const std::string& c : run_now) EXPECT_EQ(before.count(c), 0u) << c << " was measured again";
  EXPECT_FALSE(second.interrupted);
  EXPECT_EQ(second.resumed, 4);
  EXPECT_EQ(second.measured, n - 4);
  const auto after = stored(*cache);
  EXPECT_EQ(after.size(), size_t(n));
  for (const auto& [config, rec] : before) EXPECT_EQ(after.at(config), rec) << config << " was measured again";
  ASSERT_TRUE(second.best);
  EXPECT_EQ(second.best->config, ref.best->config);
  const auto w = cache->find_winner(fake_h200().key(), problem().key(), "tiled", tiled_hash());
  ASSERT_TRUE(w);
  EXPECT_EQ(w->config, ref.best->config);
}

TEST_F(Session, ATunedShapeIsSkippedUnlessForced) {
  TempDir dir;
  auto cache = TuningCache::open(dir.file("t.db"), TuningCache::Mode::ReadWrite);
  const ShapeOutcome first = TuningSession(*cache, fake_h200(), options(3)).tune(problem());
  const ShapeOutcome again = TuningSession(*cache, fake_h200(), options(3)).tune(problem());
  EXPECT_EQ(again.measured, 0);
  ASSERT_EQ(again.families.size(), 1u);
  EXPECT_EQ(again.families[0].state, FamilyOutcome::State::AlreadyTuned);
  ASSERT_TRUE(again.best);
  SessionOptions forced = options(3);
  forced.force = true;
  const ShapeOutcome re = TuningSession(*cache, fake_h200(), forced).tune(problem());
  EXPECT_EQ(re.measured, first.measured);
  EXPECT_EQ(re.resumed, 0);
}

// Tuned rotating, asked for warm timing: the shape is tuned again, nothing
// of the rotating run is resumed, and every new trial and the winner say warm.
TEST_F(Session, AWinnerTimedTheOtherWayIsTunedAgainInTheAskedRegime) {
  TempDir dir;
  auto cache = TuningCache::open(dir.file("t.db"), TuningCache::Mode::ReadWrite);
  const ShapeOutcome first = TuningSession(*cache, fake_h200(), options(3)).tune(problem());
  SessionOptions warm = options(3);
  warm.tune.timing = TimingRegime::Warm;
  const ShapeOutcome again = TuningSession(*cache, fake_h200(), warm).tune(problem());
  EXPECT_EQ(again.measured, first.measured);
  EXPECT_EQ(again.resumed, 0);
  ASSERT_EQ(again.families.size(), 1u);
  EXPECT_EQ(again.families[0].state, FamilyOutcome::State::Tuned);
  ASSERT_TRUE(again.best);
  EXPECT_EQ(again.best->timing, TimingRegime::Warm);
  for (const TrialRow& r : cache->load_all_trials(fake_h200().key()))
    EXPECT_EQ(r.trial.timing, TimingRegime::Warm) << r.trial.config;
  const std::vector<WinnerRecord> w = cache->load_winners(fake_h200().key());
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].timing, TimingRegime::Warm);
  // And warm again: already tuned.
  EXPECT_EQ(TuningSession(*cache, fake_h200(), warm).tune(problem()).families[0].state,
            FamilyOutcome::State::AlreadyTuned);
}

// The process keeps its NVRTC builds: tuning the same candidates again
// (forced here; in a suite, the configs that recur from shape to shape)
// compiles nothing and measures them all.
TEST_F(Session, AForcedRetuneCompilesNothingAgain) {
  TempDir dir;
  auto cache = TuningCache::open(dir.file("t.db"), TuningCache::Mode::ReadWrite);
  const ShapeOutcome first = TuningSession(*cache, fake_h200(), options(3)).tune(problem());
  SessionOptions forced = options(3);
  forced.force = true;
  const ShapeOutcome again = TuningSession(*cache, fake_h200(), forced).tune(problem());
  ASSERT_GT(first.measured, 0);
  EXPECT_EQ(again.measured, first.measured);
  EXPECT_EQ(again.cost.compile_s, 0.0);
}

TEST_F(Session, FailedConfigsAreNeverRetried) {
  TempDir dir;
  auto cache = TuningCache::open(dir.file("t.db"), TuningCache::Mode::ReadWrite);
  // A stored failure of a config the strategy would pick.
  const std::string doomed = default_config(problem()).to_string();
  TrialRecord t;
  t.config = doomed;
  t.status = TrialStatus::Crashed;
  t.detail = "recorded by an earlier run";
  cache->record_trials(fake_h200().key(), problem().key(), "tiled", tiled_hash(), {t});
  SessionOptions budget_only = options(3);
  budget_only.tune.history_limit = 0;  // history would come on top of the budget
  const ShapeOutcome o = TuningSession(*cache, fake_h200(), budget_only).tune(problem());
  EXPECT_EQ(o.measured, 3);  // the budget; the default is not run again
  for (const TrialRecord& r : cache->load_trials(fake_h200().key(), problem().key(), tiled_hash()))
    if (r.config == doomed) {
      EXPECT_EQ(r.detail, "recorded by an earlier run");
    }
  EXPECT_EQ(o.default_gflops, 0);
}

TEST_F(Session, AnUnknownFamilyIsAnError) {
  TempDir dir;
  auto cache = TuningCache::open(dir.file("t.db"), TuningCache::Mode::ReadWrite);
  SessionOptions o = options(3);
  o.tune.families = {"no-such-family"};
  EXPECT_THROW(TuningSession(*cache, fake_h200(), o).tune(problem()), std::invalid_argument);
}

TEST_F(Session, TwoGpusTuneAtOnceIntoOneCacheEachWithItsOwnWorkerAndRows) {
  // What gemm_tune --device all does per GPU: a session and a worker each,
  // in its own thread, one cache.
  TempDir dir;
  auto cache = TuningCache::open(dir.file("t.db"), TuningCache::Mode::ReadWrite);
  DeviceInfo other = fake_h200();
  other.ordinal = 1;
  other.name = "fake H200 NVL";
  other.sm_count = 114;
  const Problem second = make_problem(AUTOGEMM_ROW_MAJOR, false, true, 64, 128, 96, true);
  std::vector<ShapeOutcome> outcomes(4);
  std::thread a([&] {
    TuningSession s(*cache, fake_h200(), options(4));
    outcomes[0] = s.tune(problem());
    outcomes[1] = s.tune(second);
  });
  std::thread b([&] {
    TuningSession s(*cache, other, options(4));
    outcomes[2] = s.tune(problem());
    outcomes[3] = s.tune(second);
  });
  a.join();
  b.join();
  for (const ShapeOutcome& o : outcomes) {
    ASSERT_TRUE(o.best.has_value());
    EXPECT_FALSE(o.interrupted);
  }
  const std::pair<DeviceKey, int> per_device[] = {{fake_h200().key(), outcomes[0].measured},
                                                  {other.key(), outcomes[2].measured}};
  for (const auto& [key, measured] : per_device) {
    EXPECT_EQ(cache->load_winners(key).size(), 2u) << key.name;
    EXPECT_EQ(cache->load_trials(key, problem().key(), tiled_hash()).size(), size_t(measured)) << key.name;
  }
  EXPECT_EQ(cache->load_devices().size(), 2u);
}

}  // namespace
}  // namespace autogemm
