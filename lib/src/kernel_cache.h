// KernelCache: config -> loaded kernel, per CUDA context.
//
// Lookup order on a miss: a cubin stored in the tuning cache (built for this
// exact template hash, config, arch and NVRTC version), else NVRTC. Loaded
// kernels live as long as the cache. Thread-safe; only misses take the lock
// for long.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "autogemm/device_info.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/tuning_cache.h"

namespace autogemm {

struct DispatchCounters;

class KernelCache {
 public:
  KernelCache(DeviceInfo dev, TuningCache* store, DispatchCounters* counters)
      : dev_(std::move(dev)), store_(store), counters_(counters) {}

  /// The kernel for `cfg`, loading or compiling it on first use. The caller's
  /// context must be current. Throws CompileError, LimitsError or CudaError.
  std::shared_ptr<const LoadedKernel> get(const KernelConfig& cfg);

  const DeviceInfo& device() const { return dev_; }

 private:
  DeviceInfo dev_;
  TuningCache* store_;  // may be null: no cache file, or one whose cubins are not trusted
  DispatchCounters* counters_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const LoadedKernel>> kernels_;
};

}  // namespace autogemm
