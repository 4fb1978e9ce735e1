// Dispatcher: the path of every autogemm_sgemm call.
//
//   validate -> quick return -> pointers -> normalize -> plan lookup
//   (memory; on first sight of a shape: policy + kernel load) -> launch
//
// The steady state (a shape seen before on this context) takes a shared lock,
// one hash lookup and cuLaunchKernel: no SQL, no NVRTC, no allocation.
#pragma once

#include <cuda.h>

#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "autogemm/autogemm.h"
#include "autogemm/problem.h"

namespace autogemm {

class TuningCache;
struct DispatchCounters;
struct ContextState;

class Dispatcher {
 public:
  /// The process-wide dispatcher behind the C API.
  static Dispatcher& instance();

  Dispatcher();
  ~Dispatcher();

  /// Selects the cache file (nullptr: default path) and forgets loaded plans.
  /// Calls in flight keep what they hold until they return. Never throws.
  autogemm_status init(const char* path);
  void shutdown();

  autogemm_status sgemm(const GemmArgs& args, CUstream stream) noexcept;
  autogemm_status describe(const GemmArgs& args, std::string* config) noexcept;
  void stats(autogemm_stats* out) const;

 private:
  std::shared_ptr<ContextState> context_state(CUcontext ctx);
  void open_store_locked();

  std::unique_ptr<DispatchCounters> counters_;
  mutable std::shared_mutex mu_;
  std::string path_;
  bool path_chosen_ = false;
  bool store_opened_ = false;
  std::unique_ptr<TuningCache> store_;
  std::vector<std::shared_ptr<ContextState>> contexts_;
};

}  // namespace autogemm
