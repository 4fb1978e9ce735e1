// gemm_tune's plan: which shapes this process tunes on which of its GPUs,
// from the launch rank (mpirun / srun) and the GPUs' device keys
// (autogemm/fleet.h). No GPU is touched here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "autogemm/device_info.h"
#include "autogemm/fleet.h"
#include "autogemm/problem.h"

namespace autogemm {

/// A problem to tune and how the output names it.
struct TuneJob {
  std::string label;
  Problem problem;
};

/// One GPU of this process and the shapes it tunes.
struct DeviceWork {
  int ordinal = 0;
  DeviceInfo device;
  std::vector<TuneJob> jobs;
};

/// This rank's share of `jobs` (balanced by tuning_cost_estimate), in order.
std::vector<TuneJob> rank_share(const std::vector<TuneJob>& jobs, const LaunchRank& rank);

/// The work of each GPU in `devices`: for each device key, this rank's share
/// of `jobs_of(key)` (the shape list, or that device's record), split among
/// the GPUs of that key.
std::vector<DeviceWork> plan_devices(const std::vector<DeviceInfo>& devices, const LaunchRank& rank,
                                     const std::function<std::vector<TuneJob>(const DeviceKey&)>& jobs_of);

}  // namespace autogemm
