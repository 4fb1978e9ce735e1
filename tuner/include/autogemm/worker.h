// Worker: runs candidate kernels in a separate process, with a deadline.
//
// Why: a kernel that traps or reads out of bounds leaves a sticky error that
// makes its CUDA context (and so the whole process) useless, and a kernel
// that never finishes blocks it forever. The tuner therefore never loads a
// candidate itself: it hands the cubin to autogemm_worker (posix_spawn, i.e.
// exec right away, so no CUDA or SQLite state crosses a fork), which loads,
// verifies and times it. When the worker dies, reports a sticky error or
// misses the deadline, the candidate is recorded as Crashed or Timeout, the
// worker is killed and reaped, and the next candidate gets a fresh one (the
// problem's buffers are set up again there). Protocol: worker_protocol.h.
//
// The worker's stdin is /dev/null, its stdout goes to stderr (so nothing a
// library prints can corrupt the protocol, which runs on fd 3), and its
// stderr is the tuner's.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "autogemm/worker_protocol.h"

namespace autogemm {

/// The worker cannot be found, started, or set up for a problem.
class WorkerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What one candidate did in the worker (Timeout / Crashed when it faulted).
struct WorkerOutcome {
  TrialStatus status = TrialStatus::Crashed;
  double median_ms = 0, spread_ms = 0;
  int runs = 0, registers = 0, local_bytes = 0;
  std::string detail;
};

class Worker {
 public:
  /// Name of the worker executable.
  static constexpr const char* kExecutable = "autogemm_worker";

  /// Where the worker is: `configured` if not empty, else $AUTOGEMM_WORKER,
  /// else autogemm_worker next to the running program (/proc/self/exe).
  /// Throws WorkerError with one sentence saying where it looked.
  static std::string locate(const std::string& configured = "");

  /// `path`: the executable (locate()); `device`: CUDA ordinal. Nothing is
  /// started until set_problem().
  Worker(std::string path, int device);
  ~Worker();  ///< closes the channel, waits briefly, then SIGKILLs
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// Sets up `p` (operands, FP64 reference) in the worker, starting one if
  /// none runs; remembered, and re-sent to every replacement worker.
  /// Throws WorkerError when the worker cannot start or set up the problem
  /// within `timeout_s`.
  void set_problem(const Problem& p, unsigned seed, double timeout_s,
                   TimingRegime timing = TimingRegime::Rotate);

  /// Loads, runs once on poisoned C, verifies and (if correct) times one
  /// candidate. `best_ms`: fastest verified time so far (+inf if none).
  /// Never throws for what the candidate does: a missed deadline gives
  /// Timeout, a dead worker, sticky CUDA error or garbled reply gives Crashed;
  /// the worker is then replaced before the next run. Throws WorkerError only
  /// when no replacement worker can be started or set up.
  WorkerOutcome run(const std::string& config, const std::vector<char>& cubin, double best_ms, double timeout_s);

  /// Worker processes started so far (1 + replacements).
  int started() const { return started_; }
  /// Process id of the current worker, 0 if none runs.
  pid_t pid() const { return pid_; }

 private:
  void start();
  void setup(double timeout_s);
  /// SIGKILLs (unless already gone) and reaps the worker; returns how it ended.
  std::string stop(bool kill_now);

  std::string path_;
  int device_;
  pid_t pid_ = 0;
  int fd_ = -1;  ///< our end of the socketpair
  int started_ = 0;
  bool have_problem_ = false;
  wire::ProblemMsg problem_;
  double setup_timeout_s_ = 60;
};

/// Default per-candidate deadline for `p`: 20 s, plus time for about ten
/// runs at 100 GFLOP/s (a very slow candidate) so big problems are not cut.
double default_candidate_timeout(const Problem& p);
/// Deadline of a worker's problem set-up (FP64 reference on the GPU).
double default_setup_timeout(const Problem& p);

}  // namespace autogemm
