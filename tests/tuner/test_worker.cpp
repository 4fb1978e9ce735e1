// The tuner's worker process, without a GPU: tests/tuner/fake_worker acts
// out hangs, abrupt exits, deaths by signal, sticky-error replies and garbage
// on the real protocol, and these tests prove the parent kills at the
// deadline, names the cause, reaps, and continues with a fresh worker. Also:
// a missing worker is one clear sentence, the real autogemm_worker starts and
// speaks the protocol, the test-only broken kernels compile, and a whole
// tuning run with injected broken kernels ends with a non-injected winner.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <cstdlib>

#include "autogemm/cuda_driver.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/tuner.h"
#include "autogemm/worker.h"
#include "autogemm/shape_spec.h"
#include "broken_kernels_source.h"
#include "fake_device.h"

namespace autogemm {
namespace {

using Seconds = std::chrono::duration<double>;

const std::string kFake = AUTOGEMM_TEST_FAKE_WORKER;
const std::string kReal = AUTOGEMM_TEST_WORKER;

Problem small() { return make_problem(AUTOGEMM_ROW_MAJOR, false, false, 256, 256, 256, true); }
std::vector<char> blob(const std::string& s) { return {s.begin(), s.end()}; }
const std::string& cfg() {
  static const std::string c = default_config(small()).to_string();
  return c;
}
bool reaped(pid_t pid) { return pid > 0 && kill(pid, 0) != 0 && errno == ESRCH; }

struct Fake : ::testing::Test {
  void SetUp() override { unsetenv("AUTOGEMM_FAKE_WORKER_SETUP"); }
  void TearDown() override { unsetenv("AUTOGEMM_FAKE_WORKER_SETUP"); }
};

TEST_F(Fake, HealthyCandidatesShareOneWorker) {
  Worker w(kFake, 0);
  w.set_problem(small(), 1, 10);
  const pid_t pid = w.pid();
  for (int i = 0; i < 3; ++i) {
    const WorkerOutcome r = w.run(cfg(), blob("cubin"), INFINITY, 10);
    EXPECT_EQ(r.status, TrialStatus::Ok) << r.detail;
    EXPECT_GT(r.median_ms, 0);
    EXPECT_EQ(r.registers, 32);
  }
  EXPECT_EQ(w.started(), 1);
  EXPECT_EQ(w.pid(), pid);
}

TEST_F(Fake, AHangIsKilledAtTheDeadlineAndTheWorkerReplaced) {
  Worker w(kFake, 0);
  w.set_problem(small(), 1, 10);
  const pid_t first = w.pid();
  const auto t0 = std::chrono::steady_clock::now();
  const WorkerOutcome r = w.run(cfg(), blob("FAKE:hang"), INFINITY, 0.5);
  const double took = Seconds(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, TrialStatus::Timeout);
  EXPECT_NE(r.detail.find("no result within 0.5 s"), std::string::npos) << r.detail;
  EXPECT_GE(took, 0.5);
  EXPECT_LT(took, 5.0);
  EXPECT_TRUE(reaped(first)) << "the hung worker was not killed and reaped";
  EXPECT_EQ(w.pid(), 0);
  const WorkerOutcome next = w.run(cfg(), blob("cubin"), INFINITY, 10);
  EXPECT_EQ(next.status, TrialStatus::Ok) << next.detail;
  EXPECT_EQ(w.started(), 2);
  EXPECT_NE(w.pid(), first);
}

TEST_F(Fake, AnAbruptExitIsCrashedWithItsStatus) {
  Worker w(kFake, 0);
  w.set_problem(small(), 1, 10);
  const WorkerOutcome r = w.run(cfg(), blob("FAKE:exit"), INFINITY, 10);
  EXPECT_EQ(r.status, TrialStatus::Crashed);
  EXPECT_NE(r.detail.find("exited with status 3"), std::string::npos) << r.detail;
  EXPECT_EQ(w.run(cfg(), blob("cubin"), INFINITY, 10).status, TrialStatus::Ok);
  EXPECT_EQ(w.started(), 2);
}

TEST_F(Fake, ADeathBySignalIsCrashedWithTheSignal) {
  Worker w(kFake, 0);
  w.set_problem(small(), 1, 10);
  const WorkerOutcome r = w.run(cfg(), blob("FAKE:segv"), INFINITY, 10);
  EXPECT_EQ(r.status, TrialStatus::Crashed);
  EXPECT_NE(r.detail.find("killed by signal 11"), std::string::npos) << r.detail;
  EXPECT_EQ(w.run(cfg(), blob("cubin"), INFINITY, 10).status, TrialStatus::Ok);
  EXPECT_EQ(w.started(), 2);
}

TEST_F(Fake, AStickyErrorReplyReplacesTheWorker) {
  Worker w(kFake, 0);
  w.set_problem(small(), 1, 10);
  const WorkerOutcome r = w.run(cfg(), blob("...agemm_broken_trap..."), INFINITY, 10);
  EXPECT_EQ(r.status, TrialStatus::Crashed);
  EXPECT_NE(r.detail.find("CUDA_ERROR_LAUNCH_FAILED"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("replaced"), std::string::npos) << r.detail;
  EXPECT_EQ(w.pid(), 0);
  EXPECT_EQ(w.run(cfg(), blob("cubin"), INFINITY, 10).status, TrialStatus::Ok);
  EXPECT_EQ(w.started(), 2);
}

TEST_F(Fake, GarbageOversizedOrWrongRepliesAreCrashedAndTheWorkerKilled) {
  Worker w(kFake, 0);
  w.set_problem(small(), 1, 10);
  int expected_started = 1;
  for (const char* mode : {"FAKE:garbage", "FAKE:huge", "FAKE:wrongtype"}) {
    const pid_t pid = w.pid();
    const WorkerOutcome r = w.run(cfg(), blob(mode), INFINITY, 5);
    EXPECT_EQ(r.status, TrialStatus::Crashed) << mode;
    EXPECT_NE(r.detail.find("killed and replaced"), std::string::npos) << mode << ": " << r.detail;
    if (pid) {
      EXPECT_TRUE(reaped(pid)) << mode;
    }
    EXPECT_EQ(w.run(cfg(), blob("cubin"), INFINITY, 10).status, TrialStatus::Ok) << mode;
    EXPECT_EQ(w.started(), ++expected_started) << mode;
  }
}

TEST_F(Fake, SetUpFailuresAreWorkerErrors) {
  for (const char* mode : {"fail", "exit", "hang"}) {
    setenv("AUTOGEMM_FAKE_WORKER_SETUP", mode, 1);
    Worker w(kFake, 0);
    try {
      w.set_problem(small(), 1, 0.5);
      FAIL() << mode << ": set-up accepted";
    } catch (const WorkerError& e) {
      const std::string what = e.what();
      const char* want = std::string(mode) == "fail" ? "fake set-up failure"
                         : std::string(mode) == "exit" ? "exited with status 7"
                                                       : "did not set up";
      EXPECT_NE(what.find(want), std::string::npos) << mode << ": " << what;
    }
    EXPECT_EQ(w.pid(), 0) << mode;
  }
}

TEST(WorkerPath, AMissingWorkerIsOneClearSentence) {
  unsetenv("AUTOGEMM_WORKER");
  try {
    Worker::locate("/nonexistent/autogemm_worker");
    FAIL();
  } catch (const WorkerError& e) {
    EXPECT_NE(std::string(e.what()).find("'/nonexistent/autogemm_worker' (the configured worker path) is missing"),
              std::string::npos)
        << e.what();
  }
  setenv("AUTOGEMM_WORKER", "/nonexistent/w", 1);
  try {
    Worker::locate();
    FAIL();
  } catch (const WorkerError& e) {
    EXPECT_NE(std::string(e.what()).find("$AUTOGEMM_WORKER"), std::string::npos) << e.what();
  }
  EXPECT_EQ(Worker::locate(kFake), kFake);  // the configured path wins over the environment
  unsetenv("AUTOGEMM_WORKER");
  // This test program's folder has no autogemm_worker.
  try {
    Worker::locate();
    FAIL();
  } catch (const WorkerError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot find the candidate worker autogemm_worker"), std::string::npos)
        << e.what();
  }
  setenv("AUTOGEMM_WORKER", kReal.c_str(), 1);
  EXPECT_EQ(Worker::locate(), kReal);
  unsetenv("AUTOGEMM_WORKER");
}

TEST(WorkerPath, TuningWithoutAWorkerFailsBeforeAnyWork) {
  DeviceInfo dev;
  dev.cc_major = 9;
  TuneOptions opt;
  opt.worker_path = "/nonexistent/autogemm_worker";
  Tuner t(dev, opt);
  EXPECT_THROW(t.tune(small()), WorkerError);
}

TEST(RealWorker, StartsAndAnswersTheProblem) {
  // Without a GPU the real worker must still start, speak the protocol and
  // say why it cannot set up; with one it sets up.
  Worker w(kReal, 0);
  std::string why;
  if (gpu_available(&why)) {
    EXPECT_NO_THROW(w.set_problem(small(), 1, 120));
    return;
  }
  try {
    w.set_problem(small(), 1, 60);
    FAIL() << "set up without a GPU";
  } catch (const WorkerError& e) {
    EXPECT_NE(std::string(e.what()).find("could not set up 256x256x256"), std::string::npos) << e.what();
  }
  EXPECT_EQ(w.started(), 1);
}

// broken_kernels.cu stands in for agemm_tiled: it takes a tiled config's -D values.
KernelConfig broken_geometry() { return *TiledFamily::instance().default_config(small()); }

std::vector<InjectedKernel> broken_kernels() {
  std::vector<InjectedKernel> v;
  for (int mode : {1, 2, 3})
    v.push_back({broken_geometry(), kBrokenKernelsSource, "broken_kernels.cu",
                 {"-DAG_BROKEN_MODE=" + std::to_string(mode)}});
  return v;
}

TEST(BrokenKernels, CompileForSm90InAllThreeModes) {
  const char* markers[] = {"agemm_broken_trap", "agemm_broken_oob", "agemm_broken_hang"};
  int i = 0;
  for (const InjectedKernel& k : broken_kernels()) {
    const CompileResult r = compile_kernel(k.config, "sm_90", k.source, k.name, k.options);
    const std::string cubin(r.cubin.begin(), r.cubin.end());
    EXPECT_NE(cubin.find("agemm_tiled"), std::string::npos) << k.options[0];
    EXPECT_NE(cubin.find(markers[i++]), std::string::npos) << k.options[0];
  }
  // Without a mode it refuses to build (no silently harmless kernel).
  EXPECT_THROW(compile_kernel(broken_geometry(), "sm_90", kBrokenKernelsSource, "broken_kernels.cu"), CompileError);
}

DeviceInfo h200() { return autogemm::testing::fake_h200(); }

TEST(TunerWithFakeWorker, BrokenCandidatesAreRecordedAndTuningReachesAWinner) {
  TuneOptions opt;
  opt.budget = 2;
  opt.neighbours_per_seed = 0;  // the worker count below is the budget's
  opt.compile_threads = 2;
  opt.worker_path = kFake;
  opt.candidate_timeout_s = 1.0;
  opt.injected = broken_kernels();
  const TuneResult r = Tuner(h200(), opt).tune(small());
  std::vector<TrialStatus> injected;
  for (const Candidate& c : r.candidates) {
    if (!c.injected) {
      EXPECT_EQ(c.trial.status, TrialStatus::Ok) << c.trial.config << ": " << c.trial.detail;
      continue;
    }
    injected.push_back(c.trial.status);
    EXPECT_NE(c.trial.detail.find("injected test kernel broken_kernels.cu"), std::string::npos) << c.trial.detail;
    EXPECT_TRUE(c.cubin.empty());
  }
  EXPECT_EQ(injected, (std::vector<TrialStatus>{TrialStatus::Crashed, TrialStatus::Crashed, TrialStatus::Timeout}));
  // The first worker, then a fresh one for the candidate after each of the
  // first two broken kernels (the last one's replacement is never needed).
  EXPECT_EQ(r.workers_started, 3);
  ASSERT_TRUE(r.best.has_value());
  EXPECT_FALSE(r.candidates[*r.best].injected);
  EXPECT_EQ(r.candidates[*r.best].trial.status, TrialStatus::Ok);
  EXPECT_FALSE(r.candidates[*r.best].cubin.empty());
  ASSERT_TRUE(r.default_index.has_value());
  EXPECT_TRUE(r.candidates[*r.default_index].is_default);
}

/// The fake worker's times spread over 6% (some candidates within 3% of the
/// fastest, some not), and optionally a config's second run answered wrong;
/// the environment is put back when this goes out of scope.
struct CloseTimings {
  explicit CloseTimings(bool wrong_second = false) {
    ::setenv("AUTOGEMM_FAKE_WORKER_SPREAD", "0.06", 1);
    if (wrong_second) ::setenv("AUTOGEMM_FAKE_WORKER_SECOND", "wrong", 1);
    opt.families = {"tiled"};
    opt.budget = 8;
    opt.neighbours_per_seed = 0;  // the finalists are the budget's, all of them verified
    opt.pick_deadline_s = 1e6;    // every pick, however loaded the host
    opt.finalist_deadline_s = 1e6;
    opt.compile_threads = 2;
    opt.worker_path = kFake;
  }
  ~CloseTimings() { ::unsetenv("AUTOGEMM_FAKE_WORKER_SPREAD"), ::unsetenv("AUTOGEMM_FAKE_WORKER_SECOND"); }
  TuneOptions opt;
};

// The candidates within 3% of the fastest (at most 4) are timed a second
// time and ranked by the mean; the others, once. The fake worker's time of
// a config is the same every time, so the means equal the first times.
TEST(TunerWithFakeWorker, FinalistsWithinThreePercentAreTimedTwice) {
  CloseTimings t;
  std::map<std::string, int> committed;
  t.opt.on_trial = [&](const Candidate& c) { ++committed[c.trial.config]; };
  const TuneResult r = Tuner(h200(), t.opt).tune(small());
  ASSERT_TRUE(r.best.has_value());
  const double best = r.candidates[*r.best].trial.median_ms;
  std::vector<double> close;
  for (const Candidate& c : r.candidates)
    if (c.trial.status == TrialStatus::Ok && c.trial.median_ms <= best * 1.03) close.push_back(c.trial.median_ms);
  std::sort(close.begin(), close.end());
  ASSERT_GE(close.size(), 2u) << "no two candidates within 3%: widen the budget";
  ASSERT_LT(close.size(), r.candidates.size()) << "every candidate within 3%: widen the spread";
  const double last_finalist = close[std::min<size_t>(close.size(), 4) - 1];
  int finalists = 0;
  for (const Candidate& c : r.candidates) {
    ASSERT_EQ(c.trial.status, TrialStatus::Ok) << c.trial.config;
    const bool finalist = c.trial.median_ms <= last_finalist;
    EXPECT_EQ(c.timings, finalist ? 2 : 1) << c.trial.config << " " << c.trial.median_ms << " best " << best;
    EXPECT_EQ(committed[c.trial.config], c.timings) << "each timing is committed as it is made";
    EXPECT_NEAR(c.trial.gflops, small().flops() / (c.trial.median_ms * 1e6), 1e-6 * c.trial.gflops);
    finalists += finalist;
  }
  EXPECT_EQ(finalists, int(std::min<size_t>(close.size(), 4)));
}

// Past the finalists' deadline none is timed again.
TEST(TunerWithFakeWorker, NoFinalistIsTimedAgainPastItsDeadline) {
  CloseTimings t;
  t.opt.finalist_deadline_s = 0;
  const TuneResult r = Tuner(h200(), t.opt).tune(small());
  ASSERT_GT(r.candidates.size(), 2u);
  for (const Candidate& c : r.candidates) EXPECT_EQ(c.timings, 1) << c.trial.config;
  ASSERT_TRUE(r.best.has_value());
}

// A finalist wrong on its second timing is out (the worker verifies every
// run), and that is committed; the winner is a candidate that never failed.
TEST(TunerWithFakeWorker, AFinalistWrongOnItsSecondTimingIsOut) {
  CloseTimings t(/*wrong_second=*/true);
  std::map<std::string, TrialStatus> committed;
  t.opt.on_trial = [&](const Candidate& c) { committed[c.trial.config] = c.trial.status; };
  const TuneResult r = Tuner(h200(), t.opt).tune(small());
  int out = 0;
  for (const Candidate& c : r.candidates) {
    EXPECT_EQ(committed[c.trial.config], c.trial.status) << c.trial.config;
    if (c.timings != 2) continue;
    ++out;
    EXPECT_EQ(c.trial.status, TrialStatus::WrongResult) << c.trial.config;
    EXPECT_NE(c.trial.detail.find("second timing"), std::string::npos) << c.trial.detail;
  }
  EXPECT_GE(out, 2) << "no finalists: widen the budget";
  ASSERT_TRUE(r.best.has_value());
  EXPECT_EQ(r.candidates[*r.best].trial.status, TrialStatus::Ok);
  EXPECT_EQ(r.candidates[*r.best].timings, 1);
}

// A small tiled tuning on the fake worker, with the neighbour pass on.
TuneOptions neighbour_options() {
  TuneOptions opt;
  opt.families = {"tiled"};
  opt.budget = 4;
  opt.pick_deadline_s = 1e6;  // every pick, however loaded the host
  opt.compile_threads = 2;
  opt.worker_path = kFake;
  return opt;
}

// After the model's picks, the configs next to the two fastest
// (neighbour_candidates, neighbours_per_seed of each) are measured too,
// none twice and none ruled out; the progress total grows with them and
// never falls behind the count.
TEST(TunerWithFakeWorker, TheNeighbourPassMeasuresTheConfigsNextToTheTwoFastest) {
  TuneOptions opt = neighbour_options();
  // Out of reach: the deadline has its own test below, and a sanitized build
  // on two loaded cores took past the default 8 s here.
  opt.neighbour_deadline_s = 1e6;
  TuneOptions picks_only = opt;
  picks_only.neighbours_per_seed = 0;
  const TuneResult base = Tuner(h200(), picks_only).tune(small());
  std::vector<std::pair<size_t, size_t>> steps;  // (done, total)
  const TuneResult r = Tuner(h200(), opt).tune(small(), [&](size_t done, size_t total, const Candidate&) {
    steps.emplace_back(done, total);
  });
  // The picks first, as without the pass (the fake's times depend on the config only).
  ASSERT_GT(r.candidates.size(), base.candidates.size());
  for (size_t i = 0; i < base.candidates.size(); ++i)
    EXPECT_EQ(r.candidates[i].trial.config, base.candidates[i].trial.config);
  // Then the neighbours of the two fastest picks.
  std::vector<const Candidate*> ok;
  std::set<std::string> measured;
  for (const Candidate& c : base.candidates) {
    measured.insert(c.trial.config);
    if (c.trial.status == TrialStatus::Ok) ok.push_back(&c);
  }
  std::stable_sort(ok.begin(), ok.end(),
                   [](const Candidate* a, const Candidate* b) { return a->trial.median_ms < b->trial.median_ms; });
  ASSERT_GE(ok.size(), 2u);
  const SearchLimits lim = SearchLimits::of(h200());
  const auto want = neighbour_candidates(TiledFamily::instance().search_space(small(), lim),
                                         {ok[0]->config, ok[1]->config}, measured, small(), lim,
                                         size_t(opt.neighbours_per_seed));
  ASSERT_FALSE(want.empty());
  EXPECT_LE(want.size(), 2 * size_t(opt.neighbours_per_seed));
  std::vector<std::string> got, wanted;
  for (size_t i = base.candidates.size(); i < r.candidates.size(); ++i) got.push_back(r.candidates[i].trial.config);
  for (const KernelConfig& c : want) wanted.push_back(c.to_string());
  EXPECT_EQ(got, wanted);
  EXPECT_EQ(r.ruled_out, base.ruled_out);
  // Progress: every candidate counted once, in order, the total never behind.
  ASSERT_EQ(steps.size(), r.candidates.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].first, i + 1);
    EXPECT_GE(steps[i].second, steps[i].first);
  }
  EXPECT_EQ(steps.back().second, r.candidates.size());
}

// Past its deadline (seconds from the start of the shape's tuning) the
// neighbour pass measures nothing more, and the tuning still ends with a
// winner, not as interrupted.
TEST(TunerWithFakeWorker, TheNeighbourPassStopsAtItsDeadline) {
  TuneOptions opt = neighbour_options();
  TuneOptions picks_only = opt;
  picks_only.neighbours_per_seed = 0;
  opt.neighbour_deadline_s = 0;
  const TuneResult base = Tuner(h200(), picks_only).tune(small());
  const TuneResult r = Tuner(h200(), opt).tune(small());
  ASSERT_EQ(r.candidates.size(), base.candidates.size());
  for (size_t i = 0; i < base.candidates.size(); ++i)
    EXPECT_EQ(r.candidates[i].trial.config, base.candidates[i].trial.config);
  EXPECT_FALSE(r.interrupted);
  ASSERT_TRUE(r.best.has_value());
}

// Past the picks' deadline a model tuning measures no more of the picks
// but the first (the default where its family is tuned: the bar to beat),
// and still ends with a winner, not as interrupted.
TEST(TunerWithFakeWorker, ThePicksStopAtTheirDeadline) {
  TuneOptions opt = neighbour_options();
  opt.budget = ModelCutoff::kMinMeasured + 4;
  opt.neighbours_per_seed = 0;
  opt.pick_deadline_s = 1e6;
  const TuneResult all = Tuner(h200(), opt).tune(small());
  opt.pick_deadline_s = 0;
  const TuneResult cut = Tuner(h200(), opt).tune(small());
  const auto picks = [](const TuneResult& r) {
    return std::count_if(r.candidates.begin(), r.candidates.end(), [](const Candidate& c) { return !c.is_default; });
  };
  ASSERT_GT(picks(all), ModelCutoff::kMinMeasured) << "nothing past the calibrating picks to leave out";
  EXPECT_EQ(cut.candidates.size(), 1u);
  ASSERT_LE(cut.candidates.size(), all.candidates.size());
  for (size_t i = 0; i < cut.candidates.size(); ++i)
    EXPECT_EQ(cut.candidates[i].trial.config, all.candidates[i].trial.config);
  EXPECT_FALSE(cut.interrupted);
  ASSERT_TRUE(cut.best.has_value());
}

// The default is no pick of the model: a default far behind another
// family's best leaves its own family's picks in (on 128x4096x11008 the
// warptiled default without split-K ran 3.6x behind tiled's split-K and,
// counted as warptiled's first pick, ruled the family out whole).
TEST(TunerWithFakeWorker, ASlowDefaultDoesNotRuleItsFamilyOut) {
  const KernelConfig def = default_config(small());
  const bool def_tiled = def.is<TiledParams>();
  const auto other = (def_tiled ? WarpTiledFamily::instance().search_space(small(), SearchLimits{})
                                : TiledFamily::instance().search_space(small(), SearchLimits{}));
  ASSERT_FALSE(other.empty());
  TuneOptions opt;
  opt.families = {"tiled", "warptiled"};
  opt.budget = 2;
  opt.neighbours_per_seed = 0;
  opt.compile_threads = 2;
  opt.worker_path = kFake;
  // Another shape's winner of the other family, measured right after the
  // default, sets the best time (1 to 2 ms) before any pick runs.
  opt.history = {{ShapeKey{512, 512, 512}, other.front()}};
  opt.history_limit = 1;
  opt.pick_deadline_s = 1e6;  // every pick, however loaded the host
  ::setenv("AUTOGEMM_FAKE_WORKER_SLOW", def.to_string().c_str(), 1);
  const TuneResult r = Tuner(h200(), opt).tune(small());
  ::unsetenv("AUTOGEMM_FAKE_WORKER_SLOW");
  int own_picks = 0;
  for (const Candidate& c : r.candidates) {
    if (c.is_default) {
      EXPECT_DOUBLE_EQ(c.trial.median_ms, 10.0);
    }
    own_picks += !c.is_default && &c.config.family() == &def.family();
  }
  EXPECT_EQ(own_picks, opt.budget) << def.to_string();
  EXPECT_EQ(r.ruled_out, 0);
}

// A candidate whose build spills registers is recorded as a failed build,
// with ptxas's report, and never reaches the worker.
TEST(TunerWithFakeWorker, SpillingCandidatesAreRejectedBeforeMeasuring) {
  // 16x8 register tiles capped at 128 registers by three blocks per SM:
  // measured to spill 156-400 bytes per thread (docs/PERFORMANCE.md).
  const auto c = KernelConfig::parse("tiled bm=128 bn=128 bk=8 tm=16 tn=8 wc=8 vec=4 sk=1 sw=8 mb=3 ta=0 tb=0");
  ASSERT_TRUE(c.has_value());
  const KernelTemplate& t = c->family().source();
  ASSERT_NE(spill_report(compile_kernel(*c, "sm_90")), "") << c->to_string() << " no longer spills";
  EXPECT_EQ(spill_report(compile_kernel(default_config(small()), "sm_90")), "") << "the default spills";
  TuneOptions opt;
  opt.budget = 1;
  opt.compile_threads = 2;
  opt.worker_path = kFake;
  opt.injected = {{*c, t.source(), t.file(), {}}};
  const TuneResult r = Tuner(h200(), opt).tune(small());
  int rejected = 0;
  for (const Candidate& k : r.candidates) {
    if (!k.injected) continue;
    ++rejected;
    EXPECT_EQ(k.trial.status, TrialStatus::CompileFailed);
    EXPECT_NE(k.trial.detail.find("spills registers"), std::string::npos) << k.trial.detail;
    EXPECT_NE(k.trial.detail.find("bytes spill stores"), std::string::npos) << k.trial.detail;
  }
  EXPECT_EQ(rejected, 1);
  EXPECT_EQ(r.workers_started, 1) << "only the unspilled candidates ran";
}

}  // namespace
}  // namespace autogemm
