// Tuner: finds and verifies the fastest configuration for one problem.
//
//   search space (the enabled families) -> strategy (budget) -> skip what
//   was measured before (resume) -> NVRTC on a thread pool, overlapped
//   with measuring -> in the worker process (worker.h): load (limits read
//   back) -> run once on poisoned C, verify against the FP64 reference ->
//   time (events, median) -> (model) the same for the configs next to the
//   two fastest (the neighbour pass) -> rank.
//
// Every candidate ends as a TrialRecord with a status; only candidates whose
// output verified can win. The built-in default config is always measured
// too, so the report can show what tuning bought. This process never loads a
// candidate: one that traps, faults or hangs costs a worker (Crashed /
// Timeout), not the tuning.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autogemm/device_info.h"
#include "autogemm/kernel_config.h"
#include "autogemm/math_mode.h"
#include "autogemm/problem.h"
#include "autogemm/strategy.h"
#include "autogemm/tuning_cache.h"
#include "autogemm/shape_spec.h"

namespace autogemm {

/// Tests only: a candidate whose cubin is built from `source` instead of its
/// template (e.g. tests/tuner/broken_kernels.cu, kernels that trap or hang),
/// with the launch geometry of `config`. Measured like any candidate, but
/// never the winner.
struct InjectedKernel {
  KernelConfig config;
  std::string source;                ///< same entry points and signature as the template
  std::string name;                  ///< file name in NVRTC diagnostics
  std::vector<std::string> options;  ///< extra NVRTC options, e.g. "-DAG_BROKEN_MODE=1"
};

struct Candidate;

/// Candidates per family a model tuning measures unless told otherwise: on
/// every exhaustive H200 recording of tests/tuner/data the model ranks a
/// config within 3% of the family's best at 22 or better (ModelQuality
/// replays them with this budget).
constexpr int kDefaultBudget = 32;

struct TuneOptions {
  /// Families to tune (names, registry order kept); empty: every family of
  /// the registry that runs on the device.
  std::vector<std::string> families;
  /// Which accuracy classes may be tuned (strict: FFMA families only).
  MathMode math_mode = MathMode::Strict;
  StrategyKind strategy = StrategyKind::Model;
  int budget = kDefaultBudget;     ///< candidates measured per family (not for exhaustive)
  unsigned seed = 1;               ///< sampling and input data
  /// How candidates are timed (tuning_keys.h): each trial records it, and
  /// only trials of the same regime are resumed or ranked together.
  TimingRegime timing = TimingRegime::Rotate;
  int compile_threads = 0;         ///< 0: one per CPU this process may run on (cpu_affinity.h)
  std::vector<std::string> skip;   ///< configs that failed before: never retried
  /// Trials measured by an earlier, interrupted run of this problem (Ok
  /// ones): not measured again, but ranked with the new ones, so a tuning
  /// spread over several runs ends with the same winner as one run.
  std::vector<TrialRecord> measured;
  /// Called with each candidate as soon as it is measured (before the next
  /// one starts), so the caller can commit it.
  std::function<void(const Candidate&)> on_trial;
  /// When it becomes true the tuning stops after the candidate in flight.
  const std::atomic<bool>* stop = nullptr;
  /// autogemm_worker; empty: $AUTOGEMM_WORKER, else next to this program.
  std::string worker_path;
  /// Seconds one candidate may take in the worker before it is killed and
  /// recorded as Timeout; 0: default_candidate_timeout(problem).
  double candidate_timeout_s = 0;
  std::vector<InjectedKernel> injected;  ///< tests only, measured after the others
  /// Winners of other shapes on this device (from the cache): the nearest
  /// shapes' configs are measured first (model, sampled), on top of the
  /// budget: history never displaces the strategy's own picks.
  std::vector<HistoryEntry> history;
  /// At most this many history candidates. Each can add a measurement to
  /// the budget's, so few: the shape's own built-in winner (always first,
  /// the nearest) and the nearest few shapes' winners.
  size_t history_limit = 4;
  /// Model tunings, after the budget: at most this many unmeasured configs
  /// one or two fields away from each of the two fastest candidates
  /// (neighbour_candidates), measured and never ruled out by the cutoff.
  /// Why: the model's misjudgements are mostly one field off a config it
  /// ranked well, which the cutoff, calibrated by the same model, keeps
  /// out; a few more measurements catch them. 0: no neighbour pass.
  int neighbours_per_seed = 6;
  /// Seconds from the start of a shape's tuning after which the neighbour
  /// pass measures no more: on an H100 the pass took ~2.5 s a shape and put
  /// 3 of 24 public shapes over the 10 s a shape that tuning keeps to.
  /// Later than the picks' deadline, so that a shape whose picks take
  /// every second left still has its fast configs' neighbours measured
  /// (the FFMA-order twins, which the model cannot rank, are only there).
  double neighbour_deadline_s = 8.5;
  /// Model tunings: seconds from the start of a shape's tuning after which
  /// no more of the strategy's picks are measured (the default always is;
  /// the model ranked the others last; those left out are logged). Why:
  /// tuning keeps to 10 s a shape, and on the H200 class sweep one
  /// unaligned shape (5175x3791x1695, 59 candidates, 85 s of NVRTC over 16
  /// CPUs) took 14.0 s with no bound; at 16384^3, where one candidate takes
  /// ~0.7 s, each family's first six picks alone took 11.8 s. Where it
  /// comes before neighbour_deadline_s, the picks also stop once the time
  /// left would not let the neighbour pass build and measure two configs.
  double pick_deadline_s = 7.0;
  /// Model tunings: seconds from the start after which no finalist is timed
  /// again (remeasure_finalists).
  double finalist_deadline_s = 9.0;
};

struct Candidate {
  KernelConfig config;
  TrialRecord trial;
  int registers = 0;
  int local_bytes = 0;
  double compile_s = 0;            ///< NVRTC time of this candidate (0: built earlier in this process)
  std::vector<char> cubin;         ///< kept for the winner and the default
  bool is_default = false;
  bool injected = false;           ///< from TuneOptions::injected: never the winner
  bool resumed = false;            ///< from TuneOptions::measured, not run now
  /// Timings this run made: 2 for a finalist (within 3% of the fastest,
  /// timed again and ranked by the mean of both), else 1; 0 if resumed or
  /// never built.
  int timings = 1;
};

struct TuneResult {
  Problem problem;
  std::vector<Candidate> candidates;
  std::optional<size_t> best;          ///< index of the fastest verified candidate
  std::optional<size_t> default_index; ///< the built-in default's trial
  bool interrupted = false;            ///< TuneOptions::stop ended it early
  int ruled_out = 0;                   ///< candidates ModelCutoff left out (model strategy)
  TuningCost cost;
  int workers_started = 0;             ///< worker processes (1 + replacements after faults)
};

/// Progress callback: (candidates done, candidates total, latest candidate);
/// resumed candidates count as done from the start.
using TuneProgress = std::function<void(size_t, size_t, const Candidate&)>;

class Tuner {
 public:
  /// `dev` says which GPU (ordinal) and architecture; candidates run in a
  /// worker process that opens its own context on that device.
  Tuner(const DeviceInfo& dev, TuneOptions opt) : dev_(dev), opt_(std::move(opt)) {}

