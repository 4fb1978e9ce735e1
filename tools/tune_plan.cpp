#include "tune_plan.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <stdexcept>

#include "autogemm/kernel_families.h"

namespace autogemm {

std::vector<TuneJob> recorded_jobs(const TuningCache& cache, const DeviceKey& dev, bool force,
                                   const TuneOptions& opt) {
  const std::vector<WinnerRecord> winners = cache.load_winners(dev);
  // In fp32_accurate mode a shape tuned for strict FFMA alone still lacks
  // the tensor-core families that mode adds; a winner timed in the other
  // regime is tuned again.
  auto counts = [&](const WinnerRecord& w) {
    if (w.timing != opt.timing) return false;
    if (opt.math_mode == MathMode::Strict) return true;
    const KernelFamily* f = find_family(w.family);
    return f && f->accuracy() == AccuracyClass::Fp32Accurate;
  };
  std::vector<TuneJob> jobs;
  for (const ShapeRequest& r : cache.load_requests(dev)) {
    const bool tuned = std::any_of(winners.begin(), winners.end(),
                                   [&](const WinnerRecord& w) { return w.shape == r.shape && counts(w); });
    if (tuned && !force) continue;
    const Problem p = make_problem(r.shape);
    jobs.push_back({p.to_string(), p});
  }
  return jobs;
}

std::vector<TuneJob> spec_jobs(const std::vector<ShapeSpec>& specs, bool unaligned) {
  std::vector<TuneJob> jobs;
  for (const ShapeSpec& s : specs) {
    Problem p = s.problem();
    p.aligned = p.aligned && !unaligned;
    jobs.push_back({s.to_string() + (p.aligned ? "" : " unaligned"), p});
  }
  return jobs;
}

std::vector<TuneJob> rank_share(const std::vector<TuneJob>& jobs, const LaunchRank& rank) {
  std::vector<double> costs;
  for (const TuneJob& j : jobs) costs.push_back(tuning_cost_estimate(j.problem));
  const std::vector<std::vector<size_t>> groups = balance(costs, rank.size);
  std::vector<TuneJob> out;
  for (size_t i : groups[size_t(rank.rank)]) out.push_back(jobs[i]);
  return out;
}

std::vector<DeviceWork> plan_devices(const std::vector<DeviceInfo>& devices, const LaunchRank& rank,
                                     const std::function<std::vector<TuneJob>(const DeviceKey&)>& jobs_of) {
  std::vector<DeviceWork> out(devices.size());
  std::vector<bool> done(devices.size(), false);
  for (size_t d = 0; d < devices.size(); ++d) {
    if (done[d]) continue;
    const DeviceKey key = devices[d].key();
    std::vector<size_t> same;  // the GPUs sharing d's key: one set of rows
    for (size_t e = d; e < devices.size(); ++e)
      if (!done[e] && devices[e].key() == key) same.push_back(e), done[e] = true;
    const std::vector<TuneJob> share = rank_share(jobs_of(key), rank);
    std::vector<double> costs;
    for (const TuneJob& j : share) costs.push_back(tuning_cost_estimate(j.problem));
    const auto groups = balance(costs, int(same.size()));
    for (size_t i = 0; i < same.size(); ++i) {
      DeviceWork& w = out[same[i]];
      w.ordinal = devices[same[i]].ordinal;
      w.device = devices[same[i]];
      for (size_t j : groups[i]) w.jobs.push_back(share[j]);
    }
  }
  return out;
}

int local_device(const LocalRank& local, int count) {
  if (local.source.empty())
    throw std::invalid_argument(
        "--device local takes the GPU from the launcher's node-local rank ($OMPI_COMM_WORLD_LOCAL_RANK, "
        "$MPI_LOCALRANKID, $PMI_LOCAL_RANK or $SLURM_LOCALID), and none is set: run under mpirun or srun, or "
        "give a GPU (--device 0)");
  if (count < 1) throw std::invalid_argument("--device local: this machine has no GPU");
  return local.rank % count;
}

int visible_gpu_count_from_environment() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!v) return -1;
  const std::string text = v;
  int n = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const bool uuid = item.rfind("GPU-", 0) == 0 || item.rfind("MIG-", 0) == 0;
    if (!uuid && (item.empty() || item.find_first_not_of("0123456789") != std::string::npos)) return -1;
    ++n, at = comma + 1;
  }
  return n;
}

std::string plan_device_text(const std::string& text, const LocalRank& local, int visible) {
  const std::string shown = std::to_string(visible) + " $CUDA_VISIBLE_DEVICES shows";
  if (text == "local") {
    const int gpu = local_device(local, visible < 0 ? INT_MAX : visible);
    const std::string of = local.size > 0 ? " of " + std::to_string(local.size) : "";
    return "local rank " + std::to_string(local.rank) + of + " ($" + local.source + ") -> GPU " + std::to_string(gpu) +
           (visible < 0 ? " (modulo the visible GPUs)" : " (modulo the " + shown + ")");
  }
  if (text == "all") {
    if (visible >= 0) parse_device_list(text, visible);  // refuses none visible, as a real run does
    return "every GPU" + (visible < 0 ? std::string(" of this host") : " (the " + shown + ")");
  }
  // The real run's check, against the visible count where it is known.
  const std::vector<int> gpus = parse_device_list(text, visible < 0 ? INT_MAX : visible);
  std::string list;
  for (int g : gpus) list += (list.empty() ? "" : ",") + std::to_string(g);
  return (gpus.size() == 1 ? "GPU " : "GPUs ") + list + (visible < 0 ? "" : " (of the " + shown + ")");
}

}  // namespace autogemm
