// OnlineTuner: AUTOGEMM_TUNE=1 tunes a shape the first time this process
// dispatches it without a tuned entry, so the next calls run its winner.
//
// Why a child process, and gemm_tune: candidates that fault or hang must
// never touch the application's CUDA context, and gemm_tune already runs
// them in its worker, verifies them, stores every trial and the winner in
// the cache and resumes an interrupted shape. The library starts
// `gemm_tune --device D --db CACHE --shape S` (posix_spawn, output to
// /dev/null, no inherited descriptors beyond the standard three), and the
// call that asked for it runs the dispatch policy's plan meanwhile, so the
// result is correct and on time; nothing waits for the tuning.
//
// Budget: --budget candidates per family (AUTOGEMM_TUNE_BUDGET, default 32)
// and a wall-clock limit (AUTOGEMM_TUNE_SECONDS, default 60): past it the
// child gets SIGINT (gemm_tune stops after the candidate in flight, every
// measured trial kept, so a later process continues the shape), then
// SIGKILL 10 s later. One tuning at a time per process; each shape is asked
// for at most once per process, whatever the outcome.
//
// The caller says when a call is inside CUDA-graph capture (the dispatcher
// asks cuStreamIsCapturing): such a call never starts a tuning, and the
// shape stays eligible for the next call outside capture.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "autogemm/tuning_keys.h"

namespace autogemm {

class OnlineTuner {
 public:
  struct Settings {
    bool enabled = false;
    std::string tuner;    ///< gemm_tune's path (empty: not found; nothing starts)
    int budget = 32;      ///< candidates per family
    double seconds = 60;  ///< wall-clock limit of one tuning
    double grace = 10;    ///< seconds from SIGINT to SIGKILL
  };

  /// AUTOGEMM_TUNE, AUTOGEMM_TUNE_BUDGET, AUTOGEMM_TUNE_SECONDS and the tuner:
  /// $AUTOGEMM_GEMM_TUNE, else gemm_tune in ../bin or ../tools beside the
  /// library file (an install tree, a build tree). `warnings` gets a line
  /// for each value that was not understood.
  static Settings from_environment(std::vector<std::string>* warnings);
  /// The tuner's environment: `env` without an MPI or Slurm launcher's rank
  /// variables. The application may be one rank of many; its tuning is not,
  /// and gemm_tune would otherwise take a rank's share of one shape, want a
  /// per-rank cache path and rebind its CPUs.
  static std::vector<std::string> child_environment(const char* const* env);

  explicit OnlineTuner(Settings s);
  /// Waits for the tuning in flight (at most its time limit and grace). The
  /// process-wide dispatcher is never destroyed: a child still running at
  /// exit finishes its shape on its own.
  ~OnlineTuner();
  OnlineTuner(const OnlineTuner&) = delete;
  OnlineTuner& operator=(const OnlineTuner&) = delete;

  bool enabled() const { return s_.enabled && !s_.tuner.empty(); }

  /// Asks for a tuning of `shape` on GPU `device` into `cache_path`. Returns
  /// true if this call started one; false if the shape was asked for before,
  /// another tuning runs, or `capturing` (the caller's stream is being
  /// captured into a graph: ask again later).
  bool request(const std::string& cache_path, int device, const ShapeKey& shape, bool capturing);

  /// True once after each tuning that ended with gemm_tune's success: the
  /// caller reloads the winners (exchange, so one caller sees it). Called on
  /// every dispatch: a relaxed load first keeps the locked exchange off the
  /// path while nothing has finished.
  bool take_finished() {
    return finished_.load(std::memory_order_relaxed) && finished_.exchange(false, std::memory_order_acq_rel);
  }

  /// The arguments of the gemm_tune run for a request (also for tests).
  std::vector<std::string> arguments(const std::string& cache_path, int device, const ShapeKey& shape) const;

  /// Tests: blocks until no tuning runs; returns how the last one ended
  /// (true: gemm_tune exited 0).
  bool wait_idle();

 private:
  void supervise(pid_t child);

  const Settings s_;
  std::mutex mu_;
  std::condition_variable idle_;
  bool running_ = false;
  bool last_ok_ = false;
  std::set<std::tuple<int, int64_t, int64_t, int64_t, bool, bool, bool, int64_t>> asked_;  ///< device, shape
  std::atomic<bool> finished_{false};
  std::thread supervisor_;
};

}  // namespace autogemm
