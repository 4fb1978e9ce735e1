// TuningSession: one program's tuning of shapes on one GPU, end to end,
// between the tuner and the store.
//
//   per shape: which enabled families still need tuning (a verified winner
//   of the current template hash, timed in the requested regime, is kept
//   unless forced) -> their failed
//   configs (never retried) and earlier trials (resume: not measured again,
//   ranked with the new ones) -> history (this device's winners of other
//   shapes) -> Tuner -> each trial committed as soon as it is measured ->
//   per family: the winner (the fastest verified trial of all runs) and its
//   cubin, plus the default's cubin.
//
// A tuning that is killed loses at most the candidate in flight; run again,
// it continues the shape where it stopped, so an exhaustive search can be
// spread over several runs and still ends with the exhaustive best.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autogemm/tuner.h"
#include "autogemm/tuning_cache.h"

namespace autogemm {

struct SessionOptions {
  TuneOptions tune;    ///< strategy, budget, families, worker, timeouts
  bool force = false;  ///< re-measure families that already have a winner
};

/// What happened to one family of one shape.
struct FamilyOutcome {
  std::string family;
  enum class State { Tuned, AlreadyTuned, NoWinner, Interrupted } state = State::NoWinner;
  std::optional<TrialRecord> winner;  ///< Tuned / AlreadyTuned: the stored or new winner
  bool stored = false;                ///< Tuned: the new winner replaced the stored one
};
const char* to_string(FamilyOutcome::State s);

struct ShapeOutcome {
  Problem problem;
  std::vector<FamilyOutcome> families;
  std::optional<TrialRecord> best;    ///< fastest winner over the families
  double default_gflops = 0;          ///< the built-in default, if measured
  int measured = 0;                   ///< candidates measured in this run
  int resumed = 0;                    ///< trials taken from earlier runs
  int ruled_out = 0;                  ///< candidates left out unmeasured (ModelCutoff)
  TuningCost cost;
  bool interrupted = false;
};

/// Per-candidate progress of one shape.
struct TuneProgressEvent {
  size_t done = 0, total = 0;         ///< resumed trials count as done
  const Candidate* latest = nullptr;
  std::optional<TrialRecord> best;    ///< fastest verified so far
  double elapsed_s = 0;
  double eta_s = 0;                   ///< remaining, at this run's rate
};
using SessionProgress = std::function<void(const TuneProgressEvent&)>;

class TuningSession {
 public:
  /// `cache` must be open read-write and outlive the session.
  TuningSession(TuningCache& cache, const DeviceInfo& dev, SessionOptions opt);

  /// Tunes `p` (see the top of this file). Throws WorkerError when no
  /// worker can run, CacheError when the store cannot be written.
  ShapeOutcome tune(const Problem& p, const SessionProgress& progress = {});

  /// Asks every session of this process to stop after the candidate in
  /// flight. Async-signal-safe (a SIGINT handler may call it).
  static void request_stop();
  static bool stop_requested();
  /// Withdraws a stop request, so later tunings in this process run again.
  static void clear_stop();

 private:
  struct FamilyPlan;
  std::vector<FamilyPlan> plan(const Problem& p, ShapeOutcome& out) const;
  void finish_family(const Problem& p, const FamilyPlan& f, const TuneResult& r, ShapeOutcome& out);
  void store_cubin(const Candidate& c);

  TuningCache& cache_;
  DeviceInfo dev_;
  DeviceKey key_;
  SessionOptions opt_;
};

}  // namespace autogemm
