// gemm_tune's plan: which shapes (given, or recorded and not yet tuned) this
// process tunes on which of its GPUs, from the launch rank (mpirun / srun)
// and the GPUs' device keys (autogemm/fleet.h). No GPU is touched here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "autogemm/device_info.h"
#include "autogemm/fleet.h"
#include "autogemm/problem.h"
#include "autogemm/shape_spec.h"
#include "autogemm/tuner.h"
#include "autogemm/tuning_cache.h"

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

/// The shapes an application recorded on `dev` without a tuned entry in
/// `opt`'s math mode and timing regime (all of them with `force`), most
/// called first.
std::vector<TuneJob> recorded_jobs(const TuningCache& cache, const DeviceKey& dev, bool force,
                                   const TuneOptions& opt);

/// The shapes as given, in the aligned class, or in the unaligned one
/// (`unaligned`: the kernels an odd pointer or leading dimension gets).
std::vector<TuneJob> spec_jobs(const std::vector<ShapeSpec>& specs, bool unaligned);

/// This rank's share of `jobs` (balanced by tuning_cost_estimate), in order.
std::vector<TuneJob> rank_share(const std::vector<TuneJob>& jobs, const LaunchRank& rank);

/// The work of each GPU in `devices`: for each device key, this rank's share
/// of `jobs_of(key)` (the shape list, or that device's record), split among
/// the GPUs of that key.
std::vector<DeviceWork> plan_devices(const std::vector<DeviceInfo>& devices, const LaunchRank& rank,
                                     const std::function<std::vector<TuneJob>(const DeviceKey&)>& jobs_of);

/// The GPU of this rank among `count` visible GPUs (--device local): its
/// node-local rank modulo `count`. Throws std::invalid_argument when no
/// launcher set a node-local rank (outside a launcher every process would
/// take GPU 0, which is what --device 0 says plainly) or there is no GPU.
int local_device(const LocalRank& local, int count);

/// How many GPUs $CUDA_VISIBLE_DEVICES shows this process (0 for an empty
/// value); -1 when it is unset or not a plain list of indices or UUIDs.
int visible_gpu_count_from_environment();

/// --plan's words for the GPUs --device `text` names, e.g. "local rank 1 of
/// 2 ($OMPI_COMM_WORLD_LOCAL_RANK) -> GPU 1 (modulo the visible GPUs)",
/// without touching a GPU; `visible` is the GPU count when known without
/// one (visible_gpu_count_from_environment), else -1. Throws
/// std::invalid_argument, with the words a real run would use, for a value
/// a real run would refuse.
std::string plan_device_text(const std::string& text, const LocalRank& local, int visible);

}  // namespace autogemm