  /// Throws WorkerError (worker.h) when the worker cannot be found, started
  /// or set up for `p`; a candidate's fault is only ever a trial status.
  TuneResult tune(const Problem& p, const TuneProgress& progress = {});

  /// Sets best and default_index over all candidates (resumed ones too) and
  /// drops the cubins of the others.
  static void rank(TuneResult& r);

 private:
  DeviceInfo dev_;
  TuneOptions opt_;
};

/// The public shape suite: the default of gemm_tune and gemm_bench.
std::vector<ShapeSpec> default_suite();

/// Strided batches (MxNxK@COUNT): attention-like heads up to large products,
/// what `--suite batched` measures against cublasSgemmStridedBatched.
std::vector<ShapeSpec> batched_suite();

/// Large squares, 4096^3, 8192^3 and 16384^3, each NN, NT and TN.
std::vector<ShapeSpec> large_suite();

/// 1024 x 1024 x K for K = 256, 1024, 4096, 16384 and 65536: error against K
/// (scripts/accuracy_table.sh runs it over input exponent spreads).
std::vector<ShapeSpec> ksweep_suite();

/// The class sweep: 96 seeded random shapes, each class value of every axis
/// on at least 24 of them. The axes: the smaller of M and N in 1-16, 17-64,
/// 65-256 or above; aligned (every dimension a multiple of 4) or unaligned
/// (every dimension odd); NN, NT, TN, TT; row- or column-major; K up to 1024
/// or above. The same list on every platform (integer draws on mt19937).
/// Another seed draws another list of the same classes (suite
/// "classes:SEED"): shapes to learn defaults on that the sweep never sees.
std::vector<ShapeSpec> class_suite(uint32_t seed);

/// The seed of the class sweep itself (suite "classes"), the list every
/// recorded sweep result was measured on.
constexpr uint32_t kClassSuiteSeed = 20261204;
inline std::vector<ShapeSpec> class_suite() { return class_suite(kClassSuiteSeed); }

/// The names named_suite() knows, in the order the tools list them.
const std::vector<std::string>& suite_names();

/// A suite by name (one of suite_names(), or classes:SEED with SEED a
/// decimal below 2^32); throws std::runtime_error otherwise.
std::vector<ShapeSpec> named_suite(const std::string& name);

/// Empty where named_suite() knows `name`, else the error it throws (the
/// tools' option checks say the same).
std::string suite_name_error(const std::string& name);

/// Reads a shapes file: one shape per line as parse_shape() accepts; blank
/// lines and '#' comments ignored. Throws std::runtime_error naming the line.
std::vector<ShapeSpec> read_shapes_file(const std::string& path);

/// The shapes a tool was asked for: the named `suite` (if any), each
/// `--shape` text, then the shapes file's lines; the public suite when all
/// are empty. Throws std::runtime_error naming the first bad shape.
std::vector<ShapeSpec> resolve_shapes(const std::vector<std::string>& shapes, const std::string& shapes_file,
                                      const std::string& suite = "");

}  // namespace autogemm
