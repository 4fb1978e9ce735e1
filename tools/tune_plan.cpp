#include "tune_plan.h"

namespace autogemm {

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

}  // namespace autogemm
