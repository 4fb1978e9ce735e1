// Dispatcher: the path of every autogemm_sgemm call.
//
//   validate -> quick return -> pointers -> normalize -> plan lookup
//   (memory; on first sight of a shape: policy + kernel load) -> launch
//
// The steady state (a shape seen before on this context) takes the current
// context and whether the stream is capturing from the driver, two hash
// lookups under shared locks (the context's state, the plan) and
// cuLaunchKernel: no SQL, no NVRTC, no allocation.
//
// Errors are exceptions here, as everywhere inside autogemm; the C API
// (c_api.cpp) is the one place that turns them into a status and the text of
// autogemm_last_error.
#pragma once

#include <cuda.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "autogemm/autogemm.h"
#include "autogemm/dispatch_policy.h"
#include "autogemm/math_mode.h"
#include "autogemm/problem.h"
#include "autogemm/online_tuner.h"
#include "autogemm/shape_recorder.h"
#include "autogemm/gemm_args.h"

namespace autogemm {

class TuningCache;
struct DispatchCounters;
struct ContextState;

/// A failure the dispatcher finds itself rather than one a lower layer
/// throws: a bad argument, no driver, no current context. what() is the
/// detail for autogemm_last_error.
class ApiError : public std::runtime_error {
 public:
  ApiError(autogemm_status status, const std::string& detail)
      : std::runtime_error(detail), status_(status) {}
  autogemm_status status() const { return status_; }

 private:
  autogemm_status status_;
};

/// The plan of one call, as autogemm_describe* report it.
struct PlanDescription {
  std::string family;  ///< first word of the config text ("tiled", "generic")
  std::string config;  ///< canonical config text
  PlanSource source = PlanSource::Default;
  MathMode mode = MathMode::Strict;            ///< the mode the plan was made for
  AccuracyClass accuracy = AccuracyClass::StrictFp32;  ///< of the plan's family
};

class Dispatcher {
 public:
  /// The process-wide dispatcher behind the C API.
  static Dispatcher& instance();

  Dispatcher();
  ~Dispatcher();

  /// Selects the cache file (nullptr: default path) and forgets loaded plans.
  /// Calls in flight keep what they hold until they return. An unusable file
  /// leaves autogemm on built-in defaults and throws its CacheError.
  void init(const char* path);
  void shutdown();

  /// Runs (or quick-returns) one call. Throws ApiError for bad arguments, no
  /// driver or no context; CudaError, CompileError, std::bad_alloc, ... from below.
  void sgemm(const GemmArgs& args, CUstream stream);
  /// The plan sgemm would use for `args` (alpha and beta are not looked at);
  /// throws as sgemm does.
  PlanDescription describe(const GemmArgs& args);
  void stats(autogemm_stats* out) const;

  /// Math modes (autogemm_set_math_mode): the process mode starts as
  /// $AUTOGEMM_MATH_MODE; a thread may override it.
  void set_process_mode(MathMode m);
  void set_thread_mode(std::optional<MathMode> m);
  MathMode mode() const;

  /// Recording of the shapes dispatched (autogemm_record_shapes); starts as
  /// $AUTOGEMM_RECORD_UNTUNED says.
  void set_recording(bool on) { recorder_.set_enabled(on); }
  /// Writes the recorded counts to the cache file now; throws CacheError.
  void flush_recorded();

 private:
  std::shared_ptr<ContextState> context_state(CUcontext ctx);
  /// The caller's current context, or ApiError (no driver, no context).
  static CUcontext current_context();
  void open_store_locked();
  /// open_store_locked the first time; a failure leaves built-in defaults (logged).
  void open_store_once_locked();

  std::unique_ptr<DispatchCounters> counters_;
  std::atomic<int> process_mode_;
  mutable std::shared_mutex mu_;
  std::string path_;
  bool path_chosen_ = false;
  bool store_opened_ = false;
  std::unique_ptr<TuningCache> store_;
  bool cubins_trusted_ = false;  ///< store_'s cubins may be loaded (TuningCache::cubins_trusted)
  std::vector<std::shared_ptr<ContextState>> contexts_;
  ShapeRecorder recorder_;
  std::unique_ptr<OnlineTuner> online_;  ///< AUTOGEMM_TUNE=1

  /// After an online tuning stored its winner: forget the loaded plans (calls
  /// in flight keep theirs), opening the cache if the tuning created it.
  void reload_after_tuning();
  /// Starts an online tuning of a call's shape that has no exact plan, unless
  /// its stream is `capturing` a CUDA graph.
  void tune_online(const ContextState& state, const Problem& p, bool capturing);
};

}  // namespace autogemm
